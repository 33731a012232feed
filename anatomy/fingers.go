package anatomy

import (
	"math"
	"sort"
	"strconv"

	"github.com/rigkit/rigkit/internal/unionfind"
	"github.com/rigkit/rigkit/vecmath"
)

// fingerOrder lists the finger names, in Mixamo's order: a humanoid's finger chain is
// fingerJoint(side, finger, k) for k = 1..4, LeftHandIndex1 at the knuckle to
// LeftHandIndex4 at the tip (an end joint, like HeadTop_End).
var fingerOrder = []string{"Thumb", "Index", "Middle", "Ring", "Pinky"}

// fingerJoint names the k-th joint (1..4) of a finger: fingerJoint(+1, "Index", 1)
// is "LeftHandIndex1".
func fingerJoint(side int, finger string, k int) string {
	return Side(side, Hand+finger+strconv.Itoa(k))
}

// finger is one finger found on a hand: its name and its four joints, knuckle to
// tip, in the canonical frame.
type finger struct {
	name   string
	joints [4]vecmath.Vec3
}

// Hand sections: the hand is cut by planes across its axis (wrist to fingertip);
// each plane's cut through the mesh falls into contours, one per part it crosses.
const (
	handSections   = 48    // planes from the forearm to the farthest hand vertex
	handBehind     = -0.35 // the first plane's place, of the hand's length past the wrist
	handRadius     = 0.8   // the hand region's radius around its axis, of the hand's length
	handSeedReach  = 0.3   // a mesh piece belongs to the hand when it comes this near the axis
	minFingerLen   = 0.08  // a protrusion's least length along the axis, of the hand's length
	minFingerTip   = 0.4   // and how far out its tip must reach
	maxFingerSize  = 0.6   // its (median) width, of the palm's
	maxFingerWidth = 0.5   // and of the hand's length
	minFingerShape = 0.7   // its least length, of its width
)

// findFingers looks for separate fingers on the hand from wrist to tip (canonical
// points: the Hand joint and the end of the arm's route). It returns the fingers
// found, or none when the hand is a mitten, a block or anything it is unsure of:
// fewer than three or more than five separate protrusions.
func findFingers(s *shape, wrist, tip vecmath.Vec3) []finger {
	h := newHandMesh(s, wrist, tip)
	if h == nil {
		return nil
	}
	sl := h.slices()
	if sl == nil {
		return nil
	}
	prot := sl.protrusions()
	if len(prot) < 3 || len(prot) > 5 {
		return nil
	}
	fs := h.name(prot, sl.spacing)
	if len(fs) == 0 || fs[0].name == "Thumb" {
		return fs
	}
	th, ok := sideThumb(s, h, fs)
	if !ok {
		return fs
	}
	if th.joints[3].Dist(fs[0].joints[3]) < 0.2*h.length {
		// The front finger is the thumb, seen by both cuts: it leaves the
		// palm slantwise, no earlier than the fingers.
		rest := fs[1:]
		if len(rest) < 2 {
			return nil
		}
		names := fingerNames[len(rest)]
		for i := range rest {
			rest[i].name = names[i]
		}
		return append([]finger{{name: "Thumb", joints: fs[0].joints}}, rest...)
	}
	return append([]finger{th}, fs...)
}

// fingerNames names two to four fingers besides the thumb, from the thumb's side.
var fingerNames = map[int][]string{2: {"Index", "Pinky"}, 3: {"Index", "Middle", "Pinky"}, 4: {"Index", "Middle", "Ring", "Pinky"}}

