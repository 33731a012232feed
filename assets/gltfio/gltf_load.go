package gltfio

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"github.com/qmuntal/gltf"
	"github.com/rigkit/rigkit/assets/format"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// Decode parses glTF or GLB bytes; name labels errors and sets Character.Name (its
// base name without extension), dir resolves external files (nil: none allowed),
// budget is charged for what the file makes the reader spend, and keepScene keeps
// the document and the vertex map in Character.Source (a *Scene), so that Save
// writes the input back with the character's rig.
//
// It reads a glTF 2.0 file, binary (.glb) or JSON (.gltf, with external .bin files
// relative to it or data: URIs), into one Character.
//
// Every triangle primitive of the default scene (all scenes when there is none) is
// merged into one mesh with node world transforms applied; skinned primitives keep
// their bind-space positions as glTF prescribes (the skinned node's transform is
// ignored), so positions and Skeleton.BindWorld (the inverses of the inverse bind
// matrices) share one frame; unskinned primitives of a file with skinned ones are
// placed in that frame too (their world transform taken back through the joint
// world × inverse bind matrix most joints agree on). Triangle strips and fans
// become triangles; points and lines are skipped with a warning. Skins from
// JOINTS_0/WEIGHTS_0 and JOINTS_1/WEIGHTS_1 keep up to MaxInfluencesRead influences per vertex; several
// skins merge onto one joint list (joints are nodes). Joints are ordered parents
// first; a joint's parent is its nearest ancestor node that is a joint (-1 if none).
// Animations on joint nodes become linear channels (STEP and CUBICSPLINE resampled).
//
// Orphan vertices of a rig (no positive weight, e.g. an unskinned primitive beside
// a skinned one) are bound to their nearest joint and counted in the report
// (assets.Load refuses them unless asked not to). Corrupt input returns an error
// naming the file; it never panics. The decode stays within budget and so
// allocates at most format.BudgetAllocBytes of its limits.
func Decode(data []byte, name string, dir fs.FS, budget *format.Counter, keepScene bool) (c *character.Character, rep *format.LoadReport, err error) {
	rep = &format.LoadReport{Path: name}
	defer func() {
		if r := recover(); r != nil {
			c, rep, err = nil, nil, fmt.Errorf("load %s: %w: %v", name, ErrDecoderPanic, r)
		}
	}()
	c, err = decodeWith(data, name, dir, rep, budget, keepScene)
	if err != nil {
		return nil, nil, fmt.Errorf("load %s: %w", name, err)
	}
	return c, rep, nil
}

// loader carries the state of one decode.
type loader struct {
	doc    *gltf.Document
	acc    *accessorReader
	dir    fs.FS
	rep    *format.LoadReport
	budget *format.Counter
	parent []int          // glTF parent node of each node, -1 for roots
	world  []vecmath.Mat4 // world transform of each node in the file's rest pose

	joints    jointIndex     // node → joint id (in first-seen order)
	jointNode []int          // joint id → node
	bindWorld []vecmath.Mat4 // joint id → bind world transform
	skinJoint [][]int        // skin → local joint index → joint id (nil until used)

	// scene, when not nil, collects the map from the Character back to the
	// document (DecodeScene).
	scene *Scene
}

// openDocument parses and checks the container, the JSON and the buffers within
// budget, and returns a loader over the document with its node tree built.
func openDocument(data []byte, dir fs.FS, rep *format.LoadReport, budget *format.Counter) (*loader, error) {
	jsonData, bin, isGLB, err := parseContainer(data)
	if err != nil {
		return nil, err
	}
	if err := checkJSON(budget, jsonData); err != nil {
		return nil, err
	}
	rep.Format = "gltf"
	if isGLB {
		rep.Format = "glb"
	}
	doc, err := decodeDocument(jsonData)
	if err != nil {
		return nil, err
	}
	if err := checkExtensions(doc); err != nil {
		return nil, err
	}
	if err := checkEnums(jsonData); err != nil {
		return nil, err
	}
	if err := loadBuffers(doc, bin, isGLB, dir, budget); err != nil {
		return nil, err
	}
	l := &loader{doc: doc, acc: newAccessorReader(doc), dir: dir, rep: rep, budget: budget, joints: jointIndex{of: map[int]int{}}}
	l.acc.budget = budget
	if err := l.buildNodeTree(); err != nil {
		return nil, err
	}
	return l, nil
}

// decodeWith decodes; keepScene also attaches the document and the vertex map to
// the Character (Character.Source).
func decodeWith(data []byte, name string, dir fs.FS, rep *format.LoadReport, budget *format.Counter, keepScene bool) (*character.Character, error) {
	l, err := openDocument(data, dir, rep, budget)
	if err != nil {
		return nil, err
	}
	doc := l.doc
	if keepScene {
		l.scene = &Scene{Doc: doc, Format: rep.Format, sceneFiles: sceneFiles{acc: l.acc, dir: dir}}
	}
	base := filepath.Base(name)
	c := &character.Character{Name: strings.TrimSuffix(base, filepath.Ext(base))}
	if err := l.readGeometry(c); err != nil {
		return nil, err
	}
	l.readMaterials(c)
	if c.Skeleton != nil {
		if err := l.readAnimations(c); err != nil {
			return nil, err
		}
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if l.scene != nil {
		l.finishScene(c)
		l.scene.readExternalImages()
	}
	return c, nil
}

// buildNodeTree checks the node graph (children in range, one parent each, no
// cycles) and computes every node's world transform.
func (l *loader) buildNodeTree() error {
	n := len(l.doc.Nodes)
	l.parent = make([]int, n)
	for i := range l.parent {
		l.parent[i] = -1
	}
	for i, nd := range l.doc.Nodes {
		if nd == nil {
			return fmt.Errorf("node %d is null", i)
		}
		for _, ch := range nd.Children {
			if ch < 0 || ch >= n {
				return fmt.Errorf("node %d: child %d does not exist (%d nodes)", i, ch, n)
			}
			if l.parent[ch] != -1 || ch == i {
				return fmt.Errorf("node %d has more than one parent or is its own child", ch)
			}
			l.parent[ch] = i
		}
	}
	l.world = make([]vecmath.Mat4, n)
	done := make([]bool, n)
	stack := make([]int, 0, n)
	for i := 0; i < n; i++ {
		if l.parent[i] == -1 {
			stack = append(stack, i)
		}
	}
	visited := 0
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		local, err := nodeLocal(l.doc.Nodes[i])
		if err != nil {
			return fmt.Errorf("node %d (%q): %w", i, l.doc.Nodes[i].Name, err)
		}
		if p := l.parent[i]; p >= 0 {
			l.world[i] = l.world[p].Mul(local)
		} else {
			l.world[i] = local
		}
		if !l.world[i].IsFinite() {
			return fmt.Errorf("node %d (%q): world transform is not finite", i, l.doc.Nodes[i].Name)
		}
		done[i] = true
		visited++
		stack = append(stack, l.doc.Nodes[i].Children...)
	}
	if visited != n {
		return errors.New("node hierarchy has a cycle")
	}
	return nil
}

