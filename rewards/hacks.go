package rewards

import (
	"fmt"
	"math"
	"math/rand"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/geom"
	"github.com/rigkit/rigkit/vecmath"
)

// Hack is a degenerate rig built from a good one: the shortcuts a policy trained on
// these rewards would find first. The true rig must outscore every hack (see the hack
// suite in hacks_test.go); RL code can use them as negative examples.
type Hack struct {
	Name string
	// Doc says what the hack does to the rig.
	Doc string
	// Build returns the degenerate rig, a new character sharing nothing with c. ok is
	// false when the hack does not apply (e.g. collapsing a one-joint skeleton) or c
	// is not rigged.
	Build func(c *character.Character, seed int64) (h *character.Character, ok bool)
	// CharactersOnly marks a hack that means something only for creatures: a prop's
	// sub-part (a wheel, a sail's yard) is not a limb whose bone it must have.
	CharactersOnly bool
	// MovesSkeleton marks a hack that moves or replaces the true joints (or, keeping
	// them, moves every vertex with new ones, as surface_bones_kept). On a carried
	// rig (Report.Carried: the skeleton belongs to a wearer outside the mesh) such a
	// hack is not a degenerate rig of this mesh, so the true rig need not beat it.
	MovesSkeleton bool
	// NamesOnly marks a hack that changes joint names alone. Only the clip poses a
	// scorer adds by name (Options.Motion) read names, so where neither rig plays
	// clips the two score alike: the true rig must not lose, a tie is no win.
	NamesOnly bool
}

// Hacks lists every degenerate rig builder.
var Hacks = []Hack{
	{Name: "collapsed", Doc: "every joint moved onto the mean joint position; weights kept", Build: collapsed, MovesSkeleton: true},
	{Name: "single_joint", Doc: "one joint at the mesh centre carrying every vertex", Build: singleJoint, MovesSkeleton: true},
	{Name: "surface_bones", Doc: "hundreds of tiny bones sprinkled on the surface, rigid nearest-bone weights", Build: surfaceBones, MovesSkeleton: true},
	{Name: "poke_out", Doc: "leaf bones stretched out through the surface to 0.2 beyond it; weights kept", Build: pokeOut, MovesSkeleton: true},
	{Name: "uniform_weights", Doc: "every vertex weighted equally on every joint", Build: uniformWeights},
	{Name: "random_weights", Doc: "every vertex weighted randomly on 4 random joints", Build: randomWeights},
	{Name: "duplicate_joints", Doc: "every joint doubled in place, weights split between the twins", Build: duplicateJoints},
	{Name: "shrunk", Doc: "the skeleton scaled by 0.4 toward the mesh centre; weights kept", Build: shrunk, MovesSkeleton: true},
	{Name: "rigid_weights", Doc: "the true skeleton with rigid nearest-bone weights (the METRICS.md floor)", Build: rigidNearestBone},
	{Name: "one_weighted_joint", Doc: "the true skeleton with every vertex on its heaviest joint alone: every other bone weightless", Build: oneWeightedJoint},
	{Name: "decoy_bones", Doc: "the true rig plus 64 bones poking out of the surface, each taking 5% of the weight of the vertices near it", Build: decoyBones},
	{Name: "surface_bones_kept", Doc: "the true skeleton plus 200 tiny bones (1% of the diagonal, along the normal) under the root on random surface vertices, every vertex rigidly on its nearest tiny bone", Build: keptSurfaceBonesRigid, MovesSkeleton: true},
	{Name: "surface_bones_kept_blended", Doc: "surface_bones_kept with each vertex blended over its 4 nearest tiny bones", Build: keptSurfaceBonesBlended, MovesSkeleton: true},
	{Name: "shrunk_joints_50", Doc: "every joint moved halfway to the joints' centroid; weights kept", Build: shrunkToward(towardJoints, 0.5), MovesSkeleton: true},
	{Name: "shrunk_joints_25", Doc: "every joint moved three quarters of the way to the joints' centroid; weights kept", Build: shrunkToward(towardJoints, 0.25), MovesSkeleton: true},
	{Name: "shrunk_joints_75", Doc: "every joint moved a quarter of the way to the joints' centroid; weights kept", Build: shrunkToward(towardJoints, 0.75), MovesSkeleton: true},
	{Name: "shrunk_root_50", Doc: "every joint moved halfway to the root joint; weights kept", Build: shrunkToward(towardRoot, 0.5), MovesSkeleton: true},
	{Name: "shrunk_vertices_50", Doc: "every joint moved halfway to the vertices' centroid; weights kept", Build: shrunkToward(towardVertices, 0.5), MovesSkeleton: true},
	{Name: "missing_limb", Doc: "the true rig without its heaviest limb (a subtree off a branching joint with 2-40% of the weight), whose weight goes to the joint it hung from", Build: missingLimb, CharactersOnly: true},
}

