package rigmodel

import (
	"math/rand"
	"testing"

	"github.com/rigkit/rigkit/assets/synth"
	"github.com/rigkit/rigkit/tokens"
)

func TestRegionKeepsSampledJointsInsideTheMesh(t *testing.T) {
	mesh := synth.BoxQuadruped()
	nm, _ := NormalizedMesh(&mesh)
	reg := MeshRegion(&nm)
	if reg == nil {
		t.Fatal("no region for a closed mesh")
	}
	inside := 0
	for _, o := range reg.occ {
		if o {
			inside++
		}
	}
	if inside == 0 || inside == len(reg.occ) {
		t.Fatalf("region has %d of %d voxels", inside, len(reg.occ))
	}
	m, err := NewModel(tinyConfig, 9)
	if err != nil {
		t.Fatal(err)
	}
	lat, err := m.Encode(SamplePoints(&nm, tinyConfig.Points, rand.New(rand.NewSource(1))), nil)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(2))
	outside := [2]int{}
	for s := 0; s < 10; s++ {
		for k, region := range []*Region{nil, reg} {
			sess, err := m.NewSession(lat)
			if err != nil {
				t.Fatal(err)
			}
			smp, err := Generate(sess, nil, SampleOptions{Temperature: 1, MaxJoints: 12, StopAtSEP: true, Region: region}, rng)
			if err != nil {
				t.Fatal(err)
			}
			sk, err := tokens.DecodeSkeleton(smp.Tokens)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range sk.Positions() {
				var b [3]int
				for a := range b {
					b[a] = tokens.Bin(p[a])
				}
				if !reg.allows(2, b, b[2]) {
					outside[k]++
				}
			}
		}
	}
	// An untrained model scatters joints over the cube; the region mask keeps them in.
	if outside[0] == 0 {
		t.Error("unconstrained sampling never left the mesh: the test shows nothing")
	}
	if outside[1] != 0 {
		t.Errorf("%d joints outside the region with the region mask", outside[1])
	}
}
