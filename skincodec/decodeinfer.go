package skincodec

import (
	"math"
	"runtime"
	"sync"

	"github.com/rigkit/rigkit/internal/engine"
	"github.com/rigkit/rigkit/internal/fastmath"
	"github.com/rigkit/rigkit/internal/workgroup"
)

// The decoder's inference path. cvae.decode runs one bone at a time through nn's
// layers, which keep activations for backpropagation and spend most of their time in
// GELU's scalar expf. Decoding a character needs only the forward pass, for many
// bones at once, so inferDecoder reads the same weights and runs
//
//   - the per-point layers (embedding, MLPs, projections) as one GEMM over a chunk
//     of query rows that may span many bones,
//   - cross-attention per bone segment of the chunk against keys and values computed
//     once per bone,
//   - GELU, softmax and sigmoid with the float32 approximations of fastmath.go,
//
// with buffers reused across chunks and chunks spread over the CPU engine's workers.
// TestInferDecoderMatchesNetwork checks it against cvae.decode.

// inferChunk is the number of query rows one decoder pass handles.
const inferChunk = 2048

// decodeRow is one decoder query: unique vertex u relative to joint j.
type decodeRow struct{ j, u int32 }

// inferDecoder decodes query rows for a fixed set of bones (their codes, bone
// features and the mesh latents fixed).
type inferDecoder struct {
	m      *cvae[float32]
	nJ, L  int
	kv     [][]float32 // per block: (nJ, L, 2D) keys then values of each context token
	qd     int         // query features per row
	prior  bool        // whether the config has a fixed prior logit
	scale  float32
	shared *sync.Pool // *inferScratch, shared by the decoders of one tokenizer
	// stop, when set, is asked before every chunk; once it reports true the
	// remaining chunks are skipped (their rows are not emitted), so the caller
	// must check why and discard the output.
	stop func() bool
}

// inferScratch holds one worker's activations for a chunk; its sizes depend only on
// the network's configuration.
type inferScratch struct {
	eng       engine.Engine
	qry       []float32 // (n, cfg.queryDim())
	h, t, q   []float32 // (n, D)
	u         []float32 // (n, Hidden)
	s         []float32 // (n, L) attention probabilities of one head
	rowBones  []int32
	rowLogits []float32
	rowPrior  []float32 // fixed prior logit of each row
}

// newInferDecoder prepares decoding for nJ bones: codeVecs (nJ, K, len(Levels)) are
// the FSQ code vectors, bones (nJ, boneFeatures) the bone features and lat (Latents,
// D) the mesh latents of the character. Scratch buffers come from pool (a new one
// when nil).
func newInferDecoder(m *cvae[float32], codeVecs, bones, lat []float32, nJ int, pool *sync.Pool) *inferDecoder {
	if pool == nil {
		pool = new(sync.Pool)
	}
	d, K, M := m.cfg.D, m.cfg.K, m.cfg.Latents
	L := K + 1 + M
	e := engine.NewCPU(1)
	ct := make([]float32, nJ*K*d)
	m.decCode.Rows(e, codeVecs, nJ*K, ct, false)
	bt := make([]float32, nJ*d)
	m.decBone.Rows(e, bones, nJ, bt, false)
	ctx := make([]float32, nJ*L*d)
	pos := m.decPos.Data()
	for b := 0; b < nJ; b++ {
		row := ctx[b*L*d : (b+1)*L*d]
		for k := 0; k < K; k++ {
			for i := 0; i < d; i++ {
				row[k*d+i] = ct[(b*K+k)*d+i] + pos[k*d+i]
			}
		}
		copy(row[K*d:(K+1)*d], bt[b*d:(b+1)*d])
		copy(row[(K+1)*d:], lat[:M*d])
	}
	m.decCtxL.Rows(ctx, ctx)
	dec := &inferDecoder{m: m, nJ: nJ, L: L, shared: pool, qd: m.cfg.queryDim(), prior: m.cfg.Prior != 0 || m.cfg.Geodesic > 0, scale: float32(1 / math.Sqrt(float64(d/m.cfg.Heads)))}
	for _, blk := range m.blocks {
		kv := make([]float32, nJ*L*2*d)
		blk.attn.KV.Rows(e, ctx, nJ*L, kv, false)
		dec.kv = append(dec.kv, kv)
	}
	return dec
}