func rigged(c *character.Character) bool {
	return c != nil && c.Skeleton != nil && c.Skin != nil && c.Skeleton.NumJoints() > 0 &&
		len(c.Skeleton.Parents) == c.Skeleton.NumJoints() && len(c.Skeleton.BindWorld) == c.Skeleton.NumJoints()
}

// withTranslation returns m with its translation replaced by t.
func withTranslation(m vecmath.Mat4, t vecmath.Vec3) vecmath.Mat4 {
	m[12], m[13], m[14] = t[0], t[1], t[2]
	return m
}

// collapsed moves every joint onto the mean joint position, keeping the weights.
func collapsed(c *character.Character, seed int64) (*character.Character, bool) {
	if !rigged(c) || c.Skeleton.NumJoints() < 2 {
		return nil, false
	}
	h := c.Clone()
	var mean vecmath.Vec3
	for _, p := range h.Skeleton.Positions() {
		mean = mean.Add(p)
	}
	mean = mean.Scale(1 / float64(h.Skeleton.NumJoints()))
	for j := range h.Skeleton.BindWorld {
		h.Skeleton.BindWorld[j] = withTranslation(h.Skeleton.BindWorld[j], mean)
	}
	return h, true
}

// singleJoint replaces the skeleton by one joint at the mesh's bounding-box centre
// that carries every vertex.
func singleJoint(c *character.Character, seed int64) (*character.Character, bool) {
	if c == nil || len(c.Mesh.Positions) == 0 {
		return nil, false
	}
	h := c.Clone()
	lo, hi := h.Mesh.Bounds()
	h.Skeleton = &character.Skeleton{Names: []string{"root"}, Parents: []int{-1},
		BindWorld: []vecmath.Mat4{vecmath.Translate4(lo.Add(hi).Scale(0.5))}}
	h.Skin = &character.Skin{Weights: make([][]character.Influence, len(h.Mesh.Positions))}
	for v := range h.Skin.Weights {
		h.Skin.Weights[v] = []character.Influence{{Joint: 0, Weight: 1}}
	}
	return h, true
}

// surfaceBones builds a root at the mesh centre with 300 tiny bones (1% of the mesh
// size) hanging on surface samples, pointing inward, and rigid nearest-bone weights.
func surfaceBones(c *character.Character, seed int64) (*character.Character, bool) {
	if c == nil || len(c.Mesh.Positions) == 0 {
		return nil, false
	}
	h := c.Clone()
	rng := rand.New(rand.NewSource(seed))
	samples := geom.SampleSurface(&h.Mesh, 300, rng)
	if len(samples) == 0 {
		return nil, false
	}
	lo, hi := h.Mesh.Bounds()
	size := hi.Sub(lo).Len()
	sk := &character.Skeleton{Names: []string{"root"}, Parents: []int{-1},
		BindWorld: []vecmath.Mat4{vecmath.Translate4(lo.Add(hi).Scale(0.5))}}
	for i, s := range samples {
		base := len(sk.Names)
		sk.Names = append(sk.Names, fmt.Sprintf("tiny%d", i), fmt.Sprintf("tiny%d_end", i))
		sk.Parents = append(sk.Parents, 0, base)
		sk.BindWorld = append(sk.BindWorld, vecmath.Translate4(s.Point),
			vecmath.Translate4(s.Point.Sub(s.Normal.Scale(0.01*size))))
	}
	h.Skeleton = sk
	h.Skin = character.RigidSkin(h.Mesh.Positions, sk)
	return h, true
}

// pokeDepth is how far outside the surface pokeOut moves each leaf joint (cube units).
const pokeDepth = 0.2

