package rewards

import (
	"fmt"
	"math"
	"sort"

	"github.com/rigkit/rigkit/vecmath"
)

// Containment tuning, in cube units.
const (
	bonePointsPerBone = 12
	containSlack      = 0.01 // a bone this close outside the surface still counts inside
	containFalloff    = 0.04 // credit fades to 0 over this distance beyond the slack
	minBoneWeight     = 0.02 // a zero-length bone weighs like one this long
)

// containment measures how much of the skeleton that moves this mesh lies inside it.
// The moving skeleton (see rig.segs) is judged: each joint that carries weight, with
// its bones toward joints that move vertices (or its point when it has none). Each bone is sampled at 12 points; a point counts inside when the
// generalized winding number w exceeds 0.5, and points outside get the larger of two
// partial credits: one that fades to zero 5% of the cube's half-extent from the
// surface (so bones in thin sheets like wings, where the winding number is
// ill-defined, still count) and the enclosure clamp((w-0.1)/0.4) (so bones under an
// open shell such as armour or a blanket, which the shell partly surrounds, earn
// that part). A joint's inside fraction is its bones' length-weighted mean (each bone
// at least 0.02 long), and joints are weighed by their skin mass, the sum of their
// weights over the vertices: bones that move nothing of this mesh (a wearer's legs
// under a blanket, end and helper joints) are not judged, and a bone that moves much
// of the mesh counts much. The reward is the mass-weighted inside fraction, squared
// so that poking bones cost more than the coverage they buy.
// Blind to: where inside the bones are (a bone hugging the skin scores like a centred
// one), missing bones, bones that move nothing (sanity still judges where their
// joints sit), and how the weights are spread.
func (p *Prepared) containment(r *rig) (float64, *ContainmentDetails) {
	det := &ContainmentDetails{}
	num, den := 0.0, 0.0
	for j, segs := range r.owned {
		if len(segs) == 0 {
			continue // moves no vertex of this mesh
		}
		jin, jlen := 0.0, 0.0
		for _, si := range segs {
			s := r.segs[si]
			k := bonePointsPerBone
			if s.length() < 1e-9 {
				k = 1
			}
			in := 0.0
			for i := 0; i < k; i++ {
				q := s.a.Lerp(s.b, (float64(i)+0.5)/float64(k))
				in += p.pointInside(q)
			}
			frac := in / float64(k)
			w := math.Max(s.length(), minBoneWeight)
			jin += w * frac
			jlen += w
			if frac < 0.95 {
				child := r.names[s.owner]
				if s.child >= 0 {
					child = r.names[s.child]
				}
				det.Outside = append(det.Outside, BoneFraction{Parent: r.names[s.owner], Child: child, OutsideFraction: 1 - frac})
			}
		}
		num += r.mass[j] * jin / jlen
		den += r.mass[j]
	}
	sort.Slice(det.Outside, func(a, b int) bool { return det.Outside[a].OutsideFraction > det.Outside[b].OutsideFraction })
	if den == 0 {
		return 0, det
	}
	f := num / den
	return f * f, det
}

// pointInside is 1 inside the mesh, fading to 0 just outside it, with partial
// credit for points an open mesh partly encloses (enclosure).
func (p *Prepared) pointInside(q vecmath.Vec3) float64 {
	w := p.wn.At(q)
	if w > 0.5 {
		return 1
	}
	e := enclosure(w)
	hit, ok := p.bvh.ClosestWithin(q, containSlack+containFalloff)
	if !ok {
		return e
	}
	return math.Max(e, clamp01(1-(hit.Dist-containSlack)/containFalloff))
}

// Enclosure tuning: generalized winding numbers between these count as partly inside.
const (
	enclosureLow  = 0.1
	enclosureHigh = 0.5
)

// enclosure reads a generalized winding number w as how much the mesh surrounds a
// point: 0 up to 0.1, rising linearly to 1 at 0.5 (inside). Outside a closed mesh w
// falls to 0 within about a part's width, so this is a little slack there; inside a
// shell that is open (armour, a blanket over a back, a sail's curve) w is the share
// of directions the shell covers, and a bone under it earns that share.
func enclosure(w float64) float64 {
	return clamp01((w - enclosureLow) / (enclosureHigh - enclosureLow))
}

// Coverage tuning, in cube units.
const (
	coverageSlack = 0.03
	coverageReach = 1.0 // a bone within one part thickness (plus the slack) of a surface point covers it
	// protrusionArea and protrusionFactor: each uncovered protrusion of at least
	// this share of the surface costs a further factor protrusionFactor.
	protrusionArea   = 0.05
	protrusionFactor = 0.95
	// An uncovered cluster under detailArea of the surface, on average thinner than
	// detailThickness and within detailReach of the bone nearest its farthest
	// sample is small detail artists leave unboned (an ear, a hair strand, a
	// clothing flap): its samples count as covered.
	detailArea      = 0.02
	detailThickness = 0.04
	detailReach     = 0.25
)

