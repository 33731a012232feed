// Package animation gives rigs motion: rigkit's own clips (walk, run, idle, wave for
// humanoids, walk for quadrupeds), kept as small JSON files of key poses, and the
// retargeting of another file's glTF animation by joint name.
//
// Both become character.Animation channels on the target skeleton. A clip's rotations
// are offsets in the character's frame (X left, Y up, Z forward) relative to a
// canonical rest pose, so one clip plays on joints that carry an orientation and on
// joints that carry none, on characters of any size and any bind pose (T or A).
// Root motion is stored in units of the hip height, so it scales to the character.
// The format and the conventions are documented in docs/animation.md.
package animation
