package assets

import (
	"testing"

	"github.com/rigkit/rigkit/internal/meshtest"
	"github.com/rigkit/rigkit/vecmath"

	"github.com/rigkit/rigkit/character"
)

func TestAnalyzeMesh(t *testing.T) {
	closed := meshtest.Tube(t, 4, 6, 1).Mesh
	grid := meshtest.Grid(3)
	twoParts := meshtest.Grid(2)
	off := len(twoParts.Positions)
	for _, p := range meshtest.Grid(2).Positions {
		twoParts.Positions = append(twoParts.Positions, p.Add(vecmath.Vec3{10, 0, 0}))
	}
	for _, tri := range meshtest.Grid(2).Triangles {
		twoParts.Triangles = append(twoParts.Triangles, [3]int{tri[0] + off, tri[1] + off, tri[2] + off})
	}
	fin := meshtest.Grid(1) // two triangles sharing an edge; add a third on that edge
	fin.Positions = append(fin.Positions, vecmath.Vec3{0.5, 0.5, 1})
	fin.Triangles = append(fin.Triangles, [3]int{0, 3, 4})
	degen := meshtest.Grid(1)
	degen.Positions = append(degen.Positions, vecmath.Vec3{2, 2, 0}, vecmath.Vec3{3, 3, 0}, vecmath.Vec3{1, 1, 0}) // collinear with vertex 3
	degen.Triangles = append(degen.Triangles, [3]int{0, 0, 1}, [3]int{4, 5, 6})
	seam := meshtest.Grid(1)
	seam.Positions = append(seam.Positions, seam.Positions[1]) // a split vertex (UV seam)
	seam.Triangles[0][1] = 4

	tests := []struct {
		name string
		m    character.Mesh
		want MeshReport
	}{
		{"closed tube", closed, MeshReport{Vertices: 26, Triangles: 48, Components: 1}},
		{"open grid", grid, MeshReport{Vertices: 16, Triangles: 18, BoundaryEdges: 12, Components: 1}},
		{"two parts", twoParts, MeshReport{Vertices: 18, Triangles: 16, BoundaryEdges: 16, Components: 2}},
		{"fin", fin, MeshReport{Vertices: 5, Triangles: 3, BoundaryEdges: 6, NonManifoldEdges: 1, Components: 1}},
		{"degenerate", degen, MeshReport{Vertices: 7, Triangles: 4, BoundaryEdges: 4 + 3, DegenerateTriangles: 2, Components: 2}},
		{"seam", seam, MeshReport{Vertices: 5, Triangles: 2, BoundaryEdges: 4, DuplicateVertices: 1, UnusedVertices: 1, Components: 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := AnalyzeMesh(tc.m); got != tc.want {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestInspectSkinProblems(t *testing.T) {
	c := meshtest.Tube(t, 4, 6, 2)
	r := Inspect(c)
	if len(r.Problems) != 0 || r.MaxInfluences < 1 || r.Joints != 2 || len(r.Materials) != 2 || len(r.Animations) != 1 {
		t.Fatalf("clean rig: %+v", r)
	}
	c.Skin.Weights[0] = nil
	c.Skin.Weights[1] = []character.Influence{{Joint: 0, Weight: 0.5}}
	c.Skin.Weights[2] = []character.Influence{{Joint: 9, Weight: 1}}
	r = Inspect(c)
	if r.Orphans != 1 || r.WeightSumErrors != 1 || r.BadJointRefs != 1 || len(r.Problems) != 3 {
		t.Errorf("broken skin: orphans %d, sum errors %d, bad refs %d, problems %v", r.Orphans, r.WeightSumErrors, r.BadJointRefs, r.Problems)
	}
}

// BenchmarkInspect measures Inspect on a 100k-triangle rigged mesh made in code.
func BenchmarkInspect(b *testing.B) {
	c := &character.Character{Name: "grid", Mesh: meshtest.Grid(224)} // 100,352 triangles
	c.Skeleton = &character.Skeleton{Names: []string{"root"}, Parents: []int{-1}, BindWorld: []vecmath.Mat4{vecmath.Identity4()}}
	c.Skin = &character.Skin{Weights: make([][]character.Influence, len(c.Mesh.Positions))}
	for v := range c.Skin.Weights {
		c.Skin.Weights[v] = []character.Influence{{Joint: 0, Weight: 1}}
	}
	b.ReportMetric(float64(len(c.Mesh.Triangles)), "triangles")
	b.ResetTimer()
	for b.Loop() {
		Inspect(c)
	}
}
