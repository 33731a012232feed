package nn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/rigkit/rigkit/internal/engine"
	"github.com/rigkit/rigkit/internal/fastmath"
	"gorgonia.org/tensor"
)

// view locates a (B, T, H, hs) operand inside a flat buffer: element (b, t, h, d)
// lives at off + b*batch + t*ld + h*hs + d. Queries, keys and values are read in
// place from the fused projections through views, so attention copies nothing.
type view struct{ off, batch, ld int }

func (v view) at(b, t, h, hs int) int { return v.off + b*v.batch + t*v.ld + h*hs }

// attnShape describes one multi-head attention product.
type attnShape struct {
	B, H, Tq, Tk, hs int
	causal           bool // query i sees keys j ≤ i (needs Tq == Tk)
	scale            float64
	q, k, v, y       view
}

// attnBlock is the query-row block of the fused kernel: causal attention computes
// only the scores left of each block's diagonal, and a block's scores stay in cache.
const attnBlock = 64

func (s *attnShape) colEnd(i1 int) int {
	if s.causal {
		return i1
	}
	return s.Tk
}

func (s *attnShape) rowLimit(i int) int {
	if s.causal {
		return i + 1
	}
	return s.Tk
}

// attnForward computes y = softmax(scale·q·kᵀ)·v per (batch, head), storing the
// probabilities in att (B, H, Tq, Tk). Entries right of a causal block's diagonal
// are never written or read.
func attnForward[F Float](e engine.Engine, s *attnShape, q, k, v, y, att []F) {
	hs, tq, tk := s.hs, s.Tq, s.Tk
	e.ParallelFor(s.B*s.H, func(lo, hi int) {
		se := e.Serial()
		for bh := lo; bh < hi; bh++ {
			b, h := bh/s.H, bh%s.H
			p := att[bh*tq*tk : (bh+1)*tq*tk]
			for i0 := 0; i0 < tq; i0 += attnBlock {
				i1 := min(i0+attnBlock, tq)
				ce := s.colEnd(i1)
				engine.Gemm(se, false, true, i1-i0, ce, hs, F(s.scale), q[s.q.at(b, i0, h, hs):], s.q.ld,
					k[s.k.at(b, 0, h, hs):], s.k.ld, 0, p[i0*tk:], tk)
				for i := i0; i < i1; i++ {
					row := p[i*tk : i*tk+ce]
					lim := s.rowLimit(i)
					softmaxRow(row[:lim])
					clear(row[lim:])
				}
				engine.Gemm(se, false, false, i1-i0, hs, ce, 1, p[i0*tk:], tk, v[s.v.at(b, 0, h, hs):], s.v.ld,
					0, y[s.y.at(b, i0, h, hs):], s.y.ld)
			}
		}
	})
}

