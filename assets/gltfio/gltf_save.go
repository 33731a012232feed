package gltfio

import (
	"encoding/binary"
	"errors"
	"io"
	"math"

	"github.com/qmuntal/gltf"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// docBuilder accumulates one binary buffer and the accessors that view it.
type docBuilder struct {
	doc *gltf.Document
	bin []byte
}

// addView appends data (4-byte aligned) as a new bufferView and returns its index.
func (b *docBuilder) addView(data []byte, target gltf.Target) int {
	for len(b.bin)%4 != 0 {
		b.bin = append(b.bin, 0)
	}
	b.doc.BufferViews = append(b.doc.BufferViews, &gltf.BufferView{
		Buffer: 0, ByteOffset: len(b.bin), ByteLength: len(data), Target: target,
	})
	b.bin = append(b.bin, data...)
	return len(b.doc.BufferViews) - 1
}

// addAccessor adds an accessor over a whole new bufferView.
func (b *docBuilder) addAccessor(data []byte, target gltf.Target, ct gltf.ComponentType, t gltf.AccessorType, count int, min, max []float64) int {
	v := b.addView(data, target)
	b.doc.Accessors = append(b.doc.Accessors, &gltf.Accessor{
		BufferView: gltf.Index(v), ComponentType: ct, Type: t, Count: count, Min: min, Max: max,
	})
	return len(b.doc.Accessors) - 1
}

func putF32(dst []byte, vals ...float32) []byte {
	for _, v := range vals {
		dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(v))
	}
	return dst
}

// vec3Accessor writes float VEC3 data with exact float32 min/max.
func (b *docBuilder) vec3Accessor(vs []vecmath.Vec3, withBounds bool) int {
	data := make([]byte, 0, 12*len(vs))
	lo := [3]float32{float32(math.Inf(1)), float32(math.Inf(1)), float32(math.Inf(1))}
	hi := [3]float32{float32(math.Inf(-1)), float32(math.Inf(-1)), float32(math.Inf(-1))}
	for _, v := range vs {
		f := [3]float32{float32(v[0]), float32(v[1]), float32(v[2])}
		for a := range 3 {
			lo[a] = min(lo[a], f[a])
			hi[a] = max(hi[a], f[a])
		}
		data = putF32(data, f[0], f[1], f[2])
	}
	var mn, mx []float64
	if withBounds {
		mn = []float64{float64(lo[0]), float64(lo[1]), float64(lo[2])}
		mx = []float64{float64(hi[0]), float64(hi[1]), float64(hi[2])}
	}
	return b.addAccessor(data, gltf.TargetArrayBuffer, gltf.ComponentFloat, gltf.AccessorVec3, len(vs), mn, mx)
}

func encode(w io.Writer, c *character.Character, asBinary bool) error {
	doc, err := buildDocument(c)
	if err != nil {
		return err
	}
	if !asBinary {
		doc.Buffers[0].EmbeddedResource()
	}
	enc := gltf.NewEncoder(w)
	enc.AsBinary = asBinary
	if !asBinary {
		enc.SetJSONIndent("", " ")
	}
	return enc.Encode(doc)
}

