// Package assets is rigkit's character model: a triangle mesh, an optional skeleton
// with its bind pose and an optional sparse skin, independent of any file format.
// It also reads and writes glTF 2.0 / GLB, normalizes characters to the [-1,1] cube,
// and poses them (forward kinematics and linear blend skinning).
//
// Frames: Mesh positions and Skeleton.BindWorld are in the character's world frame
// (glTF node transforms applied) unless a function says it works in the normalized
// cube. Every other rigkit package reads and writes characters through this one.
package assets
