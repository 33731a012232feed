package skincodec

import (
	"strings"
	"testing"

	"github.com/rigkit/rigkit/internal/hostile"
)

// TestHostileSkinCheckpointConfigs loads the shipped skin tokenizer with each
// hostile config: every one is refused with an error naming the file and the
// field, before the network is built.
func TestHostileSkinCheckpointConfigs(t *testing.T) {
	cases, err := hostile.Checkpoints(t.TempDir(), "skin", shippedCheckpoint, hostile.SkinConfigLies)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			_, err := Load(tc.Path)
			if err == nil {
				t.Fatalf("%s loaded", tc.What)
			}
			if !strings.Contains(err.Error(), tc.Path) || !strings.Contains(err.Error(), tc.Want) {
				t.Fatalf("error %q does not name the file and %q", err, tc.Want)
			}
		})
	}
	if _, err := readSkinTokenizer(strings.NewReader(string(shippedCheckpoint))); err != nil {
		t.Fatal(err)
	}
}
