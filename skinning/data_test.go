package skinning

import (
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"testing"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/metrics"
	"github.com/rigkit/rigkit/synth"
)

// dataDir is ../shared/data beside the repository root.
func dataDir(t testing.TB) string {
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "shared", "data")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("real data not found at %s (CI lays shared/ beside the clone): %v", dir, err)
	}
	return dir
}

// TestRealSubset runs geodesic binding on a fixed subset of the real rigs: no orphan,
// no empty joint, valid weights, and on average closer to the artist's weights than
// the rigid floor.
func TestRealSubset(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(dataDir(t), "*", "*.glb"))
	sort.Strings(files)
	var geoL1, rigidL1, geoDef, rigidDef float64
	n := 0
	for i := 0; i < len(files); i += 27 {
		c, _, err := assets.Load(files[i], assets.Options{})
		if err != nil {
			t.Fatalf("load %s: %v", files[i], err)
		}
		k, err := Geodesic(c, GeodesicOptions{})
		if err != nil {
			t.Fatalf("%s: %v", files[i], err)
		}
		t.Run(filepath.Base(files[i]), func(t *testing.T) { checkSkin(t, c, k) })
		g, err := metrics.SkinMetrics(c, k, 1)
		if err != nil {
			t.Fatal(err)
		}
		r, _ := metrics.SkinMetrics(c, Rigid(c), 1)
		geoL1 += g.L1
		rigidL1 += r.L1
		geoDef += g.DeformMean
		rigidDef += r.DeformMean
		n++
	}
	t.Logf("%d files: geodesic L1 %.3f deformation %.2f; rigid floor L1 %.3f deformation %.2f",
		n, geoL1/float64(n), geoDef/float64(n), rigidL1/float64(n), rigidDef/float64(n))
	if geoL1 >= rigidL1 || geoDef >= rigidDef {
		t.Errorf("geodesic does not beat the rigid floor on this subset")
	}
}

// TestNoisySynthetic runs geodesic binding on noisy synthetic creatures (holes,
// fins, flipped triangles, floating pieces): no orphan, no empty joint; on the kinds
// with fingers and wings, leakage across parts is measured against a finer field and
// must not exceed the rigid floor's.
func TestNoisySynthetic(t *testing.T) {
	leakKinds := map[string]bool{"biped": true, "winged": true}
	for _, kind := range synth.Kinds() {
		t.Run(kind, func(t *testing.T) {
			c, err := synth.Generate(kind, 1, synth.Options{Noise: true, TargetVertices: 1200})
			if err != nil {
				t.Fatal(err)
			}
			f, err := NewField(c, FieldOptions{})
			if err != nil {
				t.Fatal(err)
			}
			k, err := f.Skin(c.Mesh, GeodesicOptions{})
			if err != nil {
				t.Fatal(err)
			}
			checkSkin(t, c, k)
			if !leakKinds[kind] {
				return
			}
			ref, err := NewField(c, FieldOptions{Resolution: 112, Cutoff: -1})
			if err != nil {
				t.Fatal(err)
			}
			geo, gt, rigid := ref.Leakage(k), ref.Leakage(c.Skin), ref.Leakage(Rigid(c))
			t.Logf("J=%d V=%d islands %d; leak weight geodesic %.4f, synth ground truth %.4f, rigid %.4f",
				c.Skeleton.NumJoints(), len(c.Mesh.Positions), f.Islands, geo.Weight, gt.Weight, rigid.Weight)
			if geo.Weight > 0.01 || geo.Weight > rigid.Weight+1e-3 {
				t.Errorf("geodesic leakage %+v (rigid floor %+v)", geo, rigid)
			}
		})
	}
}