// nodeLocal returns a node's local transform (matrix, or T·R·S).
func nodeLocal(nd *gltf.Node) (vecmath.Mat4, error) {
	var m vecmath.Mat4
	if nd.Matrix != gltf.DefaultMatrix && nd.Matrix != [16]float64{} {
		m = vecmath.Mat4(nd.Matrix)
	} else {
		r := vecmath.Quat(nd.RotationOrDefault())
		m = vecmath.TRS(vecmath.Vec3(nd.Translation), r, vecmath.Vec3(nd.ScaleOrDefault()))
	}
	if !m.IsFinite() {
		return vecmath.Mat4{}, errors.New("transform is not finite")
	}
	return m, nil
}

// sceneMeshNodes returns the nodes with a mesh under the scene roots, depth first.
func (l *loader) sceneMeshNodes() []int {
	var out []int
	for _, n := range l.sceneNodes() {
		if l.doc.Nodes[n].Mesh != nil {
			out = append(out, n)
		}
	}
	return out
}

// sceneRoots returns the root nodes of the default scene (of every scene when
// none is the default; every parentless node when the file has no scene).
func (l *loader) sceneRoots() []int {
	var roots []int
	doc := l.doc
	switch {
	case doc.Scene != nil && *doc.Scene >= 0 && *doc.Scene < len(doc.Scenes) && doc.Scenes[*doc.Scene] != nil:
		roots = doc.Scenes[*doc.Scene].Nodes
	case len(doc.Scenes) > 0:
		for _, s := range doc.Scenes {
			if s != nil {
				roots = append(roots, s.Nodes...)
			}
		}
	default:
		for i, p := range l.parent {
			if p == -1 {
				roots = append(roots, i)
			}
		}
	}
	return roots
}

// useSkin registers skin s's joints (union by node) and returns local→joint ids.
func (l *loader) useSkin(s int) ([]int, error) {
	if s < 0 || s >= len(l.doc.Skins) || l.doc.Skins[s] == nil {
		return nil, fmt.Errorf("skin %d does not exist", s)
	}
	if l.skinJoint == nil {
		l.skinJoint = make([][]int, len(l.doc.Skins))
	}
	if l.skinJoint[s] != nil {
		return l.skinJoint[s], nil
	}
	sk := l.doc.Skins[s]
	if len(sk.Joints) == 0 {
		return nil, fmt.Errorf("skin %d has no joints", s)
	}
	var ibm []float64
	if sk.InverseBindMatrices != nil {
		v, err := l.acc.readTyped(*sk.InverseBindMatrices, gltf.AccessorMat4, fmt.Sprintf("skin %d inverseBindMatrices", s))
		if err != nil {
			return nil, err
		}
		if len(v) < 16*len(sk.Joints) {
			return nil, fmt.Errorf("skin %d: %d inverse bind matrices for %d joints", s, len(v)/16, len(sk.Joints))
		}
		ibm = v
	} else {
		l.rep.Warnf("skin %d has no inverseBindMatrices; using the node transforms as the bind pose", s)
	}
	ids := make([]int, len(sk.Joints))
	singular, posed := 0, 0
	for k, node := range sk.Joints {
		if node < 0 || node >= len(l.doc.Nodes) {
			return nil, fmt.Errorf("skin %d: joint node %d does not exist", s, node)
		}
		bind := l.world[node]
		if ibm != nil {
			var m vecmath.Mat4
			copy(m[:], ibm[16*k:16*k+16])
			if inv, ok := m.Inverse(); ok && m.IsFinite() {
				bind = inv
			} else {
				singular++
			}
		}
		if id, ok := l.joints.of[node]; ok {
			ids[k] = id
			if !matClose(l.bindWorld[id], bind, 1e-4) {
				l.rep.Warnf("skin %d binds joint node %d differently from an earlier skin; keeping the first", s, node)
			}
			continue
		}
		if !matClose(l.world[node], bind, 1e-3) {
			posed++
		}
		id := len(l.jointNode)
		l.joints.of[node] = id
		l.jointNode = append(l.jointNode, node)
		l.bindWorld = append(l.bindWorld, bind)
		ids[k] = id
	}
	if singular > 0 {
		l.rep.Warnf("skin %d: %d inverse bind matrices are singular or not finite; used the node transforms", s, singular)
	}
	if posed > 0 {
		l.rep.Warnf("skin %d: %d joints' node transforms differ from their bind pose (the scene is posed); using the bind pose", s, posed)
	}
	l.skinJoint[s] = ids
	return ids, nil
}

// matClose reports whether two matrices agree within tol relative to their scale.
func matClose(a, b vecmath.Mat4, tol float64) bool {
	scale := 1.0
	for i := range a {
		scale = math.Max(scale, math.Abs(a[i]))
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > tol*scale {
			return false
		}
	}
	return true
}

// primData is one primitive's geometry before merging.
type primData struct {
	pos, nrm []vecmath.Vec3
	uv       [][2]float64
	tris     [][3]int
	weights  [][]character.Influence // nil when unskinned
	material int
	flip     bool
}

// meshInst is one scene node that carries a mesh.
type meshInst struct {
	node     int
	skinned  bool
	attachTo int // node of the nearest joint ancestor for an unskinned mesh, or -1
}