// attnBackward takes dy and writes dq, dk, dv, laid out like q, k, v (dk and dv
// are overwritten over each head's columns, not accumulated).
func attnBackward[F Float](e engine.Engine, s *attnShape, q, k, v, att, dy, dq, dk, dv []F) {
	hs, tq, tk := s.hs, s.Tq, s.Tk
	e.ParallelFor(s.B*s.H, func(lo, hi int) {
		se := e.Serial()
		dp := make([]F, attnBlock*tk)
		for bh := lo; bh < hi; bh++ {
			b, h := bh/s.H, bh%s.H
			p := att[bh*tq*tk : (bh+1)*tq*tk]
			for j := 0; j < tk; j++ {
				clear(dk[s.k.at(b, j, h, hs):][:hs])
				clear(dv[s.v.at(b, j, h, hs):][:hs])
			}
			kb, vb := k[s.k.at(b, 0, h, hs):], v[s.v.at(b, 0, h, hs):]
			dkb, dvb := dk[s.k.at(b, 0, h, hs):], dv[s.v.at(b, 0, h, hs):]
			for i0 := 0; i0 < tq; i0 += attnBlock {
				i1 := min(i0+attnBlock, tq)
				m, ce := i1-i0, s.colEnd(i1)
				dyb, qb, pb := dy[s.y.at(b, i0, h, hs):], q[s.q.at(b, i0, h, hs):], p[i0*tk:]
				// dP = dY·Vᵀ ; dV += Pᵀ·dY
				engine.Gemm(se, false, true, m, ce, hs, 1, dyb, s.y.ld, vb, s.v.ld, 0, dp, tk)
				engine.Gemm(se, true, false, ce, hs, m, 1, pb, tk, dyb, s.y.ld, 1, dvb, s.v.ld)
				// dS = P ⊙ (dP - rowsum(dP ⊙ P)) · scale, in place over dP.
				for i := i0; i < i1; i++ {
					lim := s.rowLimit(i)
					pr, dr := p[i*tk:i*tk+lim], dp[(i-i0)*tk:(i-i0)*tk+ce]
					var dot F
					for j, pv := range pr {
						dot += pv * dr[j]
					}
					sc := F(s.scale)
					for j, pv := range pr {
						dr[j] = pv * (dr[j] - dot) * sc
					}
					clear(dr[lim:])
				}
				// dQ = dS·K ; dK += dSᵀ·Q
				engine.Gemm(se, false, false, m, hs, ce, 1, dp, tk, kb, s.k.ld, 0, dq[s.q.at(b, i0, h, hs):], s.q.ld)
				engine.Gemm(se, true, false, ce, hs, m, 1, dp, tk, qb, s.q.ld, 1, dkb, s.k.ld)
			}
		}
	})
}

// softmaxRow replaces x by softmax(x).
func softmaxRow[F Float](x []F) {
	if len(x) == 0 {
		return
	}
	switch xs := any(x).(type) {
	case []float32:
		fastmath.SoftmaxExp32(xs) // vectorized C in a cgo build, the same results
	case []float64:
		mx := xs[0]
		for _, v := range xs[1:] {
			mx = max(mx, v)
		}
		var sum float64
		for i, v := range xs {
			ev := math.Exp(v - mx)
			xs[i] = ev
			sum += ev
		}
		inv := 1 / sum
		for i := range xs {
			xs[i] *= inv
		}
	}
}

// selfAttention is multi-head self-attention over (B, T, C), causal or not, with a
// fused query/key/value projection and an output projection.
type selfAttention[F Float] struct {
	C, Heads int
	Causal   bool
	QKV      *Linear[F] // C → 3C: queries, keys, values side by side
	Proj     *Linear[F] // C → C

	eng engine.Engine
	act selfAttentionCache[F]
}

// selfAttentionCache is what selfAttention's Forward keeps for Backward and the
// buffers both reuse.
type selfAttentionCache[F Float] struct {
	shape       attnShape
	qkv, att, y []F
	dqkv        []F
	B, T        int
	inShape     tensor.Shape
}

// newSelfAttention returns attention over c channels split into heads heads.
func newSelfAttention[F Float](name string, c, heads int, causal bool, rng *rand.Rand) *selfAttention[F] {
	if heads < 1 || c%heads != 0 {
		panic(fmt.Sprintf("nn: self-attention: %d channels do not split into %d heads", c, heads))
	}
	return &selfAttention[F]{
		C: c, Heads: heads, Causal: causal,
		QKV:  NewLinear[F](join(name, "qkv"), c, 3*c, true, rng),
		Proj: NewLinear[F](join(name, "proj"), c, c, true, rng),
		eng:  engine.Default(),
	}
}

// Params returns the projections' parameters.
func (a *selfAttention[F]) Params() []*Param[F] { return append(a.QKV.Params(), a.Proj.Params()...) }

