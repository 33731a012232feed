package synth

import (
	"fmt"
	"math"

	"github.com/rigkit/rigkit/vecmath"
)

// Frames: +Y is up, the creature faces +Z, its left side is +X ("_l").

type side struct {
	tag  string
	sign float64
}

var sides = [2]side{{"l", 1}, {"r", -1}}

// asym returns a per-side scale around 1 (left, right) for mild asymmetry.
func (b *builder) asym(amount float64) [2]float64 {
	return [2]float64{1 + b.u(-amount, amount), 1 + b.u(-amount, amount)}
}

// bodyPlan selects the optional parts of the biped and quadruped grammars.
type bodyPlan struct {
	armPairs   int     // biped: pairs of arms
	fingers    float64 // probability of fingers
	toes       float64 // probability of toes
	tail       [2]int  // range of tail joints (0,0: none)
	wings      bool
	horizontal bool // biped: body leans forward (birds, dinosaurs)
	heads      int  // quadruped: number of necks and heads
	sprawl     bool // quadruped: legs go out sideways first (lizards)
}

// spine adds joints from a root along the polyline root→top, split into bones at
// least minLen long, naming them spine_01.. and the last one last.
func (b *builder) spine(root int, top vecmath.Vec3, n int, r0, r1 float64, flat vecmath.Vec3, f float64, last string) []int {
	base := b.pos[root]
	ids := make([]int, n)
	parent := root
	for i := 0; i < n; i++ {
		t0, t1 := float64(i)/float64(n), float64(i+1)/float64(n)
		name := fmt.Sprintf("spine_%02d", i+1)
		if i == n-1 && last != "" {
			name = last
		}
		parent = b.flatBone(name, parent, base.Lerp(top, t1), r0+(r1-r0)*t0, r0+(r1-r0)*t1, flat, f)
		ids[i] = parent
	}
	return ids
}

// segments returns how many bones of length at least k·radius fit in length l
// (between 1 and max).
func segments(l, radius, k float64, maxN int) int {
	n := int(l / (k * radius))
	return min(max(n, 1), maxN)
}

// hand adds a hand at joint wrist pointing along dir with palm normal up, and
// either fingers or a mitten.
func (b *builder) hand(wrist int, tag string, dir, up vecmath.Vec3, scale float64, withFingers bool) {
	across := v3(0, 0, 1).Sub(dir.Scale(dir[2])).Normalize() // towards the thumb (forward)
	nf := b.in(3, 5)
	nj := b.in(2, 3)
	fr := b.r(scale * b.u(0.11, 0.15))
	palm := scale * b.u(0.35, 0.5)
	fl := scale * b.u(0.45, 0.7)
	spread := b.u(0.0, 0.25)
	p0 := b.pos[wrist]
	if !withFingers {
		end := p0.Add(dir.Scale(palm + fl*0.6))
		b.flatBone("hand_"+tag+"_end", wrist, end, b.r(scale*0.22), b.r(scale*0.16), up, 0.55)
		return
	}
	gap := 3.3 * fr
	m := float64(nf - 1) // fingers besides the thumb
	for k := 0; k < nf; k++ {
		var base, fdir vecmath.Vec3
		if k == 0 { // thumb
			base = p0.Add(dir.Scale(palm * 0.35)).Add(across.Scale(gap*(m-1)/2 + gap*1.3))
			fdir = dir.Add(across.Scale(1.2)).Normalize()
		} else {
			off := (float64(k-1) - (m-1)/2) * gap
			base = p0.Add(dir.Scale(palm)).Add(across.Scale(-off))
			fdir = dir.Add(across.Scale(-off / fl * (0.3 + spread))).Normalize()
		}
		name := fmt.Sprintf("finger_%s_%d", tag, k+1)
		first := b.flatBone(name+"_1", wrist, base, fr*1.25, fr*1.15, up, 0.7)
		pts := make([]vecmath.Vec3, nj)
		seg := fl / float64(nj)
		if k == 0 {
			seg *= 0.8
		}
		for i := range pts {
			pts[i] = base.Add(fdir.Scale(seg * float64(i+1)))
		}
		b.chain(first, pts, fr*1.1, fr*0.85, func(i int) string {
			if i == nj-1 {
				return name + "_end"
			}
			return fmt.Sprintf("%s_%d", name, i+2)
		})
	}
}

