package skincodec

import (
	"slices"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// twoPieces is a strip of 4 triangles (vertices 0-5) and, apart from it, a quad
// (vertices 6-9) whose corner 9 is split by a seam into vertex 10.
func twoPieces() *character.Mesh {
	return &character.Mesh{
		Positions: []vecmath.Vec3{
			{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {0, 2, 0}, {1, 2, 0},
			{5, 0, 0}, {6, 0, 0}, {5, 1, 0}, {6, 1, 0}, {6, 1, 0},
		},
		Triangles: [][3]int{{0, 1, 2}, {1, 3, 2}, {2, 3, 4}, {3, 5, 4}, {6, 7, 8}, {7, 10, 8}},
	}
}

func one(j int) []character.Influence { return []character.Influence{{Joint: j, Weight: 1}} }

func mix(a, b int, wa float64) []character.Influence {
	return []character.Influence{{Joint: a, Weight: wa}, {Joint: b, Weight: 1 - wa}}
}

func TestSnapPieces(t *testing.T) {
	// The strip (6 of 11 vertices) is never snapped. The quad's 5 vertices have
	// heaviest joint 1 at 4 of them (80%), joint 0 at vertex 9.
	base := func() *character.Skin {
		return &character.Skin{Weights: [][]character.Influence{
			one(0), mix(0, 1, 0.6), one(1), one(0), mix(1, 0, 0.9), one(0),
			mix(1, 0, 0.7), one(1), mix(1, 2, 0.55), mix(0, 1, 0.8), one(1),
		}}
	}
	tests := []struct {
		name    string
		share   float64
		snapped int
	}{
		{"off", 0, 0},
		{"above 1 is off", 1.5, 0},
		{"share reached", 0.8, 3}, // vertices 6, 8 and 9; 7 and 10 already bound to 1
		{"share not reached", 0.85, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			skin := base()
			got := SnapPieces(twoPieces(), skin, tc.share)
			if got != tc.snapped {
				t.Fatalf("snapped %d vertices, want %d", got, tc.snapped)
			}
			want := base()
			for v := 0; v < 6; v++ {
				if !slices.Equal(skin.Weights[v], want.Weights[v]) {
					t.Errorf("strip vertex %d changed: %v", v, skin.Weights[v])
				}
			}
			for v := 6; v < 11; v++ {
				w := want.Weights[v]
				if tc.snapped > 0 {
					w = one(1)
				}
				if !slices.Equal(skin.Weights[v], w) {
					t.Errorf("quad vertex %d: %v, want %v", v, skin.Weights[v], w)
				}
			}
		})
	}
}

func TestSnapPiecesOnePiece(t *testing.T) {
	m := twoPieces()
	m.Positions, m.Triangles = m.Positions[:6], m.Triangles[:4]
	skin := &character.Skin{Weights: [][]character.Influence{one(0), one(0), one(0), one(0), one(0), mix(1, 0, 0.5)}}
	if n := SnapPieces(m, skin, 0.5); n != 0 {
		t.Fatalf("a one-piece mesh had %d vertices snapped", n)
	}
	// A skin that does not match the mesh is left alone.
	if n := SnapPieces(twoPieces(), skin, 0.5); n != 0 {
		t.Fatalf("a skin of the wrong length had %d vertices snapped", n)
	}
}
