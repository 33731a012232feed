package character

import (
	"errors"
	"fmt"
	"github.com/rigkit/rigkit/vecmath"
	"math"
	"sort"
)

// Limits on influences per vertex.
const (
	// MaxInfluencesRead is how many influences per vertex the loader keeps
	// (JOINTS_0/WEIGHTS_0 and JOINTS_1/WEIGHTS_1).
	MaxInfluencesRead = 8
	// MaxInfluencesWritten is how many influences per vertex a saved rig carries.
	MaxInfluencesWritten = 4
)

// Mesh is an indexed triangle mesh in world space.
type Mesh struct {
	Positions []vecmath.Vec3 // one per vertex
	Normals   []vecmath.Vec3 // empty, or one per vertex
	UVs       [][2]float64   // empty, or one per vertex (TEXCOORD_0)
	Triangles [][3]int       // counter-clockwise vertex indices
	// Groups splits Triangles into consecutive runs that share a material, so that
	// materials survive a load/save round trip. Empty means one group, no material.
	Groups []TriangleGroup
}

// TriangleGroup is a run of triangles [Start, Start+Count) drawn with one material.
type TriangleGroup struct {
	Start, Count int
	Material     int // index into Character.Materials, or -1 for none
}

// Material is the part of a glTF PBR material rigkit keeps.
type Material struct {
	Name        string
	BaseColor   [4]float64 // linear RGBA factor
	Metallic    float64
	Roughness   float64
	DoubleSided bool
	// BaseColorTexture is the encoded image (PNG or JPEG) of the base color map, or nil.
	BaseColorTexture *Image
}

// Image is an encoded image carried through unchanged.
type Image struct {
	MIMEType string
	Data     []byte
}

// Skeleton is a joint hierarchy in its bind pose.
// Joints are ordered so that every parent comes before its children.
type Skeleton struct {
	Names   []string
	Parents []int // -1 for a root
	// BindWorld is each joint's bind-pose transform in world space (the inverse of
	// its glTF inverse bind matrix, in the mesh's world frame).
	BindWorld []vecmath.Mat4
}

// Influence is one joint's weight on one vertex.
type Influence struct {
	Joint  int
	Weight float64
}

// Skin is a sparse per-vertex weighting of joints: Weights[v] lists the joints that
// move vertex v, heaviest first, with weights that sum to 1.
type Skin struct {
	Weights [][]Influence
}

// Animation is a glTF animation retargeted onto the skeleton's joints.
type Animation struct {
	Name     string
	Channels []AnimationChannel
}

// AnimationChannel animates one property of one joint with linear interpolation
// (step and cubic spline inputs are resampled to linear on load).
type AnimationChannel struct {
	Joint int
	Path  string // "translation", "rotation" or "scale"
	Times []float64
	// Values holds 3 floats per key for translation and scale, 4 for rotation (x,y,z,w).
	Values []float64
}

// Character is a mesh with, when rigged, its skeleton and skin.
type Character struct {
	Name       string
	Mesh       Mesh
	Skeleton   *Skeleton // nil for a static mesh
	Skin       *Skin     // nil for a static mesh; set only with Skeleton
	Materials  []Material
	Animations []Animation
	// Source is the document the character was read from (assets.Load with
	// Options.KeepScene), or nil. Saving then writes that document's scene with the
	// character's skeleton, skin and added animations: vertex data, materials and
	// everything else come from the file, not from Mesh or Materials. Clone shares
	// it (it is read-only).
	Source Source
}

// Source is the document a character was read from, held by the format package that
// read it (gltfio.Scene for glTF) so that writing the character back keeps what the
// model does not hold: node hierarchy, primitives, materials, extensions. The
// character model never looks inside it.
type Source interface {
	// SourceFormat names the document's format ("glb", "gltf").
	SourceFormat() string
}