// biped builds an upright (or forward-leaning) two-legged creature.
func (b *builder) biped(plan bodyPlan) {
	H := b.u(1.4, 2.2)
	legLen := H * b.u(0.40, 0.52)
	hipW := H * b.u(0.05, 0.08)
	torso := H * b.u(0.26, 0.33)
	torsoR := H * b.u(0.07, 0.1)
	bellyR := torsoR * b.u(0.9, 1.15)
	chestR := torsoR * b.u(0.95, 1.2)
	depth := b.u(0.65, 0.9)
	headR := H * b.u(0.06, 0.09)
	neckLen := H * b.u(0.03, 0.06)
	shoulderW := chestR * b.u(1.1, 1.5)
	armLen := H * b.u(0.33, 0.43)
	armR := H * b.u(0.03, 0.045)
	thighR := H * b.u(0.04, 0.06)
	hipW = math.Max(hipW, 1.8*b.r(thighR))
	lean := 0.0
	if plan.horizontal {
		lean = deg(b.u(45, 75))
	}
	la := b.asym(0.06)
	fingers := b.chance(plan.fingers)
	toes := b.chance(plan.toes)

	hips := b.joint("hips", -1, v3(0, legLen, 0))
	up := v3(0, math.Cos(lean), math.Sin(lean))
	nSpine := segments(torso*0.7, torsoR, 1.8, 3)
	chestPos := b.pos[hips].Add(up.Scale(torso * 0.7))
	spine := b.spine(hips, chestPos, nSpine, bellyR, chestR, v3(0, -math.Sin(lean), math.Cos(lean)), depth, "chest")
	chest := spine[len(spine)-1]
	neckBase := b.flatBone("neck", chest, b.pos[hips].Add(up.Scale(torso)), chestR, chestR*0.8, v3(0, -math.Sin(lean), math.Cos(lean)), depth)
	neckDir := v3(0, math.Cos(lean*0.6), math.Sin(lean*0.6)+0.2).Normalize()
	headPos := b.pos[neckBase].Add(neckDir.Scale(neckLen + chestR*0.5))
	head := b.bone("head", neckBase, headPos, headR*0.5, headR*0.55)
	headLen := headR * b.u(0.4, 1.1)
	headDir := neckDir
	if plan.horizontal {
		headDir = v3(0, 0.3, 1).Normalize()
	}
	b.bone("head_end", head, headPos.Add(headDir.Scale(headR+headLen)), headR, headR*b.u(0.6, 1))
	if b.chance(0.4) { // snout or beak
		tip := headPos.Add(headDir.Scale(headR * 0.5)).Add(v3(0, -headR*0.3, headR*b.u(1.0, 1.8)))
		b.blob(head, headPos.Add(v3(0, 0, headR*0.3)), tip, headR*0.6, headR*b.u(0.15, 0.35), vecmath.Vec3{}, 1)
	}
	ears := b.chance(0.35)
	earLen := headR * b.u(0.8, 1.6)
	for si, s := range sides {
		if !ears {
			break
		}
		base := headPos.Add(v3(s.sign*headR*0.6, headR*0.9, 0))
		ear := b.joint("ear_"+s.tag, head, base)
		b.flatBone("ear_"+s.tag+"_end", ear, base.Add(v3(s.sign*earLen*0.5, earLen, -earLen*0.2).Scale(la[si])), headR*0.35, headR*0.15, v3(0, 0, 1), 0.5)
	}

	// Arms: clavicle, upper arm, forearm, hand.
	armDown := deg(b.u(0, 50))
	for pair := 0; pair < plan.armPairs; pair++ {
		suffix := ""
		attach := chest
		height := 1.0
		if pair > 0 {
			suffix = fmt.Sprint(pair + 1)
			attach = spine[max(0, len(spine)-1-pair)]
			height = 1 - math.Max(0.22, 4*armR/(torso*0.92))*float64(pair)
		}
		for si, s := range sides {
			tag := s.tag + suffix
			k := la[si]
			shoulderY := torso * 0.92 * height
			sh := b.pos[hips].Add(up.Scale(shoulderY))
			clav := b.bone("clavicle_"+tag, attach, sh.Add(v3(s.sign*shoulderW*0.3, 0, 0)), armR*1.2, armR*1.3)
			upper := b.bone("arm_"+tag+"_upper", clav, sh.Add(v3(s.sign*shoulderW, 0, 0)), armR*1.3, armR*1.2)
			down := armDown + deg(b.u(-8, 8)) + deg(20)*float64(pair)
			dir := v3(s.sign*math.Cos(down), -math.Sin(down), 0)
			elbow := b.pos[upper].Add(dir.Scale(armLen * 0.45 * k)).Add(v3(0, 0, -armLen*0.03))
			lower := b.bone("arm_"+tag+"_lower", upper, elbow, armR*1.15, armR*0.95)
			wrist := elbow.Add(dir.Scale(armLen * 0.42 * k)).Add(v3(0, 0, armLen*0.03))
			hand := b.bone("hand_"+tag, lower, wrist, armR*0.95, armR*0.8)
			palmUp := v3(0, 1, 0).Sub(dir.Scale(dir[1])).Normalize()
			b.hand(hand, tag, dir, palmUp, armR*2.2, fingers)
		}
	}

	b.bipedLegs(hips, H, legLen, hipW, thighR, bellyR, la, toes)
	if plan.tail[1] > 0 {
		b.tail(hips, v3(0, b.u(-0.2, 0.3), -1).Normalize(), H*b.u(0.5, 1.0), bellyR*0.55, plan.tail)
	}
	if plan.wings {
		b.wings(chest, b.pos[hips].Add(up.Scale(torso*0.85)), chestR, H)
	}
}