// sideThumb looks for a thumb that leaves the palm across the hand's axis (a
// T-posed palm's thumb pointing forward), which the cuts across the axis see as
// part of the palm. The hand is cut again across the line from the palm's middle
// past the index finger's side; the one part that ends free there is the thumb.
// Fingers cut along their length there are wider than long and do not count.
func sideThumb(s *shape, h *handMesh, fs []finger) (finger, bool) {
	w := fs[0].joints[0].Sub(fs[len(fs)-1].joints[0])
	w = w.Sub(h.axis.Scale(w.Dot(h.axis)))
	if w.Len() == 0 {
		return finger{}, false
	}
	var knuckles vecmath.Vec3
	for _, f := range fs {
		knuckles = knuckles.Add(f.joints[0])
	}
	palm := h.wrist.Lerp(knuckles.Scale(1/float64(len(fs))), 0.5)
	side := newHandMesh(s, palm, palm.Add(w.Normalize().Scale(0.8*h.length)))
	if side == nil {
		return finger{}, false
	}
	sl := side.slices()
	if sl == nil {
		return finger{}, false
	}
	prot := sl.protrusions()
	if len(prot) != 1 {
		return finger{}, false
	}
	line := side.fingerLine(prot[0], sl.spacing)
	return finger{name: "Thumb", joints: thumbAlong(h.wrist, line)}, true
}

// handMesh is the part of the mesh around a hand: the mesh pieces that come near
// the axis, inside the region's radius, with coincident vertices welded (glTF
// splits vertices at UV seams, which would cut the sections' contours).
type handMesh struct {
	wrist, axis vecmath.Vec3    // axis: unit, wrist to tip
	across      [2]vecmath.Vec3 // unit, perpendicular to the axis and each other
	length      float64
	pos         []vecmath.Vec3 // welded vertices
	along       []float64      // their coordinate along the axis from the wrist
	tris        [][3]int       // into pos
}

// newHandMesh gathers the hand region (nil when the hand is too short to cut or
// the region has no triangles).
func newHandMesh(s *shape, wrist, tip vecmath.Vec3) *handMesh {
	d := tip.Sub(wrist)
	L := d.Len()
	if L < 0.02*s.height() || len(s.tris) == 0 {
		return nil
	}
	h := &handMesh{wrist: wrist, axis: d.Scale(1 / L), length: L}
	ref := vecmath.Vec3{0, 1, 0}
	if math.Abs(h.axis[1]) > 0.9 {
		ref = vecmath.Vec3{0, 0, 1}
	}
	h.across[0] = ref.Sub(h.axis.Scale(ref.Dot(h.axis))).Normalize()
	h.across[1] = h.axis.Cross(h.across[0])
	weld := map[[3]int64]int{}
	id := make(map[int]int)
	q := 1e-4 * L
	// A triangle belongs to the hand region when a corner does and none lies far
	// out of it: a low-poly forearm's triangles run from the elbow to the wrist.
	in := func(p vecmath.Vec3, slack float64) bool {
		t, r := h.coords(p)
		return t >= (handBehind-0.1)*L*slack && t <= 1.6*L*slack && r <= handRadius*L*slack
	}
	vertex := func(i int) int {
		if w, ok := id[i]; ok {
			return w
		}
		p := s.pts[i]
		k := [3]int64{int64(math.Round(p[0] / q)), int64(math.Round(p[1] / q)), int64(math.Round(p[2] / q))}
		w, ok := weld[k]
		if !ok {
			w = len(h.pos)
			weld[k] = w
			h.pos = append(h.pos, p)
			t, _ := h.coords(p)
			h.along = append(h.along, t)
		}
		id[i] = w
		return w
	}
	var tris [][3]int
	for _, tr := range s.tris {
		a, b, c := s.pts[tr[0]], s.pts[tr[1]], s.pts[tr[2]]
		if !in(a, 1) && !in(b, 1) && !in(c, 1) || !in(a, 3) || !in(b, 3) || !in(c, 3) {
			continue
		}
		w := [3]int{vertex(tr[0]), vertex(tr[1]), vertex(tr[2])}
		if w[0] != w[1] && w[1] != w[2] && w[0] != w[2] {
			tris = append(tris, w)
		}
	}
	h.tris = h.nearPieces(tris)
	if len(h.tris) == 0 {
		return nil
	}
	return h
}

// boxOf bounds points across the axis, in the hand's across directions.
func (h *handMesh) boxOf(pts []vecmath.Vec3) box2 {
	b := box2{lo: [2]float64{math.Inf(1), math.Inf(1)}, hi: [2]float64{math.Inf(-1), math.Inf(-1)}}
	for _, p := range pts {
		v := p.Sub(h.wrist)
		for a, d := range h.across {
			x := v.Dot(d)
			b.lo[a], b.hi[a] = math.Min(b.lo[a], x), math.Max(b.hi[a], x)
		}
	}
	return b
}