// Placed is a Source that knows where the character's coordinates sit in its
// file's world: a skinned mesh's bind space is often under an armature node that
// rotates and scales it (Mixamo's files stand Z-up in centimetres inside a −90° X,
// 0.01 parent), and which way is up is a fact of the world the user sees.
type Placed interface {
	Source
	// BindSpaceToWorld returns the transform from the character's coordinates
	// (mesh positions and bind pose) to the file's world.
	BindSpaceToWorld() vecmath.Mat4
}

// WorldTransform returns the transform from c's coordinates to its file's world,
// and false (with the identity) when its source does not say.
func WorldTransform(c *Character) (vecmath.Mat4, bool) {
	if p, ok := c.Source.(Placed); ok {
		return p.BindSpaceToWorld(), true
	}
	return vecmath.Identity4(), false
}

// NumJoints returns the joint count (0 for a nil skeleton).
func (s *Skeleton) NumJoints() int {
	if s == nil {
		return 0
	}
	return len(s.Names)
}

// Position returns joint j's bind-pose position in world space.
func (s *Skeleton) Position(j int) vecmath.Vec3 { return s.BindWorld[j].Translation() }

// Positions returns every joint's bind-pose position in world space.
func (s *Skeleton) Positions() []vecmath.Vec3 {
	p := make([]vecmath.Vec3, len(s.Names))
	for j := range p {
		p[j] = s.Position(j)
	}
	return p
}

// Children returns the child lists of every joint.
func (s *Skeleton) Children() [][]int {
	ch := make([][]int, len(s.Parents))
	for j, p := range s.Parents {
		if p >= 0 {
			ch[p] = append(ch[p], j)
		}
	}
	return ch
}

// Clone returns a deep copy.
func (s *Skeleton) Clone() *Skeleton {
	if s == nil {
		return nil
	}
	return &Skeleton{
		Names:     append([]string(nil), s.Names...),
		Parents:   append([]int(nil), s.Parents...),
		BindWorld: append([]vecmath.Mat4(nil), s.BindWorld...),
	}
}

// Select returns the skeleton of joints idx (indices into s), in that order: joint i
// of the result is s's joint idx[i], its parent the position of the original
// parent in idx, or -1 (a root) when the parent is not selected. The caller keeps
// parents before children by its choice of order.
func (s *Skeleton) Select(idx []int) *Skeleton {
	pos := make(map[int]int, len(idx))
	for i, j := range idx {
		pos[j] = i
	}
	out := &Skeleton{}
	for _, j := range idx {
		p := -1
		if q, ok := pos[s.Parents[j]]; ok && s.Parents[j] >= 0 {
			p = q
		}
		out.Names = append(out.Names, s.Names[j])
		out.Parents = append(out.Parents, p)
		out.BindWorld = append(out.BindWorld, s.BindWorld[j])
	}
	return out
}

// Validate checks the hierarchy: lengths agree, parents precede children, matrices are
// finite and invertible.
func (s *Skeleton) Validate() error {
	n := len(s.Names)
	if len(s.Parents) != n || len(s.BindWorld) != n {
		return fmt.Errorf("skeleton: %d names, %d parents, %d bind matrices", n, len(s.Parents), len(s.BindWorld))
	}
	if n == 0 {
		return errors.New("skeleton: no joints")
	}
	for j, p := range s.Parents {
		if p < -1 || p >= j {
			return fmt.Errorf("skeleton: joint %d (%q) has parent %d; parents must precede children", j, s.Names[j], p)
		}
		if !s.BindWorld[j].IsFinite() {
			return fmt.Errorf("skeleton: joint %d (%q) has a non-finite bind matrix", j, s.Names[j])
		}
		if _, ok := s.BindWorld[j].Inverse(); !ok {
			return fmt.Errorf("skeleton: joint %d (%q) has a singular bind matrix", j, s.Names[j])
		}
	}
	return nil
}

// Clone returns a deep copy.
func (k *Skin) Clone() *Skin {
	if k == nil {
		return nil
	}
	w := make([][]Influence, len(k.Weights))
	for v := range w {
		w[v] = append([]Influence(nil), k.Weights[v]...)
	}
	return &Skin{Weights: w}
}

