package obj

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/rigkit/rigkit/assets/format"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// Wavefront OBJ is the commonest static-mesh format people have; the reader keeps
// what a rig needs (positions, triangles, UVs, normals, materials) and says what it
// dropped. Files an OBJ names (its .mtl libraries and their textures) are read only
// from the OBJ's own folder and below: an absolute path or one that climbs out with
// ".." is refused, so a downloaded OBJ cannot make rigkit read other files.

// maxOBJTexture bounds one texture file read for an OBJ material.
const maxOBJTexture = 256 << 20

// Load reads a Wavefront OBJ file with its MTL libraries and textures (see
// Decode). The file must be a regular file within the budget's FileBytes; the files
// it names are opened through an os.Root at the OBJ's folder as regular files only,
// so neither ".." nor a symbolic link reaches outside it and a FIFO never blocks.
func Load(path string, budget *format.Counter) (*character.Character, *format.LoadReport, error) {
	data, err := format.ReadInput(path, budget)
	if err != nil {
		return nil, nil, fmt.Errorf("load %s: %w", path, err)
	}
	var dir fs.FS
	if root, err := os.OpenRoot(filepath.Dir(path)); err == nil {
		defer root.Close()
		dir = format.RootFS{Root: root}
	}
	return Decode(data, path, dir, budget)
}

// Decode parses OBJ text into one static Character; name labels errors and sets
// the character's name, dir resolves mtllib and texture paths (nil: none are read).
//
// Faces of any size are triangulated (ear clipping in the polygon's plane, a fan
// when that fails); negative indices count back from the latest vertex; `o` and `g`
// split nothing (rigkit rigs one mesh) and `usemtl` runs become triangle groups,
// one per material. Normals are kept when every face corner has one, else the
// saver computes them; UV v is flipped to glTF's top-left origin. MTL fields map to
// the PBR material: Kd → base colour, d (or 1 − Tr) → alpha, Pm → metallic, Pr (or
// 1 − √(Ns/1000), Blender's mapping) → roughness, map_Kd (PNG or JPEG) → base
// colour texture. Other maps and fields (Ke, bump and normal maps, Ks) are dropped
// with a warning; lines and points are skipped with a warning. Malformed input
// returns an error naming the file and line; it never panics.
//
// budget is charged for the file's vertex statements (Vertices), its triangles
// (Triangles) and every file it names (FileBytes), each file read once however many
// materials name it.
func Decode(data []byte, name string, dir fs.FS, budget *format.Counter) (c *character.Character, rep *format.LoadReport, err error) {
	rep = &format.LoadReport{Path: name, Format: "obj"}
	defer func() {
		if r := recover(); r != nil {
			c, rep, err = nil, nil, fmt.Errorf("load %s: internal error on malformed input: %v", name, r)
		}
	}()
	p := &objParser{
		objSource:    objSource{rep: rep, dir: dir, budget: budget, files: map[string][]byte{}},
		objMaterials: objMaterials{matIndex: map[string]int{}, curMat: -1},
		objOutput:    objOutput{vertIndex: map[[3]int]int{}},
		warned:       map[string]bool{},
	}
	if err := p.parse(data); err != nil {
		return nil, nil, fmt.Errorf("load %s: %w", name, err)
	}
	base := filepath.Base(name)
	c = &character.Character{Name: strings.TrimSuffix(base, filepath.Ext(base))}
	if err := p.build(c); err != nil {
		return nil, nil, fmt.Errorf("load %s: %w", name, err)
	}
	if err := c.Validate(); err != nil {
		return nil, nil, fmt.Errorf("load %s: %w", name, err)
	}
	return c, rep, nil
}

// objParser holds the state of one OBJ decode.
type objParser struct {
	objSource
	objRaw
	objMaterials
	objOutput

	warned map[string]bool
	idxBuf []int // one face's output vertices, reused
}

// objSource is where an OBJ decode reads from and reports to.
type objSource struct {
	rep    *format.LoadReport
	dir    fs.FS
	budget *format.Counter
	files  map[string][]byte // files the OBJ named, read once each
}

// objRaw holds the OBJ's vertex statements as written.
type objRaw struct {
	pos  []vecmath.Vec3 // v
	uv   [][2]float64   // vt
	norm []vecmath.Vec3 // vn
}

// objMaterials holds the MTL libraries read and the materials the faces use.
type objMaterials struct {
	libs      map[string]character.Material // materials of the MTL libraries read so far
	libsRead  map[string]bool
	materials []character.Material // used materials, in order of first use
	matIndex  map[string]int       // usemtl name → index into materials
	curMat    int
}

// objOutput is the mesh being built: one vertex per distinct (v, vt, vn) corner.
type objOutput struct {
	vertIndex map[[3]int]int // (v, vt, vn) → output vertex
	corners   [][3]int       // output vertex → (v, vt, vn), -1 when absent
	tris      [][3]int
	triMat    []int
}