// bipedLegs adds a biped's two legs under hips: thigh, shin, foot and one toe, or
// 2–4 toes when toes is set. It draws from b's stream after the arms, so a
// creature's legs follow its seed as before.
func (b *builder) bipedLegs(hips int, H, legLen, hipW, thighR, bellyR float64, la [2]float64, toes bool) {
	ankleH := H * b.u(0.04, 0.06)
	footLen := H * b.u(0.1, 0.14)
	splay := b.u(0, 0.4)
	for si, s := range sides {
		k := la[si]
		hip := b.bone("leg_"+s.tag+"_upper", hips, v3(s.sign*hipW, legLen-thighR*0.3, 0), bellyR*0.8, thighR*1.1)
		kneeY := legLen * 0.52 / k
		knee := b.bone("leg_"+s.tag+"_lower", hip, v3(s.sign*hipW*(1+splay), kneeY, thighR*0.3), thighR, thighR*0.75)
		foot := b.bone("foot_"+s.tag, knee, v3(s.sign*hipW*(1+splay*1.2), ankleH, 0), thighR*0.75, thighR*0.55)
		ball := v3(s.sign*hipW*(1+splay*1.2), thighR*0.45, footLen*0.7)
		if !toes {
			toe := b.flatBone("toe_"+s.tag, foot, ball, thighR*0.6, thighR*0.55, v3(0, 1, 0), 0.6)
			b.flatBone("toe_"+s.tag+"_end", toe, ball.Add(v3(0, 0, footLen*0.35)), thighR*0.55, thighR*0.45, v3(0, 1, 0), 0.6)
			continue
		}
		nt := b.in(2, 4)
		tr := b.r(thighR * 0.28)
		for t := 0; t < nt; t++ {
			off := (float64(t) - float64(nt-1)/2) * 3.3 * tr
			base := ball.Add(v3(off, 0, 0))
			name := fmt.Sprintf("toe_%s_%d", s.tag, t+1)
			toe := b.flatBone(name+"_1", foot, base, thighR*0.45, tr*1.2, v3(0, 1, 0), 0.7)
			b.bone(name+"_end", toe, base.Add(v3(off*0.3, 0, footLen*0.4)), tr*1.1, tr)
		}
	}
}

// tail adds a tapering, gently curling tail from parent.
func (b *builder) tail(parent int, dir vecmath.Vec3, length, r0 float64, n [2]int) {
	want := b.in(n[0], n[1])
	count := segments(length, r0, 2.2, want)
	curl := deg(b.u(-25, 25))
	p := b.pos[parent].Add(dir.Scale(r0 * 0.5))
	seg := length / float64(count)
	pts := make([]vecmath.Vec3, count)
	d := dir
	axis := v3(1, 0, 0)
	if b.chance(0.5) {
		axis = v3(0, 1, 0)
	}
	for i := range pts {
		p = p.Add(d.Scale(seg))
		pts[i] = p
		d = rotAxis(d, axis, curl/float64(count))
	}
	b.chain(parent, pts, r0, r0*b.u(0.2, 0.4), func(i int) string {
		if i == count-1 {
			return "tail_end"
		}
		return fmt.Sprintf("tail_%02d", i+1)
	})
}

