package skincodec

import (
	"context"
	"math"
	"math/rand"
	"slices"
	"sync"

	"github.com/rigkit/rigkit/internal/engine"
)

// Code refinement. The encoder predicts a bone's codes in one pass; on creatures it
// never saw, those codes are often not the ones the decoder would turn into the
// closest weights (the amortization gap of an autoencoder). Encoding has the true
// weights at hand, so it can check: refineCodes searches the FSQ grid around the
// encoder's codes, one level up or down in one dimension of one code at a time,
// and keeps the change that lowers the decoder's training loss (BCE + L1, weight 2
// where the bone has weight) on the bone's vertices, for a few rounds. The search
// scores a sample of each bone's vertices; EncodeAll then decodes the whole skin,
// adds the vertices it still gets wrong to the sample and searches again (mining).
// The decoder is not changed; a refined code list is as valid a token list as the
// encoder's.

// DefaultRefineRounds is the number of refinement rounds encoding runs by default.
const DefaultRefineRounds = 4

// DefaultMinePasses is the number of mining passes (mineQueries) EncodeAll runs by
// default.
const DefaultMinePasses = 2

// Query vertices per bone that refinement scores: up to refinePositive where the
// bone (or its geodesic prior) has weight, plus refineOther others.
const (
	refinePositive = 192
	refineOther    = 64
)

// refineQueries are the fixed query vertices of one bone that refinement scores:
// their features, target weights and loss weights, and the bone's features.
type refineQueries struct {
	feat   []float32
	target []float32
	lossW  []float32
	bone   []float32
	// The decoder's code-independent prefix of each query (inferDecoder.embedRows),
	// computed once and reused for every candidate code list.
	h, q, prior []float32
}

// newRefineQueries picks joint j's query vertices (deterministically): every vertex
// on small meshes, else up to refinePositive where the bone or its geodesic prior
// has weight and refineOther others.
func (t *SkinTokenizer) newRefineQueries(p *prepared, j int) refineQueries {
	V := len(p.c.Mesh.Positions)
	rng := rand.New(rand.NewSource(t.Seed*104729 + int64(j)))
	var verts []int
	if V <= refinePositive+refineOther {
		for v := 0; v < V; v++ {
			verts = append(verts, v)
		}
	} else {
		var pos []int
		for v := 0; v < V; v++ {
			if weightOf(p.c.Skin.Weights[v], j) > 0 || p.geoWeight(v, j) > coarseEps {
				pos = append(pos, v)
			}
		}
		rng.Shuffle(len(pos), func(a, c int) { pos[a], pos[c] = pos[c], pos[a] })
		verts = append(verts, pos[:min(len(pos), refinePositive)]...)
		for len(verts) < refinePositive+refineOther {
			verts = append(verts, rng.Intn(V))
		}
	}
	q := refineQueries{bone: make([]float32, boneFeatures)}
	p.geo.boneVec(j, q.bone)
	q.add(p, j, verts, 0)
	return q
}

// add appends vertices verts of joint j to the queries, with loss weight
// 1+extra (2+extra where the bone has weight), and drops the cached prefix.
func (q *refineQueries) add(p *prepared, j int, verts []int, extra float32) {
	if len(verts) == 0 {
		return
	}
	nJ, qd := p.nJ, p.qd
	dists := p.vertexDists()
	for _, v := range verts {
		n := len(q.feat)
		q.feat = append(q.feat, make([]float32, qd)...)
		p.queryVec(j, v, dists[v*nJ:(v+1)*nJ], q.feat[n:n+qd])
		w := weightOf(p.c.Skin.Weights[v], j)
		q.target = append(q.target, w)
		q.lossW = append(q.lossW, 1+b2f(w > 0)+extra)
	}
	q.h, q.q, q.prior = nil, nil, nil
}

