package skincodec

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/rigkit/rigkit/internal/engine"
	"github.com/rigkit/rigkit/internal/nn"
	"github.com/rigkit/rigkit/tokens"
)

// CVAEConfig sizes the FSQ-CVAE skin tokenizer network.
type CVAEConfig struct {
	D       int   `json:"d"`       // channels of every token
	Heads   int   `json:"heads"`   // attention heads
	Hidden  int   `json:"hidden"`  // MLP hidden width
	K       int   `json:"k"`       // codes per bone
	Latents int   `json:"latents"` // mesh-condition latent tokens
	Blocks  int   `json:"blocks"`  // decoder cross-attention blocks
	Levels  []int `json:"levels"`  // FSQ levels per code
	// Prior adds -Prior·(d_j - d_other)·distScale, clipped to ±priorClip, to every
	// logit: a rigid-skinning prior (the bone nearest the point is favoured) that the
	// network corrects. 0 disables it.
	Prior float64 `json:"prior,omitempty"`
	// Geodesic, when positive, gives every query point two more features (the
	// bone's geodesic-binding weight at the point and its geodesic distance margin,
	// see prepared.geodesicFeatures) and adds Geodesic·logit(w) of that weight,
	// clamped to [geoClampLo, 1-geoClampLo], to every logit: the network then
	// learns corrections to geodesic voxel binding (skinning) instead of to
	// nearest-bone skinning. 0 disables it (checkpoints made before it existed).
	Geodesic float64 `json:"geodesic,omitempty"`
}

// priorClip bounds the rigid prior's contribution to a logit.
const priorClip = 6

// geoClampLo keeps the geodesic prior's logit finite: weights are clamped to
// [geoClampLo, 1-geoClampLo] (±3.9 nats) before the logit.
const geoClampLo = 0.02

// queryDim is the number of features per decoder query point.
func (c CVAEConfig) queryDim() int {
	if c.Geodesic > 0 {
		return queryFeatures + geoFeatures
	}
	return queryFeatures
}

// encDim is the number of features per encoder point: the query features, the
// bone's weight at the point and whether it is positive.
func (c CVAEConfig) encDim() int { return c.queryDim() + 2 }

// priorLogit is the fixed part of a query's logit that the network corrects: the
// rigid prior (Prior) and the geodesic prior (Geodesic), from the query's features.
func (c CVAEConfig) priorLogit(row []float32) float32 {
	var pr float64
	if c.Prior != 0 {
		pr = math.Max(-priorClip, math.Min(priorClip, -c.Prior*float64(row[14])))
	}
	if c.Geodesic > 0 {
		w := math.Max(geoClampLo, math.Min(1-geoClampLo, float64(row[queryFeatures])))
		pr += c.Geodesic * math.Log(w/(1-w))
	}
	return float32(pr)
}

// DefaultCVAEConfig is the shipped configuration: K = tokens.DefaultK codes with
// SkinLevels, d = 64, the geodesic prior (no rigid prior), which trains at a few
// hundred bones per second on one core.
func DefaultCVAEConfig() CVAEConfig {
	return CVAEConfig{D: 64, Heads: 4, Hidden: 128, K: tokens.DefaultK, Latents: 16, Blocks: 2, Levels: tokens.SkinLevels[:], Geodesic: 1}
}

// Validate reports a configuration the network or the token stream cannot take (a
// width the heads do not divide, K outside 1..MaxK, other levels).
func (c CVAEConfig) Validate() error {
	if c.D <= 0 || c.Heads <= 0 || c.D%c.Heads != 0 || c.Hidden <= 0 || c.K <= 0 || c.Latents <= 0 || c.Blocks <= 0 {
		return fmt.Errorf("skin tokenizer: bad config %+v", c)
	}
	if c.K > tokens.MaxK || len(c.Levels) != len(tokens.SkinLevels) {
		return fmt.Errorf("skin tokenizer: config has K=%d levels %v; the token stream allows K=1..%d and levels %v", c.K, c.Levels, tokens.MaxK, tokens.SkinLevels)
	}
	for i, l := range c.Levels {
		if l != tokens.SkinLevels[i] {
			return fmt.Errorf("skin tokenizer: config levels %v differ from the stream's %v", c.Levels, tokens.SkinLevels)
		}
	}
	return nil
}