// wings adds a pair of feathered wings (arm bones plus flat feather bones).
func (b *builder) wings(parent int, at vecmath.Vec3, bodyR, size float64) {
	span := size * b.u(0.6, 1.1)
	wr := size * b.u(0.025, 0.035)
	nf := b.in(2, 4)
	raise := deg(b.u(-10, 35))
	la := b.asym(0.05)
	for si, s := range sides {
		k := la[si]
		base := at.Add(v3(s.sign*bodyR*0.6, 0, -bodyR*0.4))
		root := b.bone("wing_"+s.tag+"_01", parent, base, wr*1.5, wr*1.4)
		dir := v3(s.sign*math.Cos(raise), math.Sin(raise), -0.15).Normalize()
		elbow := b.flatBone("wing_"+s.tag+"_02", root, base.Add(dir.Scale(span*0.3*k)), wr*1.4, wr*1.2, v3(0, 1, 0), 0.6)
		wrist := b.flatBone("wing_"+s.tag+"_03", elbow, b.pos[elbow].Add(dir.Scale(span*0.3*k)).Add(v3(0, 0, span*0.05)), wr*1.2, wr, v3(0, 1, 0), 0.6)
		fr := b.r(wr * 0.8)
		for f := 0; f < nf; f++ {
			ang := deg(-15 - 55*float64(f)/float64(max(nf-1, 1)))
			fdir := rotY(dir, s.sign*ang)
			fdir = v3(fdir[0], fdir[1]*0.5, fdir[2]).Normalize()
			flen := span * b.u(0.25, 0.4) * k
			name := fmt.Sprintf("wing_%s_feather_%d", s.tag, f+1)
			first := b.flatBone(name+"_1", wrist, b.pos[wrist].Add(fdir.Scale(fr*2.5)), wr, fr*1.2, v3(0, 1, 0), 0.5)
			mid := b.flatBone(name+"_2", first, b.pos[first].Add(fdir.Scale(flen*0.5)), fr*1.5, fr*1.4, v3(0, 1, 0), 0.45)
			b.flatBone(name+"_end", mid, b.pos[mid].Add(fdir.Scale(flen*0.5)), fr*1.4, fr*0.9, v3(0, 1, 0), 0.45)
		}
	}
}

