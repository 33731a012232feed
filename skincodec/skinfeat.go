package skincodec

import (
	"errors"
	"fmt"
	"math"
	"math/rand"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/geom"
	"github.com/rigkit/rigkit/skinning"
	"github.com/rigkit/rigkit/tokens"
	"github.com/rigkit/rigkit/vecmath"
)

// Feature layout of the skin tokenizer. Everything is in the normalized cube.
const (
	// queryFeatures per point, relative to one bone: position (3), normal (3),
	// position - head (3), position - tail (3), distance to this joint's segments,
	// distance to the nearest other joint's segments, their difference, and the
	// clamped parameter of the projection on head→tail.
	queryFeatures = 16
	// encFeatures adds the bone's weight at the point and whether it is positive
	// (for configurations without the geodesic features; see CVAEConfig.encDim).
	encFeatures = queryFeatures + 2
	// geoFeatures follow the query features when CVAEConfig.Geodesic is set: the
	// bone's geodesic-binding weight at the point and its geodesic distance margin
	// (distance to this bone minus distance to the nearest other, ×distScale,
	// clipped to ±geoMarginClip).
	geoFeatures   = 2
	geoMarginClip = 4
	// boneFeatures: head (3), tail (3), parent head (3), length, is-leaf, is-root.
	boneFeatures = 12
	// meshFeatures per mesh-condition point: position (3), normal (3).
	meshFeatures = 6
	// distScale brings cube distances (0..~3) to about unit range.
	distScale = 4
)

// rigGeom is the bone geometry of a skeleton in the cube.
type rigGeom struct {
	snapped *character.Skeleton // the skeleton with joints at their bin centers
	segs    []skinning.Segment
	// Per segment: start A, B-A and 1/|B-A|² (0 for a point), for jointDists.
	segA, segAB []vecmath.Vec3
	segInv      []float64
	pos         []vecmath.Vec3
	tail        []vecmath.Vec3
	parent      []int
	leaf        []bool
}

// newRigGeom snaps the joints of sk (in the cube) to the centers of their coordinate
// bins, clamped to the cube, so that the skin tokenizer sees a skeleton exactly as the
// token stream carries it, whether it comes from a file or from decoded tokens.
func newRigGeom(sk *character.Skeleton) *rigGeom {
	snapped := sk.Clone()
	for j, m := range snapped.BindWorld {
		m[12], m[13], m[14] = tokens.BinCenter(tokens.Bin(m[12])), tokens.BinCenter(tokens.Bin(m[13])), tokens.BinCenter(tokens.Bin(m[14]))
		snapped.BindWorld[j] = m
	}
	g := &rigGeom{snapped: snapped, segs: skinning.Bones(snapped), pos: snapped.Positions(), parent: sk.Parents}
	for _, s := range g.segs {
		ab := s.B.Sub(s.A)
		inv := 0.0
		if l2 := ab.Dot(ab); l2 > 0 {
			inv = 1 / l2
		}
		g.segA, g.segAB, g.segInv = append(g.segA, s.A), append(g.segAB, ab), append(g.segInv, inv)
	}
	ch := sk.Children()
	g.tail = make([]vecmath.Vec3, len(g.pos))
	g.leaf = make([]bool, len(g.pos))
	for j, p := range g.pos {
		if len(ch[j]) == 0 {
			g.leaf[j] = true
			g.tail[j] = p
			continue
		}
		var s vecmath.Vec3
		for _, c := range ch[j] {
			s = s.Add(g.pos[c])
		}
		g.tail[j] = s.Scale(1 / float64(len(ch[j])))
	}
	return g
}

// jointDists writes, for point p, the distance to each joint's nearest owned segment
// (skinning.Segment.Dist, inlined: it runs for every vertex and surface sample).
func (g *rigGeom) jointDists(p vecmath.Vec3, dst []float32) {
	for j := range dst {
		dst[j] = float32(math.Inf(1))
	}
	for i, s := range g.segs {
		a, ab := g.segA[i], g.segAB[i]
		d0, d1, d2 := p[0]-a[0], p[1]-a[1], p[2]-a[2]
		t := (d0*ab[0] + d1*ab[1] + d2*ab[2]) * g.segInv[i]
		if t < 0 {
			t = 0
		} else if t > 1 {
			t = 1
		}
		d0, d1, d2 = d0-t*ab[0], d1-t*ab[1], d2-t*ab[2]
		if d := float32(math.Sqrt(d0*d0 + d1*d1 + d2*d2)); d < dst[s.Joint] {
			dst[s.Joint] = d
		}
	}
}