// resMLP is x + MLP(LN(x)).
type resMLP[F nn.Float] struct {
	ln  *nn.LayerNorm[F]
	mlp *nn.MLP[F]
	y   []F
}

func newResMLP[F nn.Float](name string, d, hidden int, rng *rand.Rand) *resMLP[F] {
	return &resMLP[F]{ln: nn.NewLayerNorm[F](name+".ln", d), mlp: nn.NewMLP[F](name+".mlp", d, hidden, rng)}
}

func (r *resMLP[F]) params() []*nn.Param[F] { return append(r.ln.Params(), r.mlp.Params()...) }

func (r *resMLP[F]) forward(x []F, shape ...int) []F {
	h := engine.Data[F](r.mlp.Forward(r.ln.Forward(engine.FromSlice(x, shape...))))
	r.y = addTo(r.y, x, h)
	return r.y
}

// backward returns dx; it may reuse dy's storage.
func (r *resMLP[F]) backward(dy []F, shape ...int) []F {
	dh := engine.Data[F](r.ln.Backward(r.mlp.Backward(engine.FromSlice(dy, shape...))))
	for i := range dy {
		dy[i] += dh[i]
	}
	return dy
}

// resCross is x + CrossAttention(LN(x), ctx).
type resCross[F nn.Float] struct {
	ln   *nn.LayerNorm[F]
	attn *nn.CrossAttention[F]
	y    []F
}

func newResCross[F nn.Float](name string, d, heads int, rng *rand.Rand) *resCross[F] {
	return &resCross[F]{ln: nn.NewLayerNorm[F](name+".ln", d), attn: nn.NewCrossAttention[F](name+".attn", d, d, heads, rng)}
}

func (r *resCross[F]) params() []*nn.Param[F] { return append(r.ln.Params(), r.attn.Params()...) }

func (r *resCross[F]) forward(x []F, B, T int, ctx []F, L int) []F {
	d := r.ln.C
	h := engine.Data[F](r.attn.Forward(r.ln.Forward(engine.FromSlice(x, B, T, d)), engine.FromSlice(ctx, B, L, d)))
	r.y = addTo(r.y, x, h)
	return r.y
}

// backward returns dx (reusing dy's storage) and dctx (owned by the layer).
func (r *resCross[F]) backward(dy []F, B, T int) (dx, dctx []F) {
	dh, dc := r.attn.Backward(engine.FromSlice(dy, B, T, r.ln.C))
	dl := engine.Data[F](r.ln.Backward(dh))
	for i := range dy {
		dy[i] += dl[i]
	}
	return dy, engine.Data[F](dc)
}

// addTo returns buf resized to len(a) holding a+b.
func addTo[F nn.Float](buf, a, b []F) []F {
	if cap(buf) < len(a) {
		buf = make([]F, len(a))
	}
	buf = buf[:len(a)]
	for i := range a {
		buf[i] = a[i] + b[i]
	}
	return buf
}

func grown[F nn.Float](buf []F, n int) []F {
	if cap(buf) < n {
		return make([]F, n)
	}
	buf = buf[:n]
	clear(buf)
	return buf
}

// pointEmbed is Linear(in → D) → GELU → residual MLP: a per-point embedding.
type pointEmbed[F nn.Float] struct {
	in  *nn.Linear[F]
	act *nn.GELU[F]
	res *resMLP[F]
}

func newPointEmbed[F nn.Float](name string, in, d, hidden int, rng *rand.Rand) *pointEmbed[F] {
	return &pointEmbed[F]{in: nn.NewLinear[F](name+".in", in, d, true, rng), act: nn.NewGELU[F](), res: newResMLP[F](name+".res", d, hidden, rng)}
}

func (p *pointEmbed[F]) params() []*nn.Param[F] { return append(p.in.Params(), p.res.params()...) }