// warnOnce adds a warning the first time key is seen.
func (p *objParser) warnOnce(key, format string, args ...any) {
	if p.warned[key] {
		return
	}
	p.warned[key] = true
	p.rep.Warnf(format, args...)
}

// logicalLines calls fn for every line, with backslash continuations joined.
func logicalLines(data []byte, fn func(line int, text string) error) error {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	var cont strings.Builder
	start := 0
	for n := 1; sc.Scan(); n++ {
		t := strings.TrimRight(sc.Text(), " \t\r")
		if cont.Len() == 0 {
			start = n
			if !strings.HasSuffix(t, "\\") { // the common case: no copy
				if err := fn(n, t); err != nil {
					return err
				}
				continue
			}
		}
		if strings.HasSuffix(t, "\\") {
			cont.WriteString(t[:len(t)-1])
			cont.WriteByte(' ')
			continue
		}
		cont.WriteString(t)
		if err := fn(start, cont.String()); err != nil {
			return err
		}
		cont.Reset()
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if cont.Len() > 0 {
		return fn(start, cont.String())
	}
	return nil
}

// parse reads every statement of the OBJ text.
func (p *objParser) parse(data []byte) error {
	return logicalLines(data, func(n int, text string) error {
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		f := strings.Fields(text)
		if len(f) == 0 {
			return nil
		}
		if err := p.statement(f, text); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		return nil
	})
}

// statement handles one OBJ statement (its fields f, the raw text for file names).
func (p *objParser) statement(f []string, text string) error {
	switch f[0] {
	case "v":
		v, err := parseFloats(f[1:], 3, 3, "v")
		if err != nil {
			return err
		}
		if err := p.budget.AddVertices(1, "OBJ vertices"); err != nil {
			return err
		}
		p.pos = append(p.pos, vecmath.Vec3{v[0], v[1], v[2]})
	case "vt":
		v, err := parseFloats(f[1:], 1, 2, "vt")
		if err != nil {
			return err
		}
		p.uv = append(p.uv, [2]float64{v[0], 1 - v[1]}) // glTF's v runs downwards
	case "vn":
		v, err := parseFloats(f[1:], 3, 3, "vn")
		if err != nil {
			return err
		}
		p.norm = append(p.norm, vecmath.Vec3{v[0], v[1], v[2]})
	case "f", "fo":
		return p.face(f[1:])
	case "usemtl":
		p.useMaterial(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(text), "usemtl")))
	case "mtllib":
		p.mtllib(f[1:])
	case "o", "g", "s", "mg":
		// Objects, groups and smoothing groups: rigkit rigs the whole file as one mesh.
	case "l", "p":
		p.rep.SkippedPrimitives++
		p.warnOnce("lp", "line and point elements skipped (only faces are read)")
	default:
		p.warnOnce("kw:"+f[0], "OBJ statement %q ignored", f[0])
	}
	return nil
}

// parseFloats parses at least min finite numbers of f (extra fields, such as a w
// or vertex colours, are ignored); missing ones up to want are 0.
func parseFloats(f []string, min, want int, what string) ([]float64, error) {
	if len(f) < min {
		return nil, fmt.Errorf("%s needs %d numbers, has %d", what, min, len(f))
	}
	out := make([]float64, want)
	for i := 0; i < want && i < len(f); i++ {
		x, err := strconv.ParseFloat(f[i], 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("%s: %q is not a finite number", what, f[i])
		}
		out[i] = x
	}
	return out, nil
}

// objIndex resolves a 1-based (or negative, relative) OBJ index into [0, n).
func objIndex(s string, n int, what string) (int, error) {
	i, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("face: %s index %q is not an integer", what, s)
	}
	switch {
	case i > 0 && i <= n:
		return i - 1, nil
	case i < 0 && -i <= n:
		return n + i, nil
	}
	return 0, fmt.Errorf("face: %s index %d out of range (%d defined so far)", what, i, n)
}

// corner resolves one face corner "v", "v/vt", "v//vn" or "v/vt/vn".
func (p *objParser) corner(s string) ([3]int, error) {
	v, rest, _ := strings.Cut(s, "/")
	t, n, _ := strings.Cut(rest, "/")
	if strings.Contains(n, "/") {
		return [3]int{}, fmt.Errorf("face: bad vertex %q", s)
	}
	k := [3]int{-1, -1, -1}
	var err error
	if k[0], err = objIndex(v, len(p.pos), "vertex"); err != nil {
		return k, err
	}
	if t != "" {
		if k[1], err = objIndex(t, len(p.uv), "texture"); err != nil {
			return k, err
		}
	}
	if n != "" {
		if k[2], err = objIndex(n, len(p.norm), "normal"); err != nil {
			return k, err
		}
	}
	return k, nil
}