// coords returns a point's coordinate along the hand's axis and its distance from it.
func (h *handMesh) coords(p vecmath.Vec3) (t, r float64) {
	v := p.Sub(h.wrist)
	t = v.Dot(h.axis)
	return t, v.Sub(h.axis.Scale(t)).Len()
}

// nearPieces keeps the triangles of the connected pieces that come within reach
// of the axis between wrist and tip: a thigh beside a hanging hand stays out.
func (h *handMesh) nearPieces(tris [][3]int) [][3]int {
	uf := unionfind.New[int](len(h.pos))
	for _, t := range tris {
		uf.Union(t[0], t[1])
		uf.Union(t[1], t[2])
	}
	near := map[int]bool{}
	for i, p := range h.pos {
		t, r := h.coords(p)
		if t >= 0 && t <= 1.05*h.length && r < handSeedReach*h.length {
			near[uf.Find(i)] = true
		}
	}
	var out [][3]int
	for _, t := range tris {
		if near[uf.Find(t[0])] {
			out = append(out, t)
		}
	}
	return out
}

// contour is one connected part of a hand section.
type contour struct {
	pts      []vecmath.Vec3
	centre   vecmath.Vec3
	size     float64 // greatest distance between two of its points, about
	box      box2    // its bounds across the axis
	parent   int     // index in the previous section, -1 when none
	children int
}

// handSlices are the hand's sections, wrist to tip, and their spacing.
type handSlices struct {
	h       *handMesh
	at      []float64 // each section's coordinate along the axis
	cut     [][]contour
	spacing float64
}

// slices cuts the hand into handSections sections and links each contour to the
// nearest contour of the section before it (nil when the hand reaches too little
// past the wrist).
func (h *handMesh) slices() *handSlices {
	tmax := 0.0
	for _, t := range h.tris {
		for _, v := range t {
			tmax = math.Max(tmax, h.along[v])
		}
	}
	t0 := handBehind * h.length
	if tmax < 0.5*h.length {
		return nil
	}
	sl := &handSlices{h: h, spacing: (tmax - t0) / handSections}
	link := math.Max(4*sl.spacing, 0.05*h.length)
	for k := 0; k < handSections; k++ {
		c := t0 + (float64(k)+0.5)*sl.spacing
		cut := h.section(c)
		for i := range cut {
			cut[i].parent = -1
			if k == 0 {
				continue
			}
			prev := sl.cut[k-1]
			best := parentOf(cut[i], prev, link)
			if best >= 0 {
				cut[i].parent = best
				prev[best].children++
			}
		}
		sl.at = append(sl.at, c)
		sl.cut = append(sl.cut, cut)
	}
	return sl
}

// section returns the contours where the plane at coordinate c along the axis cuts
// the hand's triangles: the crossing points of the edges that cross it, joined
// through the triangles that share them. Contours of fewer than three points or
// centred outside the region are dropped.
func (h *handMesh) section(c float64) []contour {
	edgeIdx := map[[2]int]int{}
	var pts []vecmath.Vec3
	var pairs [][2]int
	cross := func(u, v int) int {
		if u > v {
			u, v = v, u
		}
		k := [2]int{u, v}
		if i, ok := edgeIdx[k]; ok {
			return i
		}
		tu, tv := h.along[u], h.along[v]
		pts = append(pts, h.pos[u].Lerp(h.pos[v], (c-tu)/(tv-tu)))
		edgeIdx[k] = len(pts) - 1
		return len(pts) - 1
	}
	for _, t := range h.tris {
		var hit []int
		for e := 0; e < 3; e++ {
			u, v := t[e], t[(e+1)%3]
			if (h.along[u] >= c) != (h.along[v] >= c) {
				hit = append(hit, cross(u, v))
			}
		}
		if len(hit) == 2 {
			pairs = append(pairs, [2]int{hit[0], hit[1]})
		}
	}
	uf := unionfind.New[int](len(pts))
	for _, p := range pairs {
		uf.Union(p[0], p[1])
	}
	groups := map[int][]vecmath.Vec3{}
	var roots []int
	for i, p := range pts {
		r := uf.Find(i)
		if _, ok := groups[r]; !ok {
			roots = append(roots, r)
		}
		groups[r] = append(groups[r], p)
	}
	var out []contour
	for _, r := range roots {
		g := groups[r]
		if len(g) < 3 {
			continue
		}
		ct := contour{pts: g, centre: meanOf(g), box: h.boxOf(g)}
		if _, rad := h.coords(ct.centre); rad > handRadius*h.length {
			continue
		}
		for _, p := range g {
			ct.size = math.Max(ct.size, 2*p.Dist(ct.centre))
		}
		out = append(out, ct)
	}
	return out
}

