package skinning

import (
	"fmt"
	"math"
	"sort"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/geom"
)

// Defaults of GeodesicOptions.
const (
	DefaultFalloff        = 1.0
	DefaultPower          = 8.0
	DefaultSmoothIters    = 1
	DefaultSmoothStrength = 0.5
	DefaultMinWeight      = 0.05
	// MinBoneWeight is the weight a bone that would otherwise stay empty gets on the
	// vertices nearest to it.
	MinBoneWeight = 0.02
)

// GeodesicOptions configure geodesic voxel binding. The zero value gives the defaults.
type GeodesicOptions struct {
	FieldOptions
	// Falloff α in (0,1] and Power λ shape the weight of a bone at geodesic distance d
	// (normalized units): w ∝ ((1-α)·d + α·d²)^-λ (after Dionne & de Lasa 2013).
	// 0 picks DefaultFalloff / DefaultPower.
	Falloff, Power float64
	// MaxInfluences per vertex (0: assets.MaxInfluencesWritten).
	MaxInfluences int
	// SmoothIterations of Laplacian smoothing over mesh edges (0: DefaultSmoothIters;
	// negative: none), each moving a vertex's weights SmoothStrength of the way to its
	// neighbours' mean (0: DefaultSmoothStrength).
	SmoothIterations int
	SmoothStrength   float64
	// MinWeight drops influences lighter than this before the final renormalization
	// (0: DefaultMinWeight; negative: keep all).
	MinWeight float64
}

func (o GeodesicOptions) withDefaults() GeodesicOptions {
	o.Falloff = math.Min(positiveOr(o.Falloff, DefaultFalloff), 1)
	o.Power = positiveOr(o.Power, DefaultPower)
	o.MaxInfluences = positiveOr(o.MaxInfluences, character.MaxInfluencesWritten)
	if o.SmoothIterations == 0 {
		o.SmoothIterations = DefaultSmoothIters
	}
	if o.MinWeight == 0 {
		o.MinWeight = DefaultMinWeight
	}
	o.SmoothStrength = positiveOr(o.SmoothStrength, DefaultSmoothStrength)
	return o
}

// Geodesic computes skin weights by geodesic voxel binding: the mesh is voxelized
// (surface cells plus interior by winding number), each bone's geodesic distance
// through the solid is measured at every vertex, distances become weights by the
// falloff of GeodesicOptions, the top MaxInfluences are kept, smoothed over the mesh
// and renormalized. Every vertex gets weights and every joint gets at least its
// nearest vertices, so the result has no orphan vertices and no empty bone.
func Geodesic(c *character.Character, opt GeodesicOptions) (*character.Skin, error) {
	f, err := NewField(c, opt.FieldOptions)
	if err != nil {
		return nil, err
	}
	return f.Skin(c.Mesh, opt)
}

// falloff returns the unnormalized weight of a bone at distance d.
func falloff(d, alpha, power float64) float64 {
	d = math.Max(d, 1e-4)
	return math.Pow((1-alpha)*d+alpha*d*d, -power)
}

// Skin turns the field's distances into weights (see Geodesic). mesh must be the
// mesh the field was built from.
func (f *Field) Skin(mesh character.Mesh, opt GeodesicOptions) (*character.Skin, error) {
	if len(mesh.Positions) != f.NumVertices {
		return nil, fmt.Errorf("skinning: field has %d vertices, mesh %d", f.NumVertices, len(mesh.Positions))
	}
	opt = opt.withDefaults()
	nv, nj := f.NumVertices, f.NumJoints
	dense := make([]float32, nv*nj) // weights, row per vertex
	raw := make([]float64, nj)
	for v := 0; v < nv; v++ {
		f.rawWeights(v, opt, raw)
		topK(raw, opt.MaxInfluences)
		for j, w := range raw {
			dense[v*nj+j] = float32(w)
		}
	}
	if opt.SmoothIterations > 0 {
		f.smooth(mesh, dense, opt)
	}
	skin := &character.Skin{Weights: make([][]character.Influence, nv)}
	for v := 0; v < nv; v++ {
		row := dense[v*nj : (v+1)*nj]
		var infl []character.Influence
		for j, w := range row {
			if float64(w) > opt.MinWeight {
				infl = append(infl, character.Influence{Joint: j, Weight: float64(w)})
			}
		}
		skin.Weights[v] = infl
	}
	skin.Prune(opt.MaxInfluences)
	// Bones are placed on one vertex of each set at the same position (UV seams) and
	// copied to the others, so every copy agrees.
	rep := geom.WeldVertices(mesh.Positions, 1e-6/f.norm.Scale)
	f.fillEmptyBones(skin, opt, rep)
	for v, r := range rep {
		if r != v {
			skin.Weights[v] = append([]character.Influence(nil), skin.Weights[r]...)
		}
	}
	return skin, nil
}

