package assets

import (
	"fmt"
	"math"
	"slices"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/unionfind"
	"github.com/rigkit/rigkit/vecmath"
)

// MeshReport counts the topological and geometric defects of a triangle mesh.
// Topology is measured on vertices welded by exact position, so UV and normal seams
// (split vertices at one position) do not count as boundaries.
type MeshReport struct {
	Vertices  int `json:"vertices"`
	Triangles int `json:"triangles"`
	// DuplicateVertices counts vertices at exactly the position of an earlier one.
	DuplicateVertices int `json:"duplicate_vertices"`
	// UnusedVertices counts vertices no triangle references.
	UnusedVertices int `json:"unused_vertices"`
	// DegenerateTriangles have a repeated (welded) vertex or (near) zero area.
	DegenerateTriangles int `json:"degenerate_triangles"`
	// BoundaryEdges are used by exactly one triangle (holes, open borders).
	BoundaryEdges int `json:"boundary_edges"`
	// NonManifoldEdges are used by more than two triangles.
	NonManifoldEdges int `json:"non_manifold_edges"`
	// Components is the number of connected parts (over triangles).
	Components int `json:"components"`
	// NonFinitePositions counts vertices with NaN or infinite coordinates.
	NonFinitePositions int `json:"non_finite_positions"`
	// BadIndices counts triangle corners outside [0, Vertices).
	BadIndices int `json:"bad_indices"`
}

// AnalyzeMesh measures m's defects in O(V + T log T).
func AnalyzeMesh(m character.Mesh) MeshReport {
	nv := len(m.Positions)
	r := MeshReport{Vertices: nv, Triangles: len(m.Triangles)}
	// Weld by exact position.
	weld := make([]int32, nv)
	first := make(map[vecmath.Vec3]int32, nv)
	for i, p := range m.Positions {
		if !p.IsFinite() {
			r.NonFinitePositions++
		}
		if w, ok := first[p]; ok {
			weld[i] = w
			r.DuplicateVertices++
		} else {
			first[p] = int32(i)
			weld[i] = int32(i)
		}
	}
	lo, hi := m.Bounds()
	diag := hi.Sub(lo).Len()
	areaEps := 1e-12 * diag * diag

	used := make([]bool, nv)
	edges := make([]uint64, 0, 3*len(m.Triangles))
	uf := unionfind.New[int32](nv)
	for _, t := range m.Triangles {
		ok := true
		for _, v := range t {
			if v < 0 || v >= nv {
				r.BadIndices++
				ok = false
			}
		}
		if !ok {
			continue
		}
		for _, v := range t {
			used[v] = true
		}
		a, b, c := weld[t[0]], weld[t[1]], weld[t[2]]
		if a == b || b == c || a == c {
			r.DegenerateTriangles++
			continue
		}
		pa, pb, pc := m.Positions[t[0]], m.Positions[t[1]], m.Positions[t[2]]
		if pb.Sub(pa).Cross(pc.Sub(pa)).Len() <= areaEps {
			r.DegenerateTriangles++
		}
		uf.Union(a, b)
		uf.Union(b, c)
		edges = append(edges, edgeKey(a, b), edgeKey(b, c), edgeKey(c, a))
	}
	slices.Sort(edges)
	for i := 0; i < len(edges); {
		j := i + 1
		for j < len(edges) && edges[j] == edges[i] {
			j++
		}
		switch n := j - i; {
		case n == 1:
			r.BoundaryEdges++
		case n > 2:
			r.NonManifoldEdges++
		}
		i = j
	}
	roots := map[int32]bool{}
	for v := range nv {
		if used[v] {
			roots[uf.Find(weld[v])] = true
		} else {
			r.UnusedVertices++
		}
	}
	r.Components = len(roots)
	return r
}

func edgeKey(a, b int32) uint64 {
	if a > b {
		a, b = b, a
	}
	return uint64(a)<<32 | uint64(uint32(b))
}

// InspectReport summarizes a character for `rig inspect`: sizes, skinning
// statistics, bounds, materials, animations and the problems found.
type InspectReport struct {
	InspectCounts
	InspectRig
	BoundsMin  vecmath.Vec3 `json:"bounds_min"`
	BoundsMax  vecmath.Vec3 `json:"bounds_max"`
	Materials  []string     `json:"materials"`
	Animations []string     `json:"animations"`
	Mesh       MeshReport   `json:"mesh"`
	// LoadWarnings are the loader's repairs (set by InspectFile).
	LoadWarnings []string `json:"load_warnings,omitempty"`
	// Problems lists every defect found, one sentence each; empty for a clean file.
	Problems []string `json:"problems"`
}