// quadruped builds a four-legged creature with a horizontal body.
func (b *builder) quadruped(plan bodyPlan) {
	bodyLen := b.u(0.8, 1.6)
	legH := b.u(0.35, 0.8)
	bodyR := b.u(0.13, 0.22)
	rise := b.u(-0.05, 0.15)
	depth := b.u(0.7, 0.95)
	legR := bodyR * b.u(0.3, 0.42)
	neckR := bodyR * b.u(0.4, 0.6)
	headR := bodyR * b.u(0.55, 0.85)
	la := b.asym(0.05)
	toes := b.chance(plan.toes)

	hips := b.joint("hips", -1, v3(0, legH, -bodyLen/2))
	nSpine := segments(bodyLen, bodyR, 2.0, 4)
	spine := b.spine(hips, v3(0, legH+rise, bodyLen/2), nSpine, bodyR*b.u(0.85, 1.05), bodyR, v3(1, 0, 0), depth, "chest")
	chest := spine[len(spine)-1]

	heads := max(plan.heads, 1)
	for hI := 0; hI < heads; hI++ {
		suffix := ""
		if heads > 1 {
			suffix = fmt.Sprintf("_%d", hI+1)
		}
		neckLen := bodyLen * b.u(0.25, 0.6)
		ang := deg(b.u(15, 60))
		yaw := 0.0
		if heads > 1 {
			yaw = deg(-40 + 80*float64(hI)/float64(heads-1))
		}
		ndir := rotY(v3(0, math.Sin(ang), math.Cos(ang)), yaw)
		m := segments(neckLen, neckR, 2.2, 3)
		pts := make([]vecmath.Vec3, m)
		for i := range pts {
			pts[i] = b.pos[chest].Add(ndir.Scale(bodyR*0.6 + neckLen*float64(i+1)/float64(m)))
		}
		neck := b.chain(chest, pts, bodyR*0.8, neckR, func(i int) string {
			if i == m-1 {
				return "head" + suffix
			}
			return fmt.Sprintf("neck%s_%02d", suffix, i+1)
		})
		head := neck[m-1]
		snout := b.u(1.0, 2.2)
		hdir := rotY(v3(0, -b.u(0.1, 0.5), 1), yaw).Normalize()
		b.bone("head"+suffix+"_end", head, b.pos[head].Add(hdir.Scale(headR*snout)), headR, headR*b.u(0.4, 0.7))
		if b.chance(0.5) {
			el := headR * b.u(0.6, 1.4)
			for _, s := range sides {
				base := b.pos[head].Add(v3(s.sign*headR*0.5, headR*0.7, -headR*0.2))
				ear := b.joint("ear"+suffix+"_"+s.tag, head, base)
				b.flatBone("ear"+suffix+"_"+s.tag+"_end", ear, base.Add(v3(s.sign*el*0.4, el, -el*0.4)), headR*0.3, headR*0.12, v3(0, 0, 1), 0.5)
			}
		}
	}

	for li, leg := range []struct {
		tag    string
		parent int
		knee   float64
	}{{"f", chest, -1}, {"b", hips, 1}} {
		for si, s := range sides {
			k := la[si] * (1 + 0.03*float64(li))
			tag := leg.tag + s.tag
			x := s.sign * math.Max(math.Max(bodyR*0.55, 3.6*b.r(legR)), 9*b.r(legR*0.3))
			z := b.pos[leg.parent][2]
			y := b.pos[leg.parent][1] - bodyR*0.35
			out := 0.0
			if plan.sprawl {
				out = legH * 0.45
			}
			upper := b.bone("leg_"+tag+"_upper", leg.parent, v3(x, y, z), bodyR*0.6, legR*1.2)
			kneeP := v3(x+s.sign*out, legH*0.5*k+out*0.3, z+leg.knee*legH*0.08)
			lower := b.bone("leg_"+tag+"_lower", upper, kneeP, legR*1.15, legR*0.85)
			ankle := b.bone("leg_"+tag+"_foot", lower, v3(x+s.sign*out*1.1, legH*0.15, z-leg.knee*legH*0.06), legR*0.8, legR*0.65)
			paw := v3(x+s.sign*out*1.1, legR*0.6, z+legR*2.2)
			if !toes {
				toe := b.flatBone("leg_"+tag+"_toe", ankle, paw, legR*0.7, legR*0.7, v3(0, 1, 0), 0.7)
				b.flatBone("leg_"+tag+"_toe_end", toe, paw.Add(v3(0, 0, legR*1.2)), legR*0.7, legR*0.55, v3(0, 1, 0), 0.7)
				continue
			}
			nt := b.in(2, 4)
			tr := b.r(legR * 0.3)
			for t := 0; t < nt; t++ {
				off := (float64(t) - float64(nt-1)/2) * 3.3 * tr
				name := fmt.Sprintf("leg_%s_toe_%d", tag, t+1)
				base := paw.Add(v3(off, 0, 0))
				toe := b.flatBone(name, ankle, base, legR*0.6, tr*1.2, v3(0, 1, 0), 0.7)
				b.bone(name+"_end", toe, base.Add(v3(off*0.4, -tr*0.2, legR*1.4)), tr*1.1, tr*0.9)
			}
		}
	}
	if plan.tail[1] > 0 {
		b.tail(hips, v3(0, b.u(-0.3, 0.5), -1).Normalize(), bodyLen*b.u(0.5, 1.3), bodyR*0.5, plan.tail)
	}
	if plan.wings {
		b.wings(chest, b.pos[chest].Add(v3(0, bodyR*0.7, -bodyR*0.5)), bodyR, bodyLen*1.2)
	}
}