// rawWeights writes vertex v's normalized falloff weights over all joints into dst.
func (f *Field) rawWeights(v int, opt GeodesicOptions, dst []float64) {
	nj := f.NumJoints
	sum := 0.0
	for j := 0; j < nj; j++ {
		d := float64(f.dist[v*nj+j])
		if math.IsInf(d, 1) {
			dst[j] = 0
			continue
		}
		dst[j] = falloff(d, opt.Falloff, opt.Power)
		sum += dst[j]
	}
	if sum == 0 || math.IsInf(sum, 0) || math.IsNaN(sum) {
		// Cannot happen after NewField's fallback; keep the vertex rigid on the nearest bone.
		best, eucl := 0, f.euclidean()
		for j := range dst {
			if eucl[v*nj+j] < eucl[v*nj+best] {
				best = j
			}
			dst[j] = 0
		}
		dst[best] = 1
		return
	}
	for j := range dst {
		dst[j] /= sum
	}
}

// topK zeroes all but the k largest entries of w and renormalizes them to sum to 1.
func topK(w []float64, k int) {
	idx := make([]int, 0, len(w))
	for j, x := range w {
		if x > 0 {
			idx = append(idx, j)
		}
	}
	if len(idx) > k {
		sort.Slice(idx, func(a, b int) bool {
			if w[idx[a]] != w[idx[b]] {
				return w[idx[a]] > w[idx[b]]
			}
			return idx[a] < idx[b]
		})
		for _, j := range idx[k:] {
			w[j] = 0
		}
		idx = idx[:k]
	}
	sum := 0.0
	for _, j := range idx {
		sum += w[j]
	}
	if sum > 0 {
		for _, j := range idx {
			w[j] /= sum
		}
	}
}

// smooth runs Laplacian smoothing of the dense weights over the mesh's edges, with
// vertices at the same position (UV seams) joined so seams stay closed; duplicates
// end with their representative's weights.
func (f *Field) smooth(mesh character.Mesh, dense []float32, opt GeodesicOptions) {
	nv, nj := f.NumVertices, f.NumJoints
	weld := 1e-6 / f.norm.Scale
	gr := geom.NewEdgeGraph(&mesh, weld)
	if len(dense) == 0 {
		return
	}
	orig := dense
	next := make([]float32, len(dense))
	mu := float32(opt.SmoothStrength)
	row := make([]float64, nj)
	for it := 0; it < opt.SmoothIterations; it++ {
		for v := 0; v < nv; v++ {
			nb := gr.Neighbors(v)
			out := next[v*nj : (v+1)*nj]
			cur := dense[v*nj : (v+1)*nj]
			if len(nb) == 0 {
				copy(out, cur)
				continue
			}
			for j := range out {
				out[j] = 0
			}
			for _, u := range nb {
				for j, x := range dense[u*nj : (u+1)*nj] {
					out[j] += x
				}
			}
			inv := mu / float32(len(nb))
			for j := range out {
				out[j] = (1-mu)*cur[j] + inv*out[j]
			}
		}
		dense, next = next, dense
		// Re-sparsify so smoothing blends only near joints.
		for v := 0; v < nv; v++ {
			r := dense[v*nj : (v+1)*nj]
			for j, x := range r {
				row[j] = float64(x)
			}
			topK(row, opt.MaxInfluences)
			for j, x := range row {
				r[j] = float32(x)
			}
		}
	}
	if &dense[0] != &orig[0] {
		copy(orig, dense) // the results belong in the caller's slice
	}
	rep := geom.WeldVertices(mesh.Positions, weld)
	for v, r := range rep {
		if r != v {
			copy(orig[v*nj:(v+1)*nj], orig[r*nj:(r+1)*nj])
		}
	}
}

