package viewer

import (
	"fmt"
	"math"
	"strings"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// Mode is how the mesh is colored.
type Mode int

// Display modes.
const (
	ModeShaded     Mode = iota // material colors, lit
	ModeWireframe              // triangle edges only
	ModeHeatmap                // the selected joint's weights, blue (0) to red (1)
	ModeInfluences             // number of joints moving each vertex
	ModeTextured               // base colour textures, vertex colours and alpha as the file says
)

var modeNames = [...]string{"shaded", "wireframe", "heatmap", "influences", "textured"}

// String returns the mode's flag name.
func (m Mode) String() string {
	if m < 0 || int(m) >= len(modeNames) {
		return fmt.Sprintf("Mode(%d)", int(m))
	}
	return modeNames[m]
}

// ParseMode reads a mode name as written by String.
func ParseMode(s string) (Mode, error) {
	for i, n := range modeNames {
		if strings.EqualFold(s, n) {
			return Mode(i), nil
		}
	}
	return 0, fmt.Errorf("unknown mode %q (want %s)", s, strings.Join(modeNames[:], ", "))
}

// rig is one character on screen with its pose and selected joint.
type rig struct {
	Char     *character.Character
	Label    string         // shown above the rig; empty for none
	Pose     character.Pose // per-joint rotation; nil means the bind pose
	Selected int            // selected joint, -1 for none
	// World, when set, overrides Pose with posed joint world transforms (animation).
	World []vecmath.Mat4
	// CPUSkin deforms the mesh on the CPU (assets.LinearBlendSkin) and draws it
	// unskinned; the GPU path is the default. Used to check one against the other.
	CPUSkin bool
	// Highlight lists vertices painted in the highlight colour (a problem's region).
	Highlight []int
}

// newRig returns a rig in its bind pose with no joint selected.
func newRig(c *character.Character) *rig {
	return &rig{Char: c, Pose: character.RestPose(c.Skeleton.NumJoints()), Selected: -1}
}

// posedWorld returns the joint world transforms of the current pose (nil when the
// character has no skeleton).
func (r *rig) posedWorld() []vecmath.Mat4 {
	sk := r.Char.Skeleton
	if sk == nil || sk.NumJoints() == 0 {
		return nil
	}
	if len(r.World) == sk.NumJoints() {
		return r.World
	}
	return sk.PosedWorld(r.Pose)
}

// jointPositions returns the posed joint positions.
func (r *rig) jointPositions() []vecmath.Vec3 {
	w := r.posedWorld()
	p := make([]vecmath.Vec3, len(w))
	for j := range w {
		p[j] = w[j].Translation()
	}
	return p
}

// deformedPositions returns the skinned vertex positions of the current pose.
func (r *rig) deformedPositions() []vecmath.Vec3 {
	c := r.Char
	if !c.Rigged() {
		return c.Mesh.Positions
	}
	return character.LinearBlendSkin(c.Mesh.Positions, c.Skin, c.Skeleton.SkinningMatrices(r.posedWorld()))
}

// bounds returns the box around the posed mesh and joints.
func (r *rig) bounds() (lo, hi vecmath.Vec3) {
	pts := r.deformedPositions()
	lo, hi = boundsOf(pts)
	for _, p := range r.jointPositions() {
		for a := 0; a < 3; a++ {
			lo[a] = math.Min(lo[a], p[a])
			hi[a] = math.Max(hi[a], p[a])
		}
	}
	return lo, hi
}

func boundsOf(pts []vecmath.Vec3) (lo, hi vecmath.Vec3) {
	if len(pts) == 0 {
		return
	}
	lo, hi = pts[0], pts[0]
	for _, p := range pts[1:] {
		for a := 0; a < 3; a++ {
			lo[a] = math.Min(lo[a], p[a])
			hi[a] = math.Max(hi[a], p[a])
		}
	}
	return lo, hi
}

// jointByName returns the index of the named joint, or -1.
func jointByName(sk *character.Skeleton, name string) int {
	if sk == nil {
		return -1
	}
	for j, n := range sk.Names {
		if n == name {
			return j
		}
	}
	for j, n := range sk.Names {
		if strings.EqualFold(n, name) {
			return j
		}
	}
	return -1
}

// matchJoint maps joint j of skeleton a onto skeleton b: the joint with the same name,
// else the joint nearest in bind position; -1 when j is -1 or b has no joints.
func matchJoint(a, b *character.Skeleton, j int) int {
	if j < 0 || a == nil || j >= a.NumJoints() || b.NumJoints() == 0 {
		return -1
	}
	if k := jointByName(b, a.Names[j]); k >= 0 {
		return k
	}
	p := a.Position(j)
	best, bestD := -1, math.Inf(1)
	for k := range b.Names {
		if d := p.Dist(b.Position(k)); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// mapPose carries a pose of skeleton a onto skeleton b by joint name (joints of b
// without a namesake stay at rest).
func mapPose(a, b *character.Skeleton, pose character.Pose) character.Pose {
	out := character.RestPose(b.NumJoints())
	for k, n := range b.Names {
		if j := jointByName(a, n); j >= 0 && j < len(pose) {
			out[k] = pose[j]
		}
	}
	return out
}

// meshData is a character flattened into OpenGL vertex arrays.
type meshData struct {
	pos, nrm []float32 // 3 per vertex
	joints   []int32   // 4 per vertex
	weights  []float32 // 4 per vertex (the 4 heaviest, renormalized)
	idx      []uint32  // 3 per triangle
}

func buildMeshData(c *character.Character) meshData {
	m := c.Mesh
	nv := len(m.Positions)
	d := meshData{
		pos: make([]float32, 3*nv), nrm: make([]float32, 3*nv),
		joints: make([]int32, 4*nv), weights: make([]float32, 4*nv),
		idx: make([]uint32, 0, 3*len(m.Triangles)),
	}
	normals := m.Normals
	if len(normals) != nv {
		normals = m.ComputeNormals()
	}
	for v := 0; v < nv; v++ {
		for a := 0; a < 3; a++ {
			d.pos[3*v+a] = float32(m.Positions[v][a])
			d.nrm[3*v+a] = float32(normals[v][a])
		}
	}
	nj := c.Skeleton.NumJoints()
	if c.Rigged() {
		for v := 0; v < nv && v < len(c.Skin.Weights); v++ {
			infl := c.Skin.Weights[v]
			sum := 0.0
			k := 0
			for _, in := range infl {
				if k == 4 {
					break
				}
				if in.Joint < 0 || in.Joint >= nj || !(in.Weight > 0) {
					continue
				}
				d.joints[4*v+k] = int32(in.Joint)
				d.weights[4*v+k] = float32(in.Weight)
				sum += in.Weight
				k++
			}
			for i := 0; i < k; i++ {
				d.weights[4*v+i] /= float32(sum)
			}
		}
	}
	for _, t := range m.Triangles {
		if t[0] < 0 || t[1] < 0 || t[2] < 0 || t[0] >= nv || t[1] >= nv || t[2] >= nv {
			continue
		}
		d.idx = append(d.idx, uint32(t[0]), uint32(t[1]), uint32(t[2]))
	}
	return d
}

// defaultColor is the clay color of a mesh without materials.
var defaultColor = [3]float32{0.78, 0.74, 0.68}

// vertexColors returns 3 floats per vertex for the mode: material base colors
// (shaded and wireframe), the selected joint's weight through heat (heatmap) or
// influenceColor of the influence count (influences).
func vertexColors(c *character.Character, mode Mode, selected int) []float32 {
	nv := len(c.Mesh.Positions)
	out := make([]float32, 3*nv)
	set := func(v int, col [3]float32) { copy(out[3*v:3*v+3], col[:]) }
	switch mode {
	case ModeHeatmap:
		for v := 0; v < nv; v++ {
			w := 0.0
			if c.Skin != nil && v < len(c.Skin.Weights) {
				for _, in := range c.Skin.Weights[v] {
					if in.Joint == selected {
						w += in.Weight
					}
				}
			}
			set(v, heat(w))
		}
	case ModeInfluences:
		for v := 0; v < nv; v++ {
			n := 0
			if c.Skin != nil && v < len(c.Skin.Weights) {
				for _, in := range c.Skin.Weights[v] {
					if in.Weight > 0 {
						n++
					}
				}
			}
			set(v, influenceColor(n))
		}
	default:
		for v := 0; v < nv; v++ {
			set(v, defaultColor)
		}
		for _, g := range c.Mesh.Groups {
			if g.Material < 0 || g.Material >= len(c.Materials) {
				continue
			}
			bc := c.Materials[g.Material].BaseColor
			col := [3]float32{srgb(bc[0]), srgb(bc[1]), srgb(bc[2])}
			if col[0]+col[1]+col[2] > 2.95 { // plain white factor (textured): keep clay
				col = defaultColor
			}
			for t := g.Start; t < g.Start+g.Count && t < len(c.Mesh.Triangles); t++ {
				for _, v := range c.Mesh.Triangles[t] {
					if v >= 0 && v < nv {
						set(v, col)
					}
				}
			}
		}
	}
	return out
}

func srgb(x float64) float32 {
	if x <= 0 {
		return 0
	}
	return float32(math.Min(1, math.Pow(x, 1/2.2)))
}

// Bone colors.
var (
	boneColor     = [3]float32{0.85, 0.85, 0.90}
	selectedColor = [3]float32{1.00, 0.55, 0.10}
	jointColor    = [3]float32{0.30, 0.75, 1.00}
)

// boneGeometry returns octahedral bones from each parent joint to each child as
// triangles, 9 floats per vertex (position, normal, color). The bones leaving the
// selected joint are highlighted.
func boneGeometry(world []vecmath.Mat4, parents []int, selected int) []float32 {
	var out []float32
	for j, p := range parents {
		if p < 0 || p >= len(world) || j >= len(world) {
			continue
		}
		a, b := world[p].Translation(), world[j].Translation()
		axis := b.Sub(a)
		l := axis.Len()
		if l < 1e-9 {
			continue
		}
		dir := axis.Scale(1 / l)
		// Any vector not parallel to dir gives the octahedron's cross section.
		ref := vecmath.Vec3{0, 1, 0}
		if math.Abs(dir[1]) > 0.9 {
			ref = vecmath.Vec3{1, 0, 0}
		}
		u := dir.Cross(ref).Normalize().Scale(0.08 * l)
		v := dir.Cross(u).Normalize().Scale(0.08 * l)
		mid := a.Add(axis.Scale(0.15))
		ring := [4]vecmath.Vec3{mid.Add(u), mid.Add(v), mid.Sub(u), mid.Sub(v)}
		col := boneColor
		if p == selected {
			col = selectedColor
		}
		for i := 0; i < 4; i++ {
			r0, r1 := ring[i], ring[(i+1)%4]
			out = appendTri(out, a, r1, r0, col)
			out = appendTri(out, b, r0, r1, col)
		}
	}
	return out
}

func appendTri(out []float32, a, b, c vecmath.Vec3, col [3]float32) []float32 {
	n := b.Sub(a).Cross(c.Sub(a)).Normalize()
	for _, p := range [3]vecmath.Vec3{a, b, c} {
		out = append(out, float32(p[0]), float32(p[1]), float32(p[2]),
			float32(n[0]), float32(n[1]), float32(n[2]), col[0], col[1], col[2])
	}
	return out
}

// jointPoints returns one point per joint, 9 floats each (position, unused normal,
// color), the selected joint in the highlight color.
func jointPoints(world []vecmath.Mat4, selected int) []float32 {
	out := make([]float32, 0, 9*len(world))
	for j, m := range world {
		p := m.Translation()
		col := jointColor
		if j == selected {
			col = selectedColor
		}
		out = append(out, float32(p[0]), float32(p[1]), float32(p[2]), 0, 0, 1, col[0], col[1], col[2])
	}
	return out
}