// face adds a polygon's triangles.
func (p *objParser) face(f []string) error {
	if len(f) < 3 {
		return fmt.Errorf("face with %d vertices (at least 3)", len(f))
	}
	idx := p.idxBuf[:0]
	for _, s := range f {
		k, err := p.corner(s)
		if err != nil {
			return err
		}
		v, ok := p.vertIndex[k]
		if !ok {
			v = len(p.corners)
			p.vertIndex[k] = v
			p.corners = append(p.corners, k)
		}
		idx = append(idx, v)
	}
	p.idxBuf = idx
	if err := p.budget.AddTriangles(len(idx)-2, "OBJ faces"); err != nil {
		return err
	}
	if len(idx) == 3 { // the common case, without triangulation's allocations
		p.tris = append(p.tris, [3]int{idx[0], idx[1], idx[2]})
		p.triMat = append(p.triMat, p.curMat)
		return nil
	}
	pts := make([]vecmath.Vec3, len(idx))
	for i, v := range idx {
		pts[i] = p.pos[p.corners[v][0]]
	}
	for _, t := range triangulate(pts) {
		p.tris = append(p.tris, [3]int{idx[t[0]], idx[t[1]], idx[t[2]]})
		p.triMat = append(p.triMat, p.curMat)
	}
	return nil
}

// useMaterial switches the current material (MTL definitions are looked up when the
// mesh is built, so usemtl before mtllib works too).
func (p *objParser) useMaterial(name string) {
	i, ok := p.matIndex[name]
	if !ok {
		i = len(p.materials)
		p.matIndex[name] = i
		p.materials = append(p.materials, character.Material{Name: name})
	}
	p.curMat = i
}

// build turns the parsed statements into c's mesh and materials.
func (p *objParser) build(c *character.Character) error {
	if len(p.tris) == 0 {
		return errors.New("no faces")
	}
	m := &c.Mesh
	m.Positions = make([]vecmath.Vec3, len(p.corners))
	allN, anyUV := true, false
	for i, k := range p.corners {
		m.Positions[i] = p.pos[k[0]]
		allN = allN && k[2] >= 0
		anyUV = anyUV || k[1] >= 0
	}
	if allN {
		m.Normals = make([]vecmath.Vec3, len(p.corners))
		for i, k := range p.corners {
			m.Normals[i] = p.norm[k[2]]
		}
	} else if len(p.norm) > 0 {
		p.rep.Warnf("normals missing on some face corners: all normals are computed")
	}
	if anyUV {
		m.UVs = make([][2]float64, len(p.corners))
		missing := 0
		for i, k := range p.corners {
			if k[1] >= 0 {
				m.UVs[i] = p.uv[k[1]]
			} else {
				missing++
			}
		}
		if missing > 0 {
			p.rep.Warnf("%d vertices have no texture coordinate (set to 0, 0)", missing)
		}
	}
	// One group per material: stable-sort triangles by material.
	order := make([]int, len(p.tris))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return p.triMat[order[a]] < p.triMat[order[b]] })
	m.Triangles = make([][3]int, len(p.tris))
	for i, t := range order {
		m.Triangles[i] = p.tris[t]
		mat := p.triMat[t]
		if n := len(m.Groups); n > 0 && m.Groups[n-1].Material == mat {
			m.Groups[n-1].Count++
		} else {
			m.Groups = append(m.Groups, character.TriangleGroup{Start: i, Count: 1, Material: mat})
		}
	}
	if len(p.materials) == 0 {
		m.Groups = nil
	}
	for i := range p.materials {
		name := p.materials[i].Name
		if def, ok := p.libs[name]; ok {
			p.materials[i] = def
		} else {
			p.warnOnce("mat:"+name, "material %q is not defined in any MTL library read: default material", name)
			p.materials[i] = defaultOBJMaterial(name)
		}
	}
	c.Materials = p.materials
	return nil
}

// defaultOBJMaterial is a material with the MTL defaults: white, dielectric, rough.
func defaultOBJMaterial(name string) character.Material {
	return character.Material{Name: name, BaseColor: [4]float64{1, 1, 1, 1}, Metallic: 0, Roughness: 1}
}

// localPath checks a file name from an OBJ or MTL and returns it as an fs.FS path
// relative to the OBJ's folder, refusing absolute paths and ".." escapes.
func localPath(name string) (string, error) {
	s := strings.ReplaceAll(strings.TrimSpace(name), "\\", "/")
	if s == "" {
		return "", errors.New("empty file name")
	}
	if path.IsAbs(s) || filepath.IsAbs(name) || (len(s) > 1 && s[1] == ':') {
		return "", fmt.Errorf("%q is an absolute path (only files in the OBJ's folder are read)", name)
	}
	s = path.Clean(s)
	if !fs.ValidPath(s) {
		return "", fmt.Errorf("%q is outside the OBJ's folder", name)
	}
	return s, nil
}

