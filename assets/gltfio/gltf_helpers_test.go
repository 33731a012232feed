package gltfio

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/rigkit/rigkit/character"
)

// sharedDataDir returns ../shared/data beside the repository root, skipping the test
// when it is absent.
func sharedDataDir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "data")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("real data not found at %s (CI lays shared/ beside the clone): %v", dir, err)
	}
	return dir
}

// compareCharacters checks what a round trip must keep: positions (relative to the
// bounding box), joint names, parents, world positions and weights.
func compareCharacters(t *testing.T, label string, a, b *character.Character) {
	t.Helper()
	if len(a.Mesh.Positions) != len(b.Mesh.Positions) || len(a.Mesh.Triangles) != len(b.Mesh.Triangles) {
		t.Fatalf("%s: %d/%d vertices and %d/%d triangles", label, len(a.Mesh.Positions), len(b.Mesh.Positions),
			len(a.Mesh.Triangles), len(b.Mesh.Triangles))
	}
	lo, hi := a.Mesh.Bounds()
	scale := math.Max(hi.Sub(lo).Len(), 1e-12)
	for i := range a.Mesh.Positions {
		if d := a.Mesh.Positions[i].Dist(b.Mesh.Positions[i]) / scale; d > 1e-6 {
			t.Fatalf("%s: vertex %d moved by %.3g (relative): %v vs %v", label, i, d, a.Mesh.Positions[i], b.Mesh.Positions[i])
		}
	}
	for i := range a.Mesh.Triangles {
		if a.Mesh.Triangles[i] != b.Mesh.Triangles[i] {
			t.Fatalf("%s: triangle %d is %v, was %v", label, i, b.Mesh.Triangles[i], a.Mesh.Triangles[i])
		}
	}
	if a.Rigged() != b.Rigged() {
		t.Fatalf("%s: rigged %v, was %v", label, b.Rigged(), a.Rigged())
	}
	if a.Skeleton == nil {
		return
	}
	sa, sb := a.Skeleton, b.Skeleton
	if sa.NumJoints() != sb.NumJoints() {
		t.Fatalf("%s: %d joints, was %d", label, sb.NumJoints(), sa.NumJoints())
	}
	for j := range sa.Names {
		if sa.Names[j] != sb.Names[j] || sa.Parents[j] != sb.Parents[j] {
			t.Fatalf("%s: joint %d is %q (parent %d), was %q (parent %d)", label, j, sb.Names[j], sb.Parents[j], sa.Names[j], sa.Parents[j])
		}
		if d := sa.Position(j).Dist(sb.Position(j)) / scale; d > 1e-6 {
			t.Fatalf("%s: joint %q moved by %.3g (relative)", label, sa.Names[j], d)
		}
	}
	if a.Skin == nil {
		return
	}
	da, db := a.Skin.Dense(sa.NumJoints()), b.Skin.Dense(sb.NumJoints())
	for v := range da {
		for j := range da[v] {
			if math.Abs(da[v][j]-db[v][j]) > 1e-6 {
				t.Fatalf("%s: vertex %d weight on joint %q is %.8f, was %.8f", label, v, sa.Names[j], db[v][j], da[v][j])
			}
		}
	}
}
