package eval

import (
	"math"
	"math/rand"
	"strings"

	"github.com/rigkit/rigkit/animation"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/metrics"
	"github.com/rigkit/rigkit/vecmath"
)

// Joint regions: the whole-mesh deformation error averages the joints, where
// weights matter, with the rigid middles of limbs, where any weights do. This file
// scores the vertices near the joints animators look at: the shoulders, elbows,
// wrists, hips, knees, ankles and neck of a named skeleton, and for other
// skeletons every joint with two or more children and every chain's second
// joint. A region is the vertices within twice the joint's distance to the
// surface (the local limb radius: a sphere of twice the radius of a round limb
// around its axis takes the ring of the limb within √3 radii of the joint). The
// poses are rigkit's clips retargeted onto the artist's skeleton when its names
// follow a known scheme (animation.DetectKind) and seeded random poses otherwise.
// A region is torn when, in some pose, one of its edges stretches to more than
// tornStretch times its length under the artist's weights, and collapsed when
// its triangles' area falls below collapsedArea of the artist's.

const (
	// regionRadius multiplies a joint's distance to the surface.
	regionRadius = 2
	// minRegion and maxRegion bound a region's radius in normalized units (the
	// cube is 2 wide), for joints on or far from the surface.
	minRegion, maxRegion = 0.02, 0.25
	// clipFrames is how many evenly spaced frames of each clip are posed.
	clipFrames = 8
	// tornStretch and collapsedArea are the tear and collapse thresholds.
	tornStretch, collapsedArea = 2.0, 0.5
)

// JointRegionResult is the joint-region score of one method on one asset.
type JointRegionResult struct {
	Regions  int `json:"regions"`
	Vertices int `json:"vertices"` // vertices in at least one region
	// Deform is the mean over poses of the mean distance (×100, normalized units)
	// between region vertices skinned with the method's and the artist's weights.
	Deform    float64 `json:"deform"`
	Torn      int     `json:"torn"`
	Collapsed int     `json:"collapsed"`
	// Poses names the poses: the clips, or "random".
	Poses string `json:"poses"`
}

// jointRegion is one joint's region: its vertices, and its edges and triangles
// (all corners inside).
type jointRegion struct {
	verts []int
	edges [][2]int
	tris  [][3]int
}

// jointProbe is what the joint-region score of one asset needs for every method:
// the regions, the poses' skinning matrices and the artist's skinned positions.
type jointProbe struct {
	regions  []jointRegion
	union    []int
	skinning [][]vecmath.Mat4
	artist   [][]vecmath.Vec3 // per pose, indexed like union
	at       map[int]int      // vertex → its index in union
	scale    float64          // world → normalized units
	poses    string
}

// newJointProbe prepares the joint regions and poses of an artist's rig, or nil
// when it has no region.
func newJointProbe(gt *character.Character, seed int64) *jointProbe {
	norm := character.NormalizationOf(gt.Mesh)
	p := &jointProbe{scale: norm.Scale, at: map[int]int{}}
	for _, j := range regionJoints(gt.Skeleton) {
		if r := regionOf(gt, j, norm.Scale); len(r.verts) > 0 {
			p.regions = append(p.regions, r)
		}
	}
	if len(p.regions) == 0 {
		return nil
	}
	for _, r := range p.regions {
		for _, v := range r.verts {
			if _, ok := p.at[v]; !ok {
				p.at[v] = len(p.union)
				p.union = append(p.union, v)
			}
		}
	}
	p.skinning, p.poses = jointPoses(gt, seed)
	for _, m := range p.skinning {
		p.artist = append(p.artist, p.skin(gt, gt.Skin, m))
	}
	return p
}

// skin returns the union's vertices skinned by weights under skinning matrices m.
func (p *jointProbe) skin(gt *character.Character, w *character.Skin, m []vecmath.Mat4) []vecmath.Vec3 {
	pos := make([]vecmath.Vec3, len(p.union))
	sub := &character.Skin{Weights: make([][]character.Influence, len(p.union))}
	for i, v := range p.union {
		pos[i] = gt.Mesh.Positions[v]
		if v < len(w.Weights) {
			sub.Weights[i] = w.Weights[v]
		}
	}
	return character.LinearBlendSkin(pos, sub, m)
}

// score is the joint-region result of weights w (on gt's vertices and joints).
func (p *jointProbe) score(gt *character.Character, w *character.Skin) *JointRegionResult {
	res := &JointRegionResult{Regions: len(p.regions), Vertices: len(p.union), Poses: p.poses}
	torn := make([]bool, len(p.regions))
	collapsed := make([]bool, len(p.regions))
	for k, m := range p.skinning {
		got, want := p.skin(gt, w, m), p.artist[k]
		sum := 0.0
		for i := range got {
			sum += got[i].Sub(want[i]).Len()
		}
		res.Deform += sum / float64(len(got))
		for r, reg := range p.regions {
			torn[r] = torn[r] || p.tears(reg, got, want)
			collapsed[r] = collapsed[r] || p.area(reg, got) < collapsedArea*p.area(reg, want)
		}
	}
	res.Deform *= metrics.DeformScale * p.scale / float64(len(p.skinning))
	for r := range p.regions {
		res.Torn += b2i(torn[r])
		res.Collapsed += b2i(collapsed[r])
	}
	return res
}

