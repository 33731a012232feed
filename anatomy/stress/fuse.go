package stress

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sort"

	"github.com/rigkit/rigkit/vecmath"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/geom"
	"github.com/rigkit/rigkit/internal/unionfind"
)

// FuseOptions sets the remesh of Fuse.
type FuseOptions struct {
	// Cell is the voxel edge as a share of the height: gaps narrower than about a
	// cell close, as an image-to-3D generator's single surface closes them.
	Cell float64
	// MaxVoxels caps the grid; the cell grows when the mesh would need more.
	MaxVoxels int
	// Smooth is the number of Laplacian passes over the extracted surface, which
	// round the voxel staircase off.
	Smooth int
}

// DefaultFuseOptions remeshes at 0.6% of the height, like a voxel remesh in a
// modelling tool at that size.
func DefaultFuseOptions() FuseOptions {
	return FuseOptions{Cell: 0.006, MaxVoxels: 8_000_000, Smooth: 2}
}

// Fuse remeshes a rigged character into one closed surface: the union of all its
// parts voxelized, air enclosed by the parts filled, the boundary between occupied
// and empty cells extracted (surface nets: a vertex per boundary cube, a quad per
// boundary edge, facing out), specks dropped (keepPieces) and the rest smoothed.
// Parts the voxels do not join stay separate closed pieces, as a voxel remesh
// leaves them. Each new vertex takes the skin weights
// of the nearest point of the old surface, blended across that triangle's corners.
func Fuse(c *character.Character, opt FuseOptions) (*character.Character, error) {
	m := &c.Mesh
	if len(m.Triangles) == 0 {
		return nil, errors.New("fuse: no triangles")
	}
	lo, hi := m.Bounds()
	H := hi[1] - lo[1]
	ext := math.Max(H, math.Max(hi[0]-lo[0], hi[2]-lo[2]))
	if H <= 0 || opt.Cell <= 0 {
		return nil, fmt.Errorf("fuse: height %g, cell %g: want both positive", H, opt.Cell)
	}
	res := int(math.Ceil(ext / (opt.Cell * H)))
	g, _ := geom.VoxelizeBox(m, lo, hi, res, opt.MaxVoxels, runtime.GOMAXPROCS(0))
	fillCavities(g)
	mesh := keepPieces(surfaceNets(g))
	if len(mesh.Triangles) == 0 {
		return nil, errors.New("fuse: the voxelized surface is empty")
	}
	for k := 0; k < opt.Smooth; k++ {
		smooth(mesh)
	}
	out := c.Clone()
	out.Mesh = *mesh
	out.Materials, out.Source = nil, nil
	skin, err := transferWeights(m, c.Skin, mesh.Positions)
	if err != nil {
		return nil, fmt.Errorf("fuse: %w", err)
	}
	out.Skin = skin
	return out, nil
}

