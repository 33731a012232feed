package format

import "fmt"

// LoadReport lists what a reader noticed and repaired or skipped without
// rejecting the file. A nil error with warnings means the character is usable but
// not exactly what the file says.
type LoadReport struct {
	// Path is the file (or name) that was loaded.
	Path string `json:"path"`
	// Format is "glb" or "gltf".
	Format string `json:"format"`
	// Warnings are human-readable notes, one per problem kind.
	Warnings []string `json:"warnings,omitempty"`
	// Orphans counts rigged vertices that had no positive joint weight; the loader
	// bound each to its nearest joint (weight 1). Load refuses such files.
	Orphans int `json:"orphans"`
	// UnnormalizedWeights counts vertices whose stored weights did not sum to 1
	// (beyond 1e-3) and were renormalized.
	UnnormalizedWeights int `json:"unnormalized_weights"`
	// SkippedPrimitives counts point and line primitives (and primitives without
	// positions) that were left out.
	SkippedPrimitives int `json:"skipped_primitives"`
}

// Warnf adds a warning.
func (r *LoadReport) Warnf(format string, args ...any) {
	r.Warnings = append(r.Warnings, fmt.Sprintf(format, args...))
}
