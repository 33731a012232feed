package dataset

import (
	"crypto/sha256"
	"hash/fnv"
)

// The split rule. A family is held out when a salted FNV-1a hash of its name is 0
// modulo HeldOutModulus and it has at most MaxHeldOutFamily files: one family in five,
// stable across runs and machines, while the few very large families (a pack's 50
// monsters, 0 A.D.'s 47 clothed human bodies) always train, or the held-out part would
// be a handful of rigs. The salt is chosen so that the held-out part of ../shared/data
// holds every category (`rig dataset ../shared/data` prints it).
const (
	splitSalt        = "rigkit-split-1078:"
	HeldOutModulus   = 5
	MaxHeldOutFamily = 20
)

// HeldOut reports whether the file belongs to the held-out part.
func (f File) HeldOut() bool {
	return f.FamilySize <= MaxHeldOutFamily && familyHash(f.Family)%HeldOutModulus == 0
}

func familyHash(family string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(splitSalt + family))
	return h.Sum32()
}

// Split divides files into the training and held-out parts.
func Split(files []File) (train, heldOut []File) {
	for _, f := range files {
		if f.HeldOut() {
			heldOut = append(heldOut, f)
		} else {
			train = append(train, f)
		}
	}
	return train, heldOut
}

// The tuning halves. Reward weights and thresholds are tuned on the files of one
// half of the creature families and judged on the other, so that the figures
// reported for the rewards (docs/rewards.md) are on characters nobody tuned them to.
// Families, not files, are split because variants of one family share a skeleton
// and an artist: tuning on one and judging on its sibling flatters.
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

// TuningFamily is the family that decides the file's tuning half: the manifest
// row's own "family" field where it has one (newer sources name their family there),
// else the split's family (the skeleton source in the note, or the file name). The
// row's bare field, not the source-prefixed Family, keeps the halves FamilyHalf's
// salt was balanced on.
func (f File) TuningFamily() string {
	if f.Row.Family != "" {
		return f.Row.Family
	}
	return f.Family
}
