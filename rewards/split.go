package rewards

import (
	"crypto/sha256"

	"github.com/rigkit/rigkit/dataset"
)

// The tuning protocol: reward weights and thresholds are tuned on the files of one
// half of the creature families and judged on the other, so that the figures
// reported for the rewards (docs/rewards.md) are on characters nobody tuned them to.
// Families, not files, are split because variants of one family share a skeleton
// and an artist: tuning on one and judging on its sibling flatters.

// Tuning halves of the families.
const (
	TuneHalf   = "tune"
	ReportHalf = "report"
)

// FamilyHalf returns the half (TuneHalf or ReportHalf) that a creature family
// belongs to: the low bit of the first byte of the SHA-256 of the salted family
// name, 0 to tune, 1 to report. It is deterministic across runs and machines and
// independent of which other families exist. (FNV-1a's low bit is only the parity
// of the name's bytes, so every salt gave the same split.) The salt was picked
// among 1–40 for balance on ../shared/data: 335 files (218 characters) to tune,
// 322 (230) to report.
func FamilyHalf(family string) string {
	sum := sha256.Sum256([]byte("rigkit-reward-tuning-19:" + family))
	if sum[0]%2 == 0 {
		return TuneHalf
	}
	return ReportHalf
}

// TuningFamily is the family that decides a file's tuning half: the manifest row's
// own "family" field where it has one (newer sources name their family there), else
// the dataset family (the skeleton source in the note, or the file name). The row's
// bare field, not dataset's source-prefixed family, keeps the halves FamilyHalf's
// salt was balanced on.
func TuningFamily(f dataset.File) string {
	if f.Row.Family != "" {
		return f.Row.Family
	}
	return f.Family
}
