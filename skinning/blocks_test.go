package skinning

import (
	"reflect"
	"slices"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/meshtest"
	"github.com/rigkit/rigkit/vecmath"
)

// blockyBody is a blocky character's lower half: a body box on two leg boxes
// that touch it and each other along whole edges.
func blockyBody(appendBox func(*character.Mesh, vecmath.Vec3, vecmath.Vec3)) *character.Mesh {
	m := &character.Mesh{}
	appendBox(m, vecmath.Vec3{-2, 6, -1}, vecmath.Vec3{2, 12, 1})
	appendBox(m, vecmath.Vec3{-2, 0, -1}, vecmath.Vec3{0, 6, 1})
	appendBox(m, vecmath.Vec3{0, 0, -1}, vecmath.Vec3{2, 6, 1})
	return m
}

func TestBlocks(t *testing.T) {
	joined := blockyBody(meshtest.AppendBox)
	// One triangle from the body's corner to a leg's corner makes the two one
	// part of 16 positions: no block, but small enough that the other leg,
	// which shares corners with it, is still bound alone.
	joined.Triangles = append(joined.Triangles, [3]int{0, 1, 8})
	card := &character.Mesh{Positions: []vecmath.Vec3{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}}, Triangles: [][3]int{{0, 1, 2}, {0, 2, 3}}}
	grid := meshtest.Grid(3)
	tube := meshtest.Tube(t, 8, 8, 3)
	welded := &character.Mesh{Positions: slices.Clone(tube.Mesh.Positions), Triangles: slices.Clone(tube.Mesh.Triangles)}
	corner := welded.Positions[0]
	meshtest.AppendBox(welded, corner, corner.Add(vecmath.Vec3{0.1, 0.1, 0.1}))
	big := meshtest.Grid(15) // 256 vertices: too many to hold a block
	beside := meshtest.Grid(15)
	meshtest.AppendBox(&big, big.Positions[0], big.Positions[0].Add(vecmath.Vec3{0.1, 0.1, 0.1}))
	meshtest.AppendBox(&beside, vecmath.Vec3{-1, -1, -1}, vecmath.Vec3{-0.5, -0.5, -0.5})
	for _, tc := range []struct {
		name  string
		m     *character.Mesh
		sizes []int
	}{
		{"boxes stored as loose faces", blockyBody(meshtest.AppendLooseBox), []int{24, 24, 24}},
		{"boxes with shared corners", blockyBody(meshtest.AppendBox), []int{8, 8, 8}},
		{"boxes joined by a triangle", joined, []int{8}},
		{"a box welded to a smooth tube", welded, nil},
		{"a box welded to a large grid", &big, nil},
		{"a box beside a large grid", &beside, []int{8}},
		{"a flat card", card, []int{4}},
		{"a grid of 16 positions", &grid, nil},
		{"a smooth tube", &tube.Mesh, nil},
		{"no triangles", &character.Mesh{Positions: card.Positions}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var sizes []int
			for _, b := range Blocks(tc.m) {
				sizes = append(sizes, len(b))
			}
			if !reflect.DeepEqual(sizes, tc.sizes) {
				t.Errorf("block sizes %v, want %v", sizes, tc.sizes)
			}
		})
	}
}

// TestBlocksIgnoreBadTriangles checks that out-of-range and degenerate
// triangles neither panic nor join parts.
func TestBlocksIgnoreBadTriangles(t *testing.T) {
	m := blockyBody(meshtest.AppendLooseBox)
	m.Triangles = append(m.Triangles, [3]int{0, 1, 1000}, [3]int{-1, 0, 1}, [3]int{0, 0, 30})
	if got := len(Blocks(m)); got != 3 {
		t.Errorf("%d blocks, want 3", got)
	}
}

func TestBindBlocks(t *testing.T) {
	m := blockyBody(meshtest.AppendLooseBox)
	meshtest.AppendLooseBox(m, vecmath.Vec3{6, 0, -1}, vecmath.Vec3{7, 1, 1}) // a box with no joint on it
	nBlocks := len(m.Positions)
	grid := meshtest.Grid(2)
	for _, p := range grid.Positions {
		m.Positions = append(m.Positions, p.Add(vecmath.Vec3{0, 20, 0}))
	}
	for _, tr := range grid.Triangles {
		m.Triangles = append(m.Triangles, [3]int{tr[0] + nBlocks, tr[1] + nBlocks, tr[2] + nBlocks})
	}
	at := func(x, y float64) vecmath.Mat4 { return vecmath.Translate4(vecmath.Vec3{x, y, 0}) }
	sk := &character.Skeleton{
		Names:   []string{"body", "thigh.L", "shin.L", "thigh.R", "shin.R", "helper"},
		Parents: []int{-1, 0, 1, 0, 3, 0},
		// The left leg's shin sits at its box's centre, the right leg's thigh
		// on its top face (its shin is off the box), and a helper joint that
		// carries no weight at the right leg's centre.
		BindWorld: []vecmath.Mat4{at(0, 9), at(-1, 6), at(-1, 3), at(1, 6), at(4, 3), at(1, 3)},
	}
	c := &character.Character{Name: "blocky", Mesh: *m, Skeleton: sk}
	k := &character.Skin{Weights: make([][]character.Influence, len(m.Positions))}
	for v := range k.Weights {
		switch {
		case v < 72: // the body and legs: the weights point elsewhere on purpose
			k.Weights[v] = []character.Influence{{Joint: 4, Weight: 0.6}, {Joint: 0, Weight: 0.4}}
		case v < nBlocks: // the lone box
			k.Weights[v] = []character.Influence{{Joint: 4, Weight: 0.7}, {Joint: 3, Weight: 0.3}}
		default: // the grid is no block and keeps its blend
			k.Weights[v] = []character.Influence{{Joint: 1, Weight: 0.5}, {Joint: 2, Weight: 0.5}, {Joint: 3, Weight: 0.01}}
		}
	}
	before := k.Clone()
	got, rep := BindBlocks(c, k)
	if rep != (BlockReport{Blocks: 3, Vertices: 72}) {
		t.Errorf("report %+v, want 3 blocks of 72 vertices", rep)
	}
	if !reflect.DeepEqual(k, before) {
		t.Error("BindBlocks changed its input skin")
	}
	for _, tc := range []struct {
		name     string
		from, to int
		joint    int
	}{
		{"body: the joint at its centre", 0, 24, 0},
		{"left leg: the shin at its centre", 24, 48, 2},
		{"right leg: the thigh on its face, not the weightless helper", 48, 72, 3},
		{"lone box: no joint on it, its blend kept", 72, nBlocks, -1},
	} {
		for v := tc.from; v < tc.to; v++ {
			want := []character.Influence{{Joint: tc.joint, Weight: 1}}
			if tc.joint < 0 {
				want = k.Weights[v]
			}
			if !reflect.DeepEqual(got.Weights[v], want) {
				t.Fatalf("%s: vertex %d has %v, want %v", tc.name, v, got.Weights[v], want)
			}
		}
	}
	for v := nBlocks; v < len(m.Positions); v++ {
		if !reflect.DeepEqual(got.Weights[v], k.Weights[v]) {
			t.Fatalf("grid vertex %d: %v, want its blend %v", v, got.Weights[v], k.Weights[v])
		}
	}
}
