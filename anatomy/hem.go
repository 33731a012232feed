package anatomy

import "sort"

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
// meets the rule.
const (
	hemShoulders = 0.38 // a crotch below this share of the shoulders' height may be a hem
	humanLow     = 0.7  // human proportions: the shoulders' height over the body's, at least
	humanHigh    = 0.88 // and at most
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
