package rewards

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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

// ManifestFamilies reads the "family" field of dir/manifest.jsonl: file (relative
// to dir, slash-separated) → family, for the rows that have one (newer sources
// name their family there; older ones leave it to the skeleton source in the note,
// which dataset.Discover reads). A missing manifest gives an empty map.
func ManifestFamilies(dir string) (map[string]string, error) {
	out := map[string]string{}
	path := filepath.Join(dir, "manifest.jsonl")
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("families %s: %w", path, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for line := 1; sc.Scan(); line++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var row struct{ File, Family string }
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			return nil, fmt.Errorf("families %s line %d: %w", path, line, err)
		}
		if row.File != "" && row.Family != "" {
			out[row.File] = row.Family
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("families %s: %w", path, err)
	}
	return out, nil
}
