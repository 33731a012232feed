package rewards

import (
	"fmt"
	"math"
	"math/rand"
	"sort"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// The variants below keep the true skeleton (or its shape) and cheat around it; they
// are the holes that stylized characters (big heads, short limbs) opened in rewards
// tuned on the other hacks.

// keptTinyBones is how many tiny bones the surface_bones_kept hacks add, and tinyBoneLength
// their length as a share of the mesh's bounding-box diagonal.
const (
	keptTinyBones  = 200
	tinyBoneLength = 0.01
)

// keptSurfaceBonesRigid keeps the true skeleton and adds 200 tiny bones under its first
// root, each 1% of the mesh diagonal long, its head on a random surface vertex and
// its tail along that vertex's outward normal; every vertex is bound rigidly to its
// nearest tiny bone, so the true joints carry nothing.
func keptSurfaceBonesRigid(c *character.Character, seed int64) (*character.Character, bool) {
	return keptSurfaceBones(c, seed, false)
}

// keptSurfaceBonesBlended is keptSurfaceBonesRigid with each vertex's weight blended over
// its four nearest tiny bones (inverse-square distance) instead of rigid.
func keptSurfaceBonesBlended(c *character.Character, seed int64) (*character.Character, bool) {
	return keptSurfaceBones(c, seed, true)
}

func keptSurfaceBones(c *character.Character, seed int64, blended bool) (*character.Character, bool) {
	if !rigged(c) || len(c.Mesh.Positions) < 4 {
		return nil, false
	}
	h := c.Clone()
	root := 0
	for j, p := range h.Skeleton.Parents {
		if p < 0 {
			root = j
			break
		}
	}
	normals := h.Mesh.ComputeNormals()
	lo, hi := h.Mesh.Bounds()
	length := tinyBoneLength * hi.Sub(lo).Len()
	rng := rand.New(rand.NewSource(seed))
	nv := len(h.Mesh.Positions)
	sk := h.Skeleton
	var heads []int // joint index of each tiny bone's head
	var at []vecmath.Vec3
	for i := 0; i < min(keptTinyBones, nv); i++ {
		v := rng.Intn(nv)
		p := h.Mesh.Positions[v]
		base := sk.NumJoints()
		sk.Names = append(sk.Names, fmt.Sprintf("tiny%d", i), fmt.Sprintf("tiny%d_end", i))
		sk.Parents = append(sk.Parents, root, base)
		sk.BindWorld = append(sk.BindWorld, vecmath.Translate4(p), vecmath.Translate4(p.Add(normals[v].Scale(length))))
		heads = append(heads, base)
		at = append(at, p)
	}
	k := 1
	if blended {
		k = 4
	}
	h.Skin = &character.Skin{Weights: make([][]character.Influence, nv)}
	for v, p := range h.Mesh.Positions {
		h.Skin.Weights[v] = nearestHeads(p, at, heads, k)
	}
	return h, true
}

// nearestHeads weights p on the k nearest of the points at (joints heads), by
// inverse-square distance (weight 1 on the nearest when k is 1).
func nearestHeads(p vecmath.Vec3, at []vecmath.Vec3, heads []int, k int) []character.Influence {
	type cand struct {
		j int
		d float64
	}
	best := make([]cand, 0, k+1)
	for i, q := range at {
		d := q.Dist(p)
		if len(best) == k && d >= best[k-1].d {
			continue
		}
		best = append(best, cand{heads[i], d})
		sort.Slice(best, func(a, b int) bool { return best[a].d < best[b].d })
		if len(best) > k {
			best = best[:k]
		}
	}
	out := make([]character.Influence, len(best))
	for i, b := range best {
		w := 1 / (b.d*b.d + 1e-12)
		if k == 1 {
			w = 1
		}
		out[i] = character.Influence{Joint: b.j, Weight: w}
	}
	character.NormalizeWeights(out)
	return out
}

// shrinkCentre names the point a shrunk skeleton is pulled toward.
type shrinkCentre int

const (
	towardJoints   shrinkCentre = iota // the joints' centroid
	towardRoot                         // the first root joint
	towardVertices                     // the mesh vertices' centroid
)

// shrunkToward returns a hack that moves every joint toward a centre, keeping the
// weights: p' = centre + scale·(p − centre). Scale 0.5 moves each joint halfway.
func shrunkToward(centre shrinkCentre, scale float64) func(c *character.Character, seed int64) (*character.Character, bool) {
	return func(c *character.Character, seed int64) (*character.Character, bool) {
		if !rigged(c) || c.Skeleton.NumJoints() < 2 {
			return nil, false
		}
		h := c.Clone()
		var ctr vecmath.Vec3
		switch centre {
		case towardJoints:
			for _, p := range h.Skeleton.Positions() {
				ctr = ctr.Add(p)
			}
			ctr = ctr.Scale(1 / float64(h.Skeleton.NumJoints()))
		case towardRoot:
			for j, p := range h.Skeleton.Parents {
				if p < 0 {
					ctr = h.Skeleton.Position(j)
					break
				}
			}
		case towardVertices:
			for _, p := range h.Mesh.Positions {
				ctr = ctr.Add(p)
			}
			ctr = ctr.Scale(1 / math.Max(1, float64(len(h.Mesh.Positions))))
		}
		for j := range h.Skeleton.BindWorld {
			p := h.Skeleton.Position(j)
			h.Skeleton.BindWorld[j] = withTranslation(h.Skeleton.BindWorld[j], ctr.Add(p.Sub(ctr).Scale(scale)))
		}
		return h, true
	}
}
