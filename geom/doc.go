// Package geom answers geometric questions about triangle meshes: inside/outside by
// fast generalized winding number, closest points, surface and volume sampling and
// the mesh edge graph. It is the geometry under rigkit's rewards and skinning code;
// every query structure is built once and is then safe for concurrent use.
package geom