// snake builds a long sinuous body with a head.
func (b *builder) snake() {
	n := b.in(10, 40)
	length := b.u(2.5, 5)
	r := length * b.u(0.018, 0.03)
	amp := b.u(0.05, 0.35)
	waves := b.u(0.5, 2)
	seg := length / float64(n)
	if seg < 3*r {
		n = max(4, int(length/(3*r)))
		seg = length / float64(n)
	}
	phase := b.u(0, 2*math.Pi)
	at := func(i int) vecmath.Vec3 {
		s := float64(i) * seg
		return v3(amp*math.Sin(phase+2*math.Pi*waves*s/length), r, -s)
	}
	root := b.joint("spine_01", -1, at(0))
	pts := make([]vecmath.Vec3, n-1)
	for i := range pts {
		pts[i] = at(i + 1)
	}
	b.chain(root, pts, r, r*b.u(0.15, 0.35), func(i int) string {
		if i == n-2 {
			return "tail_end"
		}
		return fmt.Sprintf("spine_%02d", i+2)
	})
	hr := r * b.u(1.2, 1.7)
	neck := b.bone("neck", root, at(0).Add(v3(0, r*0.3, seg*0.9)), r, r*1.05)
	head := b.flatBone("head", neck, b.pos[neck].Add(v3(0, r*0.3, seg*0.8)), r*1.05, hr, v3(0, 1, 0), 0.7)
	hl := hr * b.u(1.5, 2.5)
	b.flatBone("head_end", head, b.pos[head].Add(v3(0, -r*0.2, hl)), hr, hr*0.55, v3(0, 1, 0), 0.65)
	if b.chance(0.4) {
		jaw := b.joint("jaw", head, b.pos[head].Add(v3(0, -hr*0.5, 0)))
		b.flatBone("jaw_end", jaw, b.pos[jaw].Add(v3(0, -hr*0.1, hl*0.9)), hr*0.6, hr*0.35, v3(0, 1, 0), 0.6)
	}
}

// spider builds an arachnid (eight legs) or an insect (six legs).
func (b *builder) spider() {
	size := b.u(0.8, 1.6)
	bodyR := size * b.u(0.12, 0.18)
	legs := 4
	if b.chance(0.3) {
		legs = 3
	}
	lift := size * b.u(0.25, 0.45)
	legR := size * b.u(0.022, 0.032)
	la := b.asym(0.07)
	body := b.joint("body", -1, v3(0, lift, 0))
	head := b.bone("head", body, v3(0, lift+bodyR*0.1, bodyR*1.1), bodyR*0.9, bodyR*0.6)
	absR := bodyR * b.u(1.1, 1.8)
	abd := b.bone("abdomen", body, v3(0, lift+bodyR*0.2, -bodyR*0.9), bodyR*0.8, absR*0.7)
	b.flatBone("abdomen_end", abd, b.pos[abd].Add(v3(0, absR*0.3, -absR*b.u(1.2, 2))), absR, absR*0.6, v3(0, 1, 0), b.u(0.7, 0.9))
	if b.chance(0.6) {
		for _, s := range sides {
			fang := b.bone("fang_"+s.tag, head, b.pos[head].Add(v3(s.sign*bodyR*0.3, -bodyR*0.2, bodyR*0.5)), bodyR*0.3, legR)
			b.bone("fang_"+s.tag+"_end", fang, b.pos[fang].Add(v3(0, -bodyR*0.5, bodyR*0.3)), legR, legR*0.7)
		}
	}
	reach := size * b.u(0.55, 0.9)
	joints := b.in(3, 4)
	for si, s := range sides {
		for i := 0; i < legs; i++ {
			ang := deg(60 - 120*float64(i)/float64(legs-1) + b.u(-5, 5))
			out := v3(s.sign*math.Cos(ang), 0, math.Sin(ang))
			base := v3(0, lift, 0).Add(out.Scale(bodyR * 0.8))
			name := fmt.Sprintf("leg_%s_%d", s.tag, i+1)
			k := la[si] * b.u(0.9, 1.1)
			coxa := b.bone(name+"_1", body, base, bodyR*0.4, legR*1.3)
			knee := base.Add(out.Scale(reach * 0.35 * k)).Add(v3(0, lift*0.5, 0))
			femur := b.bone(name+"_2", coxa, knee, legR*1.3, legR*1.1)
			mid := knee.Add(out.Scale(reach * 0.3 * k)).Add(v3(0, -lift*0.6, 0))
			tibia := b.bone(name+"_3", femur, mid, legR*1.1, legR*0.9)
			tip := mid.Add(out.Scale(reach * 0.2 * k)).Add(v3(0, -(mid[1] - legR), 0))
			if joints == 4 {
				meta := b.bone(name+"_4", tibia, mid.Lerp(tip, 0.55), legR*0.9, legR*0.8)
				b.bone(name+"_end", meta, tip, legR*0.8, legR*0.6)
			} else {
				b.bone(name+"_end", tibia, tip, legR*0.9, legR*0.6)
			}
		}
	}
}

