package gltfio

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/internal/khronos"
	"github.com/rigkit/rigkit/vecmath"

	"github.com/rigkit/rigkit/internal/meshtest"

	"github.com/qmuntal/gltf"
	"github.com/rigkit/rigkit/character"
)

// glbBytes encodes a document as GLB.
func glbBytes(t testing.TB, doc *gltf.Document) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := gltf.NewEncoder(&b)
	enc.AsBinary = true
	if err := enc.Encode(doc); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// docOf builds the document Save would write for c.
func docOf(t testing.TB, c *character.Character) *gltf.Document {
	t.Helper()
	doc, err := buildDocument(c)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestSaveLoadSyntheticRig(t *testing.T) {
	c := meshtest.Tube(t, 6, 8, 3)
	dir := t.TempDir()
	for _, name := range []string{"tube.glb", "tube.gltf"} {
		path := filepath.Join(dir, name)
		if _, err := Save(path, c); err != nil {
			t.Fatal(err)
		}
		got, rep, err := testLoad(path, testOptions{AllowOrphans: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Warnings) != 0 {
			t.Errorf("%s: warnings %v", name, rep.Warnings)
		}
		compareCharacters(t, name, c, got)
		if len(got.Materials) != 2 || got.Materials[0].Name != "skin" || got.Materials[1].Name != "caps" ||
			!got.Materials[1].DoubleSided || math.Abs(got.Materials[0].Roughness-0.7) > 1e-6 {
			t.Errorf("%s: materials %+v", name, got.Materials)
		}
		if tex := got.Materials[0].BaseColorTexture; tex == nil || !bytes.Equal(tex.Data, c.Materials[0].BaseColorTexture.Data) || tex.MIMEType != "image/png" {
			t.Errorf("%s: base color texture lost", name)
		}
		if len(got.Mesh.Groups) != 2 || got.Mesh.Groups[1] != c.Mesh.Groups[1] {
			t.Errorf("%s: groups %v, want %v", name, got.Mesh.Groups, c.Mesh.Groups)
		}
		for i, uv := range c.Mesh.UVs {
			if math.Abs(uv[0]-got.Mesh.UVs[i][0]) > 1e-6 || math.Abs(uv[1]-got.Mesh.UVs[i][1]) > 1e-6 {
				t.Fatalf("%s: UV %d is %v, want %v", name, i, got.Mesh.UVs[i], uv)
			}
		}
		for i, n := range got.Mesh.Normals {
			if math.Abs(n.Len()-1) > 1e-5 {
				t.Fatalf("%s: normal %d has length %v", name, i, n.Len())
			}
		}
		if len(got.Animations) != 1 || len(got.Animations[0].Channels) != 1 {
			t.Fatalf("%s: animations %+v", name, got.Animations)
		}
		ch := got.Animations[0].Channels[0]
		want := c.Animations[0].Channels[0]
		if ch.Joint != want.Joint || ch.Path != want.Path || len(ch.Values) != len(want.Values) {
			t.Fatalf("%s: channel %+v, want %+v", name, ch, want)
		}
		for i := range want.Values {
			if math.Abs(ch.Values[i]-want.Values[i]) > 1e-6 {
				t.Fatalf("%s: channel value %d is %v, want %v", name, i, ch.Values[i], want.Values[i])
			}
		}
	}
	khronos.Check(t, filepath.Join(dir, "tube.glb"), filepath.Join(dir, "tube.gltf"))
}

func TestSaveStaticAndManyJoints(t *testing.T) {
	dir := t.TempDir()
	static := meshtest.Tube(t, 4, 6, 2)
	static.Skeleton, static.Skin, static.Animations = nil, nil, nil
	static.Mesh.Normals = nil
	sp := filepath.Join(dir, "static.glb")
	if _, err := Save(sp, static); err != nil {
		t.Fatal(err)
	}
	got, _, err := testLoad(sp, testOptions{})
	if err != nil {
		t.Fatal(err)
	}
	compareCharacters(t, "static", static, got)
	if got.Skeleton != nil || len(got.Mesh.Normals) != len(got.Mesh.Positions) {
		t.Errorf("static: skeleton %v, %d normals", got.Skeleton, len(got.Mesh.Normals))
	}

	// More than 256 joints forces 16-bit JOINTS_0; several root joints need a common root.
	big := meshtest.Tube(t, 301, 4, 300)
	big.Skeleton.Parents[150] = -1
	bp := filepath.Join(dir, "big.glb")
	if _, err := Save(bp, big); err != nil {
		t.Fatal(err)
	}
	got, _, err = testLoad(bp, testOptions{})
	if err != nil {
		t.Fatal(err)
	}
	compareCharacters(t, "300 joints", big, got)
	khronos.Check(t, sp, bp)
}

// TestNodeTransforms checks that static geometry is placed by its node's world
// transform, normals use the inverse transpose and mirrored nodes keep CCW winding.
func TestNodeTransforms(t *testing.T) {
	c := meshtest.Tube(t, 3, 5, 1)
	c.Skeleton, c.Skin, c.Animations = nil, nil, nil
	c.Mesh.Normals = c.Mesh.ComputeNormals()
	doc := docOf(t, c)
	// Put the mesh under a parent with rotation, a mirror and non-uniform scale.
	mesh := len(doc.Nodes) - 1
	parentTRS := vecmath.TRS(vecmath.Vec3{1, 2, 3}, vecmath.QuatAxisAngle(vecmath.Vec3{1, 1, 0}, 0.7), vecmath.Vec3{-2, 1, 0.5})
	doc.Nodes = append(doc.Nodes, &gltf.Node{Name: "parent", Children: []int{mesh}, Matrix: [16]float64(parentTRS)})
	doc.Scenes[0].Nodes = []int{len(doc.Nodes) - 1}
	got, _, err := testDecode(bytes.NewReader(glbBytes(t, doc)), "xform.glb", nil, testOptions{AllowOrphans: true})
	if err != nil {
		t.Fatal(err)
	}
	nm := normalMatrix(parentTRS)
	for i, p := range c.Mesh.Positions {
		if d := parentTRS.Point(p).Dist(got.Mesh.Positions[i]); d > 1e-5 {
			t.Fatalf("vertex %d at %v, want %v", i, got.Mesh.Positions[i], parentTRS.Point(p))
		}
		want := nm.Dir(c.Mesh.Normals[i]).Normalize()
		if d := want.Dist(got.Mesh.Normals[i]); d > 1e-5 {
			t.Fatalf("normal %d is %v, want %v", i, got.Mesh.Normals[i], want)
		}
	}
	// Face normals from the (flipped) winding must agree with the vertex normals.
	agree := 0
	for _, tri := range got.Mesh.Triangles {
		a, b, cc := got.Mesh.Positions[tri[0]], got.Mesh.Positions[tri[1]], got.Mesh.Positions[tri[2]]
		fn := b.Sub(a).Cross(cc.Sub(a))
		if fn.Dot(got.Mesh.Normals[tri[0]].Add(got.Mesh.Normals[tri[1]]).Add(got.Mesh.Normals[tri[2]])) > 0 {
			agree++
		}
	}
	if agree < len(got.Mesh.Triangles)*9/10 {
		t.Errorf("only %d of %d triangles wind counter-clockwise after a mirrored node", agree, len(got.Mesh.Triangles))
	}
}

// rawDoc builds a small document by hand: a quad as 4 vertices plus extras set by fn.
func rawDoc(fn func(b *docBuilder, prim *gltf.Primitive)) *gltf.Document {
	doc := gltf.NewDocument()
	b := &docBuilder{doc: doc}
	pos := []vecmath.Vec3{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}}
	prim := &gltf.Primitive{Attributes: gltf.PrimitiveAttributes{gltf.POSITION: b.vec3Accessor(pos, true)}}
	doc.Meshes = []*gltf.Mesh{{Primitives: []*gltf.Primitive{prim}}}
	doc.Nodes = []*gltf.Node{{Name: "mesh", Mesh: gltf.Index(0), Matrix: gltf.DefaultMatrix, Rotation: gltf.DefaultRotation, Scale: gltf.DefaultScale}}
	doc.Scenes[0].Nodes = []int{0}
	fn(b, prim)
	doc.Buffers = []*gltf.Buffer{{ByteLength: len(b.bin), Data: b.bin}}
	return doc
}

func u16s(v ...int) []byte {
	var out []byte
	for _, x := range v {
		out = append(out, byte(x), byte(x>>8))
	}
	return out
}

func TestPrimitiveModes(t *testing.T) {
	tests := []struct {
		name      string
		mode      gltf.PrimitiveMode
		indices   []int
		wantTris  int
		wantSkips int
	}{
		{"triangles", gltf.PrimitiveTriangles, []int{0, 1, 2, 0, 2, 3}, 2, 0},
		{"strip", gltf.PrimitiveTriangleStrip, []int{0, 1, 3, 2}, 2, 0},
		{"fan", gltf.PrimitiveTriangleFan, []int{0, 1, 2, 3}, 2, 0},
		{"non-indexed", gltf.PrimitiveTriangles, nil, 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := rawDoc(func(b *docBuilder, p *gltf.Primitive) {
				p.Mode = tc.mode
				if tc.indices != nil {
					p.Indices = gltf.Index(b.addAccessor(u16s(tc.indices...), gltf.TargetElementArrayBuffer, gltf.ComponentUshort, gltf.AccessorScalar, len(tc.indices), nil, nil))
				}
				// A second primitive of lines must be skipped with a warning.
				b.doc.Meshes[0].Primitives = append(b.doc.Meshes[0].Primitives, &gltf.Primitive{
					Attributes: p.Attributes, Mode: gltf.PrimitiveLines})
			})
			c, rep, err := testDecode(bytes.NewReader(glbBytes(t, doc)), tc.name+".glb", nil, testOptions{AllowOrphans: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Mesh.Triangles) != tc.wantTris || rep.SkippedPrimitives != 1 || len(rep.Warnings) == 0 {
				t.Fatalf("%d triangles, %d skipped, warnings %v", len(c.Mesh.Triangles), rep.SkippedPrimitives, rep.Warnings)
			}
			for _, tri := range c.Mesh.Triangles {
				p := c.Mesh.Positions
				if n := p[tri[1]].Sub(p[tri[0]]).Cross(p[tri[2]].Sub(p[tri[0]])); n[2] <= 0 {
					t.Errorf("triangle %v is not counter-clockwise seen from +Z", tri)
				}
			}
		})
	}
	// Only points: an error that names the file.
	doc := rawDoc(func(b *docBuilder, p *gltf.Primitive) { p.Mode = gltf.PrimitivePoints })
	if _, _, err := testDecode(bytes.NewReader(glbBytes(t, doc)), "points.glb", nil, testOptions{AllowOrphans: true}); err == nil || !strings.Contains(err.Error(), "points.glb") {
		t.Errorf("points only: err %v", err)
	}
}

// skinnedQuadDoc is a quad skinned to two joints through JOINTS_0/1 and normalized
// unsigned-byte weights, with the joints listed child first and a scaled,
// non-joint "Armature" node above the root.
func skinnedQuadDoc(jointsOK bool) *gltf.Document {
	return rawDoc(func(b *docBuilder, p *gltf.Primitive) {
		doc := b.doc
		// Nodes: 0 mesh, 1 armature, 2 root joint, 3 child joint.
		arm := vecmath.TRS(vecmath.Vec3{0, 0, 0}, vecmath.Quat{0, 0, 0, 1}, vecmath.Vec3{2, 2, 2})
		doc.Nodes = append(doc.Nodes,
			&gltf.Node{Name: "Armature", Children: []int{2}, Matrix: [16]float64(arm)},
			&gltf.Node{Name: "", Children: []int{3}, Matrix: gltf.DefaultMatrix, Rotation: gltf.DefaultRotation, Scale: gltf.DefaultScale},
			&gltf.Node{Name: "", Translation: [3]float64{0, 0.5, 0}, Matrix: gltf.DefaultMatrix, Rotation: gltf.DefaultRotation, Scale: gltf.DefaultScale})
		doc.Scenes[0].Nodes = []int{0, 1}
		// Skin joints: child (node 3) first, then root (node 2). IBM = inverse(world).
		var ibm []byte
		for _, w := range []vecmath.Mat4{arm.Mul(vecmath.Translate4(vecmath.Vec3{0, 0.5, 0})), arm} {
			inv, _ := w.Inverse()
			for _, v := range inv {
				ibm = putF32(ibm, float32(v))
			}
		}
		ia := b.addAccessor(ibm, gltf.TargetNone, gltf.ComponentFloat, gltf.AccessorMat4, 2, nil, nil)
		doc.Skins = []*gltf.Skin{{Joints: []int{3, 2}, InverseBindMatrices: gltf.Index(ia)}}
		doc.Nodes[0].Skin = gltf.Index(0)
		j0 := []byte{0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}
		if !jointsOK {
			j0[0] = 7
		}
		w0 := []byte{128, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 0, 0, 0, 0} // vertex 3's weight comes from set 1
		j1 := []byte{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0}
		w1 := []byte{127, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 0, 0, 0}
		norm := func(acc int) int { doc.Accessors[acc].Normalized = true; return acc }
		p.Attributes["JOINTS_0"] = b.addAccessor(j0, gltf.TargetArrayBuffer, gltf.ComponentUbyte, gltf.AccessorVec4, 4, nil, nil)
		p.Attributes["WEIGHTS_0"] = norm(b.addAccessor(w0, gltf.TargetArrayBuffer, gltf.ComponentUbyte, gltf.AccessorVec4, 4, nil, nil))
		p.Attributes["JOINTS_1"] = b.addAccessor(j1, gltf.TargetArrayBuffer, gltf.ComponentUbyte, gltf.AccessorVec4, 4, nil, nil)
		p.Attributes["WEIGHTS_1"] = norm(b.addAccessor(w1, gltf.TargetArrayBuffer, gltf.ComponentUbyte, gltf.AccessorVec4, 4, nil, nil))
		p.Indices = gltf.Index(b.addAccessor(u16s(0, 1, 2, 0, 2, 3), gltf.TargetElementArrayBuffer, gltf.ComponentUshort, gltf.AccessorScalar, 6, nil, nil))
		// A skinned mesh's node transform must be ignored.
		doc.Nodes[0].Translation = [3]float64{100, 0, 0}
		// Animation on the root joint, STEP, and on the child, CUBICSPLINE.
		times := b.addAccessor(putF32(nil, 0, 1), gltf.TargetNone, gltf.ComponentFloat, gltf.AccessorScalar, 2, []float64{0}, []float64{1})
		tr := b.addAccessor(putF32(nil, 0, 0, 0, 1, 0, 0), gltf.TargetNone, gltf.ComponentFloat, gltf.AccessorVec3, 2, nil, nil)
		rot := b.addAccessor(putF32(nil, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0), gltf.TargetNone, gltf.ComponentFloat, gltf.AccessorVec4, 6, nil, nil)
		doc.Animations = []*gltf.Animation{{Name: "a",
			Samplers: []*gltf.AnimationSampler{{Input: times, Output: tr, Interpolation: gltf.InterpolationStep}, {Input: times, Output: rot, Interpolation: gltf.InterpolationCubicSpline}},
			Channels: []*gltf.AnimationChannel{{Sampler: 0, Target: gltf.AnimationChannelTarget{Node: gltf.Index(2), Path: gltf.TRSTranslation}},
				{Sampler: 1, Target: gltf.AnimationChannelTarget{Node: gltf.Index(3), Path: gltf.TRSRotation}}}}}
	})
}

func TestSkinReading(t *testing.T) {
	c, rep, err := testDecode(bytes.NewReader(glbBytes(t, skinnedQuadDoc(true))), "skinned.glb", nil, testOptions{AllowOrphans: true})
	if err != nil {
		t.Fatal(err)
	}
	sk := c.Skeleton
	if sk.NumJoints() != 2 || sk.Parents[0] != -1 || sk.Parents[1] != 0 {
		t.Fatalf("skeleton %+v: want root then child", sk)
	}
	if sk.Names[0] != "joint_2" || sk.Names[1] != "joint_3" {
		t.Errorf("generated names %v", sk.Names)
	}
	// World positions include the Armature's scale of 2.
	if sk.Position(1).Dist(vecmath.Vec3{0, 1, 0}) > 1e-6 || sk.Position(0).Dist(vecmath.Vec3{}) > 1e-6 {
		t.Errorf("joint positions %v", sk.Positions())
	}
	// The skinned node's translation (100) is ignored.
	if c.Mesh.Positions[1] != (vecmath.Vec3{1, 0, 0}) {
		t.Errorf("vertex 1 at %v; the skinned node's transform must be ignored", c.Mesh.Positions[1])
	}
	// Vertex 0: child (old index 0) 128/255 and root 127/255 → sum 1 after remapping.
	w := c.Skin.Weights
	if len(w[0]) != 2 || w[0][0].Joint != 1 || math.Abs(w[0][0].Weight-128.0/255) > 1e-9 || w[0][1].Joint != 0 {
		t.Errorf("vertex 0 weights %v", w[0])
	}
	if len(w[3]) != 1 || w[3][0].Joint != 0 || w[3][0].Weight != 1 {
		t.Errorf("vertex 3 (weights only in set 1) %v", w[3])
	}
	if rep.Orphans != 0 {
		t.Errorf("orphans %d", rep.Orphans)
	}
	// Animations: the root's translation is re-expressed through the Armature scale;
	// STEP and CUBICSPLINE become linear keys.
	if len(c.Animations) != 1 || len(c.Animations[0].Channels) != 2 {
		t.Fatalf("animations %+v", c.Animations)
	}
	for _, ch := range c.Animations[0].Channels {
		switch ch.Path {
		case "translation":
			if ch.Joint != 0 || len(ch.Times) != 3 {
				t.Errorf("step channel %+v", ch)
			}
			last := ch.Values[len(ch.Values)-3:]
			if math.Abs(last[0]-2) > 1e-9 {
				t.Errorf("root translation %v, want x=2 (Armature scale applied)", last)
			}
		case "rotation":
			if ch.Joint != 1 || len(ch.Times) != 5 {
				t.Errorf("cubic channel resampled to %d keys", len(ch.Times))
			}
		}
	}
	// Round trip through Save keeps the rig.
	path := filepath.Join(t.TempDir(), "skinned.glb")
	if _, err := Save(path, c); err != nil {
		t.Fatal(err)
	}
	back, _, err := testLoad(path, testOptions{})
	if err != nil {
		t.Fatal(err)
	}
	compareCharacters(t, "skinned quad", c, back)
	khronos.Check(t, path)

	// A joint index beyond the skin is an error naming the file.
	if _, _, err := testDecode(bytes.NewReader(glbBytes(t, skinnedQuadDoc(false))), "badjoint.glb", nil, testOptions{AllowOrphans: true}); err == nil ||
		!strings.Contains(err.Error(), "badjoint.glb") || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("bad joint index: err %v", err)
	}
}