// geomAcc accumulates the merged mesh while primitives are read in scene order.
type geomAcc struct {
	m                  *character.Mesh
	rigged             bool
	toBind             vecmath.Mat4 // world → the skins' bind space
	weights            [][]character.Influence
	anyNormals, anyUVs bool
	hasNormal          []bool
}

// readGeometry merges every mesh of the scene into c.Mesh, and the skin into c.Skin
// when the file is rigged. It runs in phases: find the mesh nodes and register their
// skins (so joint ids exist before any weight is read), read each node's primitives
// into one vertex list, then build the skeleton and remap weights to its order.
func (l *loader) readGeometry(c *character.Character) error {
	meshNodes := l.sceneMeshNodes()
	if err := l.budget.Instance(len(meshNodes), "scene"); err != nil {
		return err
	}
	if err := l.checkDeclared(meshNodes); err != nil {
		return err
	}
	insts, err := l.meshInstances(meshNodes)
	if err != nil {
		return err
	}
	hasSkinnedMesh := false
	for _, in := range insts {
		hasSkinnedMesh = hasSkinnedMesh || in.skinned
	}
	// Unskinned geometry joins skinned geometry in the skins' bind space, which
	// is not the world when a scaled or rotated node sits above the skeleton.
	acc := &geomAcc{m: &c.Mesh, rigged: len(l.jointNode) > 0, toBind: vecmath.Identity4()}
	if hasSkinnedMesh {
		if inv, ok := l.bindToWorld().Inverse(); ok {
			acc.toBind = inv
		}
	}
	for _, in := range insts {
		if err := l.readInstance(acc, in); err != nil {
			return err
		}
	}
	m := acc.m
	if len(m.Triangles) == 0 {
		if l.rep.SkippedPrimitives > 0 {
			return fmt.Errorf("no triangles: all %d primitives are points or lines", l.rep.SkippedPrimitives)
		}
		return errors.New("no triangle meshes in the scene")
	}
	l.finishAttributes(m, acc.anyNormals, acc.anyUVs, acc.hasNormal)
	m.Groups = mergeGroups(m.Groups)

	if acc.rigged {
		if !hasSkinnedMesh {
			l.rep.Warnf("the file has a skeleton but no skinned mesh; loaded the skeleton without a skin")
		}
		l.buildSkeleton(c)
		if hasSkinnedMesh {
			order := l.jointOrder()
			weights := acc.weights
			for v := range weights {
				for k := range weights[v] {
					weights[v][k].Joint = order[weights[v][k].Joint]
				}
			}
			c.Skin = &character.Skin{Weights: weights}
			return l.repairOrphans(c)
		}
	}
	return nil
}

// meshInstances checks the mesh nodes and registers the skins of skinned
// primitives so that joint ids exist before any weight is read. An unskinned mesh
// of a rigged file is attached to its nearest joint ancestor, if any.
func (l *loader) meshInstances(meshNodes []int) ([]meshInst, error) {
	var insts []meshInst
	for _, n := range meshNodes {
		nd := l.doc.Nodes[n]
		if *nd.Mesh < 0 || *nd.Mesh >= len(l.doc.Meshes) || l.doc.Meshes[*nd.Mesh] == nil {
			return nil, fmt.Errorf("node %d: mesh %d does not exist", n, *nd.Mesh)
		}
		skinned := false
		if nd.Skin != nil {
			for _, p := range l.doc.Meshes[*nd.Mesh].Primitives {
				if p != nil && hasAttr(p, "JOINTS_0") {
					skinned = true
				}
			}
			if skinned {
				if _, err := l.useSkin(*nd.Skin); err != nil {
					return nil, fmt.Errorf("node %d: %w", n, err)
				}
			}
		}
		insts = append(insts, meshInst{node: n, skinned: skinned, attachTo: -1})
	}
	if len(l.jointNode) == 0 && len(l.doc.Skins) > 0 {
		// A skeleton without a skinned mesh (e.g. a rig saved before skinning).
		if _, err := l.useSkin(0); err != nil {
			return nil, err
		}
	}
	if len(l.jointNode) > 0 {
		for i := range insts {
			if insts[i].skinned {
				continue
			}
			insts[i].attachTo = l.jointAbove(insts[i].node)
		}
	}
	return insts, nil
}

// readInstance appends one mesh node's primitives to acc. Primitives of one node
// that share their vertex accessors share vertices: only their triangles are read
// again.
func (l *loader) readInstance(acc *geomAcc, in meshInst) error {
	nd := l.doc.Nodes[in.node]
	mesh := l.doc.Meshes[*nd.Mesh]
	m := acc.m
	type span struct{ off, n int }
	shared := map[string]span{}
	for pi, p := range mesh.Primitives {
		what := fmt.Sprintf("mesh %d (%q) primitive %d", *nd.Mesh, mesh.Name, pi)
		if p == nil {
			return fmt.Errorf("%s is null", what)
		}
		if err := l.budget.Primitive(what); err != nil {
			return err
		}
		var skinIDs []int
		if in.skinned && hasAttr(p, "JOINTS_0") {
			skinIDs = l.skinJoint[*nd.Skin]
		}
		key := attrKey(p)
		if sp, ok := shared[key]; ok && isTriangleMode(p.Mode) {
			tris, err := l.readTriangles(p, sp.n, what)
			if err != nil {
				return fmt.Errorf("%s: %w", what, err)
			}
			flip := skinIDs == nil && l.world[in.node].Det() < 0
			for i := range tris {
				for k := range 3 {
					tris[i][k] += sp.off
				}
				if flip {
					tris[i][1], tris[i][2] = tris[i][2], tris[i][1]
				}
			}
			if len(tris) > 0 {
				m.Groups = append(m.Groups, character.TriangleGroup{Start: len(m.Triangles), Count: len(tris), Material: l.materialOf(p, what)})
			}
			m.Triangles = append(m.Triangles, tris...)
			l.mapPrimitive(in.node, pi, sp.off, sp.n, skinIDs != nil, acc.toBind.Mul(l.world[in.node]))
			continue
		}
		pd, err := l.readPrimitive(p, skinIDs, what)
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if pd == nil {
			continue
		}
		if skinIDs == nil {
			if err := l.placeUnskinned(acc, in, pd, what); err != nil {
				return err
			}
		}
		off := len(m.Positions)
		shared[key] = span{off, len(pd.pos)}
		l.mapPrimitive(in.node, pi, off, len(pd.pos), skinIDs != nil, acc.toBind.Mul(l.world[in.node]))
		acc.add(pd, off)
	}
	return nil
}

