package character

import "math"

// AnimatedWorld returns the joint world transforms of animation a at time t
// (clamped to its keys): each joint's bind-pose local transform with the animated
// translation, rotation and scale substituted, composed down the hierarchy. Root
// channels are in the skeleton's world frame, as Load stores them.
func AnimatedWorld(sk *Skeleton, a Animation, t float64) []Mat4 {
	n := sk.NumJoints()
	type trs struct {
		t Vec3
		r Quat
		s Vec3
	}
	local := make([]trs, n)
	for j := 0; j < n; j++ {
		l := sk.BindWorld[j]
		if p := sk.Parents[j]; p >= 0 {
			if inv, ok := sk.BindWorld[p].Inverse(); ok {
				l = inv.Mul(l)
			}
		}
		local[j].t, local[j].r, local[j].s = DecomposeTRS(l)
	}
	for _, ch := range a.Channels {
		if ch.Joint < 0 || ch.Joint >= n {
			continue
		}
		switch ch.Path {
		case "translation":
			if v, ok := ch.Sample(t, 3); ok {
				local[ch.Joint].t = Vec3{v[0], v[1], v[2]}
			}
		case "scale":
			if v, ok := ch.Sample(t, 3); ok {
				local[ch.Joint].s = Vec3{v[0], v[1], v[2]}
			}
		case "rotation":
			if v, ok := ch.Sample(t, 4); ok {
				local[ch.Joint].r = Quat{v[0], v[1], v[2], v[3]}
			}
		}
	}
	world := make([]Mat4, n)
	for j := 0; j < n; j++ {
		m := TRS(local[j].t, local[j].r, local[j].s)
		if p := sk.Parents[j]; p >= 0 {
			m = world[p].Mul(m)
		}
		world[j] = m
	}
	return world
}

// Sample interpolates a linear channel's n-vector at time t, linearly (rotations take
// the shorter way and are renormalized).
func (ch AnimationChannel) Sample(t float64, n int) ([]float64, bool) {
	k := len(ch.Times)
	if k == 0 || len(ch.Values) < n*k {
		return nil, false
	}
	at := func(i int) []float64 { return ch.Values[n*i : n*i+n] }
	if t <= ch.Times[0] {
		return at(0), true
	}
	if t >= ch.Times[k-1] {
		return at(k - 1), true
	}
	i := 0
	for i+1 < k && ch.Times[i+1] < t {
		i++
	}
	u := (t - ch.Times[i]) / (ch.Times[i+1] - ch.Times[i])
	a, b := at(i), at(i+1)
	sign := 1.0
	if n == 4 {
		dot := 0.0
		for c := 0; c < 4; c++ {
			dot += a[c] * b[c]
		}
		if dot < 0 {
			sign = -1
		}
	}
	out := make([]float64, n)
	for c := range out {
		out[c] = a[c]*(1-u) + sign*b[c]*u
	}
	if n == 4 {
		l := math.Sqrt(out[0]*out[0] + out[1]*out[1] + out[2]*out[2] + out[3]*out[3])
		if l > 0 {
			for c := range out {
				out[c] /= l
			}
		}
	}
	return out, true
}
