package sampler

import (
	"math/rand"
	"testing"

	"github.com/rigkit/rigkit/internal/modeltest"

	"github.com/rigkit/rigkit/rigmodel"
	"github.com/rigkit/rigkit/synth"
	"github.com/rigkit/rigkit/tokens"
)

func TestRegionKeepsSampledJointsInsideTheMesh(t *testing.T) {
	mesh := synth.BoxQuadruped()
	nm, _ := rigmodel.NormalizedMesh(&mesh)
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
	m, err := rigmodel.NewModel(modeltest.TinyConfig, 9)
	if err != nil {
		t.Fatal(err)
	}
	lat, err := m.Encode(rigmodel.SamplePoints(&nm, modeltest.TinyConfig.Points, rand.New(rand.NewSource(1))), nil)
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

func TestRegionNearTheProposal(t *testing.T) {
	c := modeltest.Rig(t)
	nm, norm := rigmodel.NormalizedMesh(&c.Mesh)
	reg := MeshRegion(&nm)
	cube := tokens.SkeletonToCube(c.Skeleton, norm)
	count := func(r *Region) int {
		n := 0
		for _, o := range r.occ {
			if o {
				n++
			}
		}
		return n
	}
	near := reg.near(cube, 0.1)
	if n, all := count(near), count(reg); n == 0 || n >= all {
		t.Fatalf("near region has %d of the region's %d voxels", n, all)
	}
	for i, o := range near.occ {
		if !o {
			continue
		}
		if !reg.occ[i] {
			t.Fatalf("voxel %d is near the proposal but outside the mesh region", i)
		}
		if !nearSkeleton(cube, near.grid.Center(i), 0.1) {
			t.Fatalf("voxel %d is farther than 0.1 from the proposal", i)
		}
	}
	// A skeleton no voxel is near, or none, leaves the region as it is.
	far := cube.Clone()
	for j, b := range far.BindWorld {
		b[12] += 10
		far.BindWorld[j] = b
	}
	if reg.near(far, 0.1) != reg || reg.near(nil, 0.1) != reg {
		t.Error("an empty narrowing changed the region")
	}
}
