package critic

import (
	"math"
	"sort"

	"github.com/rigkit/rigkit/geom"
	"github.com/rigkit/rigkit/vecmath"
)

// FeatureNames name the entries of Features, in order. Each reads the skeleton
// in the rewards' cube against the mesh, never the skin, so the critic judges
// where the joints are and how the tree is built, the part of a rig an artist
// draws by hand.
var FeatureNames = []string{
	"log_joints",     // log of the joint count
	"leaf_share",     // joints without children
	"branch_share",   // joints with two or more children
	"depth_share",    // the deepest chain's joint count over the joint count
	"log_bone",       // log of the median bone length
	"bone_spread",    // interquartile range of log bone lengths
	"short_bones",    // bones under 0.02
	"bend",           // mean 1 − cos between a one-child joint's bones
	"length_steps",   // mean |log| of a one-child joint's outgoing over incoming bone
	"outside",        // joints outside the mesh
	"off_centre",     // mean asymmetry of the mesh's walls around each joint
	"leaf_depth",     // mean distance of leaves to the surface
	"log_spacing",    // log of the mean distance to the nearest other joint
	"root_offset",    // the root's distance from the joints' centroid over their spread
	"log_total_bone", // log of the summed bone length
	"root_ecc",       // the root's farthest joint in hops over the tree's diameter
}

// maxCriticJoints bounds the joints whose walls are probed, so that a skeleton
// of thousands of joints costs no more than one of a few hundred.
const maxCriticJoints = 256

// wallProbe (cube units) is how far a centring ray looks for the mesh's wall.
const wallProbe = 0.5

// Mesh is the geometry the features read: the mesh's BVH and winding number, in
// the cube the joints are given in.
type Mesh struct {
	BVH     *geom.BVH
	Winding *geom.WindingNumber
}

// joints is a skeleton in the cube: parents precede children.
type joints struct {
	parents  []int
	pos      []vecmath.Vec3
	children [][]int
}

// Features returns the features (FeatureNames) of the skeleton whose joints lie
// at pos with parents (each parent before its child, -1 for a root), in the
// cube of m. It needs at least one joint.
func Features(m Mesh, pos []vecmath.Vec3, parents []int) []float64 {
	j := &joints{parents: parents, pos: pos, children: make([][]int, len(pos))}
	for k, p := range parents {
		if p >= 0 {
			j.children[p] = append(j.children[p], k)
		}
	}
	f := make([]float64, 0, len(FeatureNames))
	f = append(f, treeFeatures(j)...)
	f = append(f, boneFeatures(j)...)
	f = append(f, placementFeatures(m, j)...)
	f = append(f, spacingFeatures(j)...)
	f = append(f, rootEccentricity(j))
	return f
}

// treeFeatures: log_joints, leaf_share, branch_share, depth_share.
func treeFeatures(j *joints) []float64 {
	n := len(j.pos)
	leaves, branches, deepest := 0, 0, 0
	depth := make([]int, n)
	for k := 0; k < n; k++ {
		switch len(j.children[k]) {
		case 0:
			leaves++
		case 1:
		default:
			branches++
		}
		depth[k] = 1
		if p := j.parents[k]; p >= 0 {
			depth[k] = depth[p] + 1
		}
		deepest = max(deepest, depth[k])
	}
	fn := float64(n)
	return []float64{math.Log(fn), float64(leaves) / fn, float64(branches) / fn, float64(deepest) / fn}
}

// boneFeatures: log_bone, bone_spread, short_bones, bend, length_steps.
func boneFeatures(j *joints) []float64 {
	var logs []float64
	short := 0
	for k, p := range j.parents {
		if p < 0 {
			continue
		}
		l := j.pos[k].Sub(j.pos[p]).Len()
		if l < 0.02 {
			short++
		}
		logs = append(logs, math.Log(l+1e-4))
	}
	if len(logs) == 0 {
		return []float64{math.Log(1e-4), 0, 0, 0, 0}
	}
	sort.Float64s(logs)
	q := func(x float64) float64 { return logs[int(x*float64(len(logs)-1))] }
	bend, steps := chainShape(j)
	return []float64{q(0.5), q(0.75) - q(0.25), float64(short) / float64(len(logs)), bend, steps}
}

// chainShape averages, over joints with a parent and one child, how far the
// chain turns there (1 − cos) and how much the bone length changes (|log| of
// the outgoing over the incoming length): an artist's chains run straight and
// shorten gradually, a jittered one zigzags.
func chainShape(j *joints) (bend, steps float64) {
	count := 0
	for k, p := range j.parents {
		if p < 0 || len(j.children[k]) != 1 {
			continue
		}
		in := j.pos[k].Sub(j.pos[p])
		out := j.pos[j.children[k][0]].Sub(j.pos[k])
		li, lo := in.Len(), out.Len()
		if li < 1e-6 || lo < 1e-6 {
			continue
		}
		bend += 1 - in.Dot(out)/(li*lo)
		steps += math.Abs(math.Log(lo / li))
		count++
	}
	if count == 0 {
		return 0, 0
	}
	return bend / float64(count), steps / float64(count)
}

