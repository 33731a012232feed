package anatomy

import (
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/geom"
	"github.com/rigkit/rigkit/internal/meshtest"
	"github.com/rigkit/rigkit/vecmath"
)

// TestFeetApart checks the ground test of a Z-up candidate: two feet apart on
// the ground pass, however close the legs come above them; one foot, a flat
// back and three parts on the ground do not.
func TestFeetApart(t *testing.T) {
	box := func(m *character.Mesh, x0, y0, z0, x1, y1, z1 float64) {
		meshtest.AppendBox(m, vecmath.Vec3{x0, y0, z0}, vecmath.Vec3{x1, y1, z1})
	}
	torso := func(m *character.Mesh) { box(m, -0.3, 1, -0.15, 0.3, 1.8, 0.15) }
	for _, tc := range []struct {
		name  string
		build func(m *character.Mesh)
		want  bool
	}{
		{"two feet apart", func(m *character.Mesh) {
			torso(m)
			box(m, -0.3, 0, -0.1, -0.05, 1, 0.1)
			box(m, 0.05, 0, -0.1, 0.3, 1, 0.1)
		}, true},
		{"one block for both legs", func(m *character.Mesh) {
			torso(m)
			box(m, -0.3, 0, -0.1, 0.3, 1, 0.1)
		}, false},
		{"a flat bottom face whose corners are apart", func(m *character.Mesh) {
			box(m, -0.3, 0, -0.15, 0.3, 1.8, 0.15)
		}, false},
		{"arms and trunk on the ground", func(m *character.Mesh) {
			box(m, -0.1, 0, -0.1, 0.1, 1.8, 0.1)
			box(m, -0.5, 0, -0.1, -0.3, 1, 0.1)
			box(m, 0.3, 0, -0.1, 0.5, 1, 0.1)
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &character.Mesh{}
			tc.build(m)
			s := newShape(m, geom.NewWindingNumber(m), upFrame("y"))
			if got := feetApart(s); got != tc.want {
				t.Errorf("feetApart = %v, want %v", got, tc.want)
			}
		})
	}
}