// placeUnskinned moves an unskinned primitive into the skins' bind space by its
// node's transform (skinned geometry already lives there), and in a rigged file
// weights it fully to the node's nearest joint ancestor (or leaves it orphaned).
func (l *loader) placeUnskinned(acc *geomAcc, in meshInst, pd *primData, what string) error {
	w := acc.toBind.Mul(l.world[in.node])
	nm := normalMatrix(w)
	for i := range pd.pos {
		pd.pos[i] = w.Point(pd.pos[i])
		if !pd.pos[i].IsFinite() {
			return fmt.Errorf("%s: vertex %d is not finite after the node transform", what, i)
		}
	}
	for i := range pd.nrm {
		pd.nrm[i] = nm.Dir(pd.nrm[i]).Normalize()
	}
	if w.Det() < 0 {
		for t := range pd.tris {
			pd.tris[t][1], pd.tris[t][2] = pd.tris[t][2], pd.tris[t][1]
		}
	}
	if acc.rigged {
		pd.weights = make([][]character.Influence, len(pd.pos))
		if in.attachTo >= 0 {
			for v := range pd.weights {
				pd.weights[v] = []character.Influence{{Joint: l.joints.of[in.attachTo], Weight: 1}}
			}
		}
	}
	return nil
}

// add appends a primitive's vertices (at offset off) and triangles to the merged
// mesh; a primitive without normals or UVs gets zero placeholders that
// finishAttributes fills.
func (acc *geomAcc) add(pd *primData, off int) {
	m := acc.m
	for i := range pd.tris {
		for k := range 3 {
			pd.tris[i][k] += off
		}
	}
	if len(pd.tris) > 0 {
		m.Groups = append(m.Groups, character.TriangleGroup{Start: len(m.Triangles), Count: len(pd.tris), Material: pd.material})
	}
	m.Triangles = append(m.Triangles, pd.tris...)
	m.Positions = append(m.Positions, pd.pos...)
	if pd.nrm != nil {
		acc.anyNormals = true
		m.Normals = append(m.Normals[:off], pd.nrm...)
	} else {
		m.Normals = append(m.Normals[:off], make([]vecmath.Vec3, len(pd.pos))...)
	}
	acc.hasNormal = append(acc.hasNormal, boolRepeat(pd.nrm != nil, len(pd.pos))...)
	if pd.uv != nil {
		acc.anyUVs = true
		m.UVs = append(m.UVs[:off], pd.uv...)
	} else {
		m.UVs = append(m.UVs[:off], make([][2]float64, len(pd.pos))...)
	}
	if acc.rigged {
		acc.weights = append(acc.weights, pd.weights...)
	}
}

// finishAttributes fills normals and UVs of primitives that lacked them and repairs
// non-unit normals, so that every vertex has them or none does.
func (l *loader) finishAttributes(m *character.Mesh, anyNormals, anyUVs bool, hasNormal []bool) {
	if !anyUVs {
		m.UVs = nil
	}
	if !anyNormals {
		m.Normals = nil
		return
	}
	var computed []vecmath.Vec3
	fixed := 0
	for i, n := range m.Normals {
		if hasNormal[i] && n.IsFinite() && math.Abs(n.Len()-1) < 1e-3 {
			continue
		}
		if computed == nil {
			computed = m.ComputeNormals()
		}
		if hasNormal[i] {
			fixed++
		}
		m.Normals[i] = computed[i]
	}
	if fixed > 0 {
		l.rep.Warnf("%d normals were zero or not finite; recomputed them from the triangles", fixed)
	}
}

func boolRepeat(b bool, n int) []bool {
	out := make([]bool, n)
	if b {
		for i := range out {
			out[i] = true
		}
	}
	return out
}

// mergeGroups joins consecutive groups with the same material and drops the groups
// entirely when no triangle has a material.
func mergeGroups(gs []character.TriangleGroup) []character.TriangleGroup {
	var out []character.TriangleGroup
	anyMat := false
	for _, g := range gs {
		anyMat = anyMat || g.Material >= 0
		if n := len(out); n > 0 && out[n-1].Material == g.Material && out[n-1].Start+out[n-1].Count == g.Start {
			out[n-1].Count += g.Count
			continue
		}
		out = append(out, g)
	}
	if !anyMat {
		return nil
	}
	return out
}

// normalMatrix returns the inverse transpose of m's linear part (as a Mat4).
func normalMatrix(m vecmath.Mat4) vecmath.Mat4 {
	lin := m
	lin[12], lin[13], lin[14] = 0, 0, 0
	inv, ok := lin.Inverse()
	if !ok {
		return lin
	}
	var t vecmath.Mat4
	for r := range 4 {
		for c := range 4 {
			t[c*4+r] = inv[r*4+c]
		}
	}
	return t
}

// materialOf returns the primitive's material index, or -1.
func (l *loader) materialOf(p *gltf.Primitive, what string) int {
	if p.Material == nil {
		return -1
	}
	if *p.Material >= 0 && *p.Material < len(l.doc.Materials) {
		return *p.Material
	}
	l.rep.Warnf("%s: material %d does not exist; ignored", what, *p.Material)
	return -1
}

// attrKey identifies a primitive's vertex attributes (name=accessor, sorted).
func attrKey(p *gltf.Primitive) string {
	keys := make([]string, 0, len(p.Attributes))
	for k, v := range p.Attributes {
		keys = append(keys, fmt.Sprintf("%s=%d", k, v))
	}
	sort.Strings(keys)
	return strings.Join(keys, ",")
}

func isTriangleMode(m gltf.PrimitiveMode) bool {
	return m == gltf.PrimitiveTriangles || m == gltf.PrimitiveTriangleStrip || m == gltf.PrimitiveTriangleFan
}

func hasAttr(p *gltf.Primitive, name string) bool {
	_, ok := p.Attributes[name]
	return ok
}