// Forward maps x (B, T, C) to (B, T, C).
func (a *selfAttention[F]) Forward(x *tensor.Dense) *tensor.Dense {
	s := x.Shape()
	if len(s) != 3 || s[2] != a.C {
		panic(fmt.Sprintf("nn: SelfAttention.Forward: input shape %v, want (B, T, %d)", []int(s), a.C))
	}
	a.act.inShape = s.Clone()
	return engine.FromSlice(a.forward(engine.Data[F](x), s[0], s[1]), s...)
}

// Backward takes dy (B, T, C) and returns dx (B, T, C).
func (a *selfAttention[F]) Backward(dy *tensor.Dense) *tensor.Dense {
	return engine.FromSlice(a.backward(engine.Data[F](dy)), a.act.inShape...)
}

func (a *selfAttention[F]) forward(x []F, B, T int) []F {
	c, hs := a.C, a.C/a.Heads
	a.act.B, a.act.T = B, T
	a.act.qkv = a.QKV.forward(x, B*T) // (B, T, 3C)
	a.act.shape = attnShape{B: B, H: a.Heads, Tq: T, Tk: T, hs: hs, causal: a.Causal, scale: 1 / math.Sqrt(float64(hs)),
		q: view{0, T * 3 * c, 3 * c}, k: view{c, T * 3 * c, 3 * c}, v: view{2 * c, T * 3 * c, 3 * c}, y: view{0, T * c, c}}
	a.act.att = grow(a.act.att, B*a.Heads*T*T)
	a.act.y = grow(a.act.y, B*T*c)
	attnForward(a.eng, &a.act.shape, a.act.qkv, a.act.qkv, a.act.qkv, a.act.y, a.act.att)
	return a.Proj.forward(a.act.y, B*T)
}

func (a *selfAttention[F]) backward(dy []F) []F {
	dyAttn := a.Proj.backward(dy)
	a.act.dqkv = grow(a.act.dqkv, len(a.act.qkv))
	attnBackward(a.eng, &a.act.shape, a.act.qkv, a.act.qkv, a.act.qkv, a.act.att, dyAttn, a.act.dqkv, a.act.dqkv, a.act.dqkv)
	return a.QKV.backward(a.act.dqkv)
}

// kvCache holds the keys and values of the positions a causal SelfAttention has
// seen during incremental decoding.
//
// A forked cache shares its first P positions: the prompt every sequence
// continues is kept once, in PK and PV (P, C), and each sequence's own positions
// [P, MaxT) follow in K and V. A step then reads the shared keys and values once
// for all sequences (one product of B query rows per head) instead of once per
// sequence; with P = 0 nothing is shared. With P > 0, K holds each sequence's
// own keys transposed, (B, C, MaxT−P), so that a query's scores against them run
// along contiguous positions (fastmath.OwnScores); V is (B, MaxT−P, C) either way.
type kvCache[F Float] struct {
	B, MaxT, C int
	Len        int // positions filled
	P          int // shared prefix length
	PK, PV     []F // (P, C)
	K, V       []F // own keys and values, as above
}

// at returns the offset in V (and in K when P = 0) of sequence b's position t ≥ P.
func (c *kvCache[F]) at(b, t int) int { return (b*(c.MaxT-c.P) + t - c.P) * c.C }

// put stores sequence b's key and value for position t ≥ P.
func (c *kvCache[F]) put(b, t int, key, value []F) {
	copy(c.V[c.at(b, t):][:c.C], value)
	if c.P == 0 {
		copy(c.K[c.at(b, t):][:c.C], key)
		return
	}
	S := c.MaxT - c.P
	own := c.K[b*c.C*S+t-c.P:]
	for ch, k := range key[:c.C] {
		own[ch*S] = k
	}
}