func (p *pointEmbed[F]) forward(x []F, n int) []F {
	h := engine.Data[F](p.act.Forward(p.in.Forward(engine.FromSlice(x, n, p.in.In))))
	return p.res.forward(h, n, p.in.Out)
}

func (p *pointEmbed[F]) backward(dy []F, n int) {
	dh := p.res.backward(dy, n, p.in.Out)
	p.in.Backward(p.act.Backward(engine.FromSlice(dh, n, p.in.Out)))
}

// newPool returns the nn.Perceiver that pools a point set into t tokens, with the
// tensor names name.queries, name.ctx_ln, name.cross.ln, name.cross.attn,
// name.ff.ln and name.ff.mlp of the tokenizer's checkpoints.
func newPool[F nn.Float](name string, t, d, heads, hidden int, rng *rand.Rand) *nn.Perceiver[F] {
	return nn.NewPerceiver[F](nn.PerceiverConfig{Tokens: t, C: d, Heads: heads, Hidden: hidden, Names: nn.PerceiverNames{
		Queries: name + ".queries", QueryLN: name + ".cross.ln", ContextLN: name + ".ctx_ln",
		Cross: name + ".cross.attn", MLPLN: name + ".ff.ln", MLP: name + ".ff.mlp"}}, rng)
}

// poolParams lists a pool's parameters in the order of the tokenizer's
// checkpoints (the context norm before the query norm), which fixes their layout
// and the summation order of the gradient norm.
func poolParams[F nn.Float](p *nn.Perceiver[F]) []*nn.Param[F] {
	ps := []*nn.Param[F]{p.Queries}
	ps = append(ps, p.ContextLN.Params()...)
	ps = append(ps, p.QueryLN.Params()...)
	ps = append(ps, p.Cross.Params()...)
	ps = append(ps, p.MLPLN.Params()...)
	return append(ps, p.MLP.Params()...)
}

// cvae is the FSQ-CVAE network. Encoder: a bone's weighted surface points → K
// tokens → FSQ codes. Mesh condition: surface points → Latents tokens. Decoder:
// query points cross-attend to [K code tokens, bone token, mesh latents] → one logit
// per point (the bone's weight is its sigmoid).
type cvae[F nn.Float] struct {
	cfg CVAEConfig
	cvaeEncoder[F]
	cvaeMesh[F]
	cvaeDecoder[F]
	cvaeState[F]
	// noQuant skips FSQ (codes = z) so gradient checks can reach the encoder.
	noQuant bool
}

// cvaeEncoder maps a bone's weighted surface points to K quantized codes.
type cvaeEncoder[F nn.Float] struct {
	encPts  *pointEmbed[F]
	encBone *nn.Linear[F]
	enc     *nn.Perceiver[F] // K tokens, the bone as the queries' bias
	encOutL *nn.LayerNorm[F]
	encOut  *nn.Linear[F] // D → len(Levels)
	fsq     *nn.FSQ[F]
}

// cvaeMesh pools a character's surface points into the mesh condition's latents.
type cvaeMesh[F nn.Float] struct {
	meshPts *pointEmbed[F]
	mesh    *nn.Perceiver[F]
}

// cvaeDecoder turns query points, the codes, the bone and the mesh latents into
// one logit per point.
type cvaeDecoder[F nn.Float] struct {
	decCode *nn.Linear[F] // len(Levels) → D
	decPos  *nn.Param[F]  // (K, D)
	decBone *nn.Linear[F] // boneFeatures → D
	decCtxL *nn.LayerNorm[F]
	decPts  *pointEmbed[F] // queryFeatures → D
	blocks  []*resCross[F]
	ffs     []*resMLP[F]
	outL    *nn.LayerNorm[F]
	out     *nn.Linear[F] // D → 1
}

// cvaeState is what the forward pass keeps for the backward pass.
type cvaeState[F nn.Float] struct {
	B, Bc, Nq int
	meshOf    []int
	ctx       []F
	dctx      []F
}

