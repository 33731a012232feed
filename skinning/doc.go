// Package skinning computes skin weights for a character whose skeleton is given:
// geodesic voxel binding (distances from each bone through a solid voxelization of the
// mesh, turned into weights by a falloff), heat diffusion over the welded surface
// (Heat, after Baran & Popović 2007) and the rigid nearest-bone floor of
// shared/METRICS.md.
//
// # Bones
//
// A bone is owned by a joint, as in Blender: joint j owns the segment from j to each
// of its children. A joint without children owns the single point at its position
// (so a leaf that is an end site never steals vertices from its parent's segment).
// Every distance in this package is to the nearest point of the segments a joint owns.
// The same definition is the "nearest bone segment" of the rigid floor.
//
// The package also exposes the geodesic distance field itself (Field) so that a learned
// model can mask its decoded weights to the region of each bone that is reachable
// through the solid, and a leakage measure (Leakage) that reports how much weight any
// skin puts on bones whose only short path to a vertex leaves the solid.
package skinning
