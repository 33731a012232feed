package anatomy

import (
	"sort"

	"github.com/rigkit/rigkit/vecmath"
)

// A dress or a skirt with no legs modelled inside it (one fused surface, or a
// garment the artist left hollow) splits at its hem, which the slices then take
// for the crotch: the hips sit at the knees. A human's crotch stands about 0.55
// of the shoulders' height from the floor, a cartoon figure's 0.4 and more; a
// knee-length hem near a third. hemAtCrotch reads such a crotch as a hem when the
// body has human proportions and what lies just above it is cloth: wider than
// the legs below it, and no wider than a third of the height, where a
// short-legged monster's belly is wider.
//
// Measured on the 191 bipeds of ../shared/data and on seven stress variants of
// its 36 realistic people (docs/anatomy.md): the hems of the 32 people dressed
// in a fused skirt lie at 0.32–0.38 of the shoulders' height, flare 1.17–1.63
// times the legs' span and are 0.24–0.32 of the height across; the
// short-legged monsters whose crotch lies as low are 0.37–0.44 of the height
// across above it, or carry their shoulders above 0.9 of it. No stored biped
// meets the rule. Hooded or armoured shoulders reach 0.89 (Quaternius'
// women__Medieval fused with legs pressed and arms in an A-pose, whose boots
// split below baggy trousers pressed together).
const (
	hemShoulders = 0.38 // a crotch below this share of the shoulders' height may be a hem
	humanLow     = 0.7  // human proportions: the shoulders' height over the body's, at least
	humanHigh    = 0.9  // and at most
	hemFlare     = 1.15 // the body's span just above the hem over the legs' just below, at least
	hemWidth     = 0.34 // the body's span just above the hem over the height, at most
)

// hemAtCrotch reports whether the slices' crotch of l (fromShape[0]) is a
// garment's hem over legs the garment hides (see hemShoulders).
func (l humanoidLimbs) hemAtCrotch(s *shape) bool {
	H, y0 := s.height(), s.lo[1]
	shoulders := l.shoulderY() - y0
	if shoulders < humanLow*H || shoulders > humanHigh*H || l.crotch-y0 >= hemShoulders*shoulders {
		return false
	}
	p := s.profile()
	top := p.levelOf(l.crotch + p.cell/2)
	band := func(h float64) int { return max(int(h*H/p.cell), 1) }
	below, okBelow := p.medianSpan(top-band(0.05), top-1)
	above, okAbove := p.medianSpan(top+1, top+band(0.04))
	return okBelow && okAbove && above >= hemFlare*below && above <= hemWidth*H
}

// medianSpan is the median, over slices y0..y1, of the span across the parts
// next to the symmetry plane on either side (the legs below a crotch, the body
// above it), from one's outer edge to the other's; false without any slice
// where both sides hold a part.
func (p *profile) medianSpan(y0, y1 int) (float64, bool) {
	var spans []float64
	for y := max(y0, 0); y <= y1 && y < len(p.w); y++ {
		l, r := p.humps(y, 1), p.humps(y, -1)
		if len(l) > 0 && len(r) > 0 {
			spans = append(spans, p.columnX(l[0].b)-p.columnX(r[0].b))
		}
	}
	if len(spans) == 0 {
		return 0, false
	}
	sort.Float64s(spans)
	return spans[len(spans)/2], true
}

// A gown to the floor fused with the body (one surface, the feet hidden by its
// hem or showing too little below it) shows no legs at all: the slices never
// split. gownLegs reads such a body as legs under a garment when it mirrors,
// stands at least twice as tall as it is deep, stands on a hem at least
// gownHemWidth of its height across (hemSpan: feet together span less) and
// carries a head on a neck (headOnNeck). The crotch is then placed as under a
// robe (coveredCrotch, and the hips by the shoulders, hipsUnderGarment) and each
// leg runs straight up from gownFeet of the height beside the plane. The arms
// must be seen (a bottle or a chess piece on a round base has none), and such a
// humanoid is never a sure detection (pressedConfidence).
func (s *shape) gownLegs() (legShape, bool) {
	H := s.height()
	if !s.nearlySymmetric || H < pressedArmsAspect*(s.hi[2]-s.lo[2]) {
		return legShape{}, false
	}
	y, z := s.lo[1]+gownHemLevel*H, (s.lo[2]+s.hi[2])/2
	if s.hemSpan(z) < gownHemWidth*H || !s.headOnNeck() {
		return legShape{}, false
	}
	ls := legShape{crotch: s.lo[1] + coveredCrotch*H, covered: true}
	for i, sd := range sides {
		ls.routes[i] = []vecmath.Vec3{{s.mid + float64(sd)*gownFeet*H, y, z}}
	}
	return ls, true
}

// hemSpan is the widest span across, at depth z, of the part at the plane in
// each slice of 1% of the height up to gownHemTop above the floor: a gown's hem
// above the feet that show below it.
func (s *shape) hemSpan(z float64) float64 {
	H, widest := s.height(), 0.0
	for y := s.lo[1] + 0.01*H; y <= s.lo[1]+gownHemTop*H; y += 0.01 * H {
		if lo, hi, ok := s.run(vecmath.Vec3{s.mid, y, z}, 0); ok && lo <= s.mid && hi >= s.mid {
			widest = max(widest, hi-lo)
		}
	}
	return widest
}

// headOnNeck reports whether the body, through the middle of its depth, narrows
// somewhere between gownNeckLow and gownNeckHigh of its height to at most
// neckShare of its trunk's width at gownTrunk: a head on a neck, which a cross
// or a post on a pedestal has not.
func (s *shape) headOnNeck() bool {
	H := s.height()
	width := func(f float64) (float64, bool) { return s.widthAt(s.mid, s.lo[1]+f*H) }
	trunk, ok := width(gownTrunk)
	if !ok {
		return false
	}
	for f := gownNeckLow; f <= gownNeckHigh; f += 0.01 {
		if w, ok := width(f); ok && w <= neckShare*trunk {
			return true
		}
	}
	return false
}

// gownLegs' shares of the height.
const (
	gownHemLevel = 0.03 // where the legs' routes start, above the floor
	gownHemTop   = 0.1  // the highest a gown's hem is looked for
	gownHemWidth = 0.18 // the least span of a gown's hem
	gownFeet     = 0.05 // each foot's offset from the plane
	gownTrunk    = 0.55 // where the trunk's width is measured (below arms held out)
	gownNeckLow  = 0.7  // the lowest a neck is looked for
	gownNeckHigh = 0.95 // and the highest
)
