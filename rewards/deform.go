package rewards

import (
	"math"
	"math/rand"
	"sync"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// Deformation tuning.
const (
	// distortStrain is the strain |l'/l − 1| from which an edge counts as distorted
	// in a pose, and strainScale the distorted share, divided by √(region edges), that
	// halves the strain factor: 4 × the tune half's median true rig (0.21).
	// The share of distorted edges, not Σ ε²: an artist's hard seam concentrates
	// its stretch on one ring of edges, which a squared sum charges more than the
	// same stretch spread thin, so the squared sum ranked smooth automatic skins
	// above the artist's.
	distortStrain = 0.1
	strainScale   = 0.86
	strainCap     = 2.0
	flipScale     = 0.08 // flipped-triangle rate that costs a factor e
	volumeScale   = 0.2  // volume drift that costs a factor e
	// An edge tears by clamp((jump − tearLow)/(1 − tearLow), 0, 1), jump being the
	// total variation between its ends' weights: fully at a rigid seam (1), not at all
	// where the weights blend (≤ 0.5), and continuously between, so that shaving a few
	// percent off a hard seam buys a few percent, not a step.
	tearLow = 0.5
	// regionFloor is the least region-edge fraction strain and tears are divided by,
	// so that a rig with almost no boundaries (a quarter of the real rigs have under
	// 0.019, many of them props moved by one joint) is not judged on a handful of
	// edges.
	regionFloor = 0.02
	// tearMinor: influences under it are left out of the jump (see major).
	tearMinor = 0.1
	// tearScale is the share of region-boundary edges that tear which costs a factor
	// e, beyond tearFree: a share up to tearFree tears at no cost, and the cost
	// rises linearly to that of a fully torn rig at 1 (see tearFactor). Artists cut
	// hard seams on purpose (true rigs on the tune half's characters: median 0.19,
	// 90% below 0.56), nearest-bone weights tear every seam (1 and more).
	tearScale = 0.5
	tearFree  = 0.7
	// articulationScale is the affine residual (see deformation) at which the
	// articulation factor is 1/2. On the 324 real rigs under the default poses the
	// true rigs reach 0.011–0.40 (median 0.14, 90% above 0.056); hundreds of tiny
	// surface bones about 0.011 (at most 0.038); a rigid motion and equal weights on
	// every joint exactly 0.
	articulationScale = 0.03
)

// deformation measures how gracefully the skin follows the skeleton. The rig is posed
// with Options.Poses seeded random poses (every joint rotated about a random axis by
// up to Options.MaxAngle, forward kinematics, linear blend skinning) and with the
// frames of Options.Motion (rigkit's clips where the skeleton's kind is known: a
// walk, a wave, a crouch, raised arms), every pose counting alike, and five factors
// are multiplied, each judging the seams, not how many there are. Tears:
// tearFactor(torn/region), free up to 0.7. An edge tears by how far the total variation between its
// ends' weights (influences of at least 0.1, renormalized) exceeds 0.5: fully at a
// rigid seam (1), not at all where the weights blend (a rigid seam opens in any
// pose; smooth artist weights blend across joints instead). region counts the edges
// whose ends have different heaviest joints at most two bones apart (every seam
// crosses some; boundaries between far joints, as random weights draw, do not
// count), so torn/region is the share of seams that are hard. Strain: 1/(1 + S/0.86), S
// = the share of (edge, pose) pairs, over up to 3000 sampled edges, whose strain ε =
// |l'/l - 1| exceeds 0.1, divided by √region (region at least 2% of the sampled
// edges; strain lives at the seams: an edge with equal weights at both ends moves
// rigidly). Folds: exp(-fold rate/0.08) over up to 2000 sampled triangles; a triangle
// folds when its posed normal points against its bind normal carried by the
// triangle's own blended skinning transform (the weight-averaged linear parts of its
// vertices' joint transforms), so triangles that a chain rotates rigidly (a coiled
// tail) do not count, only ones turned inside out. Volume: exp(-|V'/V - 1|/0.2) for
// the enclosed volume of nearly closed meshes (volume loss at joints). Articulation:
// A/(A+0.03) asks whether the poses bend the mesh at all; A is the RMS distance of up
// to 1024 sampled vertices from the best affine image of their rest positions (least
// squares), relative to the sample's spread, averaged over the poses. Any rigid
// motion, and the single blended transform that equal weights on every joint give,
// is affine, so a one-joint rig and uniform weights score 0: a rig that cannot deform
// badly because it cannot deform at all earns nothing here.
// Blind to: whether the rig articulates the right parts (that the bones reach every
// protrusion is coverage's job), how far a rig articulates beyond a small amount,
// where the pivots sit as long as the seams stay smooth, and orphan vertices' cause.
func (p *Prepared) deformation(r *rig, motion [][]vecmath.Mat4, opt Options) (float64, *DeformationDetails) {
	// The random poses first, then the motion's frames: each a pose like the others.
	poseCount := opt.Poses + len(motion)
	det := &DeformationDetails{Poses: poseCount, MotionFrames: len(motion)}
	nJ := len(r.pos)
	// The posed positions: a pooled buffer (scores run back to back, each would
	// otherwise zero a fresh copy of the mesh).
	defBuf := posedPool.Get().(*[]vecmath.Vec3)
	defer posedPool.Put(defBuf)
	if cap(*defBuf) < len(p.pos) {
		*defBuf = make([]vecmath.Vec3, len(p.pos))
	}
	def := (*defBuf)[:len(p.pos)]
	copy(def, p.pos)
	edgeMax := make([]float64, len(p.edges))
	sqSum, distorted, flips, volDrift, artSum := 0.0, 0, 0, 0.0, 0.0
	invBind := make([]vecmath.Mat4, nJ)
	for j, b := range r.skel.BindWorld {
		inv, ok := b.Inverse()
		if !ok {
			inv = vecmath.Identity4()
		}
		invBind[j] = inv
	}
	mats := make([]vecmath.Mat4, nJ)
	fr := p.flipFrames(r)
	torn, regions := p.seamEdges(r)
	for k := 0; k < poseCount && !opt.canceled(); k++ {
		r.poseMatrices(mats, k, motion, invBind, opt)
		p.skinPosed(def, r, mats)
		for i, e := range p.edges {
			eps := math.Min(strainCap, math.Abs(def[e.a].Dist(def[e.b])/e.len-1))
			if math.IsNaN(eps) {
				eps = strainCap
			}
			sqSum += eps * eps
			if eps > distortStrain {
				distorted++
			}
			if eps > edgeMax[i] {
				edgeMax[i] = eps
			}
		}
		flips += p.folds(def, mats, fr)
		if k < opt.Poses {
			// Articulation asks whether the rig bends at all, which the random poses,
			// turning every joint, answer alone: a clip moves only the joints it
			// names, and its frames would otherwise count against a rig that plays it.
			artSum += p.affine.residual(def)
		}
		if p.volTris {
			d := math.Abs(signedVolume(def, p.tris)/p.restVol - 1)
			if math.IsNaN(d) || d > 1 {
				d = 1
			}
			volDrift += d
		}
	}
	if len(p.edges) > 0 {
		det.TornEdges = torn / float64(len(p.edges))
		det.RegionEdges = float64(regions) / float64(len(p.edges))
	}
	poses := float64(poseCount)
	msq := 0.0
	if len(p.edges) > 0 {
		msq = sqSum / (poses * float64(len(p.edges)))
	}
	det.RMSStrain = math.Sqrt(msq)
	if len(p.edges) > 0 {
		det.DistortedEdges = float64(distorted) / (poses * float64(len(p.edges)))
	}
	if len(p.flipTris) > 0 {
		det.FlipRate = float64(flips) / (poses * float64(len(p.flipTris)))
	}
	det.VolumeDrift = volDrift / poses
	det.Articulation = artSum / float64(max(opt.Poses, 1))
	det.WorstVertices = p.worstVertices(r, edgeMax)
	// Per seam, not per mesh: strain and tears are counted per region-boundary edge,
	// so a rig does not gain by having fewer seams (dropping a limb removes its seam
	// and its strain with it).
	seams := math.Max(det.RegionEdges, regionFloor)
	strainF := 1 / (1 + det.DistortedEdges/math.Sqrt(seams)/strainScale)
	tearF := tearFactor(det.TornEdges / seams)
	flipF := math.Exp(-det.FlipRate / flipScale)
	volF := math.Exp(-det.VolumeDrift / volumeScale)
	artF := det.Articulation / (det.Articulation + articulationScale)
	if len(p.affine.verts) == 0 {
		artF = 1 // a mesh too small to sample (fewer than 4 vertices 0.3 apart)
	}
	return tearF * strainF * flipF * volF * artF, det
}

// poseMatrices fills mats with pose k's skinning matrices: the seeded random pose
// k while k < opt.Poses, then the motion's frames.
func (r *rig) poseMatrices(mats []vecmath.Mat4, k int, motion [][]vecmath.Mat4, invBind []vecmath.Mat4, opt Options) {
	if k >= opt.Poses {
		copy(mats, motion[k-opt.Poses])
		return
	}
	// One stream per pose, read joint by joint: joints appended to a skeleton do
	// not change the rotations the others get.
	rng := rand.New(rand.NewSource(opt.Seed*7919 + 17 + int64(k)*104729))
	posed := r.skel.PosedWorld(character.RandomPose(rng, len(mats), opt.MaxAngle))
	for j := range mats {
		mats[j] = posed[j].Mul(invBind[j])
	}
}

// tearFactor is the tear factor for a torn share t of the region-boundary edges:
// 1 up to tearFree, then exp(−min(t, (t − tearFree)/(1 − tearFree))/tearScale), which
// reaches the full exp(−t/tearScale) at t = 1 and follows it beyond. Seams hard
// on most of their length are how game rigs are cut; only a rig whose seams are
// hard almost everywhere (nearest-bone weights) pays as before.
func tearFactor(t float64) float64 {
	if t <= tearFree {
		return 1
	}
	return math.Exp(-math.Min(t, (t-tearFree)/(1-tearFree)) / tearScale)
}

// blendedFrames holds each sampled triangle's blended skinning transform, as joints
// with the summed weights of its three corners (Σ over corners of Σ w·M = Σ over
// joints of W·M): gathered once, applied to the bind normal in every pose. Triangle
// i's joints are joint[start[i]:start[i+1]].
type blendedFrames struct {
	start  []int32
	joint  []int32
	weight []float64
}

// flipFrames gathers the blended frames of the fold-sampled triangles.
func (p *Prepared) flipFrames(r *rig) blendedFrames {
	flipStart := make([]int32, len(p.flipTris)+1)
	var flipJ []int32
	var flipW []float64
	for i, t := range p.flipTris {
		first := len(flipJ)
		for _, v := range p.tris[t] {
		next:
			for _, in := range r.skin[v] {
				for k := first; k < len(flipJ); k++ {
					if flipJ[k] == int32(in.Joint) {
						flipW[k] += in.Weight
						continue next
					}
				}
				flipJ = append(flipJ, int32(in.Joint))
				flipW = append(flipW, in.Weight)
			}
		}
		flipStart[i+1] = int32(len(flipJ))
	}
	return blendedFrames{flipStart, flipJ, flipW}
}

// seamEdges scores each sampled edge once: torn edges (a hard seam) and region
// edges (the two ends' heaviest joints differ and are near in the skeleton, at most
// two bones apart: the boundaries every seam of a rig crosses; random weights draw
// boundaries between far joints, which do not count).
func (p *Prepared) seamEdges(r *rig) (torn float64, regions int) {
	var ma, mb []character.Influence
	for _, e := range p.edges {
		torn += clamp01((weightJump(major(r.skin[e.a], &ma), major(r.skin[e.b], &mb)) - tearLow) / (1 - tearLow))
		if a, b := heaviestJoint(r.skin[e.a]), heaviestJoint(r.skin[e.b]); a != b && r.near(a, b) {
			regions++
		}
	}
	return torn, regions
}

// skinPosed writes the linear-blend-skinned position of every deformation vertex
// into def, given each joint's bind-to-posed transform; unweighted vertices stay.
func (p *Prepared) skinPosed(def []vecmath.Vec3, r *rig, mats []vecmath.Mat4) {
	for _, v := range p.defVerts {
		ws := r.skin[v]
		if len(ws) == 0 {
			def[v] = p.pos[v]
			continue
		}
		q := p.pos[v]
		var x, y, z float64
		for _, in := range ws {
			m, w := &mats[in.Joint], in.Weight
			x += w * (m[0]*q[0] + m[4]*q[1] + m[8]*q[2] + m[12])
			y += w * (m[1]*q[0] + m[5]*q[1] + m[9]*q[2] + m[13])
			z += w * (m[2]*q[0] + m[6]*q[1] + m[10]*q[2] + m[14])
		}
		def[v] = vecmath.Vec3{x, y, z}
	}
}

// folds counts the sampled triangles that fold in one pose. The bind normal is
// carried by the triangle's blended skinning transform: a triangle that a chain
// merely rotates keeps n1·carried > 0; only a fold (the triangle turned inside out
// relative to its own frame) flips.
func (p *Prepared) folds(def []vecmath.Vec3, mats []vecmath.Mat4, fr blendedFrames) int {
	flips := 0
	for i, t := range p.flipTris {
		tr := p.tris[t]
		n1 := def[tr[1]].Sub(def[tr[0]]).Cross(def[tr[2]].Sub(def[tr[0]]))
		n0 := p.flipNormals[i]
		var carried vecmath.Vec3
		for k := fr.start[i]; k < fr.start[i+1]; k++ {
			m, w := &mats[fr.joint[k]], fr.weight[k]
			carried[0] += w * (m[0]*n0[0] + m[4]*n0[1] + m[8]*n0[2])
			carried[1] += w * (m[1]*n0[0] + m[5]*n0[1] + m[9]*n0[2])
			carried[2] += w * (m[2]*n0[0] + m[6]*n0[1] + m[10]*n0[2])
		}
		if !(carried.Dot(n1) > 0) {
			flips++
		}
	}
	return flips
}

// worstVertices names the vertices at the worst-strained edges (top 5 of those at
// 0.25 or more, by a linear scan), with the joint that moves each most.
func (p *Prepared) worstVertices(r *rig, edgeMax []float64) []VertexJoint {
	var worst []int
	for i, m := range edgeMax {
		if m < 0.25 {
			continue
		}
		worst = append(worst, i)
		for w := len(worst) - 1; w > 0 && edgeMax[worst[w]] > edgeMax[worst[w-1]]; w-- {
			worst[w], worst[w-1] = worst[w-1], worst[w]
		}
		if len(worst) > 5 {
			worst = worst[:5]
		}
	}
	var out []VertexJoint
	for _, i := range worst {
		v := p.edges[i].a
		j := -1
		if len(r.skin[v]) > 0 {
			j = r.skin[v][0].Joint
		}
		out = append(out, VertexJoint{Vertex: v, Joint: jointName(r, j), Value: edgeMax[i]})
	}
	return out
}

var posedPool = sync.Pool{New: func() any { return new([]vecmath.Vec3) }}

// major returns ws without its influences under tearMinor, renormalized, in *buf:
// the weights that shape a seam (a sliver of weight on a passenger bone does not
// soften it).
func major(ws []character.Influence, buf *[]character.Influence) []character.Influence {
	out := (*buf)[:0]
	for _, in := range ws {
		if in.Weight >= tearMinor {
			out = append(out, in)
		}
	}
	if character.NormalizeWeights(out) <= 0 {
		out = append(out[:0], ws...)
	}
	*buf = out
	return out
}

// heaviestJoint is the joint of a vertex's heaviest influence (-1 for none).
func heaviestJoint(ws []character.Influence) int {
	j, best := -1, 0.0
	for _, in := range ws {
		if in.Weight > best {
			j, best = in.Joint, in.Weight
		}
	}
	return j
}

// weightJump returns the total variation distance between two vertices' weights.
func weightJump(a, b []character.Influence) float64 {
	d := 0.0
	for _, x := range a {
		w := 0.0
		for _, y := range b {
			if y.Joint == x.Joint {
				w = y.Weight
				break
			}
		}
		d += math.Abs(x.Weight - w)
	}
	for _, y := range b {
		found := false
		for _, x := range a {
			if x.Joint == y.Joint {
				found = true
				break
			}
		}
		if !found {
			d += y.Weight
		}
	}
	return d / 2
}

// motion returns opt.Motion's frames for c's skeleton moved into the normalized
// cube (N·M·N⁻¹ for the normalization N), or nil when there is no Motion, it
// gives no frames, or a frame's joint count or values are unusable.
func (p *Prepared) motion(c *character.Character, opt Options) [][]vecmath.Mat4 {
	if opt.Motion == nil || c.Skeleton == nil {
		return nil
	}
	frames := opt.Motion(c.Skeleton)
	n := c.Skeleton.NumJoints()
	s := p.Norm.Scale
	norm := vecmath.Translate4(p.Norm.Center.Scale(-s)).Mul(vecmath.Scale4(s))
	inv, ok := norm.Inverse()
	if !ok {
		return nil
	}
	out := make([][]vecmath.Mat4, len(frames))
	for k, f := range frames {
		if len(f) != n {
			return nil
		}
		out[k] = make([]vecmath.Mat4, n)
		for j, m := range f {
			if !m.IsFinite() {
				return nil
			}
			out[k][j] = norm.Mul(m).Mul(inv)
		}
	}
	return out
}
