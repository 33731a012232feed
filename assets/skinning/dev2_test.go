package skinning

import (
	"fmt"
	"os"
	"testing"

	"github.com/rigkit/rigkit/assets"
)

func TestDevMass(t *testing.T) {
	fn := os.Getenv("DEVFILE")
	if fn == "" {
		t.Skip()
	}
	c, err := assets.Load(fn)
	if err != nil {
		t.Fatal(err)
	}
	sk, _ := Geodesic(c, GeodesicOptions{Power: 8})
	rg := Rigid(c)
	nj := c.Skeleton.NumJoints()
	mass := func(k *assets.Skin) []float64 {
		m := make([]float64, nj)
		for _, infl := range k.Weights {
			for _, in := range infl {
				m[in.Joint] += in.Weight
			}
		}
		return m
	}
	g, p, r := mass(c.Skin), mass(sk), mass(rg)
	ch := c.Skeleton.Children()
	for j := 0; j < nj; j++ {
		fmt.Printf("%2d %-28s parent %2d nch %d  gt %6.1f geo %6.1f rigid %6.1f  pos %.3v\n", j, c.Skeleton.Names[j], c.Skeleton.Parents[j], len(ch[j]), g[j], p[j], r[j], c.Skeleton.Position(j))
	}
}

func TestDevEmpty(t *testing.T) {
	fn := os.Getenv("DEVFILE2")
	if fn == "" {
		t.Skip()
	}
	c, _ := assets.Load(fn)
	f, _ := NewField(c, FieldOptions{})
	sk, _ := f.Skin(c.Mesh, GeodesicOptions{})
	for j, n := range c.Skeleton.Names {
		if n == "belly" || n == "neck1" || n == "r_femur" {
			mx := 0.0
			for _, infl := range sk.Weights {
				for _, in := range infl {
					if in.Joint == j && in.Weight > mx {
						mx = in.Weight
					}
				}
			}
			dmin := 1e9
			for v := 0; v < f.NumVertices; v++ {
				if d := f.Dist(v, j); d < dmin {
					dmin = d
				}
			}
			fmt.Println(n, j, "max weight", mx, "dmin", dmin, "V", f.NumVertices, "names dup?", c.Skeleton.Names)
		}
	}
}