// scoreCodes decodes every candidate code list cands[c] (K code numbers) for the
// bone of queries qs[owner[c]] and returns each candidate's summed loss. lat are
// the character's mesh latents.
func (t *SkinTokenizer) scoreCodes(m *cvae[float32], qs []refineQueries, lat []float32, cands [][]int, owner []int, opt Options) ([]float64, error) {
	d := m.cfg.D
	if err := embedQueries(m, qs, lat, &t.scratch); err != nil {
		return nil, err
	}
	flat := make([]int, 0, len(cands)*m.cfg.K)
	for _, c := range cands {
		flat = append(flat, c...)
	}
	cv, err := m.fsq.Codes(flat)
	if err != nil {
		return nil, err
	}
	bones := make([]float32, len(cands)*boneFeatures)
	var rows []decodeRow
	loss := make([][]float32, len(cands))
	for c, b := range owner {
		copy(bones[c*boneFeatures:], qs[b].bone)
		n := len(qs[b].target)
		loss[c] = make([]float32, n)
		for u := 0; u < n; u++ {
			rows = append(rows, decodeRow{int32(c), int32(u)})
		}
	}
	dec := newInferDecoder(m, engine.Data[float32](cv), bones, lat, len(cands), &t.scratch)
	dec.runCached(rows, opt.workers(), func(rw decodeRow, h, q []float32) float32 {
		qr, u := &qs[owner[rw.j]], int(rw.u)
		copy(h, qr.h[u*d:(u+1)*d])
		copy(q, qr.q[u*d:(u+1)*d])
		return qr.prior[u]
	}, func(rw decodeRow, logit float32) {
		q := qs[owner[rw.j]]
		loss[rw.j][rw.u] = q.lossW[rw.u] * pointLoss(float64(logit), float64(q.target[rw.u]))
	})
	out := make([]float64, len(cands))
	for c, ls := range loss {
		for _, l := range ls {
			out[c] += float64(l)
		}
	}
	return out, nil
}

// embedQueries fills the code-independent decoder prefix of every query set that
// lacks it.
func embedQueries(m *cvae[float32], qs []refineQueries, lat []float32, pool *sync.Pool) error {
	var dec *inferDecoder
	for b := range qs {
		if qs[b].h != nil {
			continue
		}
		if dec == nil { // any code list will do: the prefix does not read the codes
			cv, err := m.fsq.Codes(make([]int, m.cfg.K))
			if err != nil {
				return err
			}
			dec = newInferDecoder(m, engine.Data[float32](cv), qs[b].bone, lat, 1, pool)
		}
		qs[b].h, qs[b].q, qs[b].prior = dec.embedRows(qs[b].feat, len(qs[b].target), 1)
	}
	return nil
}

// refineCodes improves idx (len(joints)·K code numbers, joint by joint) in place
// by up to opt.RefineRounds rounds of steepest descent, then, when joints are all
// of p's joints in order (EncodeAll), opt.MinePasses times mines the decoded skin's
// errors into the queries and searches again. p must carry the character's skin.
func (t *SkinTokenizer) refineCodes(m *cvae[float32], p *prepared, joints []int, idx []int, opt Options) {
	rounds := opt.RefineRounds
	if rounds <= 0 || len(joints) == 0 || p.c.Skin == nil {
		return
	}
	lat := append([]float32(nil), m.meshLatents(p.mesh, 1)...)
	qs := make([]refineQueries, len(joints))
	for b, j := range joints {
		qs[b] = t.newRefineQueries(p, j)
	}
	active := make([]bool, len(joints))
	for b := range active {
		active[b] = true
	}
	t.searchCodes(m, qs, lat, idx, active, opt)
	if len(joints) != p.nJ {
		return
	}
	for pass := 0; pass < opt.MinePasses; pass++ {
		// Only bones that gained queries have a new objective to search.
		if added, err := t.mineQueries(m, p, lat, qs, idx, pass, active, opt); err != nil || added == 0 {
			return
		}
		t.searchCodes(m, qs, lat, idx, active, opt)
	}
}

