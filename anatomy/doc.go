// Package anatomy turns a proposed skeleton (the classical Reeb-graph skeleton, whose
// joints follow the mesh's shape but carry no meaning) into an animator's skeleton:
// the root at the pelvis or the centre of mass, limbs hung from the spine or the
// pelvis, left and right mirrored across the mesh's symmetry plane, joints named
// after a template of the creature's kind (Mixamo's names for humanoids, so that
// clips made for Mixamo rigs retarget by name) and oriented so that each bone points
// from its joint to its child along local +Y, as Blender draws bones.
//
// Fit detects what it is not told: the up axis (Y or Z), the symmetry plane and the
// kind (humanoid, quadruped, bird, fish, snake, other), and reports each with how
// sure it is. The naming scheme is docs/naming.md; the method and its measurements
// are docs/anatomy.md.
//
// Frames. Fit works in a canonical frame: +Y up, +Z forward (the character faces
// +Z) and +X the character's left, the glTF and Mixamo convention. A Z-up mesh is
// read as Blender writes one (facing -Y, left +X); the result is always in the mesh's
// own world frame.
package anatomy