// tears reports whether an edge of reg stretches past tornStretch times its
// artist-skinned length.
func (p *jointProbe) tears(reg jointRegion, got, want []vecmath.Vec3) bool {
	for _, e := range reg.edges {
		a, b := p.at[e[0]], p.at[e[1]]
		if got[a].Sub(got[b]).Len() > tornStretch*want[a].Sub(want[b]).Len()+1e-9/p.scale {
			return true
		}
	}
	return false
}

// area is the total area of reg's triangles at positions pos.
func (p *jointProbe) area(reg jointRegion, pos []vecmath.Vec3) float64 {
	s := 0.0
	for _, t := range reg.tris {
		a, b, c := pos[p.at[t[0]]], pos[p.at[t[1]]], pos[p.at[t[2]]]
		s += b.Sub(a).Cross(c.Sub(a)).Len() / 2
	}
	return s
}

// regionJoints are the joints whose regions are scored: the named limb joints
// and neck when the skeleton names at least three, else the branching joints and
// every chain's second joint.
func regionJoints(sk *character.Skeleton) []int {
	var named []int
	for j, n := range sk.Names {
		if isRegionName(animation.CanonicalName(n)) {
			named = append(named, j)
		}
	}
	if len(named) >= 3 {
		return named
	}
	children := make([][]int, sk.NumJoints())
	for j, p := range sk.Parents {
		if p >= 0 {
			children[p] = append(children[p], j)
		}
	}
	take := make([]bool, sk.NumJoints())
	for j, p := range sk.Parents {
		// A chain starts at a root or below a branching joint; its second joint
		// is the child of its first.
		startsChain := p < 0 || len(children[p]) >= 2
		switch {
		case len(children[j]) >= 2:
			take[j] = true
		case startsChain && len(children[j]) == 1:
			take[children[j][0]] = true
		}
	}
	var out []int
	for j, ok := range take {
		if ok {
			out = append(out, j)
		}
	}
	return out
}

// isRegionName reports whether a canonical joint name is a shoulder, elbow,
// wrist, hip, knee, ankle (of any limb pair) or the neck.
func isRegionName(n string) bool {
	if n == "Neck" {
		return true
	}
	if !strings.HasPrefix(n, "Left") && !strings.HasPrefix(n, "Right") {
		return false
	}
	for _, suffix := range []string{"Arm", "Hand", "UpLeg", "Leg", "Foot"} {
		if strings.HasSuffix(n, suffix) {
			return true
		}
	}
	return false
}

// regionOf is joint j's region: the vertices within regionRadius times the
// joint's distance to the nearest vertex (clamped to [minRegion, maxRegion] in
// normalized units; scale maps world to normalized units).
func regionOf(c *character.Character, j int, scale float64) jointRegion {
	x := c.Skeleton.Position(j)
	near := math.Inf(1)
	for _, v := range c.Mesh.Positions {
		near = min(near, v.Sub(x).Len())
	}
	r := min(max(regionRadius*near*scale, minRegion), maxRegion) / scale
	in := map[int]bool{}
	var reg jointRegion
	for v, pos := range c.Mesh.Positions {
		if pos.Sub(x).Len() <= r {
			in[v] = true
			reg.verts = append(reg.verts, v)
		}
	}
	for _, t := range c.Mesh.Triangles {
		if in[t[0]] && in[t[1]] && in[t[2]] {
			reg.tris = append(reg.tris, t)
			reg.edges = append(reg.edges, [2]int{t[0], t[1]}, [2]int{t[1], t[2]}, [2]int{t[2], t[0]})
		}
	}
	return reg
}

// jointPoses are the skinning matrices of the poses a rig is scored in: frames
// of rigkit's clips of its kind when its names follow a known scheme, else
// metrics.DeformPoses random poses (seeded, up to metrics.DeformMaxAngle).
func jointPoses(gt *character.Character, seed int64) ([][]vecmath.Mat4, string) {
	sk := gt.Skeleton
	if out, names := animation.Motion(sk, clipFrames); len(out) > 0 {
		return out, "clips " + strings.Join(names, ", ")
	}
	rng := rand.New(rand.NewSource(seed))
	var out [][]vecmath.Mat4
	for k := 0; k < metrics.DeformPoses; k++ {
		pose := character.RandomPose(rng, sk.NumJoints(), metrics.DeformMaxAngle)
		out = append(out, sk.SkinningMatrices(sk.PosedWorld(pose)))
	}
	return out, "random"
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