// coverage measures how much of the mesh surface the bones that move it reach. For
// 512 area-uniform surface samples, each taking the weights of its triangle's nearest
// corner, each joint that moves the sample (influences of at least 0.2, or its
// heaviest influence) is judged by the distance s from the sample to its nearest
// bone (a joint without children by its leaf bone through the part it moves,
// leaf.go), against the local thickness t of the part (an inward ray across it,
// capped at maxThickness): the joint reaches the sample when s ≤ reach = t + 0.03
// (the part's own thickness), and otherwise earns (reach/s)³. A sample's credit
// is the mean of its joints' credits weighted by their weights (not the nearest
// joint's alone), so the share of its motion that comes from bones that
// reach it. So every limb, tail, wing or horn needs a bone inside it that moves it,
// while a bone anywhere in a part's cross-section counts, and weight given to far
// bones (random weights) costs coverage as well as locality. A bone that moves
// nothing here covers nothing, and a sample without weights is uncovered.
// Uncovered samples (credit below 0.5) are clustered into named protrusions, and
// each protrusion of at least 5% of the surface costs a further factor 0.95:
// a dropped limb (a head, a tail) then costs more than its share of
// the area, which deformation, smoother with one seam fewer, could buy back.
// Blind to: bones outside the mesh (they cover what they move; containment and
// sanity charge for them), bone count and hierarchy, and how smooth the weights are.
func (p *Prepared) coverage(r *rig) (float64, *CoverageDetails) {
	det := &CoverageDetails{}
	if len(r.segs) == 0 {
		return 0, det
	}
	segs := p.bones(r)
	sum := 0.0
	var far []int
	dist := make([]float64, len(p.surf))
	credit := make([]float64, len(p.surf))
	near := make([]int, len(p.surf))
	for i, q := range p.surf {
		reach := coverageReach*q.thickness + coverageSlack
		c, s, bi := r.movingReach(segs, q.p, q.vert, reach)
		if bi < 0 {
			s, bi = nearestSegment(segs, q.p) // no weights: nothing moves it; named by the nearest bone
		}
		dist[i], near[i], credit[i] = s, bi, c
		sum += c
		if c < 0.5 {
			far = append(far, i)
		}
	}
	det.Uncovered = p.clusterProtrusions(r, segs, far, dist, near, credit)
	for _, u := range det.Uncovered {
		sum += u.excused
	}
	cov := sum / float64(len(p.surf))
	for _, u := range det.Uncovered {
		if u.AreaFraction >= protrusionArea {
			cov *= protrusionFactor
		}
	}
	return cov, det
}

// movingReach judges the joints that move vertex v (its influences of at least
// regionThreshold, or its heaviest influence when none is that heavy) from p: the
// weight-averaged credit of their nearest bones (1 within reach, (reach/s)³ at a
// distance s beyond it), and the distance to the nearest of those bones and its
// segment index. A vertex without weights gets credit 0 and index -1.
func (r *rig) movingReach(segs []segment, p vecmath.Vec3, v int, reach float64) (credit, dist float64, seg int) {
	ws := r.skin[v]
	heaviest := 0.0
	for _, in := range ws {
		heaviest = math.Max(heaviest, in.Weight)
	}
	floor := math.Min(regionThreshold, heaviest)
	best, seg := math.Inf(1), -1
	num, den := 0.0, 0.0
	for _, in := range ws {
		if in.Weight < floor { // newRig keeps positive weights only, and floor > 0
			continue
		}
		jb, js := math.Inf(1), -1
		for _, si := range r.owned[in.Joint] {
			if d := segs[si].dist2(p); d < jb {
				jb, js = d, si
			}
		}
		c := 0.0
		if js >= 0 {
			c = 1
			if d := math.Sqrt(jb); d > reach {
				c = math.Pow(reach/d, 3)
			}
		}
		num += in.Weight * c
		den += in.Weight
		if jb < best {
			best, seg = jb, js
		}
	}
	if den == 0 {
		return 0, math.Inf(1), -1
	}
	return num / den, math.Sqrt(best), seg
}