// InspectCounts are the sizes of what a file holds.
type InspectCounts struct {
	Name      string `json:"name"`
	Vertices  int    `json:"vertices"`
	Triangles int    `json:"triangles"`
	Joints    int    `json:"joints"`
	Rigged    bool   `json:"rigged"`
	// MaxInfluences and MeanInfluences count joints per vertex (0 for static meshes).
	MaxInfluences  int     `json:"max_influences"`
	MeanInfluences float64 `json:"mean_influences"`
}

// InspectRig counts the rig's defects.
type InspectRig struct {
	// WeightSumErrors counts vertices whose weights do not sum to 1 (beyond 1e-3).
	WeightSumErrors int `json:"weight_sum_errors"`
	// Orphans counts rigged vertices without any influence.
	Orphans int `json:"orphans"`
	// BadJointRefs counts influences naming a joint outside the skeleton.
	BadJointRefs int `json:"bad_joint_refs"`
	// SkeletonError is the skeleton's validation error, if any.
	SkeletonError string `json:"skeleton_error,omitempty"`
}

// Inspect measures c: counts, influences, bounds, mesh defects and skin problems.
func Inspect(c *character.Character) InspectReport {
	r := InspectReport{
		InspectCounts: InspectCounts{Name: c.Name, Vertices: len(c.Mesh.Positions),
			Triangles: len(c.Mesh.Triangles), Joints: c.Skeleton.NumJoints(), Rigged: c.Rigged()},
		Mesh:       AnalyzeMesh(c.Mesh),
		Materials:  []string{},
		Animations: []string{},
		Problems:   []string{},
	}
	r.BoundsMin, r.BoundsMax = c.Mesh.Bounds()
	for i, m := range c.Materials {
		name := m.Name
		if name == "" {
			name = fmt.Sprintf("material_%d", i)
		}
		r.Materials = append(r.Materials, name)
	}
	for _, a := range c.Animations {
		dur := 0.0
		for _, ch := range a.Channels {
			if n := len(ch.Times); n > 0 {
				dur = math.Max(dur, ch.Times[n-1])
			}
		}
		r.Animations = append(r.Animations, fmt.Sprintf("%s (%d channels, %.2fs)", a.Name, len(a.Channels), dur))
	}
	if c.Skeleton != nil {
		if err := c.Skeleton.Validate(); err != nil {
			r.SkeletonError = err.Error()
		}
	}
	if c.Skin != nil {
		total := 0
		for v, infl := range c.Skin.Weights {
			if v >= r.Vertices {
				break
			}
			total += len(infl)
			r.MaxInfluences = max(r.MaxInfluences, len(infl))
			if len(infl) == 0 {
				r.Orphans++
				continue
			}
			sum := 0.0
			for _, in := range infl {
				if in.Joint < 0 || in.Joint >= r.Joints {
					r.BadJointRefs++
				}
				sum += in.Weight
			}
			if !(math.Abs(sum-1) <= 1e-3) {
				r.WeightSumErrors++
			}
		}
		if r.Vertices > 0 {
			r.MeanInfluences = float64(total) / float64(r.Vertices)
		}
		if len(c.Skin.Weights) != r.Vertices {
			r.Problems = append(r.Problems, fmt.Sprintf("skin has %d weight lists for %d vertices", len(c.Skin.Weights), r.Vertices))
		}
	}
	r.Problems = append(r.Problems, r.problems()...)
	return r
}

func (r *InspectReport) problems() []string {
	var p []string
	add := func(n int, format string) {
		if n > 0 {
			p = append(p, fmt.Sprintf(format, n))
		}
	}
	m := r.Mesh
	add(m.NonFinitePositions, "%d vertices have non-finite positions")
	add(m.BadIndices, "%d triangle corners index missing vertices")
	add(m.NonManifoldEdges, "%d non-manifold edges (shared by more than two triangles)")
	add(m.BoundaryEdges, "%d boundary edges (open borders or holes)")
	if m.Components > 1 {
		p = append(p, fmt.Sprintf("%d disconnected parts", m.Components))
	}
	add(m.DegenerateTriangles, "%d degenerate triangles")
	add(m.DuplicateVertices, "%d duplicate vertices (same position as another; normal at UV seams)")
	add(m.UnusedVertices, "%d vertices used by no triangle")
	add(r.Orphans, "%d vertices have no joint weights")
	add(r.WeightSumErrors, "%d vertices' weights do not sum to 1")
	add(r.BadJointRefs, "%d influences name a joint outside the skeleton")
	if r.SkeletonError != "" {
		p = append(p, r.SkeletonError)
	}
	return p
}

// InspectFile loads path leniently (LoadFile) and inspects it; the loader's repairs
// are listed in LoadWarnings and as problems.
func InspectFile(path string) (InspectReport, error) {
	c, rep, err := Load(path, Options{AllowOrphans: true})
	if err != nil {
		return InspectReport{}, err
	}
	r := Inspect(c)
	r.LoadWarnings = rep.Warnings
	for _, w := range rep.Warnings {
		r.Problems = append(r.Problems, "load: "+w)
	}
	return r, nil
}