// boneVec writes joint j's bone features.
func (g *rigGeom) boneVec(j int, dst []float32) {
	h, t := g.pos[j], g.tail[j]
	par := h
	if p := g.parent[j]; p >= 0 {
		par = g.pos[p]
	}
	put3(dst[0:], h)
	put3(dst[3:], t)
	put3(dst[6:], par)
	dst[9] = float32(t.Sub(h).Len() * distScale)
	dst[10] = b2f(g.leaf[j])
	dst[11] = b2f(g.parent[j] < 0)
}

// pointVec writes the query features of point p (normal n) relative to joint j, given
// the point's distance to every joint (dists, from jointDists).
func (g *rigGeom) pointVec(j int, p, n vecmath.Vec3, dists []float32, dst []float32) {
	h, t := g.pos[j], g.tail[j]
	put3(dst[0:], p)
	put3(dst[3:], n)
	put3(dst[6:], p.Sub(h))
	put3(dst[9:], p.Sub(t))
	dj := dists[j]
	do := float32(math.Inf(1))
	for k, d := range dists {
		if k != j && d < do {
			do = d
		}
	}
	if math.IsInf(float64(do), 1) { // a single-joint skeleton
		do = 4
	}
	dst[12] = dj * distScale
	dst[13] = do * distScale
	dst[14] = (dj - do) * distScale
	ht := t.Sub(h)
	tt := 0.0
	if l2 := ht.Dot(ht); l2 > 0 {
		tt = math.Max(0, math.Min(1, p.Sub(h).Dot(ht)/l2))
	}
	dst[15] = float32(tt)
}

func put3(dst []float32, v vecmath.Vec3) {
	dst[0], dst[1], dst[2] = float32(v[0]), float32(v[1]), float32(v[2])
}

func b2f(b bool) float32 {
	if b {
		return 1
	}
	return 0
}

// Sampling sizes of the skin tokenizer (per bone, or per character for the mesh).
const (
	encPoints   = 128  // encoder points per bone
	meshPoints  = 256  // mesh-condition points per character
	surfSamples = 2048 // surface samples drawn per character for the encoder
)

// prepared is a normalized rigged (or skeleton-only) character with everything the
// skin tokenizer reads precomputed: surface samples with interpolated weights, vertex
// normals, per-point joint distances and the mesh-condition points.
type prepared struct {
	c   *character.Character // normalized
	geo *rigGeom
	nJ  int
	// Vertices.
	vNrm  []vecmath.Vec3
	vDist []float32 // V × nJ, lazily filled by vertexDists
	surfaceSamples
	// posS[j], posV[j]: samples and vertices where joint j's weight is positive.
	posS, posV [][]int32
	// Mesh condition (meshPoints × meshFeatures).
	mesh []float32
	geodesicFields
	qd int // query features per point (queryFeatures, + geoFeatures)
}

// surfaceSamples are the points the encoder reads a bone's weights at (nil without
// a skin).
type surfaceSamples struct {
	sPos, sNrm []vecmath.Vec3
	sW         [][]character.Influence // interpolated weights, sparse
	sDist      []float32               // S × nJ
}

// geodesicFields are, per vertex and per surface sample, each joint's
// geodesic-binding weight and distance margin (nil unless prepared with geodesic).
type geodesicFields struct {
	gW, gD   []float32 // V × nJ
	sGW, sGD []float32 // S × nJ
}