func newCVAE[F nn.Float](cfg CVAEConfig, seed uint64) (*cvae[F], error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	fsq, err := nn.NewFSQ[F](cfg.Levels)
	if err != nil {
		return nil, fmt.Errorf("skin tokenizer: %w", err)
	}
	d, h, nl := cfg.D, cfg.Hidden, len(cfg.Levels)
	m := &cvae[F]{cfg: cfg}
	m.cvaeEncoder = cvaeEncoder[F]{
		encPts:  newPointEmbed[F]("enc.pts", cfg.encDim(), d, h, rng),
		encBone: nn.NewLinear[F]("enc.bone", boneFeatures, d, true, rng),
		enc:     newPool[F]("enc.pool", cfg.K, d, cfg.Heads, h, rng),
		encOutL: nn.NewLayerNorm[F]("enc.out_ln", d),
		encOut:  nn.NewLinear[F]("enc.out", d, nl, true, rng),
		fsq:     fsq,
	}
	m.cvaeMesh = cvaeMesh[F]{
		meshPts: newPointEmbed[F]("mesh.pts", meshFeatures, d, h, rng),
		mesh:    newPool[F]("mesh.pool", cfg.Latents, d, cfg.Heads, h, rng),
	}
	m.cvaeDecoder = cvaeDecoder[F]{
		decCode: nn.NewLinear[F]("dec.code", nl, d, true, rng),
		decPos:  nn.NewParam[F]("dec.pos", cfg.K, d),
		decBone: nn.NewLinear[F]("dec.bone", boneFeatures, d, true, rng),
		decCtxL: nn.NewLayerNorm[F]("dec.ctx_ln", d),
		decPts:  newPointEmbed[F]("dec.pts", cfg.queryDim(), d, h, rng),
		outL:    nn.NewLayerNorm[F]("dec.out_ln", d),
		out:     nn.NewLinear[F]("dec.out", d, 1, true, rng),
	}
	for i := range m.decPos.Data() {
		m.decPos.Data()[i] = F(rng.NormFloat64() * 0.5)
	}
	for i := 0; i < cfg.Blocks; i++ {
		m.blocks = append(m.blocks, newResCross[F](fmt.Sprintf("dec.block%d.cross", i), d, cfg.Heads, rng))
		m.ffs = append(m.ffs, newResMLP[F](fmt.Sprintf("dec.block%d.ff", i), d, h, rng))
	}
	return m, nil
}

// Params lists every parameter in a fixed order.
func (m *cvae[F]) Params() []*nn.Param[F] {
	var ps []*nn.Param[F]
	ps = append(ps, m.encPts.params()...)
	ps = append(ps, m.encBone.Params()...)
	ps = append(ps, poolParams(m.enc)...)
	ps = append(ps, m.encOutL.Params()...)
	ps = append(ps, m.encOut.Params()...)
	ps = append(ps, m.meshPts.params()...)
	ps = append(ps, poolParams(m.mesh)...)
	ps = append(ps, m.decCode.Params()...)
	ps = append(ps, m.decPos)
	ps = append(ps, m.decBone.Params()...)
	ps = append(ps, m.decCtxL.Params()...)
	ps = append(ps, m.decPts.params()...)
	for i := range m.blocks {
		ps = append(ps, m.blocks[i].params()...)
		ps = append(ps, m.ffs[i].params()...)
	}
	ps = append(ps, m.outL.Params()...)
	return append(ps, m.out.Params()...)
}

// encode maps encoder points enc (B, encPoints, cfg.encDim()) and bones (B,
// boneFeatures) to pre-quantization latents z (B, K, len(Levels)).
func (m *cvae[F]) encode(enc, bone []F, B int) []F {
	d := m.cfg.D
	pts := m.encPts.forward(enc, B*encPoints)
	bb := m.encBone.Forward(engine.FromSlice(bone, B, boneFeatures))
	tok := m.enc.Forward(engine.FromSlice(pts, B, encPoints, d), bb)
	return engine.Data[F](m.encOut.Forward(m.encOutL.Forward(tok)))
}