// readPrimitive reads one primitive's triangles and attributes. skinIDs maps the
// skin's local joint indices to joint ids, or is nil for unskinned geometry. It
// returns nil for skipped primitives.
func (l *loader) readPrimitive(p *gltf.Primitive, skinIDs []int, what string) (*primData, error) {
	switch p.Mode {
	case gltf.PrimitiveTriangles, gltf.PrimitiveTriangleStrip, gltf.PrimitiveTriangleFan:
	default:
		l.rep.SkippedPrimitives++
		l.rep.Warnf("%s: skipped %s primitive (only triangles are read)", what, p.Mode)
		return nil, nil
	}
	posIdx, ok := p.Attributes[gltf.POSITION]
	if !ok {
		l.rep.SkippedPrimitives++
		l.rep.Warnf("%s: skipped primitive without POSITION", what)
		return nil, nil
	}
	if a, err := l.acc.accessor(posIdx); err == nil {
		if err := l.budget.AddVertices(a.Count, "POSITION"); err != nil {
			return nil, err
		}
	}
	pv, err := l.acc.readTyped(posIdx, gltf.AccessorVec3, "POSITION")
	if err != nil {
		return nil, err
	}
	nv := len(pv) / 3
	pd := &primData{pos: make([]vecmath.Vec3, nv), material: -1}
	for i := range pd.pos {
		pd.pos[i] = vecmath.Vec3{pv[3*i], pv[3*i+1], pv[3*i+2]}
		if !pd.pos[i].IsFinite() {
			return nil, fmt.Errorf("POSITION of vertex %d is not finite: %v", i, pd.pos[i])
		}
	}
	pd.material = l.materialOf(p, what)

	tris, err := l.readTriangles(p, nv, what)
	if err != nil {
		return nil, err
	}
	pd.tris = tris

	// Normals and UVs.
	if ai, ok := p.Attributes[gltf.NORMAL]; ok {
		v, err := l.acc.readTyped(ai, gltf.AccessorVec3, "NORMAL")
		if err != nil {
			return nil, err
		}
		if len(v) != 3*nv {
			return nil, fmt.Errorf("NORMAL has %d elements, POSITION has %d", len(v)/3, nv)
		}
		pd.nrm = make([]vecmath.Vec3, nv)
		for i := range pd.nrm {
			pd.nrm[i] = vecmath.Vec3{v[3*i], v[3*i+1], v[3*i+2]}.Normalize()
		}
	}
	if ai, ok := p.Attributes[gltf.TEXCOORD_0]; ok {
		v, err := l.acc.readTyped(ai, gltf.AccessorVec2, "TEXCOORD_0")
		if err != nil {
			return nil, err
		}
		if len(v) != 2*nv {
			return nil, fmt.Errorf("TEXCOORD_0 has %d elements, POSITION has %d", len(v)/2, nv)
		}
		pd.uv = make([][2]float64, nv)
		bad := 0
		for i := range pd.uv {
			u, w := v[2*i], v[2*i+1]
			if math.IsNaN(u) || math.IsInf(u, 0) || math.IsNaN(w) || math.IsInf(w, 0) {
				u, w = 0, 0
				bad++
			}
			pd.uv[i] = [2]float64{u, w}
		}
		if bad > 0 {
			l.rep.Warnf("%s: %d non-finite texture coordinates set to 0", what, bad)
		}
	}
	if skinIDs != nil {
		w, err := l.readWeights(p, nv, skinIDs)
		if err != nil {
			return nil, err
		}
		pd.weights = w
	}
	return pd, nil
}

// readTriangles reads a primitive's indices (or the implicit 0..nv-1) as triangles.
func (l *loader) readTriangles(p *gltf.Primitive, nv int, what string) (tris [][3]int, err error) {
	// Indices.
	var idx []int
	if err := l.chargeTriangles(p, nv); err != nil {
		return nil, err
	}
	if p.Indices != nil {
		a, err := l.acc.accessor(*p.Indices)
		if err != nil {
			return nil, fmt.Errorf("indices: %w", err)
		}
		if a.Type != gltf.AccessorScalar || a.ComponentType == gltf.ComponentFloat || a.Normalized {
			return nil, fmt.Errorf("indices: accessor %d is %s %s, want unsigned integer SCALAR", *p.Indices, a.ComponentType, a.Type)
		}
		iv, _, err := l.acc.read(*p.Indices)
		if err != nil {
			return nil, fmt.Errorf("indices: %w", err)
		}
		idx = make([]int, len(iv))
		for i, v := range iv {
			if v < 0 || int(v) >= nv {
				return nil, fmt.Errorf("index %d is %v, out of range for %d vertices", i, v, nv)
			}
			idx[i] = int(v)
		}
	} else {
		idx = make([]int, nv)
		for i := range idx {
			idx[i] = i
		}
	}
	switch p.Mode {
	case gltf.PrimitiveTriangles:
		if len(idx)%3 != 0 {
			l.rep.Warnf("%s: %d indices is not a multiple of 3; dropped the remainder", what, len(idx))
		}
		tris = make([][3]int, len(idx)/3)
		for t := range tris {
			tris[t] = [3]int{idx[3*t], idx[3*t+1], idx[3*t+2]}
		}
	case gltf.PrimitiveTriangleStrip:
		for i := 0; i+2 < len(idx); i++ {
			t := [3]int{idx[i], idx[i+1], idx[i+2]}
			if i%2 == 1 {
				t[0], t[1] = t[1], t[0]
			}
			if t[0] != t[1] && t[1] != t[2] && t[0] != t[2] {
				tris = append(tris, t)
			}
		}
	case gltf.PrimitiveTriangleFan:
		for i := 1; i+1 < len(idx); i++ {
			t := [3]int{idx[0], idx[i], idx[i+1]}
			if t[0] != t[1] && t[1] != t[2] && t[0] != t[2] {
				tris = append(tris, t)
			}
		}
	}

	return tris, nil
}