// prepare samples c (already normalized, with a skeleton) with a fixed seed, so that
// encoding is deterministic. With geodesic it also computes the geodesic features,
// which stop with an error when cancel closes (nil: never).
func prepare(c *character.Character, seed int64, geodesic bool, cancel <-chan struct{}) (*prepared, error) {
	if c.Skeleton == nil || c.Skeleton.NumJoints() == 0 {
		return nil, fmt.Errorf("skin tokenizer: %q has no skeleton", c.Name)
	}
	if len(c.Mesh.Positions) == 0 || len(c.Mesh.Triangles) == 0 {
		return nil, fmt.Errorf("skin tokenizer: %q has an empty mesh", c.Name)
	}
	p := &prepared{c: c, geo: newRigGeom(c.Skeleton), nJ: c.Skeleton.NumJoints(), qd: queryFeatures}
	p.vNrm = c.Mesh.Normals
	if len(p.vNrm) != len(c.Mesh.Positions) {
		p.vNrm = c.Mesh.ComputeNormals()
	}
	if geodesic {
		if err := p.geodesicFeatures(cancel); err != nil {
			return nil, fmt.Errorf("skin tokenizer: %q: %w", c.Name, err)
		}
	}
	rng := rand.New(rand.NewSource(seed))
	ms := geom.SampleSurface(&c.Mesh, meshPoints, rng)
	if len(ms) == 0 {
		return nil, fmt.Errorf("skin tokenizer: %q has a mesh with no area", c.Name)
	}
	p.mesh = make([]float32, meshPoints*meshFeatures)
	for i, s := range ms {
		put3(p.mesh[i*meshFeatures:], s.Point)
		put3(p.mesh[i*meshFeatures+3:], s.Normal)
	}
	if c.Skin == nil {
		return p, nil
	}
	if len(c.Skin.Weights) != len(c.Mesh.Positions) {
		return nil, fmt.Errorf("skin tokenizer: %q has %d weight lists for %d vertices", c.Name, len(c.Skin.Weights), len(c.Mesh.Positions))
	}
	ss := geom.SampleSurface(&c.Mesh, surfSamples, rng)
	p.sPos = make([]vecmath.Vec3, len(ss))
	p.sNrm = make([]vecmath.Vec3, len(ss))
	p.sW = make([][]character.Influence, len(ss))
	p.sDist = make([]float32, len(ss)*p.nJ)
	if p.gW != nil {
		p.sGW = make([]float32, len(ss)*p.nJ)
		p.sGD = make([]float32, len(ss)*p.nJ)
	}
	p.posS = make([][]int32, p.nJ)
	p.posV = make([][]int32, p.nJ)
	for i, s := range ss {
		p.sPos[i], p.sNrm[i] = s.Point, s.Normal
		tri := c.Mesh.Triangles[s.Triangle]
		var w []character.Influence
		for corner, v := range tri {
			for _, in := range c.Skin.Weights[v] {
				wt := in.Weight * s.Bary[corner]
				found := false
				for k := range w {
					if w[k].Joint == in.Joint {
						w[k].Weight += wt
						found = true
						break
					}
				}
				if !found {
					w = append(w, character.Influence{Joint: in.Joint, Weight: wt})
				}
			}
		}
		p.sW[i] = w
		for _, in := range w {
			if in.Weight > 0 && in.Joint >= 0 && in.Joint < p.nJ {
				p.posS[in.Joint] = append(p.posS[in.Joint], int32(i))
			}
		}
		p.geo.jointDists(s.Point, p.sDist[i*p.nJ:(i+1)*p.nJ])
		if p.gW != nil {
			gw, gd := p.sGW[i*p.nJ:(i+1)*p.nJ], p.sGD[i*p.nJ:(i+1)*p.nJ]
			for corner, v := range tri {
				b := float32(s.Bary[corner])
				for j := range gw {
					gw[j] += b * p.gW[v*p.nJ+j]
					gd[j] += b * p.gD[v*p.nJ+j]
				}
			}
		}
	}
	for v, infl := range c.Skin.Weights {
		for _, in := range infl {
			if in.Weight > 0 && in.Joint >= 0 && in.Joint < p.nJ {
				p.posV[in.Joint] = append(p.posV[in.Joint], int32(v))
			}
		}
	}
	return p, nil
}

// vertexDists returns the V × nJ joint distances of the vertices, computing them once.
func (p *prepared) vertexDists() []float32 {
	if p.vDist == nil {
		pos := p.c.Mesh.Positions
		p.vDist = make([]float32, len(pos)*p.nJ)
		for v, x := range pos {
			p.geo.jointDists(x, p.vDist[v*p.nJ:(v+1)*p.nJ])
		}
	}
	return p.vDist
}

func weightOf(infl []character.Influence, j int) float32 {
	var w float64
	for _, in := range infl {
		if in.Joint == j {
			w += in.Weight
		}
	}
	return float32(w)
}