// protrusion is a part of the hand that ends free: the contours from where it
// leaves the rest of the hand (or starts, for a separate piece) to its tip.
type protrusion struct {
	from, to int            // first and last section
	centres  []vecmath.Vec3 // contour centres, base to tip
	size     float64        // median contour size
	lastSize float64        // the size of the contour at its tip
}

// protrusions follows each contour that nothing continues back to where its part
// branches off, and keeps the parts long enough, reaching far enough out and thin
// enough against the palm to be fingers. The part that runs from the forearm
// (the palm of a hand, the whole of a mitten) is not one.
func (sl *handSlices) protrusions() []protrusion {
	L := sl.h.length
	var out []protrusion
	for k := range sl.cut {
		for i := range sl.cut[k] {
			if sl.cut[k][i].children > 0 {
				continue
			}
			p, trunk := sl.branch(k, i)
			if trunk {
				continue
			}
			length := sl.at[p.to] - sl.at[p.from] + sl.spacing
			if length < math.Max(minFingerLen*L, 1.5*sl.spacing) || length < minFingerShape*p.size || sl.at[p.to] < minFingerTip*L {
				continue
			}
			out = append(out, p)
		}
	}
	palm := sl.palmWidth()
	var kept []protrusion
	for _, p := range out {
		if (palm == 0 || p.size <= maxFingerSize*palm) && p.size <= maxFingerWidth*sl.h.length {
			kept = append(kept, p)
		}
	}
	return kept
}

// palmWidth is the greatest size of the contour nearest the axis from the wrist
// halfway to the tip.
func (sl *handSlices) palmWidth() float64 {
	L := sl.h.length
	palm := 0.0
	for k, cut := range sl.cut {
		if sl.at[k] < 0 || sl.at[k] > 0.5*L {
			continue
		}
		nearest, best := -1, math.Inf(1)
		for i, c := range cut {
			if _, r := sl.h.coords(c.centre); r < best {
				nearest, best = i, r
			}
		}
		if nearest >= 0 {
			palm = math.Max(palm, cut[nearest].size)
		}
	}
	return palm
}

// branch walks back from the contour i of section k while its parent continues
// only into it, and reports whether the branch runs from the first section, in
// the forearm (the trunk).
func (sl *handSlices) branch(k, i int) (protrusion, bool) {
	p := protrusion{to: k}
	last := i
	var sizes []float64
	for {
		c := sl.cut[k][i]
		p.centres = append(p.centres, c.centre)
		sizes = append(sizes, c.size)
		p.from = k
		if c.parent < 0 || sl.cut[k-1][c.parent].children > 1 {
			break
		}
		k, i = k-1, c.parent
	}
	for a, b := 0, len(p.centres)-1; a < b; a, b = a+1, b-1 {
		p.centres[a], p.centres[b] = p.centres[b], p.centres[a]
	}
	sort.Float64s(sizes)
	p.size = sizes[len(sizes)/2]
	p.lastSize = sl.cut[p.to][last].size
	return p, p.from == 0
}