// readLocal reads a file the OBJ names, at most limit bytes, charging the budget's
// FileBytes; a file named again (16 materials sharing one texture) is read once.
func (p *objParser) readLocal(name string, limit int64) ([]byte, error) {
	rel, err := localPath(name)
	if err != nil {
		return nil, err
	}
	if data, ok := p.files[rel]; ok {
		return data, nil
	}
	if p.dir == nil {
		return nil, fmt.Errorf("%q: no folder to read it from", name)
	}
	f, err := p.dir.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > limit {
		return nil, fmt.Errorf("%q is larger than %d MiB", name, limit>>20)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%q: %w", name, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%q is larger than %d MiB", name, limit>>20)
	}
	if err := p.budget.ReadBytes(int64(len(data)), name); err != nil {
		return nil, err
	}
	p.files[rel] = data
	return data, nil
}

// triangulate splits a polygon (its corner positions, in order) into triangles of
// corner indices that keep its winding. Triangles and convex polygons become fans;
// other polygons are ear-clipped in the plane of their Newell normal, so that a
// concave face (an L-shaped n-gon) does not fold over itself. A polygon ear clipping
// cannot finish (self-intersecting, degenerate) falls back to a fan.
func triangulate(pts []vecmath.Vec3) [][3]int {
	n := len(pts)
	fan := func() [][3]int {
		out := make([][3]int, 0, n-2)
		for i := 1; i+1 < n; i++ {
			out = append(out, [3]int{0, i, i + 1})
		}
		return out
	}
	if n == 3 {
		return fan()
	}
	var normal vecmath.Vec3 // Newell's method: robust for non-planar polygons
	for i := range pts {
		a, b := pts[i], pts[(i+1)%n]
		normal = normal.Add(vecmath.Vec3{(a[1] - b[1]) * (a[2] + b[2]), (a[2] - b[2]) * (a[0] + b[0]), (a[0] - b[0]) * (a[1] + b[1])})
	}
	if normal.Len() == 0 || n > maxEarClip {
		return fan() // degenerate, or too large for cubic-time clipping
	}
	// Project onto the plane: drop the normal's largest axis.
	ax := 0
	for k := 1; k < 3; k++ {
		if math.Abs(normal[k]) > math.Abs(normal[ax]) {
			ax = k
		}
	}
	u, v := (ax+1)%3, (ax+2)%3
	sign := 1.0
	if normal[ax] < 0 {
		sign = -1
	}
	p2 := make([][2]float64, n)
	for i, p := range pts {
		p2[i] = [2]float64{p[u], p[v] * sign}
	}
	if tris, ok := earClip(p2); ok {
		return tris
	}
	return fan()
}

// earClip triangulates a counter-clockwise simple polygon; ok is false when no ear
// is found (the polygon is not simple).
func earClip(p [][2]float64) ([][3]int, bool) {
	idx := make([]int, len(p))
	for i := range idx {
		idx[i] = i
	}
	cross := func(a, b, c [2]float64) float64 {
		return (b[0]-a[0])*(c[1]-a[1]) - (b[1]-a[1])*(c[0]-a[0])
	}
	convex := true
	for i := range idx {
		if cross(p[idx[i]], p[idx[(i+1)%len(idx)]], p[idx[(i+2)%len(idx)]]) < 0 {
			convex = false
			break
		}
	}
	out := make([][3]int, 0, len(p)-2)
	if convex {
		for i := 1; i+1 < len(p); i++ {
			out = append(out, [3]int{0, i, i + 1})
		}
		return out, true
	}
	for len(idx) > 3 {
		found := false
		for i := range idx {
			a, b, c := idx[(i+len(idx)-1)%len(idx)], idx[i], idx[(i+1)%len(idx)]
			if cross(p[a], p[b], p[c]) <= 0 {
				continue // reflex or flat corner
			}
			ear := true
			for _, q := range idx {
				if q == a || q == b || q == c {
					continue
				}
				if cross(p[a], p[b], p[q]) >= 0 && cross(p[b], p[c], p[q]) >= 0 && cross(p[c], p[a], p[q]) >= 0 {
					ear = false
					break
				}
			}
			if ear {
				out = append(out, [3]int{a, b, c})
				idx = append(idx[:i], idx[i+1:]...)
				found = true
				break
			}
		}
		if !found {
			return nil, false
		}
	}
	return append(out, [3]int{idx[0], idx[1], idx[2]}), true
}

// maxEarClip is the largest polygon ear-clipped (the clipping is cubic in the
// worst case); larger ones, rare and nearly always convex caps, become fans.
const maxEarClip = 256