// resMLPRows applies x += MLP(LN(x)) to n rows, with t (n, D) and u (n, Hidden) as
// scratch.
func resMLPRows(e engine.Engine, r *resMLP[float32], x, t, u []float32, n int) {
	r.ln.Rows(x, t)
	r.mlp.Up.Rows(e, t, n, u, false)
	fastmath.GELUInPlace(u)
	r.mlp.Down.Rows(e, u, n, x, true)
}

func (dec *inferDecoder) scratch() *inferScratch {
	if s, ok := dec.shared.Get().(*inferScratch); ok {
		return s
	}
	d, h := dec.m.cfg.D, dec.m.cfg.Hidden
	n := inferChunk
	return &inferScratch{eng: engine.NewCPU(1), qry: make([]float32, n*dec.qd),
		h: make([]float32, n*d), t: make([]float32, n*d), q: make([]float32, n*d), u: make([]float32, n*h),
		s: make([]float32, n*dec.L), rowBones: make([]int32, n), rowLogits: make([]float32, n),
		rowPrior: make([]float32, n)}
}

// logits runs the decoder on n ≤ inferChunk rows whose query features are in
// sc.qry and bones in sc.rowBones (rows of one bone contiguous), writing the logits
// (fixed prior included) to sc.rowLogits. With cached, the rows' code-independent
// prefix (embed's output) is already in sc.h, sc.q and sc.rowPrior.
func (dec *inferDecoder) logits(sc *inferScratch, n int, cached bool) {
	m, e := dec.m, sc.eng
	d, L, H := m.cfg.D, dec.L, m.cfg.Heads
	hs := d / H
	h, t, q := sc.h[:n*d], sc.t[:n*d], sc.q[:n*d]
	u := sc.u[:n*m.cfg.Hidden]
	if !cached {
		dec.embed(sc, n)
	}
	for bi, blk := range m.blocks {
		if bi > 0 {
			blk.ln.Rows(h, t)
			blk.attn.Q.Rows(e, t, n, q, false)
		}
		// Attention per bone segment; the heads' outputs go to t (free after Q).
		kv := dec.kv[bi]
		for s0 := 0; s0 < n; {
			j := sc.rowBones[s0]
			s1 := s0 + 1
			for s1 < n && sc.rowBones[s1] == j {
				s1++
			}
			rows := s1 - s0
			kvj := kv[int(j)*L*2*d:]
			for hh := 0; hh < H; hh++ {
				p := sc.s[:rows*L]
				engine.Gemm(e, false, true, rows, L, hs, dec.scale, q[s0*d+hh*hs:], d, kvj[hh*hs:], 2*d, 0, p, L)
				fastmath.SoftmaxRows(p, L)
				engine.Gemm(e, false, false, rows, hs, L, 1, p, L, kvj[d+hh*hs:], 2*d, 0, t[s0*d+hh*hs:], d)
			}
			s0 = s1
		}
		blk.attn.Proj.Rows(e, t, n, h, true)
		resMLPRows(e, m.ffs[bi], h, t, u, n)
	}
	m.outL.Rows(h, t)
	w, b := m.out.Weight.Data(), m.out.Bias.Data()[0]
	for i := 0; i < n; i++ {
		row := t[i*d : (i+1)*d]
		acc := b + sc.rowPrior[i]
		for k, v := range row {
			acc += v * w[k]
		}
		sc.rowLogits[i] = acc
	}
}