// prefix returns the keys and values of the first Len positions of a cache of one
// sequence, contiguous (Len, C): what a fork shares.
func (c *kvCache[F]) prefix() (k, v []F) {
	used, own := c.Len*c.C, c.Len-c.P
	k, v = make([]F, 0, used), make([]F, 0, used)
	k = append(k, c.PK...)
	if c.P == 0 {
		k = append(k, c.K[:own*c.C]...)
	} else {
		S := c.MaxT - c.P
		for t := 0; t < own; t++ {
			for ch := 0; ch < c.C; ch++ {
				k = append(k, c.K[ch*S+t])
			}
		}
	}
	v = append(append(v, c.PV...), c.V[:own*c.C]...)
	return k, v
}

// newKVCache returns an empty cache for batch sequences of up to maxT positions.
func (a *selfAttention[F]) newKVCache(batch, maxT int) *kvCache[F] {
	return &kvCache[F]{B: batch, MaxT: maxT, C: a.C, K: make([]F, batch*maxT*a.C), V: make([]F, batch*maxT*a.C)}
}

// step attends from one new position per sequence, x (B, C), to all cached
// positions and itself, appends its key and value to the cache, and returns the
// output (B, C), computed on e. It caches nothing for Backward.
func (a *selfAttention[F]) step(e engine.Engine, x []F, cache *kvCache[F], sp *stepPanels[F]) ([]F, error) {
	B, c, hs := cache.B, a.C, a.C/a.Heads
	if len(x) != B*c {
		return nil, fmt.Errorf("nn: attention step: input has %d values, want B·C = %d", len(x), B*c)
	}
	if cache.Len >= cache.MaxT {
		return nil, fmt.Errorf("nn: attention step: KV cache full at %d positions", cache.MaxT)
	}
	qkv := make([]F, B*3*c)
	sp.apply(a.QKV, e, x, B, qkv)
	t := cache.Len
	for b := 0; b < B; b++ {
		cache.put(b, t, qkv[b*3*c+c:][:c], qkv[b*3*c+2*c:][:c])
	}
	cache.Len++
	var y []F
	if cache.P > 0 {
		y = a.sharedStep(e, qkv, cache)
	} else {
		s := attnShape{B: B, H: a.Heads, Tq: 1, Tk: cache.Len, hs: hs, scale: 1 / math.Sqrt(float64(hs)),
			q: view{0, 3 * c, 3 * c}, k: view{0, cache.MaxT * c, c}, v: view{0, cache.MaxT * c, c}, y: view{0, c, c}}
		att := make([]F, B*a.Heads*cache.Len)
		y = make([]F, B*c)
		attnForward(e, &s, qkv, cache.K, cache.V, y, att)
	}
	out := make([]F, B*c)
	sp.apply(a.Proj, e, y, B, out)
	return out, nil
}

// sharedStep is step's attention over a cache with a shared prefix. The
// sequences are split among e's workers; for its rows a worker scores the shared
// keys with one product per head and each sequence's own positions with one call
// for all heads (ownScores), takes the softmax over both, and sums the values the
// same way. It returns y (B, C).
func (a *selfAttention[F]) sharedStep(e engine.Engine, qkv []F, cache *kvCache[F]) []F {
	B, c, H, hs, P, T := cache.B, a.C, a.Heads, a.C/a.Heads, cache.P, cache.Len
	S := cache.MaxT - P
	scale := F(1 / math.Sqrt(float64(hs)))
	y, att := make([]F, B*c), make([]F, B*H*T) // att (B, H, T)
	e.ParallelFor(B, func(lo, hi int) {
		se, rows := e.Serial(), hi-lo
		q, p, yr := qkv[lo*3*c:], att[lo*H*T:hi*H*T], y[lo*c:]
		for h := 0; h < H; h++ {
			engine.Gemm(se, false, true, rows, P, hs, scale, q[h*hs:], 3*c, cache.PK[h*hs:], c, 0, p[h*T:], H*T)
		}
		ownScores(q, 3*c, cache.K[lo*c*S:], c*S, S, rows, H, hs, T-P, scale, p[P:], T)
		for r := 0; r < rows*H; r++ {
			softmaxRow(p[r*T : (r+1)*T])
		}
		for h := 0; h < H; h++ {
			engine.Gemm(se, false, false, rows, hs, P, 1, p[h*T:], H*T, cache.PV[h*hs:], c, 0, yr[h*hs:], c)
		}
		ownValues(p[P:], T, cache.V[lo*S*c:], S*c, c, rows, H, hs, T-P, yr, c)
	})
	return y
}