// readWeights reads JOINTS_n/WEIGHTS_n (n = 0, 1) into pruned influence lists.
func (l *loader) readWeights(p *gltf.Primitive, nv int, skinIDs []int) ([][]character.Influence, error) {
	w := make([][]character.Influence, nv)
	sums := make([]float64, nv)
	for set := 0; set < 2; set++ {
		jName, wName := fmt.Sprintf("JOINTS_%d", set), fmt.Sprintf("WEIGHTS_%d", set)
		ji, hasJ := p.Attributes[jName]
		wi, hasW := p.Attributes[wName]
		if !hasJ && !hasW {
			continue
		}
		if hasJ != hasW {
			return nil, fmt.Errorf("%s without %s", map[bool]string{true: jName, false: wName}[hasJ], map[bool]string{true: wName, false: jName}[hasJ])
		}
		ja, err := l.acc.accessor(ji)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", jName, err)
		}
		if ja.Normalized || (ja.ComponentType != gltf.ComponentUbyte && ja.ComponentType != gltf.ComponentUshort) {
			return nil, fmt.Errorf("%s: accessor %d must be unsigned byte or short, not %s", jName, ji, ja.ComponentType)
		}
		jv, err := l.acc.readTyped(ji, gltf.AccessorVec4, jName)
		if err != nil {
			return nil, err
		}
		wv, err := l.acc.readTyped(wi, gltf.AccessorVec4, wName)
		if err != nil {
			return nil, err
		}
		if len(jv) != 4*nv || len(wv) != 4*nv {
			return nil, fmt.Errorf("%s/%s have %d/%d elements, POSITION has %d", jName, wName, len(jv)/4, len(wv)/4, nv)
		}
		for v := 0; v < nv; v++ {
			for k := 0; k < 4; k++ {
				wt := wv[4*v+k]
				if !(wt > 0) || math.IsInf(wt, 0) {
					continue
				}
				j := int(jv[4*v+k])
				if j < 0 || j >= len(skinIDs) {
					return nil, fmt.Errorf("vertex %d: %s joint index %d out of range (skin has %d joints)", v, jName, j, len(skinIDs))
				}
				w[v] = append(w[v], character.Influence{Joint: skinIDs[j], Weight: wt})
				sums[v] += wt
			}
		}
	}
	for v, s := range sums {
		if s > 0 && math.Abs(s-1) > 1e-3 {
			l.rep.UnnormalizedWeights++
		}
		_ = v
	}
	k := &character.Skin{Weights: w}
	k.Prune(character.MaxInfluencesRead)
	return k.Weights, nil
}

// buildSkeleton orders the joints parents first and fills c.Skeleton.
func (l *loader) buildSkeleton(c *character.Character) {
	order := l.jointOrder()
	n := len(l.jointNode)
	sk := &character.Skeleton{Names: make([]string, n), Parents: make([]int, n), BindWorld: make([]vecmath.Mat4, n)}
	used, nextSuffix := map[string]bool{}, map[string]int{}
	// Names are assigned in the new order so generated suffixes are stable.
	byNew := make([]int, n)
	for old, nw := range order {
		byNew[nw] = old
	}
	for nw, old := range byNew {
		node := l.jointNode[old]
		sk.BindWorld[nw] = l.bindWorld[old]
		p := l.jointParent(old)
		if p >= 0 {
			p = order[p]
		}
		sk.Parents[nw] = p
		name := l.doc.Nodes[node].Name
		if name == "" {
			name = fmt.Sprintf("joint_%d", node)
		}
		if used[name] {
			// Each base name resumes at its next suffix: trying 2, 3, ... from the
			// start for each of n equal names costs n² (24,000 joints named "j": 10 s).
			base := name
			for k := max(nextSuffix[base], 2); used[name]; k++ {
				name = fmt.Sprintf("%s_%d", base, k)
				nextSuffix[base] = k + 1
			}
		}
		used[name] = true
		sk.Names[nw] = name
	}
	c.Skeleton = sk
}

// jointParent returns the joint id of the nearest ancestor node that is a joint, or -1.
func (l *loader) jointParent(j int) int {
	if a := l.jointAbove(l.jointNode[j]); a >= 0 {
		return l.joints.of[a]
	}
	return -1
}

// jointIndex maps nodes to joint ids, and each node to the nearest joint node
// above it. Walking up from every joint costs joints × depth (24,000 joints
// hanging off a chain of 24,000 plain nodes: 11 s); the table costs one pass
// over the nodes, made again only when joints were added since.
type jointIndex struct {
	of    map[int]int // node → joint id
	above []int       // node → nearest joint node strictly above it, -1 for none
	count int         // len(of) when above was made
}

// jointAbove returns the nearest joint node strictly above node, or -1.
func (l *loader) jointAbove(node int) int {
	ji := &l.joints
	if ji.above == nil || ji.count != len(ji.of) {
		ji.above, ji.count = nearestJointAbove(l.parent, ji.of), len(ji.of)
	}
	return ji.above[node]
}

// nearestJointAbove returns, for every node of the forest parent (no cycles:
// buildNodeTree refuses them), the nearest ancestor that is a joint, or -1: each
// node is resolved once, from the nearest resolved ancestor down.
func nearestJointAbove(parent []int, joints map[int]int) []int {
	const unknown = -2
	above := make([]int, len(parent))
	for i := range above {
		above[i] = unknown
	}
	var path []int
	for i := range parent {
		path = path[:0]
		for a := i; a >= 0 && above[a] == unknown; a = parent[a] {
			path = append(path, a)
		}
		for k := len(path) - 1; k >= 0; k-- {
			n := path[k]
			p := parent[n]
			_, pIsJoint := joints[p]
			switch {
			case p < 0:
				above[n] = -1
			case pIsJoint:
				above[n] = p
			default:
				above[n] = above[p]
			}
		}
	}
	return above
}

// jointOrder returns old joint id → new id such that parents precede children,
// keeping the first-seen order where it already is valid.
func (l *loader) jointOrder() []int {
	n := len(l.jointNode)
	order := make([]int, n)
	for i := range order {
		order[i] = -1
	}
	next := 0
	var emit func(j int)
	emit = func(j int) {
		if order[j] >= 0 {
			return
		}
		if p := l.jointParent(j); p >= 0 {
			emit(p)
		}
		order[j] = next
		next++
	}
	for j := 0; j < n; j++ {
		emit(j)
	}
	return order
}