// placementFeatures: outside, off_centre, leaf_depth, read against the mesh on
// at most maxCriticJoints joints spread evenly over the skeleton.
func placementFeatures(m Mesh, j *joints) []float64 {
	n := len(j.pos)
	step := max(1, (n+maxCriticJoints-1)/maxCriticJoints)
	outside, asym, leafDepth := 0.0, 0.0, 0.0
	probed, leaves := 0, 0
	for k := 0; k < n; k += step {
		probed++
		in := m.Winding.At(j.pos[k]) > 0.5
		if !in {
			outside++
		}
		asym += wallAsymmetry(m.BVH, j.pos[k], boneAxis(j, k), in)
		if len(j.children[k]) == 0 {
			if hit, ok := m.BVH.Closest(j.pos[k]); ok {
				leafDepth += hit.Dist
			}
			leaves++
		}
	}
	if leaves > 0 {
		leafDepth /= float64(leaves)
	}
	return []float64{outside / float64(probed), asym / float64(probed), leafDepth}
}

// boneAxis is the direction of joint k's bone: from its parent, else toward its
// first child, else up.
func boneAxis(j *joints, k int) vecmath.Vec3 {
	var d vecmath.Vec3
	if p := j.parents[k]; p >= 0 {
		d = j.pos[k].Sub(j.pos[p])
	} else if len(j.children[k]) > 0 {
		d = j.pos[j.children[k][0]].Sub(j.pos[k])
	}
	if l := d.Len(); l > 1e-6 {
		return d.Scale(1 / l)
	}
	return vecmath.Vec3{0, 1, 0}
}

// wallAsymmetry casts rays both ways along two axes across the bone at x and
// returns the mean |a − b|/(a + b) of the opposite wall distances: 0 for a joint
// centred in its limb, 1 for one outside the mesh or with no wall on one side.
func wallAsymmetry(bvh *geom.BVH, x, axis vecmath.Vec3, inside bool) float64 {
	if !inside {
		return 1
	}
	u := axis.Cross(vecmath.Vec3{1, 0, 0})
	if u.Len() < 0.3 {
		u = axis.Cross(vecmath.Vec3{0, 0, 1})
	}
	u = u.Scale(1 / u.Len())
	v := axis.Cross(u)
	total := 0.0
	for _, d := range []vecmath.Vec3{u, v} {
		a, okA := bvh.RayCapped(x, d, 1e-5, wallProbe, wallProbe)
		b, okB := bvh.RayCapped(x, d.Scale(-1), 1e-5, wallProbe, wallProbe)
		if !okA || !okB || a+b <= 0 {
			total++
			continue
		}
		total += math.Abs(a-b) / (a + b)
	}
	return total / 2
}

// spacingFeatures: log_spacing, root_offset, log_total_bone.
func spacingFeatures(j *joints) []float64 {
	n := len(j.pos)
	var centroid vecmath.Vec3
	for _, x := range j.pos {
		centroid = centroid.Add(x)
	}
	centroid = centroid.Scale(1 / float64(n))
	spread, total, nearest := 0.0, 0.0, 0.0
	step := max(1, (n+maxCriticJoints-1)/maxCriticJoints)
	probed := 0
	for k := 0; k < n; k++ {
		d := j.pos[k].Sub(centroid)
		spread += d.Dot(d)
		if p := j.parents[k]; p >= 0 {
			total += j.pos[k].Sub(j.pos[p]).Len()
		}
		if k%step == 0 && n > 1 {
			nearest += nearestOther(j.pos, k)
			probed++
		}
	}
	spread = math.Sqrt(spread/float64(n)) + 1e-6
	root := 0
	for k, p := range j.parents {
		if p < 0 {
			root = k
			break
		}
	}
	spacing := 1e-4
	if probed > 0 {
		spacing += nearest / float64(probed)
	}
	return []float64{math.Log(spacing), j.pos[root].Sub(centroid).Len() / spread, math.Log(total + 1e-4)}
}

func nearestOther(pos []vecmath.Vec3, k int) float64 {
	best := math.Inf(1)
	for i, x := range pos {
		if i != k {
			best = math.Min(best, x.Sub(pos[k]).Len())
		}
	}
	return best
}

// rootEccentricity is the hop count from the root to its farthest joint over
// the tree's diameter in hops (1 for a single joint): about one half for a
// root at the hips between legs and head, as artists place it, and 1 for a
// root at one end of the body. Moving joints cannot change it.
func rootEccentricity(j *joints) float64 {
	n := len(j.pos)
	depth := make([]int, n)  // hops from the root
	height := make([]int, n) // hops to the deepest descendant
	ecc, diameter := 0, 0
	for k := 0; k < n; k++ {
		if p := j.parents[k]; p >= 0 {
			depth[k] = depth[p] + 1
		}
		ecc = max(ecc, depth[k])
	}
	for k := n - 1; k >= 0; k-- { // children after parents
		first, second := 0, 0 // the two longest downward paths through k
		for _, c := range j.children[k] {
			h := height[c] + 1
			if h > first {
				first, second = h, first
			} else if h > second {
				second = h
			}
		}
		height[k] = first
		diameter = max(diameter, first+second)
	}
	if diameter == 0 {
		return 1
	}
	return float64(ecc) / float64(diameter)
}
