package gltfio

import (
	"fmt"

	"github.com/qmuntal/gltf"
	"github.com/rigkit/rigkit/vecmath"
)

// RestPositions returns where each of the Character's vertices is drawn in the
// scene's rest pose, in world space, as a glTF viewer shows the file: unskinned
// primitives placed by their node's world transform, skinned ones by linear blend
// skinning with their JOINTS/WEIGHTS, the joints' world transforms and the inverse
// bind matrices. Morph targets are not applied. Two files written from one source
// draw the same mesh when their rest positions agree.
func (s *Scene) RestPositions() ([]vecmath.Vec3, error) {
	out := make([]vecmath.Vec3, s.NumVertices)
	for _, ref := range s.Primitives {
		if err := s.restPrimitive(ref, out[ref.First:ref.First+ref.Count]); err != nil {
			return nil, fmt.Errorf("mesh %d primitive %d: %w", ref.Mesh, ref.Primitive, err)
		}
	}
	return out, nil
}

func (s *Scene) restPrimitive(ref PrimitiveRef, out []vecmath.Vec3) error {
	nd := s.Doc.Nodes[ref.Node]
	p := s.Doc.Meshes[*nd.Mesh].Primitives[ref.Primitive]
	pos, err := s.acc.readTyped(p.Attributes[gltf.POSITION], gltf.AccessorVec3, "POSITION")
	if err != nil {
		return err
	}
	if len(pos) != 3*len(out) {
		return fmt.Errorf("%d positions for %d vertices", len(pos)/3, len(out))
	}
	mats, err := s.skinMatrices(nd, p)
	if err != nil {
		return err
	}
	if mats == nil {
		w := s.World[ref.Node]
		for v := range out {
			out[v] = w.Point(vecmath.Vec3{pos[3*v], pos[3*v+1], pos[3*v+2]})
		}
		return nil
	}
	clear(out) // primitives that share their vertices write them again
	for set := 0; set < 2; set++ {
		ja, okJ := p.Attributes[fmt.Sprintf("JOINTS_%d", set)]
		wa, okW := p.Attributes[fmt.Sprintf("WEIGHTS_%d", set)]
		if !okJ || !okW {
			continue
		}
		js, err := s.acc.readTyped(ja, gltf.AccessorVec4, "JOINTS")
		if err != nil {
			return err
		}
		ws, err := s.acc.readTyped(wa, gltf.AccessorVec4, "WEIGHTS")
		if err != nil {
			return err
		}
		if len(js) != 4*len(out) || len(ws) != 4*len(out) {
			return fmt.Errorf("JOINTS_%d/WEIGHTS_%d: wrong length", set, set)
		}
		for v := range out {
			x := vecmath.Vec3{pos[3*v], pos[3*v+1], pos[3*v+2]}
			for k := range 4 {
				j, w := int(js[4*v+k]), ws[4*v+k]
				if w == 0 {
					continue
				}
				if j < 0 || j >= len(mats) {
					return fmt.Errorf("vertex %d: joint %d of %d", v, j, len(mats))
				}
				out[v] = out[v].Add(mats[j].Point(x).Scale(w))
			}
		}
	}
	return nil
}

// skinMatrices returns joint world × inverse bind matrix for each joint of the
// node's skin, or nil when the primitive is not skinned.
func (s *Scene) skinMatrices(nd *gltf.Node, p *gltf.Primitive) ([]vecmath.Mat4, error) {
	if nd.Skin == nil {
		return nil, nil
	}
	if _, ok := p.Attributes[gltf.JOINTS_0]; !ok {
		return nil, nil
	}
	sk := s.Doc.Skins[*nd.Skin]
	mats := make([]vecmath.Mat4, len(sk.Joints))
	var ibm []float64
	if sk.InverseBindMatrices != nil {
		v, err := s.acc.readTyped(*sk.InverseBindMatrices, gltf.AccessorMat4, "inverseBindMatrices")
		if err != nil {
			return nil, err
		}
		ibm = v
	}
	for k, j := range sk.Joints {
		m := vecmath.Identity4()
		if len(ibm) >= 16*(k+1) {
			copy(m[:], ibm[16*k:16*k+16])
		}
		mats[k] = s.World[j].Mul(m)
	}
	return mats, nil
}