// buildDocument converts c to a glTF document with one binary buffer (Data set).
func buildDocument(c *character.Character) (*gltf.Document, error) {
	if c == nil {
		return nil, errors.New("nil character")
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	doc := gltf.NewDocument()
	doc.Asset.Generator = "rigkit"
	doc.Scenes[0].Name = c.Name
	b := &docBuilder{doc: doc}
	m := c.Mesh
	nv := len(m.Positions)

	attrs := gltf.PrimitiveAttributes{}
	attrs[gltf.POSITION] = b.vec3Accessor(m.Positions, true)
	attrs[gltf.NORMAL] = b.vec3Accessor(unitNormals(m), false)
	if len(m.UVs) == nv {
		data := make([]byte, 0, 8*nv)
		for _, uv := range m.UVs {
			data = putF32(data, float32(uv[0]), float32(uv[1]))
		}
		attrs[gltf.TEXCOORD_0] = b.addAccessor(data, gltf.TargetArrayBuffer, gltf.ComponentFloat, gltf.AccessorVec2, nv, nil, nil)
	}
	rigged := c.Rigged()
	if rigged {
		ja, wa := b.skinAccessors(c.Skin, c.Skeleton.NumJoints())
		attrs[gltf.JOINTS_0] = ja
		attrs[gltf.WEIGHTS_0] = wa
	}

	// One primitive per material group; all share the vertex accessors.
	mesh := &gltf.Mesh{Name: c.Name}
	indexType := gltf.ComponentUint
	if nv <= 65535 {
		indexType = gltf.ComponentUshort
	}
	for _, g := range saveGroups(m, len(c.Materials)) {
		var data []byte
		for _, t := range m.Triangles[g.Start : g.Start+g.Count] {
			for _, v := range t {
				if indexType == gltf.ComponentUshort {
					data = binary.LittleEndian.AppendUint16(data, uint16(v))
				} else {
					data = binary.LittleEndian.AppendUint32(data, uint32(v))
				}
			}
		}
		p := &gltf.Primitive{
			Attributes: attrs,
			Indices:    gltf.Index(b.addAccessor(data, gltf.TargetElementArrayBuffer, indexType, gltf.AccessorScalar, 3*g.Count, nil, nil)),
			Mode:       gltf.PrimitiveTriangles,
		}
		if g.Material >= 0 {
			p.Material = gltf.Index(g.Material)
		}
		mesh.Primitives = append(mesh.Primitives, p)
	}
	doc.Meshes = []*gltf.Mesh{mesh}
	b.writeMaterials(c.Materials)

	meshNode := &gltf.Node{Name: c.Name, Mesh: gltf.Index(0)}
	if c.Skeleton != nil {
		b.writeSkeleton(c.Skeleton)
		if rigged {
			meshNode.Skin = gltf.Index(0)
		}
		nodes := make([]int, c.Skeleton.NumJoints())
		for j := range nodes {
			nodes[j] = j // writeSkeleton made joint j node j
		}
		b.writeAnimations(c.Animations, nodes, nil)
	}
	doc.Nodes = append(doc.Nodes, meshNode)
	doc.Scenes[0].Nodes = append(doc.Scenes[0].Nodes, len(doc.Nodes)-1)

	for len(b.bin)%4 != 0 {
		b.bin = append(b.bin, 0)
	}
	doc.Buffers = []*gltf.Buffer{{ByteLength: len(b.bin), Data: b.bin}}
	return doc, nil
}

// unitNormals returns the mesh normals (computed when absent) with every one unit
// length; zero normals (e.g. of isolated or degenerate vertices) become +Z.
func unitNormals(m character.Mesh) []vecmath.Vec3 {
	n := m.Normals
	if len(n) != len(m.Positions) {
		n = m.ComputeNormals()
	}
	out := make([]vecmath.Vec3, len(n))
	for i, v := range n {
		// Normalize in float32, the precision the file holds.
		u := v.Normalize()
		if !u.IsFinite() || u.Len() < 0.5 {
			u = vecmath.Vec3{0, 0, 1}
		}
		out[i] = u
	}
	return out
}

// saveGroups returns triangle groups that tile the triangles exactly, falling back to
// one group without material when c's groups do not.
func saveGroups(m character.Mesh, numMaterials int) []character.TriangleGroup {
	next := 0
	ok := len(m.Groups) > 0
	for _, g := range m.Groups {
		if g.Start != next || g.Count <= 0 {
			ok = false
			break
		}
		next += g.Count
	}
	if !ok || next != len(m.Triangles) {
		return []character.TriangleGroup{{Start: 0, Count: len(m.Triangles), Material: -1}}
	}
	out := append([]character.TriangleGroup(nil), m.Groups...)
	for i := range out {
		if out[i].Material >= numMaterials {
			out[i].Material = -1
		}
	}
	return out
}

// appendInfluences appends one vertex's four joints (uint8, or uint16 when wide) and
// float32 weights to the JOINTS_0 and WEIGHTS_0 data.
func appendInfluences(jd, wd []byte, js [4]int, ws [4]float32, wide bool) ([]byte, []byte) {
	for i := range 4 {
		if wide {
			jd = binary.LittleEndian.AppendUint16(jd, uint16(js[i]))
		} else {
			jd = append(jd, uint8(js[i]))
		}
		wd = putF32(wd, ws[i])
	}
	return jd, wd
}

// skinAccessors writes JOINTS_0 and WEIGHTS_0: the top MaxInfluencesWritten
// influences per vertex, weights renormalized so that their float32 sum is 1.
func (b *docBuilder) skinAccessors(k *character.Skin, numJoints int) (int, int) {
	wide := numJoints > 256
	var jd, wd []byte
	for _, infl := range k.Weights {
		js, ws := topInfluences(infl)
		jd, wd = appendInfluences(jd, wd, js, ws, wide)
	}
	ct := gltf.ComponentUbyte
	if wide {
		ct = gltf.ComponentUshort
	}
	n := len(k.Weights)
	ja := b.addAccessor(jd, gltf.TargetArrayBuffer, ct, gltf.AccessorVec4, n, nil, nil)
	wa := b.addAccessor(wd, gltf.TargetArrayBuffer, gltf.ComponentFloat, gltf.AccessorVec4, n, nil, nil)
	return ja, wa
}

// writeSkeleton adds one node per joint (nodes 0..J-1) with local TRS relative to its
// parent, the root joints as scene roots, and skin 0 with inverse bind matrices.
func (b *docBuilder) writeSkeleton(s *character.Skeleton) {
	doc := b.doc
	n := s.NumJoints()
	children := s.Children()
	var ibm []byte
	for j := 0; j < n; j++ {
		local := s.BindWorld[j]
		if p := s.Parents[j]; p >= 0 {
			if inv, ok := s.BindWorld[p].Inverse(); ok {
				local = inv.Mul(s.BindWorld[j])
			}
		}
		t, r, sc := vecmath.DecomposeTRS(local)
		node := &gltf.Node{
			Name:        s.Names[j],
			Translation: [3]float64(t),
			Rotation:    [4]float64(normalizeQuat(r)),
			Scale:       [3]float64(sc),
			Matrix:      gltf.DefaultMatrix,
		}
		node.Children = append(node.Children, children[j]...)
		doc.Nodes = append(doc.Nodes, node)
		if s.Parents[j] < 0 {
			doc.Scenes[0].Nodes = append(doc.Scenes[0].Nodes, j)
		}
		inv, _ := s.BindWorld[j].Inverse()
		inv[3], inv[7], inv[11], inv[15] = 0, 0, 0, 1
		for _, v := range inv {
			ibm = putF32(ibm, float32(v))
		}
	}
	joints := make([]int, n)
	for j := range joints {
		joints[j] = j
	}
	skin := &gltf.Skin{Joints: joints}
	skin.InverseBindMatrices = gltf.Index(b.addAccessor(ibm, gltf.TargetNone, gltf.ComponentFloat, gltf.AccessorMat4, n, nil, nil))
	if roots := doc.Scenes[0].Nodes; len(roots) == 1 {
		skin.Skeleton = gltf.Index(roots[0])
	} else {
		// glTF wants one common root for a skin's joints: group several root joints
		// under an identity node that is not itself a joint.
		doc.Nodes = append(doc.Nodes, &gltf.Node{Name: "Armature", Children: roots, Matrix: gltf.DefaultMatrix,
			Rotation: gltf.DefaultRotation, Scale: gltf.DefaultScale})
		arm := len(doc.Nodes) - 1
		doc.Scenes[0].Nodes = []int{arm}
		skin.Skeleton = gltf.Index(arm)
	}
	// A skeleton-only character still gets its skin so that the joints load back.
	doc.Skins = []*gltf.Skin{skin}
}

// writeMaterials adds PBR materials and their base color images (in the buffer).
func (b *docBuilder) writeMaterials(mats []character.Material) {
	doc := b.doc
	clamp := func(v float64) float64 {
		if math.IsNaN(v) {
			return 1
		}
		return math.Min(1, math.Max(0, v))
	}
	images := map[*character.Image]int{}
	for _, m := range mats {
		bc := [4]float64{clamp(m.BaseColor[0]), clamp(m.BaseColor[1]), clamp(m.BaseColor[2]), clamp(m.BaseColor[3])}
		gm := &gltf.Material{
			Name:        m.Name,
			DoubleSided: m.DoubleSided,
			PBRMetallicRoughness: &gltf.PBRMetallicRoughness{
				BaseColorFactor: &bc,
				MetallicFactor:  gltf.Float(clamp(m.Metallic)),
				RoughnessFactor: gltf.Float(clamp(m.Roughness)),
			},
		}
		if img := m.BaseColorTexture; img != nil && len(img.Data) > 0 {
			if mime := sniffImage(img.Data); mime != "" {
				ii, ok := images[img]
				if !ok {
					v := b.addView(img.Data, gltf.TargetNone)
					doc.Images = append(doc.Images, &gltf.Image{MimeType: mime, BufferView: gltf.Index(v)})
					ii = len(doc.Images) - 1
					images[img] = ii
					doc.Textures = append(doc.Textures, &gltf.Texture{Source: gltf.Index(ii)})
				}
				gm.PBRMetallicRoughness.BaseColorTexture = &gltf.TextureInfo{Index: ii}
			}
		}
		doc.Materials = append(doc.Materials, gm)
	}
}

// writeAnimations adds the channels that target existing joints (joint j is node
// nodes[j]) with strictly increasing finite times; rotations are written unit
// length. Animations named in skip are left out.
func (b *docBuilder) writeAnimations(anims []character.Animation, nodes []int, skip map[string]bool) {
	doc := b.doc
	numJoints := len(nodes)
	for _, a := range anims {
		if skip[a.Name] {
			continue
		}
		ga := &gltf.Animation{Name: a.Name}
		for _, ch := range a.Channels {
			n, path := 3, gltf.TRSTranslation
			switch ch.Path {
			case "translation":
			case "rotation":
				n, path = 4, gltf.TRSRotation
			case "scale":
				path = gltf.TRSScale
			default:
				continue
			}
			if ch.Joint < 0 || ch.Joint >= numJoints || len(ch.Times) == 0 || len(ch.Values) != n*len(ch.Times) {
				continue
			}
			var td, vd []byte
			keys := 0
			last := math.Inf(-1)
			lo, hi := math.Inf(1), math.Inf(-1)
			for k, t := range ch.Times {
				v := ch.Values[k*n : k*n+n]
				if !(t > last) || math.IsInf(t, 0) || !finiteAll(v) {
					continue
				}
				f := float32(t)
				if float64(f) <= last {
					continue
				}
				last = float64(f)
				lo, hi = math.Min(lo, float64(f)), math.Max(hi, float64(f))
				td = putF32(td, f)
				if n == 4 {
					q := normalizeQuat(vecmath.Quat{v[0], v[1], v[2], v[3]})
					vd = putF32(vd, float32(q[0]), float32(q[1]), float32(q[2]), float32(q[3]))
				} else {
					vd = putF32(vd, float32(v[0]), float32(v[1]), float32(v[2]))
				}
				keys++
			}
			if keys == 0 {
				continue
			}
			in := b.addAccessor(td, gltf.TargetNone, gltf.ComponentFloat, gltf.AccessorScalar, keys, []float64{lo}, []float64{hi})
			ot := gltf.AccessorVec3
			if n == 4 {
				ot = gltf.AccessorVec4
			}
			out := b.addAccessor(vd, gltf.TargetNone, gltf.ComponentFloat, ot, keys, nil, nil)
			ga.Samplers = append(ga.Samplers, &gltf.AnimationSampler{Input: in, Output: out, Interpolation: gltf.InterpolationLinear})
			ga.Channels = append(ga.Channels, &gltf.AnimationChannel{
				Sampler: len(ga.Samplers) - 1,
				Target:  gltf.AnimationChannelTarget{Node: gltf.Index(nodes[ch.Joint]), Path: path},
			})
		}
		if len(ga.Channels) > 0 {
			doc.Animations = append(doc.Animations, ga)
		}
	}
}

func finiteAll(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