// TestOrphans: an unskinned primitive beside a skinned one leaves orphan vertices;
// LoadFile binds them to the nearest joint and says so, Load refuses the file.
func TestOrphans(t *testing.T) {
	doc := skinnedQuadDoc(true)
	doc.Meshes = append(doc.Meshes, &gltf.Mesh{Primitives: []*gltf.Primitive{{
		Attributes: gltf.PrimitiveAttributes{gltf.POSITION: doc.Meshes[0].Primitives[0].Attributes[gltf.POSITION]},
		Indices:    doc.Meshes[0].Primitives[0].Indices}}})
	doc.Nodes = append(doc.Nodes, &gltf.Node{Name: "prop", Mesh: gltf.Index(1), Translation: [3]float64{0, 3, 0},
		Matrix: gltf.DefaultMatrix, Rotation: gltf.DefaultRotation, Scale: gltf.DefaultScale})
	doc.Scenes[0].Nodes = append(doc.Scenes[0].Nodes, len(doc.Nodes)-1)
	data := glbBytes(t, doc)
	c, rep, err := testDecode(bytes.NewReader(data), "orphans.glb", nil, testOptions{AllowOrphans: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Orphans != 4 || len(rep.Warnings) == 0 {
		t.Fatalf("orphans %d, warnings %v", rep.Orphans, rep.Warnings)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("repaired character invalid: %v", err)
	}
	for v := 4; v < 8; v++ {
		if w := c.Skin.Weights[v]; len(w) != 1 || w[0].Joint != 1 {
			t.Errorf("orphan %d bound to %v, want the child joint (nearest)", v, w)
		}
	}
	path := filepath.Join(t.TempDir(), "orphans.glb")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := testLoad(path, testOptions{}); err == nil || !strings.Contains(err.Error(), "orphan") || !strings.Contains(err.Error(), path) {
		t.Errorf("Load: err %v, want an orphan error naming the file", err)
	}
	_, rep, err = testLoad(path, testOptions{AllowOrphans: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Orphans == 0 || len(rep.Warnings) == 0 {
		t.Errorf("the lenient load did not report the repaired orphans: %+v", rep)
	}
}

func TestExternalBuffer(t *testing.T) {
	c := meshtest.Tube(t, 3, 4, 2)
	doc := docOf(t, c)
	doc.Buffers[0].URI = "tube%20data.bin"
	var js bytes.Buffer
	enc := gltf.NewEncoder(&js)
	enc.AsBinary = false
	if err := enc.Encode(doc); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gl := filepath.Join(dir, "tube.gltf")
	if err := os.WriteFile(gl, js.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := testLoad(gl, testOptions{}); err == nil || !strings.Contains(err.Error(), "tube%20data.bin") || !strings.Contains(err.Error(), gl) {
		t.Errorf("missing .bin: err %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tube data.bin"), doc.Buffers[0].Data, 0o644); err != nil {
		t.Fatal(err)
	}
	got, _, err := testLoad(gl, testOptions{})
	if err != nil {
		t.Fatal(err)
	}
	compareCharacters(t, "external .bin", c, got)
}