// Mining: decoding a whole skin shows where the searched codes still go wrong: a
// bone's field spilling onto vertices far from its sampled queries, or weights the
// normalization across bones turns into extra influences. mineQueries decodes the
// skin of the current codes (idx, one list per joint of p; lat are the mesh
// latents) as Decode would and adds to each bone's queries the vertices whose
// decoded weight for it is off by more than mineMargin (at most mineMax, a seeded
// choice), with loss weight one more than the others. It marks in gained the bones that got queries and returns how
// many it added.
const (
	mineMargin = 0.1
	mineMax    = 256
)

func (t *SkinTokenizer) mineQueries(m *cvae[float32], p *prepared, lat []float32, qs []refineQueries, idx []int, pass int, gained []bool, opt Options) (int, error) {
	K := m.cfg.K
	codes := make([][]int, p.nJ)
	for j := range codes {
		codes[j] = idx[j*K : (j+1)*K]
	}
	probs, err := t.meanProbs(context.Background(), m, p, lat, [][][]int{codes}, opt)
	if err != nil {
		return 0, err
	}
	skin := t.skinFrom(probs, p.nJ, opt.DecodeSettings)
	added := 0
	for j := range qs {
		var bad []int
		for v, infl := range skin.Weights {
			if d := weightOf(infl, j) - weightOf(p.c.Skin.Weights[v], j); d > mineMargin || d < -mineMargin {
				bad = append(bad, v)
			}
		}
		if len(bad) > mineMax {
			rng := rand.New(rand.NewSource(t.Seed*7 + int64(j) + int64(pass)*1000003))
			rng.Shuffle(len(bad), func(a, c int) { bad[a], bad[c] = bad[c], bad[a] })
			bad = bad[:mineMax]
		}
		qs[j].add(p, j, bad, 1)
		gained[j] = len(bad) > 0
		added += len(bad)
	}
	return added, nil
}

// searchCodes runs up to opt.RefineRounds rounds of steepest descent on idx against
// the queries qs (one per bone of idx), for the bones marked in active (it clears
// the marks of bones it stops moving).
func (t *SkinTokenizer) searchCodes(m *cvae[float32], qs []refineQueries, lat []float32, idx []int, active []bool, opt Options) {
	rounds := opt.RefineRounds
	K, levels := m.cfg.K, m.cfg.Levels
	// Digit steps: code number ± basis[d] changes dimension d by one level.
	basis := make([]int, len(levels))
	for d, b := 0, 1; d < len(levels); d++ {
		basis[d], b = b, b*levels[d]
	}
	for r := 0; r < rounds; r++ {
		cands, owner := neighbourCandidates(idx, active, K, levels, basis)
		if len(cands) == 0 {
			return
		}
		score, err := t.scoreCodes(m, qs, lat, cands, owner, opt)
		if err != nil { // code numbers come from the encoder and stay on the grid
			return
		}
		// Per bone, the best single move (a neighbour must beat the current list,
		// the first candidate of its bone, by a margin), and two combined moves built
		// from the improving single moves: the best one per code, and the better
		// direction of every improving digit. Combined moves are scored in a second
		// pass and kept only when they beat the best single move, so a round never
		// raises the loss and often moves several codes at once.
		cur := make([]float64, len(qs))
		best := make([]float64, len(qs))
		bestC := make([]int, len(qs))
		for b := range best {
			best[b], bestC[b] = math.Inf(1), -1
		}
		gain := make([][]float64, len(qs)) // per bone: K·dims·2 score deltas (0: no move)
		for c, b := range owner {
			s := score[c]
			if bestC[b] < 0 {
				cur[b] = s
				gain[b] = make([]float64, K*len(levels)*2)
			} else {
				s += 1e-6 * float64(len(qs[b].target))
				if d, ok := moveOf(cands[c], idx[b*K:(b+1)*K], basis); ok && s < cur[b] {
					gain[b][d] = s - cur[b]
				}
			}
			if s < best[b] {
				best[b], bestC[b] = s, c
			}
		}
		var combo [][]int
		var comboOwner []int
		for b := range qs {
			if !active[b] || bestC[b] < 0 || best[b] >= cur[b] {
				continue
			}
			for _, perCode := range []bool{true, false} {
				if c, n := combineMoves(idx[b*K:(b+1)*K], gain[b], basis, levels, perCode); n > 1 {
					combo = append(combo, c)
					comboOwner = append(comboOwner, b)
				}
			}
		}
		choice := make([][]int, len(qs))
		for b := range qs {
			if c := bestC[b]; c >= 0 {
				choice[b] = cands[c]
			}
		}
		if len(combo) > 0 {
			cs, err := t.scoreCodes(m, qs, lat, combo, comboOwner, opt)
			if err != nil {
				return
			}
			for c, b := range comboOwner {
				if s := cs[c] + 1e-6*float64(len(qs[b].target)); s < best[b] {
					best[b], choice[b] = s, combo[c]
				}
			}
		}
		changed := false
		for b := range qs {
			if !active[b] {
				continue
			}
			if c := choice[b]; c != nil && !slices.Equal(c, idx[b*K:(b+1)*K]) {
				copy(idx[b*K:(b+1)*K], c)
				changed = true
			} else {
				active[b] = false
			}
		}
		if !changed {
			return
		}
	}
}

