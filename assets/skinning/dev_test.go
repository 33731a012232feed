package skinning

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/rewards/metrics"
)

func TestDevSweep(t *testing.T) {
	if os.Getenv("DEV") == "" {
		t.Skip()
	}
	var files []string
	mb, _ := os.ReadFile("/work/shared/data/manifest.jsonl")
	for _, ln := range strings.Split(string(mb), "\n") {
		var r struct{ File, Category string }
		if json.Unmarshal([]byte(ln), &r) != nil {
			continue
		}
		if os.Getenv("ALL") != "" || (r.Category != "prop/mechanical" && r.Category != "") {
			files = append(files, "/work/shared/data/"+r.File)
		}
	}
	sort.Strings(files)
	step, _ := strconv.Atoi(os.Getenv("STEP"))
	if step == 0 {
		step = 10
	}
	pw, _ := strconv.ParseFloat(os.Getenv("POW"), 64)
	al, _ := strconv.ParseFloat(os.Getenv("ALPHA"), 64)
	sm, _ := strconv.Atoi(os.Getenv("SMOOTH"))
	mw, _ := strconv.ParseFloat(os.Getenv("MINW"), 64)
	if l, err := strconv.ParseFloat(os.Getenv("LEAF"), 64); err == nil {
		leafExtension = l
	}
	var sg, sr [3]float64
	n := 0
	for i := 0; i < len(files); i += step {
		c, err := assets.Load(files[i])
		if err != nil {
			t.Logf("%s: %v", files[i], err)
			continue
		}
		t0 := time.Now()
		f, err := NewField(c, FieldOptions{})
		if err != nil {
			t.Logf("%s: %v", files[i], err)
			continue
		}
		sk, err := f.Skin(c.Mesh, GeodesicOptions{Power: pw, Falloff: al, SmoothIterations: sm, MinWeight: mw})
		el := time.Since(t0)
		rg, _ := metrics.SkinMetrics(c, sk, 1)
		rr, _ := metrics.SkinMetrics(c, Rigid(c), 1)
		fmt.Printf("%-40s V=%5d J=%3d grid=%v solid=%6d wq=%6d isl=%d fb=%d %6.0fms | geo L1 %.3f P %.3f R %.3f D %.2f empty %d orph %d | rigid L1 %.3f D %.2f empty %d\n",
			filepath.Base(files[i]), f.NumVertices, f.NumJoints, f.Grid, f.SolidVoxels, f.WindingQueries, f.Islands, f.Fallbacks, float64(el.Microseconds())/1000,
			rg.L1, rg.Precision, rg.Recall, rg.DeformMean, len(rg.EmptyBones), rg.Orphans, rr.L1, rr.DeformMean, len(rr.EmptyBones))
		sg[0] += rg.L1
		sg[1] += rg.DeformMean
		sg[2] += rg.Recall
		sr[0] += rr.L1
		sr[1] += rr.DeformMean
		sr[2] += rr.Recall
		n++
	}
	fmt.Printf("MEAN geo L1 %.3f D %.2f R %.3f | rigid L1 %.3f D %.2f R %.3f (n=%d)\n", sg[0]/float64(n), sg[1]/float64(n), sg[2]/float64(n), sr[0]/float64(n), sr[1]/float64(n), sr[2]/float64(n), n)
}