func (m *cvae[F]) encodeBackward(dz []F) {
	B := m.B
	dtok := m.encOutL.Backward(m.encOut.Backward(engine.FromSlice(dz, B, m.cfg.K, len(m.cfg.Levels))))
	dpts, dbb := m.enc.Backward(dtok)
	m.encBone.Backward(dbb)
	m.encPts.backward(engine.Data[F](dpts), B*encPoints)
}

// quantize runs FSQ on z (B, K, L) and returns the code vectors (values in [-1, 1]).
func (m *cvae[F]) quantize(z []F, B int) []F {
	return engine.Data[F](m.fsq.Forward(engine.FromSlice(z, B, m.cfg.K, len(m.cfg.Levels))))
}

// meshLatents maps mesh points (Bc, meshPoints, meshFeatures) to (Bc, Latents, D).
func (m *cvae[F]) meshLatents(mesh []F, Bc int) []F {
	pts := m.meshPts.forward(mesh, Bc*meshPoints)
	return engine.Data[F](m.mesh.Forward(engine.FromSlice(pts, Bc, meshPoints, m.cfg.D), nil))
}

func (m *cvae[F]) meshBackward(dlat []F) {
	dpts, _ := m.mesh.Backward(engine.FromSlice(dlat, m.Bc, m.cfg.Latents, m.cfg.D))
	m.meshPts.backward(engine.Data[F](dpts), m.Bc*meshPoints)
}

// decode maps codes (B, K, L), bones (B, boneFeatures), mesh latents (Bc, Latents,
// D) with meshOf[b] the mesh of bone b, and query points (B, Nq, cfg.queryDim()) to
// logits (B, Nq).
func (m *cvae[F]) decode(codes, bone, lat []F, meshOf []int, qry []F, B, Nq int) []F {
	d, K, M := m.cfg.D, m.cfg.K, m.cfg.Latents
	m.B, m.Nq, m.meshOf = B, Nq, meshOf
	ct := engine.Data[F](m.decCode.Forward(engine.FromSlice(codes, B, K, len(m.cfg.Levels))))
	bt := engine.Data[F](m.decBone.Forward(engine.FromSlice(bone, B, boneFeatures)))
	L := K + 1 + M
	m.ctx = grown(m.ctx, B*L*d)
	pos := m.decPos.Data()
	for b := 0; b < B; b++ {
		row := m.ctx[b*L*d : (b+1)*L*d]
		for k := 0; k < K; k++ {
			for i := 0; i < d; i++ {
				row[k*d+i] = ct[(b*K+k)*d+i] + pos[k*d+i]
			}
		}
		copy(row[K*d:(K+1)*d], bt[b*d:(b+1)*d])
		copy(row[(K+1)*d:], lat[meshOf[b]*M*d:(meshOf[b]+1)*M*d])
	}
	ctx := engine.Data[F](m.decCtxL.Forward(engine.FromSlice(m.ctx, B, L, d)))
	h := m.decPts.forward(qry, B*Nq)
	for i := range m.blocks {
		h = m.blocks[i].forward(h, B, Nq, ctx, L)
		h = m.ffs[i].forward(h, B, Nq, d)
	}
	logits := engine.Data[F](m.out.Forward(m.outL.Forward(engine.FromSlice(h, B*Nq, d))))
	if m.cfg.Prior != 0 || m.cfg.Geodesic > 0 {
		qd := m.cfg.queryDim()
		row := make([]float32, qd)
		for i := range logits {
			for k := range row {
				row[k] = float32(qry[i*qd+k])
			}
			logits[i] += F(m.cfg.priorLogit(row))
		}
	}
	return logits
}

