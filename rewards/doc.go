// Package rewards scores a rigged character without ground truth: geometric rewards
// in [0,1] (containment, coverage, skin completeness, locality, deformation
// smoothness, skeleton sanity), a combined score, human-readable reports, the
// degenerate rigs ("hacks") the rewards must resist, and GRPO group advantages.
// RL fine-tuning, batch quality gates and `rig score` / `rig serve` all go through
// Score; every reward works in the normalized [-1,1] cube of character.NormalizationOf.
package rewards
