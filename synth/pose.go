package synth

import (
	"math"
	"math/rand"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// repose moves c into a random pose and makes that pose its bind pose: positions
// become the skinned positions and BindWorld the posed joint transforms. The root
// keeps its orientation. Poses in which a body part sinks deep into a part it was
// clear of are rejected; after a few tries the least intersecting pose is used.
func repose(c *character.Character, prims []prim, rng *rand.Rand, maxAngle float64) {
	sk := c.Skeleton
	n := sk.NumJoints()
	var best character.Pose
	bestPen := math.Inf(1)
	// Pairs of parts clear of each other in the bind pose.
	type pair struct{ i, j int }
	var clear []pair
	for i := range prims {
		for j := i + 1; j < len(prims); j++ {
			p, q := &prims[i], &prims[j]
			if p.owner == q.owner {
				continue
			}
			if segDist(p.a, p.b, q.a, q.b) > 1.1*(math.Max(p.ra, p.rb)+math.Max(q.ra, q.rb)) {
				clear = append(clear, pair{i, j})
			}
		}
	}
	for try := 0; try < 12; try++ {
		pose := character.RandomPose(rng, n, maxAngle*math.Pow(0.85, float64(try)))
		for j := range pose {
			if sk.Parents[j] < 0 {
				pose[j] = vecmath.Quat{0, 0, 0, 1}
			}
		}
		m := sk.SkinningMatrices(sk.PosedWorld(pose))
		pen := 0.0
		for _, pr := range clear {
			p, q := &prims[pr.i], &prims[pr.j]
			mp, mq := m[p.owner], m[q.owner]
			d := segDist(mp.Point(p.a), mp.Point(p.b), mq.Point(q.a), mq.Point(q.b))
			rr := 0.5 * (p.ra + p.rb + q.ra + q.rb) / 2
			if over := 0.8*rr - d; over > 0 {
				pen += over
			}
		}
		if pen < bestPen {
			best, bestPen = pose, pen
		}
		if pen == 0 {
			break
		}
	}
	positions, posed := c.Deform(best)
	c.Mesh.Positions = positions
	sk.BindWorld = posed
}

// segDist returns the distance between segments p0p1 and q0q1.
func segDist(p0, p1, q0, q1 vecmath.Vec3) float64 {
	d1, d2, r := p1.Sub(p0), q1.Sub(q0), p0.Sub(q0)
	a, e, f := d1.Dot(d1), d2.Dot(d2), d2.Dot(r)
	var s, t float64
	switch {
	case a <= 1e-12 && e <= 1e-12:
	case a <= 1e-12:
		t = clamp01(f / e)
	default:
		c := d1.Dot(r)
		if e <= 1e-12 {
			s = clamp01(-c / a)
		} else {
			b := d1.Dot(d2)
			if den := a*e - b*b; den > 1e-12 {
				s = clamp01((b*f - c*e) / den)
			}
			t = (b*s + f) / e
			if t < 0 {
				t, s = 0, clamp01(-c/a)
			} else if t > 1 {
				t, s = 1, clamp01((b-c)/a)
			}
		}
	}
	return p0.Add(d1.Scale(s)).Dist(q0.Add(d2.Scale(t)))
}

func clamp01(x float64) float64 { return math.Min(1, math.Max(0, x)) }