// name tells the thumb from the fingers and places each one's joints. The thumb
// is the protrusion that leaves the hand nearest the wrist, by a tenth of the
// hand's length before any other; five parts without a thumb are not a hand
// (none: a held prop's edges, spikes). The other fingers are named from the thumb
// outward (from the front without a thumb): four are index, middle, ring and
// pinky, three index, middle and pinky, two index and pinky.
func (h *handMesh) name(prot []protrusion, spacing float64) []finger {
	sort.SliceStable(prot, func(a, b int) bool { return prot[a].from < prot[b].from })
	thumb := -1
	if prot[0].from < prot[1].from && h.sectionGap(prot[0], prot[1]) >= 0.1*h.length {
		thumb = 0
	}
	rest := prot
	var out []finger
	if thumb == 0 {
		out = append(out, finger{name: "Thumb", joints: h.thumbJoints(prot[0], spacing)})
		rest = prot[1:]
		base := prot[0].centres[0]
		sort.Slice(rest, func(a, b int) bool { return rest[a].centres[0].Dist(base) < rest[b].centres[0].Dist(base) })
	} else {
		sort.Slice(rest, func(a, b int) bool { return rest[a].centres[0][2] > rest[b].centres[0][2] })
	}
	if len(rest) > 4 || len(rest) < 2 {
		return nil
	}
	names := fingerNames[len(rest)]
	for i, p := range rest {
		out = append(out, finger{name: names[i], joints: h.fingerJoints(p, spacing)})
	}
	return out
}

// sectionGap is how much farther along the axis b leaves the hand than a.
func (h *handMesh) sectionGap(a, b protrusion) float64 {
	ta, _ := h.coords(a.centres[0])
	tb, _ := h.coords(b.centres[0])
	return tb - ta
}

// fingerJoints places a finger's knuckle, two joints and tip along its contours'
// centres. The knuckle lies a quarter of the free part's length back from where
// the finger leaves the hand (the web between fingers sits halfway along the
// first bone); the joints at 45% and 75% of knuckle to tip (human phalanges).
func (h *handMesh) fingerJoints(p protrusion, spacing float64) [4]vecmath.Vec3 {
	line := h.fingerLine(p, spacing)
	base, tip := line[0], line[len(line)-1]
	dir := tip.Sub(base)
	knuckle := base.Sub(dir.Scale(0.25))
	full := append([]vecmath.Vec3{knuckle}, line...)
	return [4]vecmath.Vec3{knuckle, atFraction(full, 0.45), atFraction(full, 0.75), tip}
}

// thumbJoints places the thumb's joints: the first between the wrist and where
// the thumb leaves the hand, the second there, the third halfway to the tip.
func (h *handMesh) thumbJoints(p protrusion, spacing float64) [4]vecmath.Vec3 {
	return thumbAlong(h.wrist, h.fingerLine(p, spacing))
}

// thumbAlong places the thumb's joints along its centre line from the wrist.
func thumbAlong(wrist vecmath.Vec3, line []vecmath.Vec3) [4]vecmath.Vec3 {
	base, tip := line[0], line[len(line)-1]
	return [4]vecmath.Vec3{wrist.Lerp(base, 0.5), base, atFraction(line, 0.5), tip}
}

// fingerLine is a protrusion's centre line with its tip: the last section stops
// up to a section short of the end, so the line goes on along the finger's
// direction as far as the hand's vertices near the last section reach.
func (h *handMesh) fingerLine(p protrusion, spacing float64) []vecmath.Vec3 {
	line := append([]vecmath.Vec3(nil), p.centres...)
	n := len(line)
	d := line[n-1].Sub(line[0])
	if n >= 2 {
		d = d.Add(line[n-1].Sub(line[n-2]))
	}
	if d.Len() == 0 {
		d = h.axis
	}
	d = d.Normalize()
	last := line[n-1]
	reach := p.lastSize + 2*spacing
	ext := 0.0
	for _, q := range h.pos {
		if q.Dist(last) <= reach {
			ext = math.Max(ext, q.Sub(last).Dot(d))
		}
	}
	return append(line, last.Add(d.Scale(math.Min(ext, 3*spacing))))
}

func meanOf(pts []vecmath.Vec3) vecmath.Vec3 {
	var m vecmath.Vec3
	for _, p := range pts {
		m = m.Add(p)
	}
	return m.Scale(1 / float64(len(pts)))
}

