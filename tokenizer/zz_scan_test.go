package tokenizer

import (
	"math/rand"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/assets/synth"
)

func TestZZScan(t *testing.T) {
	if os.Getenv("ZZSCAN") == "" {
		t.Skip()
	}
	files, _ := filepath.Glob("../../shared/data/*/*.glb")
	maxJ, maxV, fail, tot := 0, 0, 0, 0
	t0 := time.Now()
	for _, f := range files {
		c, err := assets.Load(f)
		if err != nil {
			fail++
			t.Logf("%s: %v", f, err)
			continue
		}
		tot++
		n := c.Skeleton.NumJoints()
		if n > maxJ {
			maxJ = n
			t.Logf("max joints %d %s", n, f)
		}
		if len(c.Mesh.Positions) > maxV {
			maxV = len(c.Mesh.Positions)
		}
		if n > 128 {
			t.Logf("over 128: %s %d", f, n)
		}
	}
	t.Logf("files %d ok %d fail %d maxJ %d maxV %d in %v", len(files), tot, fail, maxJ, maxV, time.Since(t0))
}

func BenchmarkZZStep(b *testing.B) {
	files, _ := Families([]string{"../../shared/data"})
	set, _ := loadTrainChars(files[:40], 1, func(string, ...any) {})
	m, _ := newCVAE[float32](DefaultCVAEConfig(), 1)
	rng := rand.New(rand.NewSource(1))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		bt := makeBatch(rng, set, 4, 8, 128, true)
		m.step(bt, true)
	}
}

func TestZZFam(t *testing.T) {
	if os.Getenv("ZZSCAN") == "" {
		t.Skip()
	}
	files, _ := Families([]string{"../../shared/data"})
	fams := map[string]int{}
	for _, f := range files {
		fams[f.Family]++
	}
	nv := 0
	for f, n := range fams {
		if IsValidationFamily(f) {
			t.Logf("VAL %3d %s", n, f)
			nv += n
		}
	}
	t.Logf("%d families, %d val files", len(fams), nv)
	t0 := time.Now()
	for i, k := range synth.Kinds() {
		c, err := synth.Generate(k, int64(i+1), synth.Options{TargetVertices: 2000})
		if err != nil {
			t.Log(err)
			continue
		}
		t.Logf("%s: %d verts %d joints %v", k, len(c.Mesh.Positions), c.Skeleton.NumJoints(), time.Since(t0))
	}
}