// repairOrphans binds vertices without weights to their nearest joint (a k-d
// tree search, its steps charged to Budget.RepairWork: nearest_joint.go).
func (l *loader) repairOrphans(c *character.Character) error {
	var tree *jointTree
	var looked int64
	for v, infl := range c.Skin.Weights {
		if len(infl) > 0 {
			continue
		}
		if tree == nil {
			tree = newJointTree(c.Skeleton.Positions())
		}
		best, n := tree.nearest(c.Mesh.Positions[v])
		if looked += int64(n); looked >= 1<<16 { // charged in batches: a call per vertex costs
			if err := l.budget.AddRepairWork(looked, "binding orphan vertices to their nearest joint"); err != nil {
				return err
			}
			looked = 0
		}
		c.Skin.Weights[v] = []character.Influence{{Joint: max(best, 0), Weight: 1}}
		l.rep.Orphans++
	}
	if err := l.budget.AddRepairWork(looked, "binding orphan vertices to their nearest joint"); err != nil {
		return err
	}
	if l.rep.Orphans > 0 {
		l.rep.Warnf("%d vertices had no joint weights (orphans); bound each to its nearest joint", l.rep.Orphans)
	}
	if l.rep.UnnormalizedWeights > 0 {
		l.rep.Warnf("%d vertices' joint weights did not sum to 1; renormalized", l.rep.UnnormalizedWeights)
	}
	return nil
}

// readMaterials copies PBR factors and base color images; image problems are warnings.
func (l *loader) readMaterials(c *character.Character) {
	images := map[int]*character.Image{}
	for i, gm := range l.doc.Materials {
		mat := character.Material{BaseColor: [4]float64{1, 1, 1, 1}, Metallic: 1, Roughness: 1}
		if gm == nil {
			c.Materials = append(c.Materials, mat)
			continue
		}
		mat.Name = gm.Name
		mat.DoubleSided = gm.DoubleSided
		if pbr := gm.PBRMetallicRoughness; pbr != nil {
			mat.BaseColor = pbr.BaseColorFactorOrDefault()
			mat.Metallic = pbr.MetallicFactorOrDefault()
			mat.Roughness = pbr.RoughnessFactorOrDefault()
			if ti := pbr.BaseColorTexture; ti != nil {
				img, err := l.textureImage(ti.Index, images)
				if err != nil {
					l.rep.Warnf("material %d (%q): base color texture dropped: %v", i, gm.Name, err)
				} else {
					mat.BaseColorTexture = img
				}
			}
		}
		c.Materials = append(c.Materials, mat)
	}
}

func (l *loader) textureImage(tex int, cache map[int]*character.Image) (*character.Image, error) {
	if tex < 0 || tex >= len(l.doc.Textures) || l.doc.Textures[tex] == nil {
		return nil, fmt.Errorf("texture %d does not exist", tex)
	}
	src := l.doc.Textures[tex].Source
	if src == nil {
		return nil, fmt.Errorf("texture %d has no image source", tex)
	}
	if img, ok := cache[*src]; ok {
		return img, nil
	}
	img, err := l.acc.imageBytes(*src, l.dir, 256<<20)
	if err != nil {
		return nil, err
	}
	cache[*src] = img
	return img, nil
}

// readAnimations converts channels that target joints into linear joint channels.
// A channel that cannot be read is dropped with a warning; going over the budget's
// animation keys fails the load.
func (l *loader) readAnimations(c *character.Character) error {
	return l.readAnimationsIn(c, l.worldToCharacter())
}

// readAnimationsIn is readAnimations with root joints' channels taken into the
// frame toChar maps the world to.
func (l *loader) readAnimationsIn(c *character.Character, toChar vecmath.Mat4) error {
	order := l.jointOrder()
	skipped := 0
	for ai, ga := range l.doc.Animations {
		if ga == nil {
			continue
		}
		anim := character.Animation{Name: ga.Name}
		if anim.Name == "" {
			anim.Name = fmt.Sprintf("animation_%d", ai)
		}
		for ci, ch := range ga.Channels {
			if ch == nil || ch.Target.Node == nil || ch.Target.Path == gltf.TRSWeights {
				skipped++
				continue
			}
			jid, ok := l.joints.of[*ch.Target.Node]
			if !ok {
				skipped++
				continue
			}
			out, err := l.readChannel(ga, ch, jid)
			if format.IsBudgetError(err) {
				return err
			}
			if err != nil {
				l.rep.Warnf("animation %d (%q) channel %d dropped: %v", ai, ga.Name, ci, err)
				continue
			}
			l.reframeChannel(&out, jid, toChar)
			out.Joint = order[jid]
			anim.Channels = append(anim.Channels, out)
		}
		if len(anim.Channels) > 0 {
			c.Animations = append(c.Animations, anim)
		}
	}
	if skipped > 0 {
		l.rep.Warnf("%d animation channels target non-joint nodes or morph weights; skipped", skipped)
	}
	return nil
}

func (l *loader) readChannel(ga *gltf.Animation, ch *gltf.AnimationChannel, jid int) (character.AnimationChannel, error) {
	var out character.AnimationChannel
	if ch.Sampler < 0 || ch.Sampler >= len(ga.Samplers) || ga.Samplers[ch.Sampler] == nil {
		return out, fmt.Errorf("sampler %d does not exist", ch.Sampler)
	}
	s := ga.Samplers[ch.Sampler]
	times, err := l.acc.readTyped(s.Input, gltf.AccessorScalar, "input")
	if err != nil {
		return out, err
	}
	if err := l.budget.AddAnimationKeys(len(times), "animation channels"); err != nil {
		return out, err
	}
	n := 3
	want := gltf.AccessorVec3
	switch ch.Target.Path {
	case gltf.TRSTranslation:
		out.Path = "translation"
	case gltf.TRSRotation:
		out.Path, n, want = "rotation", 4, gltf.AccessorVec4
	case gltf.TRSScale:
		out.Path = "scale"
	}
	vals, err := l.acc.readTyped(s.Output, want, "output")
	if err != nil {
		return out, err
	}
	perKey := n
	if s.Interpolation == gltf.InterpolationCubicSpline {
		perKey = 3 * n
	}
	if len(vals) != perKey*len(times) {
		return out, fmt.Errorf("%d output values for %d keys", len(vals)/n, len(times))
	}
	for i, t := range times {
		if math.IsNaN(t) || math.IsInf(t, 0) || (i > 0 && t <= times[i-1]) {
			return out, fmt.Errorf("key times are not finite and strictly increasing (key %d)", i)
		}
	}
	for _, v := range vals {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return out, errors.New("values are not finite")
		}
	}
	switch s.Interpolation {
	case gltf.InterpolationStep:
		out.Times, out.Values = stepToLinear(times, vals, n)
	case gltf.InterpolationCubicSpline:
		out.Times, out.Values = cubicToLinear(times, vals, n, 4)
	default:
		out.Times, out.Values = times, vals
	}
	if out.Path == "rotation" {
		for k := 0; k+3 < len(out.Values); k += 4 {
			q := normalizeQuat(vecmath.Quat{out.Values[k], out.Values[k+1], out.Values[k+2], out.Values[k+3]})
			copy(out.Values[k:k+4], q[:])
		}
	}
	return out, nil
}

