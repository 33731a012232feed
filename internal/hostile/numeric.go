package hostile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The cases in this file load, but hold numbers that overflow the rigger's
// arithmetic: they reach code that the size limits never see.

// HugeCoordinates writes dir/huge-coordinates/huge.obj, a cube of 8 vertices
// whose corners lie 2e154 from the origin: squared distances overflow float64 to
// +Inf, every bind matrix is singular and the classical rig fails. The file loads
// (OBJ keeps float64 coordinates), so each command must fail with an error, or
// succeed, without a crash. It is not in Write: converting it to GLB is refused
// (float32 cannot hold 2e154), which the loadable cases of Write must not be.
func HugeCoordinates(dir string) (Case, error) {
	d, err := caseDir(dir, "huge-coordinates")
	if err != nil {
		return Case{}, err
	}
	const r = 2e154
	var b strings.Builder
	for i := 0; i < 8; i++ {
		fmt.Fprintf(&b, "v %g %g %g\n", float64(i&1)*r, float64(i>>1&1)*r, float64(i>>2&1)*r)
	}
	// Six quads, corners numbered from 1 as OBJ does.
	for _, f := range [][4]int{{1, 2, 4, 3}, {5, 6, 8, 7}, {1, 2, 6, 5}, {3, 4, 8, 7}, {1, 3, 7, 5}, {2, 4, 8, 6}} {
		fmt.Fprintf(&b, "f %d %d %d %d\n", f[0], f[1], f[2], f[3])
	}
	p := filepath.Join(d, "huge.obj")
	return Case{Name: "huge-coordinates", Path: p,
		What: "an 8-vertex OBJ cube with coordinates of 2e154 (squares overflow float64)"}, os.WriteFile(p, []byte(b.String()), 0o644)
}