// ownScores is fastmath.OwnScores for either float type: for each of rows
// sequences and heads, the scaled scores of its query (q, rows ldq apart)
// against its n own keys, kt transposed (sequences ldkb apart, channels ldkc
// apart), into p (row b·heads+h at ldp·(b·heads+h)).
func ownScores[F Float](q []F, ldq int, kt []F, ldkb, ldkc, rows, heads, hs, n int, scale F, p []F, ldp int) {
	if q32, ok := any(q).([]float32); ok {
		fastmath.OwnScores(q32, ldq, any(kt).([]float32), ldkb, ldkc, rows, heads, hs, n, float32(scale), any(p).([]float32), ldp)
		return
	}
	for b := 0; b < rows; b++ {
		for h := 0; h < heads; h++ {
			out := p[(b*heads+h)*ldp:][:n]
			clear(out)
			for ch := 0; ch < hs; ch++ {
				qv, row := q[b*ldq+h*hs+ch], kt[b*ldkb+(h*hs+ch)*ldkc:][:n]
				for t, kv := range row {
					out[t] += qv * kv
				}
			}
			for t := range out {
				out[t] *= scale
			}
		}
	}
}

// ownValues is fastmath.OwnValues for either float type: adds to each
// sequence's output (y, rows ldy apart) its n own values (v, sequences ldvb and
// positions ldv apart) weighted by p (laid out as ownScores writes it).
func ownValues[F Float](p []F, ldp int, v []F, ldvb, ldv, rows, heads, hs, n int, y []F, ldy int) {
	if p32, ok := any(p).([]float32); ok {
		fastmath.OwnValues(p32, ldp, any(v).([]float32), ldvb, ldv, rows, heads, hs, n, any(y).([]float32), ldy)
		return
	}
	for b := 0; b < rows; b++ {
		for h := 0; h < heads; h++ {
			pr, out := p[(b*heads+h)*ldp:][:n], y[b*ldy+h*hs:][:hs]
			for t, pv := range pr {
				for d, vv := range v[b*ldvb+t*ldv+h*hs:][:hs] {
					out[d] += pv * vv
				}
			}
		}
	}
}

// prefill runs the first T positions of a single sequence, x (T, C), through
// causal attention in one pass, filling the empty cache as T calls of Step would
// (a prompt read at once instead of token by token).
func (a *selfAttention[F]) prefill(x []F, T int, cache *kvCache[F]) ([]F, error) {
	c, hs := a.C, a.C/a.Heads
	switch {
	case cache.B != 1 || cache.Len != 0:
		return nil, fmt.Errorf("nn: attention prefill: cache of %d sequences at position %d, want one empty", cache.B, cache.Len)
	case T < 1 || T > cache.MaxT:
		return nil, fmt.Errorf("nn: attention prefill: %d positions for a cache of %d", T, cache.MaxT)
	case len(x) != T*c:
		return nil, fmt.Errorf("nn: attention prefill: input has %d values, want T·C = %d", len(x), T*c)
	}
	qkv := make([]F, T*3*c)
	a.QKV.apply(a.eng, x, T, qkv)
	for t := 0; t < T; t++ {
		copy(cache.K[t*c:][:c], qkv[t*3*c+c:][:c])
		copy(cache.V[t*c:][:c], qkv[t*3*c+2*c:][:c])
	}
	cache.Len = T
	s := attnShape{B: 1, H: a.Heads, Tq: T, Tk: T, hs: hs, causal: true, scale: 1 / math.Sqrt(float64(hs)),
		q: view{0, T * 3 * c, 3 * c}, k: view{0, cache.MaxT * c, c}, v: view{0, cache.MaxT * c, c}, y: view{0, T * c, c}}
	y, att := make([]F, T*c), make([]F, a.Heads*T*T)
	attnForward(a.eng, &s, qkv, cache.K, cache.V, y, att)
	out := make([]F, T*c)
	a.Proj.apply(a.eng, y, T, out)
	return out, nil
}