// encoderInput writes the encoder points of joint j (encPoints × encFeatures): half
// drawn where the joint's weight is positive (all of them uniform when it has none),
// half uniform over the surface.
func (p *prepared) encoderInput(j int, rng *rand.Rand, dst []float32) {
	pos := p.posS[j]
	ns := len(p.sPos)
	for i := 0; i < encPoints; i++ {
		var s int
		if i%2 == 0 && len(pos) > 0 {
			s = int(pos[rng.Intn(len(pos))])
		} else {
			s = rng.Intn(ns)
		}
		row := dst[i*(p.qd+2) : (i+1)*(p.qd+2)]
		p.geo.pointVec(j, p.sPos[s], p.sNrm[s], p.sDist[s*p.nJ:(s+1)*p.nJ], row)
		if p.sGW != nil {
			row[queryFeatures] = p.sGW[s*p.nJ+j]
			row[queryFeatures+1] = p.sGD[s*p.nJ+j]
		}
		w := weightOf(p.sW[s], j)
		row[p.qd] = w
		row[p.qd+1] = b2f(w > 0)
	}
}

// queryVec writes the query features of vertex v relative to joint j (p.qd values),
// given the vertex's distances to every joint (dists, from jointDists).
func (p *prepared) queryVec(j, v int, dists, dst []float32) {
	p.geo.pointVec(j, p.c.Mesh.Positions[v], p.vNrm[v], dists, dst)
	if p.gW != nil {
		dst[queryFeatures] = p.gW[v*p.nJ+j]
		dst[queryFeatures+1] = p.gD[v*p.nJ+j]
	}
}

// geoWeight is joint j's geodesic-binding weight at vertex v (0 without geodesic
// features).
func (p *prepared) geoWeight(v, j int) float32 {
	if p.gW == nil {
		return 0
	}
	return p.gW[v*p.nJ+j]
}

// geodesicFeatures fills p.gW and p.gD: geodesic voxel binding (skinning,
// default options) on the snapped skeleton gives each vertex's weights, and its field
// the distance margins. Where the mesh cannot be voxelized the features fall back to
// nearest-bone weights and Euclidean margins, so decoding never fails on it; it
// fails only when cancel closes first.
func (p *prepared) geodesicFeatures(cancel <-chan struct{}) error {
	nV, nJ := len(p.c.Mesh.Positions), p.nJ
	p.qd = queryFeatures + geoFeatures
	p.gW = make([]float32, nV*nJ)
	p.gD = make([]float32, nV*nJ)
	ch := &character.Character{Name: p.c.Name, Mesh: p.c.Mesh, Skeleton: p.geo.snapped}
	dist := func(v, j int) float64 { return float64(p.vertexDists()[v*nJ+j]) }
	f, err := skinning.NewField(ch, skinning.FieldOptions{Cancel: cancel})
	if errors.Is(err, skinning.ErrCanceled) {
		return err
	}
	var skin *character.Skin
	if err == nil {
		skin, err = f.Skin(ch.Mesh, skinning.GeodesicOptions{})
	}
	if err == nil && f.NumJoints == nJ {
		dist = f.Dist
		for v, infl := range skin.Weights {
			for _, in := range infl {
				if in.Joint >= 0 && in.Joint < nJ {
					p.gW[v*nJ+in.Joint] += float32(in.Weight)
				}
			}
		}
	} else {
		for v := 0; v < nV; v++ {
			best := 0
			for j := 1; j < nJ; j++ {
				if dist(v, j) < dist(v, best) {
					best = j
				}
			}
			p.gW[v*nJ+best] = 1
		}
	}
	for v := 0; v < nV; v++ {
		m1, m2, i1 := math.Inf(1), math.Inf(1), -1
		for j := 0; j < nJ; j++ {
			d := dist(v, j)
			if d < m1 {
				m1, m2, i1 = d, m1, j
			} else if d < m2 {
				m2 = d
			}
		}
		for j := 0; j < nJ; j++ {
			other := m1
			if j == i1 {
				other = m2
			}
			x := (dist(v, j) - other) * distScale
			if math.IsNaN(x) || x > geoMarginClip {
				x = geoMarginClip
			} else if x < -geoMarginClip {
				x = -geoMarginClip
			}
			p.gD[v*nJ+j] = float32(x)
		}
	}
	return nil
}
