package rigmodel

import (
	"crypto/sha256"
	"encoding/hex"
)

// ShippedFingerprint identifies the embedded model checkpoint: the first 16 hex
// digits of the SHA-256 of its bytes, the same form as a skin tokenizer's
// Fingerprint, so that `rig --version` names exactly which weights a binary carries.
// It is "" when no model is shipped.
func ShippedFingerprint() string {
	if len(shippedCheckpoint) == 0 {
		return ""
	}
	sum := sha256.Sum256(shippedCheckpoint)
	return hex.EncodeToString(sum[:])[:16]
}