// CrossAttention lets queries from x (B, T, C) attend to a context set
// (B, L, Cctx), e.g. shape latents: queries come from x, keys and values from the
// context. It is not causal.
type CrossAttention[F Float] struct {
	C, CtxDim, Heads int
	Q                *Linear[F] // C → C
	KV               *Linear[F] // Cctx → 2C: keys, values side by side
	Proj             *Linear[F] // C → C

	eng engine.Engine
	act crossAttentionCache[F]
}

// crossAttentionCache is what CrossAttention's Forward keeps for Backward and the
// buffers both reuse.
type crossAttentionCache[F Float] struct {
	shape         attnShape
	q, kv, att, y []F
	dq, dkv       []F
	B, T, L       int
}

// NewCrossAttention returns cross-attention from c-channel queries to a
// ctxDim-channel context, split into heads heads.
func NewCrossAttention[F Float](name string, c, ctxDim, heads int, rng *rand.Rand) *CrossAttention[F] {
	if heads < 1 || c%heads != 0 {
		panic(fmt.Sprintf("nn: cross-attention: %d channels do not split into %d heads", c, heads))
	}
	return &CrossAttention[F]{
		C: c, CtxDim: ctxDim, Heads: heads,
		Q:    NewLinear[F](join(name, "q"), c, c, true, rng),
		KV:   NewLinear[F](join(name, "kv"), ctxDim, 2*c, true, rng),
		Proj: NewLinear[F](join(name, "proj"), c, c, true, rng),
		eng:  engine.Default(),
	}
}

// Params returns the projections' parameters.
func (a *CrossAttention[F]) Params() []*Param[F] {
	return append(append(a.Q.Params(), a.KV.Params()...), a.Proj.Params()...)
}

// Forward maps x (B, T, C) and ctx (B, L, Cctx) to (B, T, C).
func (a *CrossAttention[F]) Forward(x, ctx *tensor.Dense) *tensor.Dense {
	s, cs := x.Shape(), ctx.Shape()
	if len(s) != 3 || s[2] != a.C || len(cs) != 3 || cs[0] != s[0] || cs[2] != a.CtxDim {
		panic(fmt.Sprintf("nn: CrossAttention.Forward: shapes %v and %v, want (B, T, %d) and (B, L, %d)", []int(s), []int(cs), a.C, a.CtxDim))
	}
	return engine.FromSlice(a.forward(engine.Data[F](x), engine.Data[F](ctx), s[0], s[1], cs[1]), s...)
}

// Backward takes dy (B, T, C) and returns dx (B, T, C) and dctx (B, L, Cctx).
func (a *CrossAttention[F]) Backward(dy *tensor.Dense) (dx, dctx *tensor.Dense) {
	x, c := a.backward(engine.Data[F](dy))
	return engine.FromSlice(x, a.act.B, a.act.T, a.C), engine.FromSlice(c, a.act.B, a.act.L, a.CtxDim)
}

