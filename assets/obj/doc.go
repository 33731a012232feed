// Package obj reads Wavefront OBJ meshes with their MTL materials and textures into
// rigkit's character model; assets.Load calls it for .obj files.
package obj
