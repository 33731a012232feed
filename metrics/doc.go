// Package metrics implements the quality figures of shared/METRICS.md: skinning
// against ground truth (L1, influence precision/recall, deformation error, orphans,
// empty bones) and skeleton distances (CD-J2J, CD-J2B, CD-B2B).
//
// Every figure is computed in ground truth's normalized frame (its bounding box
// centered and scaled to a largest extent of 2), so numbers from rig eval, the
// benchmarks and the papers can be set side by side.
package metrics