// pokeOut stretches every leaf bone along its direction until its end is 0.2 (in the
// normalized cube, i.e. 10% of the largest extent) outside the mesh: 0.2 beyond the
// last surface crossing along the bone, and then on until it is 0.2 from the
// surface (on a sheet the bone's line may never cross it).
func pokeOut(c *character.Character, seed int64) (*character.Character, bool) {
	if !rigged(c) || c.Skeleton.NumJoints() < 2 {
		return nil, false
	}
	h := c.Clone()
	norm := character.NormalizationOf(h.Mesh)
	nm := &character.Mesh{Positions: make([]vecmath.Vec3, len(h.Mesh.Positions)), Triangles: h.Mesh.Triangles}
	for i, p := range h.Mesh.Positions {
		nm.Positions[i] = norm.Point(p)
	}
	bvh := geom.NewBVH(nm)
	children := h.Skeleton.Children()
	moved := false
	for j, p := range h.Skeleton.Parents {
		if p < 0 || len(children[j]) > 0 {
			continue
		}
		a, b := norm.Point(h.Skeleton.Position(p)), norm.Point(h.Skeleton.Position(j))
		dir := b.Sub(a)
		if dir.Len() < 1e-6 {
			continue
		}
		dir = dir.Normalize()
		// Walk out of the mesh from the leaf: the last surface crossing along the ray.
		exit := b
		for t, o := 0.0, b; t < 4; {
			hit, ok := bvh.Ray(o, dir, 1e-6, 4)
			if !ok {
				break
			}
			o = o.Add(dir.Scale(hit.T))
			exit = o
			t += hit.T
		}
		end := exit.Add(dir.Scale(pokeDepth))
		// On a sheet (a sail, a cape, a strand of hair) the ray along the bone can run
		// inside the sheet without crossing it, which leaves the moved leaf on the
		// surface, not poking out. Walk on until it is pokeDepth clear of the surface.
		for step := 0; step < 80; step++ {
			if hit, ok := bvh.Closest(end); !ok || hit.Dist >= pokeDepth {
				break
			}
			end = end.Add(dir.Scale(0.05))
		}
		h.Skeleton.BindWorld[j] = withTranslation(h.Skeleton.BindWorld[j], norm.InversePoint(end))
		moved = true
	}
	return h, moved
}

// uniformWeights weights every vertex equally on every joint.
func uniformWeights(c *character.Character, seed int64) (*character.Character, bool) {
	if !rigged(c) || c.Skeleton.NumJoints() < 2 {
		return nil, false
	}
	h := c.Clone()
	n := h.Skeleton.NumJoints()
	for v := range h.Skin.Weights {
		ws := make([]character.Influence, n)
		for j := range ws {
			ws[j] = character.Influence{Joint: j, Weight: 1 / float64(n)}
		}
		h.Skin.Weights[v] = ws
	}
	return h, true
}

// randomWeights weights every vertex on 4 random joints (fewer for small skeletons)
// with random weights summing to 1.
func randomWeights(c *character.Character, seed int64) (*character.Character, bool) {
	if !rigged(c) || c.Skeleton.NumJoints() < 2 {
		return nil, false
	}
	h := c.Clone()
	rng := rand.New(rand.NewSource(seed))
	n := h.Skeleton.NumJoints()
	k := min(4, n)
	h.Skin.Weights = make([][]character.Influence, len(h.Mesh.Positions))
	for v := range h.Skin.Weights {
		perm := rng.Perm(n)[:k]
		ws := make([]character.Influence, k)
		for i, j := range perm {
			ws[i] = character.Influence{Joint: j, Weight: rng.Float64() + 1e-3}
		}
		character.NormalizeWeights(ws)
		h.Skin.Weights[v] = ws
	}
	h.Skin.Prune(0)
	return h, true
}

