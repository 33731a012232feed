// Package assets reads and writes character files: one Load and one Decode for every
// format rigkit reads (glTF 2.0 and GLB in assets/gltfio, Wavefront OBJ in
// assets/obj; FBX, COLLADA and .blend refused with the command that converts them),
// one Save and Encode that write GLB or glTF over the scene a file was read with,
// and Inspect, which lists what a mesh holds and what is wrong with it.
//
// What every reader shares (the budget, the regular-file rules, the load report)
// is in assets/format; the character model itself is package character.
package assets