// octopus builds a mantle with radiating tentacles.
func (b *builder) octopus() {
	size := b.u(0.8, 1.5)
	mantleR := size * b.u(0.18, 0.26)
	n := b.in(5, 10)
	joints := b.in(4, 7)
	tr := mantleR * b.u(0.2, 0.3)
	tlen := size * b.u(0.7, 1.2)
	root := b.joint("body", -1, v3(0, tlen*0.35+mantleR, 0))
	mantle := b.bone("mantle", root, b.pos[root].Add(v3(0, mantleR*b.u(1, 2), -mantleR*0.4)), mantleR, mantleR*0.8)
	b.bone("mantle_end", mantle, b.pos[mantle].Add(v3(0, mantleR*0.8, -mantleR*0.3)), mantleR*0.8, mantleR*0.5)
	for t := 0; t < n; t++ {
		ang := 2*math.Pi*float64(t)/float64(n) + b.u(-0.15, 0.15)
		out := v3(math.Sin(ang), 0, math.Cos(ang))
		p := b.pos[root].Add(out.Scale(mantleR * 0.7)).Add(v3(0, -mantleR*0.4, 0))
		d := out.Add(v3(0, -b.u(0.3, 0.9), 0)).Normalize()
		curl := deg(b.u(-30, 40))
		side := out.Cross(v3(0, 1, 0)).Normalize()
		count := segments(tlen, tr, 2.2, joints)
		seg := tlen / float64(count)
		pts := make([]vecmath.Vec3, count)
		for i := range pts {
			p = p.Add(d.Scale(seg))
			if p[1] < tr {
				p[1] = tr
				d = v3(d[0], math.Abs(d[1])*0.3, d[2]).Normalize()
			}
			pts[i] = p
			d = rotAxis(d, side, curl/float64(count))
		}
		name := fmt.Sprintf("tentacle_%d", t+1)
		first := b.bone(name+"_01", root, b.pos[root].Add(out.Scale(mantleR*0.5)), mantleR*0.7, tr)
		b.chain(first, pts, tr, tr*0.35, func(i int) string {
			if i == count-1 {
				return name + "_end"
			}
			return fmt.Sprintf("%s_%02d", name, i+2)
		})
	}
}

// centipede builds a segmented body with a pair of legs per segment.
func (b *builder) centipede() {
	n := b.in(5, 11)
	r := b.u(0.07, 0.11)
	seg := r * b.u(1.7, 2.3)
	legR := r * b.u(0.3, 0.4)
	legLen := r * b.u(2.5, 4)
	lift := legLen * 0.6
	phase := b.u(0, 2*math.Pi)
	amp := b.u(0, 0.2)
	at := func(i int) vecmath.Vec3 {
		return v3(amp*math.Sin(phase+float64(i)*0.7), lift, -float64(i)*seg)
	}
	body := make([]int, n)
	body[0] = b.joint("spine_01", -1, at(0))
	for i := 1; i < n; i++ {
		body[i] = b.bone(fmt.Sprintf("spine_%02d", i+1), body[i-1], at(i), r, r*(1-0.04*float64(i)))
	}
	b.bone("tail_end", body[n-1], at(n).Add(v3(0, 0, seg*0.3)), r*0.8, r*0.4)
	head := b.bone("head", body[0], at(0).Add(v3(0, r*0.2, seg*0.9)), r, r*1.1)
	b.flatBone("head_end", head, b.pos[head].Add(v3(0, 0, r*1.8)), r*1.1, r*0.6, v3(0, 1, 0), 0.7)
	for _, s := range sides {
		ant := b.bone("antenna_"+s.tag, head, b.pos[head].Add(v3(s.sign*r*0.5, r*0.6, r*0.8)), legR, legR*0.8)
		b.bone("antenna_"+s.tag+"_end", ant, b.pos[ant].Add(v3(s.sign*r*1.5, r*1.5, r*2.5)), legR*0.8, legR*0.6)
	}
	for i := 0; i < n; i++ {
		for _, s := range sides {
			name := fmt.Sprintf("leg_%s_%d", s.tag, i+1)
			base := b.pos[body[i]].Add(v3(s.sign*r*0.7, -r*0.2, 0))
			hip := b.bone(name+"_1", body[i], base, r*0.5, legR)
			knee := b.bone(name+"_2", hip, base.Add(v3(s.sign*legLen*0.5, lift*0.3, 0)), legR, legR*0.9)
			b.bone(name+"_end", knee, b.pos[knee].Add(v3(s.sign*legLen*0.35, -(lift*1.3-legR), 0)), legR*0.9, legR*0.7)
		}
	}
}

