package tokenizer

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rigkit/rigkit/assets"
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