// SkinFromDense builds a skin from dense weights (dense[v][j]), keeping the maxK
// heaviest positive weights per vertex and renormalizing them to sum to 1.
func SkinFromDense(dense [][]float64, maxK int) *Skin {
	k := &Skin{Weights: make([][]Influence, len(dense))}
	for v, row := range dense {
		var infl []Influence
		for j, w := range row {
			if w > 0 && !math.IsNaN(w) {
				infl = append(infl, Influence{Joint: j, Weight: w})
			}
		}
		k.Weights[v] = infl
	}
	k.Prune(maxK)
	return k
}

// Dense returns the weights as a dense V×numJoints matrix.
func (k *Skin) Dense(numJoints int) [][]float64 {
	d := make([][]float64, len(k.Weights))
	for v, infl := range k.Weights {
		d[v] = make([]float64, numJoints)
		for _, in := range infl {
			if in.Joint >= 0 && in.Joint < numJoints {
				d[v][in.Joint] += in.Weight
			}
		}
	}
	return d
}

// Prune sorts each vertex's influences heaviest first (ties by joint index), merges
// duplicate joints, drops non-positive weights, keeps at most maxK and renormalizes
// them to sum to 1. A vertex with no positive weight is left empty (an orphan).
func (k *Skin) Prune(maxK int) {
	for v, infl := range k.Weights {
		merged := infl[:0:0]
		for _, in := range infl {
			if !(in.Weight > 0) || math.IsInf(in.Weight, 0) {
				continue
			}
			found := false
			for i := range merged {
				if merged[i].Joint == in.Joint {
					merged[i].Weight += in.Weight
					found = true
					break
				}
			}
			if !found {
				merged = append(merged, in)
			}
		}
		sort.Slice(merged, func(a, b int) bool {
			if merged[a].Weight != merged[b].Weight {
				return merged[a].Weight > merged[b].Weight
			}
			return merged[a].Joint < merged[b].Joint
		})
		if maxK > 0 && len(merged) > maxK {
			merged = merged[:maxK]
		}
		NormalizeWeights(merged)
		k.Weights[v] = merged
	}
}

// NormalizeWeights divides every weight of one vertex's influences by their sum, in
// place, so that they sum to 1, and returns the sum. The sum is added up in slice
// order, so one list always normalizes to the same bits. A list whose weights sum to
// zero or less (empty, or all zero) is left as it is.
func NormalizeWeights(infl []Influence) float64 {
	sum := 0.0
	for _, in := range infl {
		sum += in.Weight
	}
	if sum <= 0 {
		return sum
	}
	for i := range infl {
		infl[i].Weight /= sum
	}
	return sum
}

// Orphans returns the vertices with no influence.
func (k *Skin) Orphans() []int {
	var o []int
	for v, infl := range k.Weights {
		if len(infl) == 0 {
			o = append(o, v)
		}
	}
	return o
}

// Validate checks the skin against a vertex and joint count: one list per vertex,
// joints in range, finite non-negative weights summing to 1 (within tol).
func (k *Skin) Validate(numVertices, numJoints int, tol float64) error {
	if len(k.Weights) != numVertices {
		return fmt.Errorf("skin: %d weight lists for %d vertices", len(k.Weights), numVertices)
	}
	for v, infl := range k.Weights {
		if len(infl) == 0 {
			return fmt.Errorf("skin: vertex %d has no weights", v)
		}
		sum := 0.0
		for _, in := range infl {
			if in.Joint < 0 || in.Joint >= numJoints {
				return fmt.Errorf("skin: vertex %d references joint %d of %d", v, in.Joint, numJoints)
			}
			if math.IsNaN(in.Weight) || math.IsInf(in.Weight, 0) || in.Weight < 0 {
				return fmt.Errorf("skin: vertex %d has weight %v", v, in.Weight)
			}
			sum += in.Weight
		}
		if math.Abs(sum-1) > tol {
			return fmt.Errorf("skin: vertex %d weights sum to %.6f", v, sum)
		}
	}
	return nil
}