// lamp builds an articulated desk lamp (rigid parts, hinge balls).
func (b *builder) lamp() {
	s := b.u(0.6, 1.2)
	baseR := s * b.u(0.18, 0.26)
	armR := s * b.u(0.025, 0.04)
	l1, l2 := s*b.u(0.35, 0.55), s*b.u(0.3, 0.5)
	a1 := deg(b.u(-30, 30))
	a2 := deg(b.u(40, 100))
	hdir := v3(0, -b.u(0.3, 1), b.u(0.3, 1)).Normalize()
	shade := s * b.u(0.08, 0.13)
	base := b.joint("base", -1, v3(0, 0, 0))
	b.blob(base, v3(0, armR, 0), v3(0, armR*1.5, 0), baseR, baseR, v3(0, 1, 0), 0.25)
	lower := b.bone("arm_lower", base, v3(0, armR*4, 0), armR*2, armR*1.6)
	b.blob(lower, b.pos[lower], b.pos[lower], armR*1.6, armR*1.6, vecmath.Vec3{}, 1)
	elbow := b.pos[lower].Add(v3(0, math.Cos(a1), math.Sin(a1)).Scale(l1))
	upper := b.bone("arm_upper", lower, elbow, armR, armR)
	b.blob(upper, elbow, elbow, armR*1.5, armR*1.5, vecmath.Vec3{}, 1)
	headP := elbow.Add(v3(0, math.Cos(a2), math.Sin(a2)).Scale(l2))
	head := b.bone("head", upper, headP, armR, armR)
	b.blob(head, headP, headP, armR*1.5, armR*1.5, vecmath.Vec3{}, 1)
	b.bone("head_end", head, headP.Add(hdir.Scale(shade*1.6)), armR*1.8, shade)
}

// robotArm builds an industrial arm with a two-finger gripper.
func (b *builder) robotArm() {
	s := b.u(0.8, 1.4)
	r := s * b.u(0.05, 0.08)
	base := b.joint("base", -1, v3(0, 0, 0))
	b.blob(base, v3(0, r*0.5, 0), v3(0, r, 0), r*2.2, r*2, vecmath.Vec3{}, 1)
	turn := b.bone("turntable", base, v3(0, r*2, 0), r*1.6, r*1.5)
	shoulder := b.bone("shoulder", turn, v3(0, r*3.5, 0), r*1.5, r*1.3)
	b.blob(shoulder, v3(-r*1.3, r*3.5, 0), v3(r*1.3, r*3.5, 0), r*1.2, r*1.2, vecmath.Vec3{}, 1)
	a1 := deg(b.u(-20, 35))
	elbowP := b.pos[shoulder].Add(v3(0, math.Cos(a1), math.Sin(a1)).Scale(s * b.u(0.4, 0.6)))
	elbow := b.bone("elbow", shoulder, elbowP, r*1.2, r)
	b.blob(elbow, elbowP.Add(v3(-r, 0, 0)), elbowP.Add(v3(r, 0, 0)), r, r, vecmath.Vec3{}, 1)
	a2 := deg(b.u(50, 120))
	wristP := elbowP.Add(v3(0, math.Cos(a2), math.Sin(a2)).Scale(s * b.u(0.35, 0.55)))
	wrist := b.bone("wrist_pitch", elbow, wristP, r*0.9, r*0.75)
	roll := b.bone("wrist_roll", wrist, wristP.Add(v3(0, math.Cos(a2), math.Sin(a2)).Scale(r*1.8)), r*0.75, r*0.7)
	dir := v3(0, math.Cos(a2), math.Sin(a2))
	palm := b.pos[roll].Add(dir.Scale(r * 1.2))
	b.blob(roll, b.pos[roll], palm, r*0.8, r*0.8, v3(1, 0, 0), 0.6)
	if b.chance(0.8) {
		for _, sd := range sides {
			f := b.bone("gripper_"+sd.tag, roll, palm.Add(v3(sd.sign*r*0.9, 0, 0)), r*0.4, r*0.35)
			f2 := b.bone("gripper_"+sd.tag+"_tip", f, b.pos[f].Add(dir.Scale(r*1.6)), r*0.35, r*0.3)
			b.bone("gripper_"+sd.tag+"_end", f2, b.pos[f2].Add(dir.Scale(r*1.2)).Add(v3(-sd.sign*r*0.3, 0, 0)), r*0.3, r*0.25)
		}
	}
}
