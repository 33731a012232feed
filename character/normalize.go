package character

import "github.com/rigkit/rigkit/vecmath"

// Normalization maps world space into the [-1,1] cube (METRICS.md): the bounding box
// center goes to the origin and the largest extent becomes 2.
// normalized = (world - Center) * Scale.
type Normalization struct {
	Center vecmath.Vec3
	Scale  float64
}

// NormalizationOf returns the normalization of a mesh's bounding box. A mesh of zero
// extent gets Scale 1.
func NormalizationOf(m Mesh) Normalization {
	lo, hi := m.Bounds()
	ext := 0.0
	for a := 0; a < 3; a++ {
		if d := hi[a] - lo[a]; d > ext {
			ext = d
		}
	}
	s := 1.0
	if ext > 0 {
		s = 2 / ext
	}
	return Normalization{Center: lo.Add(hi).Scale(0.5), Scale: s}
}

// Point maps a world point into the cube.
func (n Normalization) Point(p vecmath.Vec3) vecmath.Vec3 { return p.Sub(n.Center).Scale(n.Scale) }

// InversePoint maps a cube point back to world space.
func (n Normalization) InversePoint(p vecmath.Vec3) vecmath.Vec3 {
	return p.Scale(1 / n.Scale).Add(n.Center)
}

// Matrix returns the world→cube transform.
func (n Normalization) Matrix() vecmath.Mat4 {
	return vecmath.Scale4(n.Scale).Mul(vecmath.Translate4(n.Center.Scale(-1)))
}

// InverseMatrix returns the cube→world transform.
func (n Normalization) InverseMatrix() vecmath.Mat4 {
	return vecmath.Translate4(n.Center).Mul(vecmath.Scale4(1 / n.Scale))
}

// Apply returns a copy of c moved into the cube: positions, bind matrices and
// animation translations (joint-local; a root's parent frame is world). Normals and UVs are unchanged (uniform scale).
func (n Normalization) Apply(c *Character) *Character {
	return transformCharacter(c, n.Point, n.Scale)
}

// Invert returns a copy of c moved from the cube back to world space.
func (n Normalization) Invert(c *Character) *Character {
	return transformCharacter(c, n.InversePoint, 1/n.Scale)
}

func transformCharacter(c *Character, pt func(vecmath.Vec3) vecmath.Vec3, scale float64) *Character {
	o := c.Clone()
	for i, p := range o.Mesh.Positions {
		o.Mesh.Positions[i] = pt(p)
	}
	if o.Skeleton != nil {
		for j, b := range o.Skeleton.BindWorld {
			// Only the joint's position moves; its orientation and unit scale are kept
			// so that local rotations mean the same in both frames.
			b[12], b[13], b[14] = 0, 0, 0
			t := pt(c.Skeleton.BindWorld[j].Translation())
			b[12], b[13], b[14] = t[0], t[1], t[2]
			o.Skeleton.BindWorld[j] = b
		}
	}
	for a := range o.Animations {
		anim := o.Animations[a]
		chans := make([]AnimationChannel, len(anim.Channels))
		for i, ch := range anim.Channels {
			ch.Values = append([]float64(nil), ch.Values...)
			if ch.Path == "translation" {
				// Channels are joint-local; a root's parent frame is world space.
				isRoot := o.Skeleton != nil && ch.Joint < len(o.Skeleton.Parents) && o.Skeleton.Parents[ch.Joint] < 0
				for k := 0; k+2 < len(ch.Values); k += 3 {
					v := vecmath.Vec3{ch.Values[k], ch.Values[k+1], ch.Values[k+2]}
					if isRoot {
						v = pt(v)
					} else {
						v = v.Scale(scale)
					}
					ch.Values[k], ch.Values[k+1], ch.Values[k+2] = v[0], v[1], v[2]
				}
			}
			chans[i] = ch
		}
		anim.Channels = chans
		o.Animations[a] = anim
	}
	return o
}