// reframeChannel re-expresses a joint's local values relative to its skeleton
// parent when non-joint nodes sit between them, and a root joint's values in the
// Character's frame (the frame of Skeleton.BindWorld), so that posing composes
// channels and bind transforms in one frame whatever rotates or scales the
// armature.
func (l *loader) reframeChannel(ch *character.AnimationChannel, jid int, toChar vecmath.Mat4) {
	node := l.jointNode[jid]
	gp := l.parent[node]
	between := toChar
	if gp >= 0 {
		between = toChar.Mul(l.world[gp])
	}
	if jp := l.jointParent(jid); jp >= 0 {
		if l.jointNode[jp] == gp {
			return
		}
		inv, ok := l.world[l.jointNode[jp]].Inverse()
		if !ok {
			return
		}
		between = inv.Mul(l.world[gp])
	}
	if matClose(between, vecmath.Identity4(), 1e-9) {
		return
	}
	_, rc, sc := vecmath.DecomposeTRS(between)
	uniform := math.Abs(sc[0]-sc[1]) < 1e-6*math.Abs(sc[0]) && math.Abs(sc[0]-sc[2]) < 1e-6*math.Abs(sc[0])
	if !uniform {
		l.rep.Warnf("joint node %d: non-uniform scale above it; its animation is approximate", node)
	}
	for k := 0; k < len(ch.Values); {
		switch ch.Path {
		case "translation":
			p := between.Point(vecmath.Vec3{ch.Values[k], ch.Values[k+1], ch.Values[k+2]})
			copy(ch.Values[k:k+3], p[:])
			k += 3
		case "rotation":
			q := quatMul(rc, vecmath.Quat{ch.Values[k], ch.Values[k+1], ch.Values[k+2], ch.Values[k+3]})
			copy(ch.Values[k:k+4], q[:])
			k += 4
		default:
			for a := 0; a < 3; a++ {
				ch.Values[k+a] *= math.Abs(sc[a])
			}
			k += 3
		}
	}
}

// worldToCharacter takes the world to the Character's frame: the skins' bind space
// when a mesh of the scene is skinned (the frame of Skeleton.BindWorld), else the
// world.
func (l *loader) worldToCharacter() vecmath.Mat4 {
	for _, n := range l.sceneMeshNodes() {
		if l.doc.Nodes[n].Skin != nil && len(l.jointNode) > 0 {
			if inv, ok := l.bindToWorld().Inverse(); ok {
				return inv
			}
		}
	}
	return vecmath.Identity4()
}

// quatMul returns the Hamilton product a·b (b applied first).
func quatMul(a, b vecmath.Quat) vecmath.Quat {
	return vecmath.Quat{
		a[3]*b[0] + a[0]*b[3] + a[1]*b[2] - a[2]*b[1],
		a[3]*b[1] - a[0]*b[2] + a[1]*b[3] + a[2]*b[0],
		a[3]*b[2] + a[0]*b[1] - a[1]*b[0] + a[2]*b[3],
		a[3]*b[3] - a[0]*b[0] - a[1]*b[1] - a[2]*b[2],
	}
}

func normalizeQuat(q vecmath.Quat) vecmath.Quat {
	n := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	if n == 0 || math.IsNaN(n) {
		return vecmath.Quat{0, 0, 0, 1}
	}
	return vecmath.Quat{q[0] / n, q[1] / n, q[2] / n, q[3] / n}
}

// stepToLinear turns step keys into linear keys: each value holds until just before
// the next key time.
func stepToLinear(times, vals []float64, n int) ([]float64, []float64) {
	var t, v []float64
	for i := range times {
		if i > 0 {
			t = append(t, times[i]-(times[i]-times[i-1])*1e-3)
			v = append(v, vals[(i-1)*n:i*n]...)
		}
		t = append(t, times[i])
		v = append(v, vals[i*n:(i+1)*n]...)
	}
	return t, v
}

// cubicToLinear samples a cubic Hermite spline (glTF CUBICSPLINE layout: in-tangent,
// value, out-tangent per key) at sub points per interval.
func cubicToLinear(times, vals []float64, n, sub int) ([]float64, []float64) {
	at := func(k, part, c int) float64 { return vals[k*3*n+part*n+c] }
	var t, v []float64
	for k := range times {
		if k+1 == len(times) {
			t = append(t, times[k])
			for c := 0; c < n; c++ {
				v = append(v, at(k, 1, c))
			}
			break
		}
		dt := times[k+1] - times[k]
		for s := 0; s < sub; s++ {
			u := float64(s) / float64(sub)
			u2, u3 := u*u, u*u*u
			h00, h10, h01, h11 := 2*u3-3*u2+1, u3-2*u2+u, -2*u3+3*u2, u3-u2
			t = append(t, times[k]+u*dt)
			for c := 0; c < n; c++ {
				v = append(v, h00*at(k, 1, c)+h10*dt*at(k, 2, c)+h01*at(k+1, 1, c)+h11*dt*at(k+1, 0, c))
			}
		}
	}
	return t, v
}