// surfaceNets extracts the boundary of the grid's occupied cells. Samples are the
// cell centres; a cube spans eight neighbouring centres, and one whose corners
// differ gets a vertex at the mean of the midpoints of its crossing edges. Every
// sample edge from an occupied to an empty cell gets the quad of the four cubes
// around it, wound counter-clockwise seen from the empty side (outward, as glTF
// wants it). The grid's empty border keeps every quad inside it.
func surfaceNets(g *geom.VoxelGrid) *character.Mesh {
	n := g.N
	occ := func(x, y, z int) bool { return g.Occ[g.Cell(x, y, z)] }
	vert := map[int]int{} // cube (indexed like its lower corner cell) → vertex
	mesh := &character.Mesh{}
	corner := func(i, a int) int { return (i >> a) & 1 }
	vertexOf := func(x, y, z int) int {
		key := g.Cell(x, y, z)
		if v, ok := vert[key]; ok {
			return v
		}
		var sum vecmath.Vec3
		cnt := 0
		for i := 0; i < 8; i++ {
			for a := 0; a < 3; a++ {
				if corner(i, a) == 1 {
					continue
				}
				j := i | 1<<a
				p := [3]int{x + corner(i, 0), y + corner(i, 1), z + corner(i, 2)}
				q := [3]int{x + corner(j, 0), y + corner(j, 1), z + corner(j, 2)}
				if occ(p[0], p[1], p[2]) != occ(q[0], q[1], q[2]) {
					sum = sum.Add(g.Center(g.Cell(p[0], p[1], p[2])).Add(g.Center(g.Cell(q[0], q[1], q[2]))).Scale(0.5))
					cnt++
				}
			}
		}
		vert[key] = len(mesh.Positions)
		mesh.Positions = append(mesh.Positions, sum.Scale(1/float64(cnt)))
		return vert[key]
	}
	for z := 1; z < n[2]-1; z++ {
		for y := 1; y < n[1]-1; y++ {
			for x := 1; x < n[0]-1; x++ {
				c := [3]int{x, y, z}
				for a := 0; a < 3; a++ {
					d := c
					d[a]++
					if d[a] >= n[a] {
						continue
					}
					in, next := occ(c[0], c[1], c[2]), occ(d[0], d[1], d[2])
					if in == next {
						continue
					}
					// The four cubes around the edge, lower corners stepped back
					// along the two other axes, in the order (b, c) cyclic after a.
					b, e := (a+1)%3, (a+2)%3
					var quad [4]int
					for k, off := range [4][2]int{{1, 1}, {0, 1}, {0, 0}, {1, 0}} {
						q := c
						q[b] -= 1 - off[0]
						q[e] -= 1 - off[1]
						quad[k] = vertexOf(q[0], q[1], q[2])
					}
					// (b, e) counter-clockwise faces +a: outward when the occupied
					// cell is the lower one.
					if !in {
						quad[1], quad[3] = quad[3], quad[1]
					}
					mesh.Triangles = append(mesh.Triangles, [3]int{quad[2], quad[3], quad[0]}, [3]int{quad[2], quad[0], quad[1]})
				}
			}
		}
	}
	return mesh
}

// speckShare is the smallest piece of the remeshed surface Fuse keeps, as a
// share of its triangles: a part the voxels do not join to the body (a blocky
// mob's arm, a skeleton's skull, 7–32% of the surface) stays, as it does in a
// modelling tool's voxel remesh; buttons, eyes and rivets (0.3% at most on the
// held-out humanoids) go.
const speckShare = 0.005

// fillCavities marks occupied every empty cell that no path of empty cells joins
// to the grid's border (the air inside a hollow part), so that the surface has
// no inner walls facing into it.
func fillCavities(g *geom.VoxelGrid) {
	reached := make([]bool, len(g.Occ))
	queue := []int32{0} // the border layer is never occupied
	reached[0] = true
	for len(queue) > 0 {
		c := int(queue[len(queue)-1])
		queue = queue[:len(queue)-1]
		x, y, z := g.Coords(c)
		for _, d := range [6][3]int{{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}} {
			nx, ny, nz := x+d[0], y+d[1], z+d[2]
			if nx < 0 || ny < 0 || nz < 0 || nx >= g.N[0] || ny >= g.N[1] || nz >= g.N[2] {
				continue
			}
			if n := g.Cell(nx, ny, nz); !g.Occ[n] && !reached[n] {
				reached[n] = true
				queue = append(queue, int32(n))
			}
		}
	}
	for c, r := range reached {
		if !r {
			g.Occ[c] = true
		}
	}
}

// trianglePieces splits m into edge-connected pieces: piece names the piece of a
// vertex, and count holds each piece's triangles.
func trianglePieces(m *character.Mesh) (piece func(v int) int, count map[int]int) {
	u := unionfind.New[int](len(m.Positions))
	for _, t := range m.Triangles {
		u.Union(t[0], t[1])
		u.Union(t[0], t[2])
	}
	count = map[int]int{}
	for _, t := range m.Triangles {
		count[u.Find(t[0])]++
	}
	return u.Find, count
}