// embed runs the part of the decoder that does not depend on the codes on n rows of
// sc.qry: the point embedding (to sc.h), the first block's query projection (to
// sc.q) and the fixed prior logit (to sc.rowPrior).
func (dec *inferDecoder) embed(sc *inferScratch, n int) {
	m, e := dec.m, sc.eng
	d := m.cfg.D
	h, t, q := sc.h[:n*d], sc.t[:n*d], sc.q[:n*d]
	u := sc.u[:n*m.cfg.Hidden]
	// Point embedding: Linear → GELU → residual MLP.
	m.decPts.in.Rows(e, sc.qry[:n*dec.qd], n, h, false)
	fastmath.GELUInPlace(h)
	resMLPRows(e, m.decPts.res, h, t, u, n)
	blk := m.blocks[0]
	blk.ln.Rows(h, t)
	blk.attn.Q.Rows(e, t, n, q, false)
	for i := 0; i < n; i++ {
		sc.rowPrior[i] = 0
		if dec.prior {
			sc.rowPrior[i] = m.cfg.priorLogit(sc.qry[i*dec.qd : (i+1)*dec.qd])
		}
	}
}

// embedRows runs embed on n rows of query features (n × qd), in chunks spread over up
// to workers goroutines, and returns the rows' prefix: h and q (n × D each) and the
// prior logits, to decode the same query points against many code lists (runCached).
func (dec *inferDecoder) embedRows(qry []float32, n, workers int) (h, q, prior []float32) {
	d := dec.m.cfg.D
	h, q, prior = make([]float32, n*d), make([]float32, n*d), make([]float32, n)
	idx := make([]decodeRow, n) // row i of qry, carried in u
	for i := range idx {
		idx[i].u = int32(i)
	}
	dec.chunks(idx, workers, func(sc *inferScratch, rows []decodeRow) {
		lo, c := int(rows[0].u), len(rows)
		copy(sc.qry, qry[lo*dec.qd:(lo+c)*dec.qd])
		dec.embed(sc, c)
		copy(h[lo*d:], sc.h[:c*d])
		copy(q[lo*d:], sc.q[:c*d])
		copy(prior[lo:], sc.rowPrior[:c])
	})
	return h, q, prior
}

// run decodes rows (sorted by joint) in chunks spread over up to workers goroutines.
// fill writes the query features of rows[i] to dst; emit receives each row's logit.
// fill and emit may be called concurrently for different rows.
func (dec *inferDecoder) run(rows []decodeRow, workers int, fill func(r decodeRow, dst []float32), emit func(r decodeRow, logit float32)) {
	dec.chunks(rows, workers, func(sc *inferScratch, rows []decodeRow) {
		for i, r := range rows {
			fill(r, sc.qry[i*dec.qd:(i+1)*dec.qd])
			sc.rowBones[i] = r.j
		}
		dec.logits(sc, len(rows), false)
		for i, r := range rows {
			emit(r, sc.rowLogits[i])
		}
	})
}

// runCached is run for rows whose code-independent prefix is known (embedRows):
// prefix writes row r's h and q (D each) and returns its prior logit.
func (dec *inferDecoder) runCached(rows []decodeRow, workers int, prefix func(r decodeRow, h, q []float32) float32, emit func(r decodeRow, logit float32)) {
	d := dec.m.cfg.D
	dec.chunks(rows, workers, func(sc *inferScratch, rows []decodeRow) {
		for i, r := range rows {
			sc.rowPrior[i] = prefix(r, sc.h[i*d:(i+1)*d], sc.q[i*d:(i+1)*d])
			sc.rowBones[i] = r.j
		}
		dec.logits(sc, len(rows), true)
		for i, r := range rows {
			emit(r, sc.rowLogits[i])
		}
	})
}

// chunks calls do on chunks of up to inferChunk rows, spread over up to workers
// goroutines, each with its own scratch.
func (dec *inferDecoder) chunks(rows []decodeRow, workers int, do func(sc *inferScratch, rows []decodeRow)) {
	chunks := (len(rows) + inferChunk - 1) / inferChunk
	if chunks == 0 {
		return
	}
	workers = max(1, min(workers, chunks))
	if workers == 1 {
		sc := dec.scratch()
		defer dec.shared.Put(sc)
		for lo := 0; lo < len(rows) && !dec.stopped(); lo += inferChunk {
			do(sc, rows[lo:min(len(rows), lo+inferChunk)])
		}
		return
	}
	var next int
	var mu sync.Mutex
	var g workgroup.Group
	for w := 0; w < workers; w++ {
		g.Go(func() {
			sc := dec.scratch()
			defer dec.shared.Put(sc)
			for {
				mu.Lock()
				c := next
				next++
				mu.Unlock()
				if c >= chunks || dec.stopped() {
					return
				}
				do(sc, rows[c*inferChunk:min(len(rows), (c+1)*inferChunk)])
			}
		})
	}
	g.Wait()
}