func (a *CrossAttention[F]) forward(x, ctx []F, B, T, L int) []F {
	c, hs := a.C, a.C/a.Heads
	a.act.B, a.act.T, a.act.L = B, T, L
	a.act.q = a.Q.forward(x, B*T)     // (B, T, C)
	a.act.kv = a.KV.forward(ctx, B*L) // (B, L, 2C)
	a.act.shape = attnShape{B: B, H: a.Heads, Tq: T, Tk: L, hs: hs, scale: 1 / math.Sqrt(float64(hs)),
		q: view{0, T * c, c}, k: view{0, L * 2 * c, 2 * c}, v: view{c, L * 2 * c, 2 * c}, y: view{0, T * c, c}}
	a.act.att = grow(a.act.att, B*a.Heads*T*L)
	a.act.y = grow(a.act.y, B*T*c)
	attnForward(a.eng, &a.act.shape, a.act.q, a.act.kv, a.act.kv, a.act.y, a.act.att)
	return a.Proj.forward(a.act.y, B*T)
}

func (a *CrossAttention[F]) backward(dy []F) (dx, dctx []F) {
	dyAttn := a.Proj.backward(dy)
	a.act.dq, a.act.dkv = grow(a.act.dq, len(a.act.q)), grow(a.act.dkv, len(a.act.kv))
	attnBackward(a.eng, &a.act.shape, a.act.q, a.act.kv, a.act.kv, a.act.att, dyAttn, a.act.dq, a.act.dkv, a.act.dkv)
	return a.Q.backward(a.act.dq), a.KV.backward(a.act.dkv)
}

// crossCache holds the keys and values of a fixed context for decoding.
type crossCache[F Float] struct {
	B, L int
	KV   []F // (B, L, 2C), or (1, L, 2C) read by every sequence when Shared
	// Shared marks the cache of a fork, whose sequences all read one context: a
	// step attends its B rows as B queries of that one sequence (one product per
	// head instead of one per sequence and head).
	Shared bool
}

// newCrossCache projects ctx (B, L, Cctx) to keys and values once, for step.
func (a *CrossAttention[F]) newCrossCache(ctx []F, B, L int) (*crossCache[F], error) {
	if len(ctx) != B*L*a.CtxDim {
		return nil, fmt.Errorf("nn: cross-attention: context has %d values, want B·L·Cctx = %d·%d·%d", len(ctx), B, L, a.CtxDim)
	}
	kv := make([]F, B*L*2*a.C)
	a.KV.apply(a.eng, ctx, B*L, kv)
	return &crossCache[F]{B: B, L: L, KV: kv}, nil
}

// step attends from x (B, C), one position per sequence, to the cached context on
// e and returns (B, C).
func (a *CrossAttention[F]) step(e engine.Engine, x []F, cache *crossCache[F], sp *stepPanels[F]) []F {
	if cache.Shared {
		return a.attend(e, x, 1, cache.B, cache, sp)
	}
	return a.attend(e, x, cache.B, 1, cache, sp)
}

// prefill attends T positions of a single sequence, x (T, C), to the context of
// a cache of one sequence.
func (a *CrossAttention[F]) prefill(x []F, T int, cache *crossCache[F]) []F {
	return a.attend(a.eng, x, 1, T, cache, nil)
}

// attend attends T positions of each of B sequences, x (B, T, C), to the cached
// context of each sequence on e and returns (B, T, C).
func (a *CrossAttention[F]) attend(e engine.Engine, x []F, B, T int, cache *crossCache[F], sp *stepPanels[F]) []F {
	L, c, hs := cache.L, a.C, a.C/a.Heads
	q := make([]F, B*T*c)
	sp.apply(a.Q, e, x, B*T, q)
	s := attnShape{B: B, H: a.Heads, Tq: T, Tk: L, hs: hs, scale: 1 / math.Sqrt(float64(hs)),
		q: view{0, T * c, c}, k: view{0, L * 2 * c, 2 * c}, v: view{c, L * 2 * c, 2 * c}, y: view{0, T * c, c}}
	y, att := make([]F, B*T*c), make([]F, B*a.Heads*T*L)
	attnForward(e, &s, q, cache.KV, cache.KV, y, att)
	out := make([]F, B*T*c)
	sp.apply(a.Proj, e, y, B*T, out)
	return out
}