// Clone returns a deep copy of the character.
func (c *Character) Clone() *Character {
	o := *c
	o.Mesh = c.Mesh.Clone()
	o.Skeleton = c.Skeleton.Clone()
	o.Skin = c.Skin.Clone()
	o.Materials = append([]Material(nil), c.Materials...)
	o.Animations = append([]Animation(nil), c.Animations...)
	return &o
}

// Rigged reports whether the character has a skeleton and a skin.
func (c *Character) Rigged() bool { return c.Skeleton != nil && c.Skin != nil }

// Validate checks the mesh and, when present, the skeleton and skin.
func (c *Character) Validate() error {
	if err := c.Mesh.Validate(); err != nil {
		return err
	}
	if c.Skeleton != nil {
		if err := c.Skeleton.Validate(); err != nil {
			return err
		}
	}
	if c.Skin != nil {
		if c.Skeleton == nil {
			return errors.New("skin without a skeleton")
		}
		if err := c.Skin.Validate(len(c.Mesh.Positions), c.Skeleton.NumJoints(), 1e-3); err != nil {
			return err
		}
	}
	return nil
}

// Clone returns a deep copy of the mesh.
func (m Mesh) Clone() Mesh {
	return Mesh{
		Positions: append([]vecmath.Vec3(nil), m.Positions...),
		Normals:   append([]vecmath.Vec3(nil), m.Normals...),
		UVs:       append([][2]float64(nil), m.UVs...),
		Triangles: append([][3]int(nil), m.Triangles...),
		Groups:    append([]TriangleGroup(nil), m.Groups...),
	}
}

// Validate checks that the mesh has triangles, finite positions, indices in range and
// attribute arrays of the right length.
func (m Mesh) Validate() error {
	nv := len(m.Positions)
	if nv == 0 || len(m.Triangles) == 0 {
		return fmt.Errorf("mesh: empty (%d vertices, %d triangles)", nv, len(m.Triangles))
	}
	if len(m.Normals) != 0 && len(m.Normals) != nv {
		return fmt.Errorf("mesh: %d normals for %d vertices", len(m.Normals), nv)
	}
	if len(m.UVs) != 0 && len(m.UVs) != nv {
		return fmt.Errorf("mesh: %d UVs for %d vertices", len(m.UVs), nv)
	}
	for i, p := range m.Positions {
		if !p.IsFinite() {
			return fmt.Errorf("mesh: vertex %d position is not finite: %v", i, p)
		}
	}
	for t, tri := range m.Triangles {
		for _, v := range tri {
			if v < 0 || v >= nv {
				return fmt.Errorf("mesh: triangle %d index %d out of range [0,%d)", t, v, nv)
			}
		}
	}
	return nil
}

// Bounds returns the axis-aligned bounding box of the positions.
func (m Mesh) Bounds() (lo, hi vecmath.Vec3) {
	if len(m.Positions) == 0 {
		return
	}
	lo, hi = m.Positions[0], m.Positions[0]
	for _, p := range m.Positions[1:] {
		for a := 0; a < 3; a++ {
			lo[a] = math.Min(lo[a], p[a])
			hi[a] = math.Max(hi[a], p[a])
		}
	}
	return lo, hi
}

// ComputeNormals returns area-weighted vertex normals.
func (m Mesh) ComputeNormals() []vecmath.Vec3 {
	n := make([]vecmath.Vec3, len(m.Positions))
	for _, t := range m.Triangles {
		a, b, c := m.Positions[t[0]], m.Positions[t[1]], m.Positions[t[2]]
		fn := b.Sub(a).Cross(c.Sub(a))
		for _, v := range t {
			n[v] = n[v].Add(fn)
		}
	}
	for i := range n {
		n[i] = n[i].Normalize()
	}
	return n
}