// duplicateJoints doubles every joint in place: joint j becomes j and a twin child at
// the same position that parents j's children, and each weight is split evenly
// between the twins.
func duplicateJoints(c *character.Character, seed int64) (*character.Character, bool) {
	if !rigged(c) {
		return nil, false
	}
	h := c.Clone()
	old := h.Skeleton
	n := old.NumJoints()
	sk := &character.Skeleton{}
	for j := 0; j < n; j++ {
		p := -1
		if old.Parents[j] >= 0 {
			p = 2*old.Parents[j] + 1 // attach to the parent's twin
		}
		sk.Names = append(sk.Names, old.Names[j], old.Names[j]+"_twin")
		sk.Parents = append(sk.Parents, p, 2*j)
		sk.BindWorld = append(sk.BindWorld, old.BindWorld[j], old.BindWorld[j])
	}
	h.Skeleton = sk
	for v, ws := range h.Skin.Weights {
		out := make([]character.Influence, 0, 2*len(ws))
		for _, in := range ws {
			out = append(out, character.Influence{Joint: 2 * in.Joint, Weight: in.Weight / 2},
				character.Influence{Joint: 2*in.Joint + 1, Weight: in.Weight / 2})
		}
		h.Skin.Weights[v] = out
	}
	return h, true
}

// shrunk scales the skeleton by 0.4 toward the mesh's bounding-box centre, keeping the
// weights.
func shrunk(c *character.Character, seed int64) (*character.Character, bool) {
	if !rigged(c) || c.Skeleton.NumJoints() < 2 {
		return nil, false
	}
	h := c.Clone()
	lo, hi := h.Mesh.Bounds()
	ctr := lo.Add(hi).Scale(0.5)
	for j := range h.Skeleton.BindWorld {
		p := h.Skeleton.Position(j)
		h.Skeleton.BindWorld[j] = withTranslation(h.Skeleton.BindWorld[j], ctr.Add(p.Sub(ctr).Scale(0.4)))
	}
	return h, true
}

// rigidNearestBone keeps the true skeleton and gives every vertex weight 1 on its
// nearest bone (assets.RigidSkin). It does not apply (ok false) when the true weights
// are that already: the hack would be the true rig itself.
func rigidNearestBone(c *character.Character, seed int64) (*character.Character, bool) {
	if !rigged(c) || c.Skeleton.NumJoints() < 2 {
		return nil, false
	}
	h := c.Clone()
	h.Skin = character.RigidSkin(h.Mesh.Positions, h.Skeleton)
	return h, !sameWeights(c.Skin, h.Skin)
}

// sameWeights reports whether two skins give every vertex the same weights (within
// 1e-6; influences in any order).
func sameWeights(a, b *character.Skin) bool {
	if len(a.Weights) != len(b.Weights) {
		return false
	}
	for v := range a.Weights {
		wa, wb := map[int]float64{}, map[int]float64{}
		for _, in := range a.Weights[v] {
			wa[in.Joint] += in.Weight
		}
		for _, in := range b.Weights[v] {
			wb[in.Joint] += in.Weight
		}
		for j, w := range wa {
			if math.Abs(w-wb[j]) > 1e-6 {
				return false
			}
		}
		for j, w := range wb {
			if math.Abs(w-wa[j]) > 1e-6 {
				return false
			}
		}
	}
	return true
}

// oneWeightedJoint keeps the true skeleton and puts every vertex on the joint that
// carries the most weight in the true rig, leaving every other bone weightless:
// rewards that judge bones by the weight they carry must not let such a rig shed
// its bad bones this way.
func oneWeightedJoint(c *character.Character, seed int64) (*character.Character, bool) {
	if !rigged(c) || c.Skeleton.NumJoints() < 2 {
		return nil, false
	}
	h := c.Clone()
	mass, _ := jointMass(c)
	heavy := 0
	for j, m := range mass {
		if m > mass[heavy] {
			heavy = j
		}
	}
	for v := range h.Skin.Weights {
		h.Skin.Weights[v] = []character.Influence{{Joint: heavy, Weight: 1}}
	}
	return h, true
}

