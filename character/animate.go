package character

import "math"

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
