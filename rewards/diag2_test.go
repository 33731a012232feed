package rewards

import (
	"fmt"
	"math"
	"os"
	"testing"

	"github.com/rigkit/rigkit/assets"
)

func TestDiag2(t *testing.T) {
	f := os.Getenv("DIAG2")
	if f == "" {
		t.Skip()
	}
	c, err := assets.Load("../../shared/data/" + f)
	if err != nil {
		t.Fatal(err)
	}
	for j, b := range c.Skeleton.BindWorld {
		// column norms
		var n [3]float64
		for col := 0; col < 3; col++ {
			n[col] = math.Sqrt(b[col*4]*b[col*4] + b[col*4+1]*b[col*4+1] + b[col*4+2]*b[col*4+2])
		}
		if j < 6 {
			fmt.Printf("joint %d %s parent %d scale %.4f %.4f %.4f det %.4f\n", j, c.Skeleton.Names[j], c.Skeleton.Parents[j], n[0], n[1], n[2], b.Det())
		}
	}
	rig := RigidWeights(c.Mesh.Positions, c.Skeleton)
	for _, ang := range []float64{10, 20, 45} {
		opt := Options{Poses: 8, MaxAngle: ang * math.Pi / 180}
		p, _ := Prepare(&c.Mesh, opt)
		r1, _ := p.Score(c, opt)
		c2 := c.Clone()
		c2.Skin = rig
		r2, _ := p.Score(c2, opt)
		d1, d2 := r1.Details.Deformation, r2.Details.Deformation
		fmt.Printf("angle %v artist strain %.3f flips %.4f vol %.3f | rigid strain %.3f flips %.4f vol %.3f\n", ang, d1.RMSStrain, d1.FlipRate, d1.VolumeDrift, d2.RMSStrain, d2.FlipRate, d2.VolumeDrift)
	}
}