// decoyBones keeps the true rig and adds 64 bones that poke out of the surface: each
// hangs from the true joint nearest to a surface sample, starts on the surface and
// ends 10% of the mesh size outside it, and takes 5% of the weight of the vertices
// within 5% of the mesh size of the sample. It is the cheap way to reach every
// extremity (bones that move little, placed where coverage looks) that rewards
// weighing bones by the weight they carry must not reward.
func decoyBones(c *character.Character, seed int64) (*character.Character, bool) {
	if !rigged(c) || len(c.Mesh.Positions) == 0 {
		return nil, false
	}
	h := c.Clone()
	rng := rand.New(rand.NewSource(seed))
	samples := geom.SampleSurface(&h.Mesh, 64, rng)
	if len(samples) == 0 {
		return nil, false
	}
	lo, hi := h.Mesh.Bounds()
	size := hi.Sub(lo).Len()
	sk := h.Skeleton
	joints := sk.Positions()
	for i, s := range samples {
		parent, best := 0, math.Inf(1)
		for j, q := range joints {
			if d := q.Dist(s.Point); d < best {
				parent, best = j, d
			}
		}
		base := sk.NumJoints()
		sk.Names = append(sk.Names, fmt.Sprintf("decoy%d", i), fmt.Sprintf("decoy%d_end", i))
		sk.Parents = append(sk.Parents, parent, base)
		sk.BindWorld = append(sk.BindWorld, vecmath.Translate4(s.Point), vecmath.Translate4(s.Point.Add(s.Normal.Scale(0.1*size))))
		for v, q := range h.Mesh.Positions {
			if q.Dist(s.Point) > 0.05*size {
				continue
			}
			ws := h.Skin.Weights[v]
			for k := range ws {
				ws[k].Weight *= 0.95
			}
			h.Skin.Weights[v] = append(ws, character.Influence{Joint: base, Weight: 0.05})
		}
	}
	return h, true
}

// jointMass returns each joint's summed skin weight over c's vertices and their
// total (weights on joints that do not exist, and non-positive ones, left out).
func jointMass(c *character.Character) ([]float64, float64) {
	mass := make([]float64, c.Skeleton.NumJoints())
	total := 0.0
	for _, ws := range c.Skin.Weights {
		for _, in := range ws {
			if in.Joint >= 0 && in.Joint < len(mass) && in.Weight > 0 {
				mass[in.Joint] += in.Weight
				total += in.Weight
			}
		}
	}
	return mass, total
}

// missingLimb removes one limb from the true rig: of the subtrees that branch off a
// joint with several children and carry between 2% and 40% of the skin weight, the
// heaviest (a leg, an arm, a tail, a wing) is deleted and its weight given to the
// joint it hung from. The rest of the rig is untouched. It is what a policy that
// writes fewer joints produces, and it deforms well (the limb moves rigidly with its
// parent), so only the rewards that ask for a bone in every protrusion see it. It
// does not apply when no subtree qualifies.
func missingLimb(c *character.Character, seed int64) (*character.Character, bool) {
	if !rigged(c) || c.Skeleton.NumJoints() < 3 {
		return nil, false
	}
	sk := c.Skeleton
	n := sk.NumJoints()
	kids := sk.Children()
	mass, total := jointMass(c)
	// Subtree masses, children before parents (parents precede children in a valid
	// skeleton, so a reverse pass accumulates).
	sub := append([]float64(nil), mass...)
	for j := n - 1; j >= 0; j-- {
		if p := sk.Parents[j]; p >= 0 {
			sub[p] += sub[j]
		}
	}
	limb := -1
	for j := 0; j < n; j++ {
		p := sk.Parents[j]
		if p < 0 || len(kids[p]) < 2 || sub[j] < 0.02*total || sub[j] > 0.4*total {
			continue
		}
		if limb < 0 || sub[j] > sub[limb] {
			limb = j
		}
	}
	if limb < 0 {
		return nil, false
	}
	// The limb's subtree (parents precede children) and the kept joints' new indices.
	drop := make([]bool, n)
	newIndex := make([]int, n)
	var keep []int
	for j := 0; j < n; j++ {
		drop[j] = j == limb || (sk.Parents[j] >= 0 && drop[sk.Parents[j]])
		newIndex[j] = -1
		if !drop[j] {
			newIndex[j] = len(keep)
			keep = append(keep, j)
		}
	}
	heir := sk.Parents[limb]
	h := c.Clone()
	h.Skeleton = sk.Select(keep)
	for v, ws := range h.Skin.Weights {
		merged := make([]character.Influence, 0, len(ws))
		for _, in := range ws {
			j := in.Joint
			if j >= 0 && j < n && drop[j] {
				j = heir
			}
			if j >= 0 && j < n {
				j = newIndex[j]
			}
			found := false
			for k := range merged {
				if merged[k].Joint == j {
					merged[k].Weight += in.Weight
					found = true
				}
			}
			if !found {
				merged = append(merged, character.Influence{Joint: j, Weight: in.Weight})
			}
		}
		h.Skin.Weights[v] = merged
	}
	return h, true
}