// moveOf returns the index (k·dims + d)·2 + (0 for −1, 1 for +1) of the single
// digit move that turns cur into cand, and false when cand is cur itself.
func moveOf(cand, cur []int, basis []int) (int, bool) {
	for k := range cur {
		if delta := cand[k] - cur[k]; delta != 0 {
			for d := len(basis) - 1; d >= 0; d-- {
				if delta == basis[d] || delta == -basis[d] {
					return (k*len(basis)+d)*2 + b2i(delta > 0), true
				}
			}
		}
	}
	return 0, false
}

// combineMoves applies to a copy of cur the improving single moves of gain (score
// deltas indexed as moveOf's): with perCode, only the best one of each code; else
// the better direction of every digit. It returns the list and how many moves it
// applied.
func combineMoves(cur []int, gain []float64, basis, levels []int, perCode bool) ([]int, int) {
	out := append([]int(nil), cur...)
	n := 0
	dims := len(levels)
	for k := range cur {
		bestG, bestD, bestS := 0.0, -1, 0
		for d := 0; d < dims; d++ {
			g, s := gain[(k*dims+d)*2], -1
			if gain[(k*dims+d)*2+1] < g {
				g, s = gain[(k*dims+d)*2+1], 1
			}
			if g >= 0 {
				continue
			}
			if !perCode {
				out[k] += s * basis[d]
				n++
			} else if g < bestG {
				bestG, bestD, bestS = g, d, s
			}
		}
		if perCode && bestD >= 0 {
			out[k] += bestS * basis[bestD]
			n++
		}
	}
	return out, n
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// pointLoss is the training loss of one query point: BCE(sigmoid(x), t) + |sigmoid(x) - t|.
func pointLoss(x, t float64) float32 {
	sp := math.Max(x, 0) + math.Log1p(math.Exp(-math.Abs(x)))
	return float32(sp - t*x + math.Abs(1/(1+math.Exp(-x))-t))
}

// neighbourCandidates lists, per active bone, its current code list (first) and
// every grid neighbour of it (one code moved one level in one dimension), with the
// bone each candidate belongs to. basis[d] is the code-number step of dimension d.
func neighbourCandidates(idx []int, active []bool, K int, levels, basis []int) ([][]int, []int) {
	var cands [][]int
	var owner []int
	for b := range active {
		if !active[b] {
			continue
		}
		cur := idx[b*K : (b+1)*K]
		cands = append(cands, append([]int(nil), cur...))
		owner = append(owner, b)
		for k := 0; k < K; k++ {
			for d := range levels {
				for _, step := range []int{-1, 1} {
					if g := cur[k]/basis[d]%levels[d] + step; g < 0 || g >= levels[d] {
						continue
					}
					c := append([]int(nil), cur...)
					c[k] += step * basis[d]
					cands = append(cands, c)
					owner = append(owner, b)
				}
			}
		}
	}
	return cands, owner
}
