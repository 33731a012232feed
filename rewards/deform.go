package rewards

import (
	"math"
	"math/rand"
	"sort"

	"github.com/rigkit/rigkit/assets"
)

// Deformation tuning.
const (
	strainScale = 0.08 // mean squared edge strain that halves the strain factor
	strainCap   = 2.0
	flipScale   = 0.08 // flipped-triangle rate that costs a factor e
	volumeScale = 0.2  // volume drift that costs a factor e
	tearJump    = 0.75 // an edge whose ends' weights differ by more (total variation) tears
	tearScale   = 0.25 // torn-edge fraction that costs a factor e
)

// deformation measures how gracefully the skin follows the skeleton. The rig is posed
// with Options.Poses seeded random poses (every joint rotated about a random axis by
// up to Options.MaxAngle, forward kinematics, linear blend skinning) and three factors
// are multiplied: exp(-torn/0.25), where torn is the fraction of sampled edges whose
// two ends' weight vectors differ by more than 0.75 in total variation (a rigid seam
// that opens in any pose; smooth artist weights blend across joints instead);
// 1/(1 + mean ε²/0.08) over up to 6000 sampled edges, ε = |l'/l - 1|
// capped at 2; exp(-flip rate/0.08) over up to 4000
// sampled triangles whose orientation reverses; and exp(-|V'/V - 1|/0.2) for the
// enclosed volume of nearly closed meshes (volume loss at joints).
// Blind to: whether the rig articulates the right parts (a single bone moving the
// whole mesh rigidly scores 1; coverage catches that) and to orphan vertices' cause.
func (p *Prepared) deformation(r *rig, opt Options) (float64, *DeformationDetails) {
	det := &DeformationDetails{Poses: opt.Poses}
	rng := rand.New(rand.NewSource(opt.Seed*7919 + 17))
	nJ := len(r.pos)
	def := make([]assets.Vec3, len(p.pos))
	copy(def, p.pos)
	edgeMax := make([]float64, len(p.edges))
	sqSum, flips, volDrift := 0.0, 0, 0.0
	for k := 0; k < opt.Poses; k++ {
		pose := assets.RandomPose(rng, nJ, opt.MaxAngle)
		mats := r.skel.SkinningMatrices(r.skel.PosedWorld(pose))
		for _, v := range p.defVerts {
			ws := r.skin[v]
			if len(ws) == 0 {
				def[v] = p.pos[v]
				continue
			}
			var acc assets.Vec3
			q := p.pos[v]
			for _, in := range ws {
				acc = acc.Add(mats[in.Joint].Point(q).Scale(in.Weight))
			}
			def[v] = acc
		}
		for i, e := range p.edges {
			eps := math.Min(strainCap, math.Abs(def[e.a].Dist(def[e.b])/e.len-1))
			if math.IsNaN(eps) {
				eps = strainCap
			}
			sqSum += eps * eps
			edgeMax[i] = math.Max(edgeMax[i], eps)
		}
		for _, t := range p.flipTris {
			tr := p.tris[t]
			n0 := p.pos[tr[1]].Sub(p.pos[tr[0]]).Cross(p.pos[tr[2]].Sub(p.pos[tr[0]]))
			n1 := def[tr[1]].Sub(def[tr[0]]).Cross(def[tr[2]].Sub(def[tr[0]]))
			if !(n0.Dot(n1) > 0) {
				flips++
			}
		}
		if p.volTris {
			d := math.Abs(signedVolume(def, p.tris)/p.restVol - 1)
			if math.IsNaN(d) || d > 1 {
				d = 1
			}
			volDrift += d
		}
	}
	torn := 0
	for _, e := range p.edges {
		if weightJump(r.skin[e.a], r.skin[e.b]) > tearJump {
			torn++
		}
	}
	if len(p.edges) > 0 {
		det.TornEdges = float64(torn) / float64(len(p.edges))
	}
	poses := float64(opt.Poses)
	msq := 0.0
	if len(p.edges) > 0 {
		msq = sqSum / (poses * float64(len(p.edges)))
	}
	det.RMSStrain = math.Sqrt(msq)
	if len(p.flipTris) > 0 {
		det.FlipRate = float64(flips) / (poses * float64(len(p.flipTris)))
	}
	det.VolumeDrift = volDrift / poses
	// Name the vertices at the worst edges.
	order := make([]int, len(p.edges))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return edgeMax[order[a]] > edgeMax[order[b]] })
	for _, i := range order[:min(5, len(order))] {
		if edgeMax[i] < 0.25 {
			break
		}
		v := p.edges[i].a
		j := -1
		if len(r.skin[v]) > 0 {
			j = r.skin[v][0].Joint
		}
		det.WorstVertices = append(det.WorstVertices, VertexJoint{Vertex: v, Joint: jointName(r, j), Value: edgeMax[i]})
	}
	strainF := 1 / (1 + msq/strainScale)
	flipF := math.Exp(-det.FlipRate / flipScale)
	volF := math.Exp(-det.VolumeDrift / volumeScale)
	tearF := math.Exp(-det.TornEdges / tearScale)
	return tearF * strainF * flipF * volF, det
}

// weightJump returns the total variation distance between two vertices' weights.
func weightJump(a, b []assets.Influence) float64 {
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