// fillEmptyBones gives every joint that no vertex uses a weight on the vertices
// nearest to its bone (geodesically), so no bone is left empty: first one vertex for
// every empty joint (repeated while placements displace other joints), then up to 16
// vertices each within a voxel of the nearest, where a vertex has a free slot.
func (f *Field) fillEmptyBones(skin *character.Skin, opt GeodesicOptions, rep []int) {
	nv, nj := f.NumVertices, f.NumJoints
	if nv == 0 {
		return
	}
	raw := make([]float64, nj)
	fill := &boneFiller{weights: skin.Weights, maxK: opt.MaxInfluences, filled: map[int][]int{},
		weight: func(v, j int) float64 {
			f.rawWeights(v, opt, raw)
			return math.Max(raw[j], MinBoneWeight)
		}}
	orderFor := func(j int) ([]int, func(int) float64) {
		dist := func(v int) float64 {
			if d := f.Dist(v, j); !math.IsInf(d, 1) {
				return d
			}
			return f.euclideanDist(v, j) + 1e3 // reached vertices first
		}
		order := make([]int, 0, nv)
		for v := 0; v < nv; v++ {
			if rep[v] == v {
				order = append(order, v)
			}
		}
		sort.SliceStable(order, func(a, b int) bool { return dist(order[a]) < dist(order[b]) })
		return order, dist
	}
	placed := fill.placeEmpty(nj, func(v int) bool { return rep[v] != v }, func(j int) []int {
		order, _ := orderFor(j)
		return order
	})
	for _, j := range placed {
		order, dist := orderFor(j)
		limit := dist(order[0]) + f.VoxelSize
		n := 0
		for _, v := range order {
			if n >= 16 || dist(v) > limit {
				break
			}
			n++
			if len(skin.Weights[v]) >= opt.MaxInfluences || weightIn(skin.Weights[v], j) > 0 {
				continue // never displace a bone here: it might be that bone's only vertex
			}
			fill.place(v, j)
		}
	}
}

// boneFiller places joints on vertices where a skinning left them empty.
type boneFiller struct {
	weights [][]character.Influence
	maxK    int
	filled  map[int][]int // vertex → joints placed on it, never displaced
	weight  func(v, j int) float64
}

// place gives joint j weight(v, j) on vertex v, scaling the others down and keeping
// the joints placed there before.
func (b *boneFiller) place(v, j int) {
	b.weights[v] = insertInfluence(b.weights[v], j, b.weight(v, j), b.maxK, b.filled[v])
	b.filled[v] = append(b.filled[v], j)
}

// placeEmpty places every joint that no vertex uses (no weight of MinBoneWeight/2 on
// a vertex that skip does not exclude) on the first vertex of order(j) with a free
// slot (none when order(j) is nil), repeated while placements displace other joints,
// and returns the joints placed, in order.
func (b *boneFiller) placeEmpty(nj int, skip func(v int) bool, order func(j int) []int) []int {
	var placed []int
	for pass := 0; pass < 2*nj+2; pass++ {
		used := make([]bool, nj)
		for v, infl := range b.weights {
			if skip(v) {
				continue
			}
			for _, in := range infl {
				if in.Weight >= MinBoneWeight/2 {
					used[in.Joint] = true
				}
			}
		}
		placedNew := false
		for j := 0; j < nj; j++ {
			if used[j] {
				continue
			}
			for _, v := range order(j) {
				if len(b.filled[v]) < b.maxK {
					b.place(v, j)
					placed = append(placed, j)
					placedNew = true
					break
				}
			}
		}
		if !placedNew {
			break
		}
	}
	return placed
}

func weightIn(infl []character.Influence, j int) float64 {
	for _, in := range infl {
		if in.Joint == j {
			return in.Weight
		}
	}
	return 0
}

// insertInfluence sets joint j's weight to w, scaling the others to 1-w and dropping
// the lightest joints not in keep if more than maxK remain.
func insertInfluence(infl []character.Influence, j int, w float64, maxK int, keep []int) []character.Influence {
	out := make([]character.Influence, 0, len(infl)+1)
	for _, in := range infl {
		if in.Joint != j {
			out = append(out, in)
		}
	}
	kept := func(i int) bool {
		for _, k := range keep {
			if out[i].Joint == k {
				return true
			}
		}
		return false
	}
	sort.SliceStable(out, func(a, b int) bool {
		if ka, kb := kept(a), kept(b); ka != kb {
			return ka
		}
		return out[a].Weight > out[b].Weight
	})
	if len(out) > maxK-1 {
		out = out[:maxK-1]
	}
	sum := 0.0
	for _, in := range out {
		sum += in.Weight
	}
	if sum <= 0 {
		return []character.Influence{{Joint: j, Weight: 1}}
	}
	for i := range out {
		out[i].Weight *= (1 - w) / sum
	}
	out = append(out, character.Influence{Joint: j, Weight: w})
	// Bones placed here earlier keep at least MinBoneWeight, so that later placements
	// do not dilute them back into emptiness.
	prot, unprot := 0.0, 0.0
	for i := range out {
		if out[i].Joint == j || kept(i) {
			out[i].Weight = math.Max(out[i].Weight, MinBoneWeight)
			prot += out[i].Weight
		} else {
			unprot += out[i].Weight
		}
	}
	for i := range out {
		switch {
		case prot >= 1:
			out[i].Weight /= prot + unprot
		case !(out[i].Joint == j || kept(i)):
			out[i].Weight *= (1 - prot) / unprot
		}
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].Weight != out[b].Weight {
			return out[a].Weight > out[b].Weight
		}
		return out[a].Joint < out[b].Joint
	})
	return out
}