// keepPieces keeps the triangles of every edge-connected piece holding at least
// speckShare of them and drops unused vertices.
func keepPieces(m *character.Mesh) *character.Mesh {
	piece, count := trianglePieces(m)
	out := &character.Mesh{}
	remap := make([]int, len(m.Positions))
	for i := range remap {
		remap[i] = -1
	}
	for _, t := range m.Triangles {
		if float64(count[piece(t[0])]) < speckShare*float64(len(m.Triangles)) {
			continue
		}
		var nt [3]int
		for k, v := range t {
			if remap[v] < 0 {
				remap[v] = len(out.Positions)
				out.Positions = append(out.Positions, m.Positions[v])
			}
			nt[k] = remap[v]
		}
		out.Triangles = append(out.Triangles, nt)
	}
	return out
}

// smooth moves every vertex halfway to the mean of its neighbours.
func smooth(m *character.Mesh) {
	sum := make([]vecmath.Vec3, len(m.Positions))
	cnt := make([]int, len(m.Positions))
	for _, t := range m.Triangles {
		for k := 0; k < 3; k++ {
			a, b := t[k], t[(k+1)%3]
			sum[a], sum[b] = sum[a].Add(m.Positions[b]), sum[b].Add(m.Positions[a])
			cnt[a]++
			cnt[b]++
		}
	}
	for v, p := range m.Positions {
		if cnt[v] > 0 {
			m.Positions[v] = p.Lerp(sum[v].Scale(1/float64(cnt[v])), 0.5)
		}
	}
}

// transferWeights gives each point the skin weights at the nearest point of the
// source surface: its triangle's corners' influences by barycentric weight, the
// four largest kept and normalized.
func transferWeights(src *character.Mesh, skin *character.Skin, pts []vecmath.Vec3) (*character.Skin, error) {
	bvh := geom.NewBVH(src)
	out := &character.Skin{Weights: make([][]character.Influence, len(pts))}
	for i, p := range pts {
		hit, ok := bvh.Closest(p)
		if !ok {
			return nil, fmt.Errorf("transfer weights: no closest point for vertex %d", i)
		}
		t := src.Triangles[hit.Triangle]
		bary := barycentric(hit.Point, src.Positions[t[0]], src.Positions[t[1]], src.Positions[t[2]])
		w := map[int]float64{}
		for k, v := range t {
			for _, in := range skin.Weights[v] {
				w[in.Joint] += bary[k] * in.Weight
			}
		}
		out.Weights[i] = topInfluences(w, character.MaxInfluencesWritten)
	}
	return out, nil
}

// topInfluences returns the k heaviest weights, normalized to sum to one.
func topInfluences(w map[int]float64, k int) []character.Influence {
	in := make([]character.Influence, 0, len(w))
	for j, x := range w {
		if x > 0 {
			in = append(in, character.Influence{Joint: j, Weight: x})
		}
	}
	sort.Slice(in, func(a, b int) bool {
		if in[a].Weight != in[b].Weight {
			return in[a].Weight > in[b].Weight
		}
		return in[a].Joint < in[b].Joint
	})
	if len(in) > k {
		in = in[:k]
	}
	sum := 0.0
	for _, x := range in {
		sum += x.Weight
	}
	for i := range in {
		in[i].Weight /= sum
	}
	return in
}

// barycentric returns the barycentric coordinates of p (on the triangle's plane)
// in triangle abc; a degenerate triangle gives its first corner all the weight.
func barycentric(p, a, b, c vecmath.Vec3) [3]float64 {
	v0, v1, v2 := b.Sub(a), c.Sub(a), p.Sub(a)
	d00, d01, d11 := v0.Dot(v0), v0.Dot(v1), v1.Dot(v1)
	d20, d21 := v2.Dot(v0), v2.Dot(v1)
	den := d00*d11 - d01*d01
	if den <= 1e-30 {
		return [3]float64{1, 0, 0}
	}
	v := (d11*d20 - d01*d21) / den
	w := (d00*d21 - d01*d20) / den
	return [3]float64{1 - v - w, v, w}
}