// parentOf picks the contour of the section before that a contour continues: the
// one whose box across the axis covers the most of its box (a finger leaving the
// palm, or a separate finger's piece set into it), else the nearest within link
// (a part running slantwise). -1 when none.
func parentOf(c contour, prev []contour, link float64) int {
	best, bestCover := -1, 0.0
	for j, p := range prev {
		if cover := c.box.overlap(p.box) / math.Max(c.box.area(), 1e-300); cover > bestCover {
			best, bestCover = j, cover
		}
	}
	if best >= 0 {
		return best
	}
	bestD := link
	for j, p := range prev {
		if d := setDist(c.pts, p.pts); d < bestD {
			best, bestD = j, d
		}
	}
	return best
}

// box2 is a box in the plane of a section.
type box2 struct{ lo, hi [2]float64 }

func (b box2) area() float64 { return (b.hi[0] - b.lo[0]) * (b.hi[1] - b.lo[1]) }

func (b box2) overlap(o box2) float64 {
	w := math.Min(b.hi[0], o.hi[0]) - math.Max(b.lo[0], o.lo[0])
	h := math.Min(b.hi[1], o.hi[1]) - math.Max(b.lo[1], o.lo[1])
	if w <= 0 || h <= 0 {
		return 0
	}
	return w * h
}

// setDist is the least distance between a point of a and a point of b.
func setDist(a, b []vecmath.Vec3) float64 {
	d := math.Inf(1)
	for _, p := range a {
		for _, q := range b {
			d = math.Min(d, p.Dist(q))
		}
	}
	return d
}

// addFingers places the fingers found beyond each Hand joint (the arm routes end
// at the fingertips) as chains under it. On a symmetric mesh only the fingers
// found on both hands are placed, so that symmetrize makes them mirror images.
// The finger nearest the hand's axis comes first, so the hand points at it.
func addFingers(s *shape, b *build, arms [2][]vecmath.Vec3) {
	var wrist, tip [2]vecmath.Vec3
	for i, sd := range sides {
		wrist[i] = b.pos[b.index[Side(sd, Hand)]]
		tip[i] = arms[i][len(arms[i])-1]
	}
	if s.symmetric {
		// Both hands are cut along the mean of one axis and the other's
		// reflection: the proposed skeleton's routes are seldom mirror images.
		wrist[0] = wrist[0].Add(s.mirror(wrist[1])).Scale(0.5)
		tip[0] = tip[0].Add(s.mirror(tip[1])).Scale(0.5)
		wrist[1], tip[1] = s.mirror(wrist[0]), s.mirror(tip[0])
	}
	var hands [2][]finger
	for i := range sides {
		hands[i] = findFingers(s, wrist[i], tip[i])
	}
	if s.symmetric {
		hands = commonFingers(hands)
	}
	for i, sd := range sides {
		fs := hands[i]
		sort.SliceStable(fs, func(a, c int) bool {
			return distToLine(fs[a].joints[0], wrist[i], tip[i]) < distToLine(fs[c].joints[0], wrist[i], tip[i])
		})
		for _, f := range fs {
			parent := Side(sd, Hand)
			for k, p := range f.joints {
				n := fingerJoint(sd, f.name, k+1)
				b.add(n, parent, p, false)
				parent = n
			}
		}
	}
}

// commonFingers keeps the fingers both hands have, none when that leaves fewer
// than three (the hands disagree: unsure).
func commonFingers(hands [2][]finger) [2][]finger {
	has := [2]map[string]bool{{}, {}}
	for i, fs := range hands {
		for _, f := range fs {
			has[i][f.name] = true
		}
	}
	var out [2][]finger
	for i, fs := range hands {
		for _, f := range fs {
			if has[1-i][f.name] {
				out[i] = append(out[i], f)
			}
		}
	}
	if len(out[0]) < 3 {
		return [2][]finger{}
	}
	return out
}

// distToLine is the distance from p to the line through a and b.
func distToLine(p, a, b vecmath.Vec3) float64 {
	d := b.Sub(a)
	if d.Len() == 0 {
		return p.Dist(a)
	}
	d = d.Normalize()
	v := p.Sub(a)
	return v.Sub(d.Scale(v.Dot(d))).Len()
}
