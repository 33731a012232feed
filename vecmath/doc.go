// Package vecmath is the 3D math of rigkit's frames: vectors, 4×4 affine matrices
// and quaternions with glTF's conventions (column-major matrices, column vectors,
// quaternions as x, y, z, w), so that transforms read from a file compose as the
// file means them. The character model and every package above it use it.
package vecmath
