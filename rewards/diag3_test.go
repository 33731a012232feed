package rewards

import (
	"fmt"
	"os"
	"testing"

	"github.com/rigkit/rigkit/assets"
)

func hardSeams(p *Prepared, skin *assets.Skin, nJ int) float64 {
	hard := 0
	dense := func(v int) map[int]float64 {
		m := map[int]float64{}
		for _, in := range skin.Weights[v] {
			m[in.Joint] += in.Weight
		}
		return m
	}
	for _, e := range p.edges {
		a, b := dense(e.a), dense(e.b)
		tv := 0.0
		for j, w := range a {
			d := w - b[j]
			if d < 0 {
				d = -d
			}
			tv += d
		}
		for j, w := range b {
			if _, ok := a[j]; !ok {
				tv += w
			}
		}
		if tv/2 > 0.75 {
			hard++
		}
	}
	return float64(hard) / float64(len(p.edges))
}

func TestDiag3(t *testing.T) {
	if os.Getenv("DIAG3") == "" {
		t.Skip()
	}
	files := realFiles(t)
	win := 0
	n := 0
	for i := 0; i < len(files); i += 7 {
		c, err := assets.Load(files[i])
		if err != nil {
			continue
		}
		p, _ := Prepare(&c.Mesh, Options{})
		a := hardSeams(p, c.Skin, c.Skeleton.NumJoints())
		r := hardSeams(p, RigidWeights(c.Mesh.Positions, c.Skeleton), c.Skeleton.NumJoints())
		n++
		if a < r {
			win++
		}
		fmt.Printf("%-60s artist %.3f rigid %.3f\n", files[i][20:], a, r)
	}
	fmt.Println("artist smoother on", win, "of", n)
}