// clusterProtrusions groups uncovered samples by single linkage (radius 0.15) and
// names each cluster.
func (p *Prepared) clusterProtrusions(r *rig, segs []segment, far []int, dist []float64, near []int, credit []float64) []Protrusion {
	const link = 0.15
	label := make([]int, len(far))
	for i := range label {
		label[i] = -1
	}
	var out []Protrusion
	for s := range far {
		if label[s] >= 0 {
			continue
		}
		id := len(out)
		label[s] = id
		members := []int{s}
		for k := 0; k < len(members); k++ {
			a := p.surf[far[members[k]]].p
			for o := range far {
				if label[o] < 0 && p.surf[far[o]].p.Dist(a) < link {
					label[o] = id
					members = append(members, o)
				}
			}
		}
		var c vecmath.Vec3
		worst, wi := -1.0, far[s]
		thick, missing := 0.0, 0.0
		for _, m := range members {
			c = c.Add(p.surf[far[m]].p)
			thick += p.surf[far[m]].thickness
			missing += 1 - credit[far[m]]
			if dist[far[m]] > worst {
				worst, wi = dist[far[m]], far[m]
			}
		}
		c = c.Scale(1 / float64(len(members)))
		area := float64(len(members)) / float64(len(p.surf))
		detail := area < detailArea && thick/float64(len(members)) < detailThickness && dist[wi] <= detailReach
		if !detail {
			missing = 0
		}
		out = append(out, Protrusion{
			Detail:       detail,
			excused:      missing,
			Where:        whereWords(c),
			Position:     p.Norm.InversePoint(c),
			Cube:         c,
			AreaFraction: area,
			NearestJoint: jointName(r, segOwner(segs, near[wi])),
			Distance:     dist[wi],
		})
	}
	sort.Slice(out, func(a, b int) bool { return out[a].AreaFraction > out[b].AreaFraction })
	// Single samples are noise at this sampling density.
	for len(out) > 0 && out[len(out)-1].AreaFraction*float64(len(p.surf)) < 2 {
		out = out[:len(out)-1]
	}
	return out
}

// whereWords names a cube position by axis, e.g. "+x, +y (top), middle z".
func whereWords(c vecmath.Vec3) string {
	names := [3][2]string{{"-x", "+x"}, {"-y (bottom)", "+y (top)"}, {"-z", "+z"}}
	mid := [3]string{"middle x", "middle y", "middle z"}
	s := ""
	for a := 0; a < 3; a++ {
		w := mid[a]
		if c[a] < -0.25 {
			w = names[a][0]
		} else if c[a] > 0.25 {
			w = names[a][1]
		}
		if a > 0 {
			s += ", "
		}
		s += w
	}
	return s
}

// Sanity tuning.
const (
	shortBone      = 0.01  // cube units: a bone shorter than this is degenerate
	coincidentDist = 0.005 // cube units: joints closer than this coincide
	outsideSlack   = 0.05  // cube units a joint may sit outside the surface for free
	outsideScale   = 0.1
)

// JointBudget is the most joints a mesh of numVertices vertices may carry without
// penalty: numVertices/8, between 32 and 256.
func JointBudget(numVertices int) int {
	b := numVertices / 8
	if b < 32 {
		b = 32
	}
	if b > 256 {
		b = 256
	}
	return b
}

// sanity measures structural soundness of the skeleton as a product of four factors:
// (1 - fraction of bones shorter than 0.01)², over the bones of joints that carry
// weight (a short bone from a weightless armature root to the hips bends nothing,
// and counting it would cost a five-joint cartoon 44% while hundreds of added
// bones diluted it for a hack);
// (1 - fraction of redundant joints)²,
// where a joint is redundant when another joint lies within 0.005 of it and the two
// move the same vertices (the weight they share, Σ_v min(w_j, w_k), is at least half
// the lighter one's mass), so twins splitting one region count while joints that
// share a pivot but move different parts (fins hinged at one point, a jaw at the
// head) and unweighted helper or socket joints do not; the pivot placement, a
// mean over the joints that carry weight, weighted by their mass, of the average of
// two places: the joint's own and its worst child's (weightless children included,
// so a bone poked out through an end joint is seen, and adding children can only
// lower it), a place scoring max(enclosure, exp(-excess/0.1)) where excess is how far
// the point lies outside the mesh beyond 0.05 and enclosure is containment's reading
// of the winding number; and min(1, budget/joints)² with budget =
// JointBudget(vertices), over every joint.
// Blind to: whether the bones are in the right places inside the mesh, naming,
// symmetry, where weightless joints with no weighted parent are (except for the
// count), and the skin beyond which joints carry it.
func (p *Prepared) sanity(r *rig) (float64, *SanityDetails) {
	n := len(r.pos)
	det := &SanityDetails{Joints: n, JointBudget: JointBudget(len(p.pos))}
	bones, short := 0, 0
	for j := 0; j < n; j++ {
		if pa := r.parents[j]; pa >= 0 && r.mass[pa] > 0 {
			bones++
			if r.pos[j].Dist(r.pos[pa]) < shortBone {
				short++
				det.ShortBones = append(det.ShortBones, r.names[pa]+"→"+r.names[j])
			}
		}
	}
	shortTerm := 1.0
	if bones > 0 {
		shortTerm = sq(1 - float64(short)/float64(bones))
	}
	redundant := p.redundantJoints(r)
	count := 0
	for j, red := range redundant {
		if red {
			count++
			if len(det.Coincident) < 20 {
				det.Coincident = append(det.Coincident, r.names[j])
			}
		}
	}
	coincTerm := sq(1 - float64(count)/float64(n))

	// Pivot placement, each joint's position judged once.
	outside := make([]float64, n)
	for j := range outside {
		outside[j] = -1
	}
	place := func(j int) float64 {
		if outside[j] >= 0 {
			return outside[j]
		}
		t := 1.0
		q := r.pos[j]
		if w := p.wn.At(q); w <= 0.5 {
			if hit, ok := p.bvh.Closest(q); ok && hit.Dist > outsideSlack {
				t = math.Max(enclosure(w), math.Exp(-(hit.Dist-outsideSlack)/outsideScale))
				det.OutsideJoints = append(det.OutsideJoints, JointValue{Joint: r.names[j], Value: hit.Dist})
			}
		}
		outside[j] = t
		return t
	}
	outTerm, massSum, outMass := 0.0, 0.0, 0.0
	for j := 0; j < n; j++ {
		if r.mass[j] <= 0 {
			continue
		}
		t := place(j)
		if t < 1 {
			outMass += r.mass[j]
		}
		if ch := r.children[j]; len(ch) > 0 {
			worst := 1.0
			for _, c := range ch {
				worst = math.Min(worst, place(c))
			}
			t = (t + worst) / 2
		}
		outTerm += r.mass[j] * t
		massSum += r.mass[j]
	}
	if massSum > 0 {
		outTerm /= massSum
		det.OutsideMass = outMass / massSum
	}
	sort.Slice(det.OutsideJoints, func(a, b int) bool { return det.OutsideJoints[a].Value > det.OutsideJoints[b].Value })
	countTerm := sq(math.Min(1, float64(det.JointBudget)/float64(n)))
	if len(det.ShortBones) > 20 {
		det.ShortBones = det.ShortBones[:20]
	}
	return shortTerm * coincTerm * outTerm * countTerm, det
}