// decodeBackward takes dlogits (B, Nq) and returns dcodes (B, K, L) and dlat (Bc,
// Latents, D).
func (m *cvae[F]) decodeBackward(dlogits []F, Bc int) (dcodes, dlat []F) {
	B, Nq, d, K, M := m.B, m.Nq, m.cfg.D, m.cfg.K, m.cfg.Latents
	L := K + 1 + M
	dh := engine.Data[F](m.outL.Backward(m.out.Backward(engine.FromSlice(dlogits, B*Nq, 1))))
	dh = append([]F(nil), dh...)
	m.dctx = grown(m.dctx, B*L*d)
	for i := len(m.blocks) - 1; i >= 0; i-- {
		dh = m.ffs[i].backward(dh, B, Nq, d)
		var dc []F
		dh, dc = m.blocks[i].backward(dh, B, Nq)
		for j, v := range dc {
			m.dctx[j] += v
		}
	}
	m.decPts.backward(dh, B*Nq)
	dctx := engine.Data[F](m.decCtxL.Backward(engine.FromSlice(m.dctx, B, L, d)))
	dct := make([]F, B*K*d)
	dbt := make([]F, B*d)
	dlat = make([]F, Bc*M*d)
	gpos := m.decPos.GradData()
	for b := 0; b < B; b++ {
		row := dctx[b*L*d : (b+1)*L*d]
		for k := 0; k < K; k++ {
			for i := 0; i < d; i++ {
				v := row[k*d+i]
				dct[(b*K+k)*d+i] = v
				gpos[k*d+i] += v
			}
		}
		copy(dbt[b*d:(b+1)*d], row[K*d:(K+1)*d])
		dl := dlat[m.meshOf[b]*M*d : (m.meshOf[b]+1)*M*d]
		for i, v := range row[(K+1)*d:] {
			dl[i] += v
		}
	}
	m.decBone.Backward(engine.FromSlice(dbt, B, d))
	dcodes = engine.Data[F](m.decCode.Backward(engine.FromSlice(dct, B, K, d)))
	return dcodes, dlat
}

// batch is one training batch: B bones from Bc characters.
type batch[F nn.Float] struct {
	B, Bc, Nq int
	enc       []F // (B, encPoints, cfg.encDim())
	bone      []F // (B, boneFeatures)
	mesh      []F // (Bc, meshPoints, meshFeatures)
	meshOf    []int
	qry       []F // (B, Nq, cfg.queryDim())
	target    []F // (B, Nq) weights in [0, 1]
	lossW     []F // (B, Nq) per-point loss weights
}

// lossStats are the terms of one batch's loss.
type lossStats struct {
	Loss, BCE, L1 float64
}

// step runs forward and backward on a batch, accumulating gradients, and returns
// the loss: the lossW-weighted mean over points of BCE(sigmoid(logit), target) +
// |sigmoid(logit) - target|.
func (m *cvae[F]) step(bt *batch[F], train bool) lossStats {
	z := m.encode(bt.enc, bt.bone, bt.B)
	codes := z
	if !m.noQuant {
		codes = m.quantize(z, bt.B)
	}
	m.Bc = bt.Bc
	lat := m.meshLatents(bt.mesh, bt.Bc)
	logits := m.decode(codes, bt.bone, lat, bt.meshOf, bt.qry, bt.B, bt.Nq)
	var st lossStats
	dlog := make([]F, len(logits))
	var wsum float64
	for _, w := range bt.lossW {
		wsum += float64(w)
	}
	for i, x := range logits {
		xf, t, w := float64(x), float64(bt.target[i]), float64(bt.lossW[i])/wsum
		sp := math.Max(xf, 0) + math.Log1p(math.Exp(-math.Abs(xf))) // softplus
		s := 1 / (1 + math.Exp(-xf))
		bce := sp - t*xf
		l1 := math.Abs(s - t)
		st.BCE += w * bce
		st.L1 += w * l1
		sign := 1.0
		if s < t {
			sign = -1
		}
		dlog[i] = F(w * ((s - t) + sign*s*(1-s)))
	}
	st.Loss = st.BCE + st.L1
	if !train {
		return st
	}
	dcodes, dlat := m.decodeBackward(dlog, bt.Bc)
	m.meshBackward(dlat)
	dz := dcodes
	if !m.noQuant {
		dz = engine.Data[F](m.fsq.Backward(engine.FromSlice(dcodes, bt.B, m.cfg.K, len(m.cfg.Levels))))
	}
	m.encodeBackward(dz)
	return st
}