// stopped reports whether dec.stop asks to skip the remaining chunks.
func (dec *inferDecoder) stopped() bool { return dec.stop != nil && dec.stop() }

// workers is how many goroutines one call uses (Options.Workers).
func (o Options) workers() int {
	if o.Workers > 0 {
		return o.Workers
	}
	return decodeWorkers()
}

// decodeWorkers is how many goroutines decode chunks: the CPU engine's workers.
func decodeWorkers() int {
	if c, ok := engine.Default().(*engine.CPU); ok {
		return c.Workers()
	}
	return runtime.GOMAXPROCS(0)
}

// sigmoid32 is the logistic function.
func sigmoid32(x float32) float32 { return 1 / (1 + fastmath.Exp32(-x)) }

// encodeInfer is cvae.encode for inference: the per-point embedding of the B·encPoints
// encoder points, the bulk of the encoder's work, runs on the kernels above (one
// GEMM per layer, fast GELU); the pooling into K tokens runs on nn's layers.
func encodeInfer(m *cvae[float32], enc, bone []float32, B, workers int) []float32 {
	e := engine.NewCPU(workers)
	d, n := m.cfg.D, B*encPoints
	pe := m.encPts
	pts := make([]float32, n*d)
	t := make([]float32, n*d)
	u := make([]float32, n*m.cfg.Hidden)
	pe.in.Rows(e, enc, n, pts, false)
	fastmath.GELUInPlace(pts)
	resMLPRows(e, pe.res, pts, t, u, n)
	bb := m.encBone.Forward(engine.FromSlice(bone, B, boneFeatures))
	tok := m.enc.Forward(engine.FromSlice(pts, B, encPoints, d), bb)
	return engine.Data[float32](m.encOut.Forward(m.encOutL.Forward(tok)))
}

// prefixCache keeps the code-independent prefix (embed's h, q and prior logit) of
// every decode row it has seen, so that decoding several code sets for the same
// skeleton (DecodeMean of sampled streams) embeds each query row once, not once per
// set. Rows are keyed by joint and unique vertex.
type prefixCache struct {
	d, U int
	slot []int32 // (nJ·U): index into h/q/prior, -1 when not computed yet
	h, q []float32
	pri  []float32
}

func newPrefixCache(d, nJ, U int) *prefixCache {
	c := &prefixCache{d: d, U: U, slot: make([]int32, nJ*U)}
	for i := range c.slot {
		c.slot[i] = -1
	}
	return c
}

// run decodes rows like inferDecoder.run, embedding only the rows not cached yet
// (and caching them) and reusing the prefix of the rest.
func (c *prefixCache) run(dec *inferDecoder, rows []decodeRow, workers int, fill func(r decodeRow, dst []float32), emit func(r decodeRow, logit float32)) {
	var missing []decodeRow
	for _, r := range rows {
		k := int(r.j)*c.U + int(r.u)
		if c.slot[k] < 0 {
			c.slot[k] = int32(len(c.pri) + len(missing))
			missing = append(missing, r)
		}
	}
	if len(missing) > 0 {
		qry := make([]float32, len(missing)*dec.qd)
		for i, r := range missing {
			fill(r, qry[i*dec.qd:(i+1)*dec.qd])
		}
		h, q, pri := dec.embedRows(qry, len(missing), workers)
		c.h, c.q, c.pri = append(c.h, h...), append(c.q, q...), append(c.pri, pri...)
	}
	dec.runCached(rows, workers, func(r decodeRow, h, q []float32) float32 {
		s := int(c.slot[int(r.j)*c.U+int(r.u)])
		copy(h, c.h[s*c.d:(s+1)*c.d])
		copy(q, c.q[s*c.d:(s+1)*c.d])
		return c.pri[s]
	}, emit)
}