// redundantJoints marks joints that coincide with another joint (closer than 0.005)
// moving the same vertices: the weight the two share is at least half the lighter
// one's mass. Influences under 0.05 are left out of the shared weight, which bounds
// the cost for rigs that spread every vertex over many joints.
func (p *Prepared) redundantJoints(r *rig) []bool {
	n := len(r.pos)
	redundant := make([]bool, n)
	type cell [3]int64
	key := func(q vecmath.Vec3) cell {
		return cell{int64(math.Floor(q[0] / coincidentDist)), int64(math.Floor(q[1] / coincidentDist)), int64(math.Floor(q[2] / coincidentDist))}
	}
	grid := map[cell][]int{}
	for j, q := range r.pos {
		if r.mass[j] > 0 {
			grid[key(q)] = append(grid[key(q)], j)
		}
	}
	// Candidate pairs (lower joint first): weighted joints that coincide.
	shared := map[[2]int]float64{}
	for j, q := range r.pos {
		if r.mass[j] <= 0 {
			continue
		}
		k := key(q)
		for dx := int64(-1); dx <= 1; dx++ {
			for dy := int64(-1); dy <= 1; dy++ {
				for dz := int64(-1); dz <= 1; dz++ {
					for _, o := range grid[cell{k[0] + dx, k[1] + dy, k[2] + dz}] {
						if o > j && r.pos[o].Dist(q) < coincidentDist {
							shared[[2]int{j, o}] = 0
						}
					}
				}
			}
		}
	}
	if len(shared) == 0 {
		return redundant
	}
	const sharedFloor = 0.05
	for _, ws := range r.skin {
		for a := range ws {
			if ws[a].Weight < sharedFloor {
				continue
			}
			for b := range ws {
				if b == a || ws[b].Weight < sharedFloor || ws[a].Joint > ws[b].Joint {
					continue
				}
				pair := [2]int{ws[a].Joint, ws[b].Joint}
				if v, ok := shared[pair]; ok {
					shared[pair] = v + math.Min(ws[a].Weight, ws[b].Weight)
				}
			}
		}
	}
	for pair, w := range shared {
		if w >= 0.5*math.Min(r.mass[pair[0]], r.mass[pair[1]]) {
			redundant[pair[0]], redundant[pair[1]] = true, true
		}
	}
	return redundant
}

func sq(x float64) float64 { return x * x }

// segOwner returns the joint that moves segment i, -1 for no segment.
func segOwner(segs []segment, i int) int {
	if i < 0 {
		return -1
	}
	return segs[i].owner
}

func clamp01(x float64) float64 {
	if !(x > 0) {
		return 0
	}
	if x > 1 {
		return 1
	}
	return x
}

func jointName(r *rig, j int) string {
	if j >= 0 && j < len(r.names) {
		return r.names[j]
	}
	return fmt.Sprintf("#%d", j)
}
