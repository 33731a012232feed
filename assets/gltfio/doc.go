// Package gltfio reads glTF 2.0 and GLB files into rigkit's character model and
// writes characters back, over the scene they came from when one was kept, so that
// a rig is added to a file without losing its hierarchy, primitives or materials.
// assets.Load and assets.Save call it for .glb and .gltf files.
package gltfio
