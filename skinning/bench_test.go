package skinning

import (
	"fmt"
	"sync"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/cputime"
	"github.com/rigkit/rigkit/internal/meshtest"
	"github.com/rigkit/rigkit/synth"
	"github.com/rigkit/rigkit/vecmath"
)

var (
	benchMu    sync.Mutex
	benchChars = map[string]*character.Character{}
)

// benchCharacter generates (once) a 20k-vertex synthetic creature.
func benchCharacter(b *testing.B, kind string, seed int64) *character.Character {
	benchMu.Lock()
	defer benchMu.Unlock()
	key := fmt.Sprint(kind, seed)
	if c, ok := benchChars[key]; ok {
		return c
	}
	c, err := synth.Generate(kind, seed, synth.Options{TargetVertices: 20000})
	if err != nil {
		b.Fatal(err)
	}
	benchChars[key] = c
	return c
}

func benchGeodesic(b *testing.B, c *character.Character, opt GeodesicOptions) {
	b.ReportAllocs()
	var f *Field
	cpu0 := cputime.Process()
	for i := 0; i < b.N; i++ {
		var err error
		f, err = NewField(c, opt.FieldOptions)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := f.Skin(c.Mesh, opt); err != nil {
			b.Fatal(err)
		}
	}
	// CPU time (both cores together) is what a shared machine cannot distort.
	b.ReportMetric(float64((cputime.Process()-cpu0).Microseconds())/1e3/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(f.SolidVoxels), "solid-voxels")
	b.ReportMetric(float64(f.WindingQueries), "winding-queries")
	b.ReportMetric(float64(f.VoxelizeTime.Microseconds())/1e3, "voxelize-ms")
	b.ReportMetric(float64(f.SearchTime.Microseconds())/1e3, "search-ms")
}

// BenchmarkGeodesic is the target: a 20k-vertex, ~60-joint character
// (synthetic biped, 59 joints) at the automatic resolution.
func BenchmarkGeodesic(b *testing.B) {
	c := benchCharacter(b, "biped", 1)
	b.Logf("V=%d J=%d", len(c.Mesh.Positions), c.Skeleton.NumJoints())
	benchGeodesic(b, c, GeodesicOptions{})
}

// BenchmarkGeodesicResolution shows how the cost grows with the voxel resolution.
func BenchmarkGeodesicResolution(b *testing.B) {
	c := benchCharacter(b, "biped", 1)
	for _, res := range []int{48, 64, 96, 128, 160} {
		b.Run(fmt.Sprintf("res=%d", res), func(b *testing.B) {
			benchGeodesic(b, c, GeodesicOptions{FieldOptions: FieldOptions{Resolution: res}})
		})
	}
}

// BenchmarkGeodesicJoints shows how the cost grows with the joint count (20k
// vertices, resolution 96).
func BenchmarkGeodesicJoints(b *testing.B) {
	for _, k := range []struct {
		kind string
		seed int64
	}{{"snake", 1}, {"biped", 3}, {"biped", 2}, {"biped", 1}, {"tailed", 1}} {
		c := benchCharacter(b, k.kind, k.seed)
		b.Run(fmt.Sprintf("joints=%d", c.Skeleton.NumJoints()), func(b *testing.B) {
			benchGeodesic(b, c, GeodesicOptions{FieldOptions: FieldOptions{Resolution: 96}})
		})
	}
}

// BenchmarkRigid is the floor's cost on the same character, the baseline of the
// ratios reported in docs/skinning.md.
func BenchmarkRigid(b *testing.B) {
	c := benchCharacter(b, "biped", 1)
	cpu0 := cputime.Process()
	for i := 0; i < b.N; i++ {
		Rigid(c)
	}
	b.ReportMetric(float64((cputime.Process()-cpu0).Microseconds())/1e3/float64(b.N), "cpu-ms/op")
}

// BenchmarkBindBlocks is what `rig skin` and `rig auto` add to every skin
// (--blocks): on the smooth 20k-vertex biped it finds no block, and on a grid
// of 2,000 loose boxes it binds them all.
func BenchmarkBindBlocks(b *testing.B) {
	boxes := &character.Character{Name: "boxes", Skeleton: &character.Skeleton{Names: []string{"root"}, Parents: []int{-1},
		BindWorld: []vecmath.Mat4{vecmath.Identity4()}}}
	for i := range 2000 {
		lo := vecmath.Vec3{float64(i%50) * 2, float64(i/50) * 2, 0}
		meshtest.AppendLooseBox(&boxes.Mesh, lo, lo.Add(vecmath.Vec3{1, 1, 1}))
	}
	boxes.Skin = character.RigidSkin(boxes.Mesh.Positions, boxes.Skeleton)
	for _, c := range []*character.Character{benchCharacter(b, "biped", 1), boxes} {
		b.Run(fmt.Sprintf("vertices=%d", len(c.Mesh.Positions)), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				BindBlocks(c, c.Skin)
			}
		})
	}
}
