package rigmodel

import (
	"os"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/internal/hostile"
)

// TestHostileCheckpointConfigs loads the shipped checkpoint with each hostile
// config: every one is refused with an error naming the file and the field,
// before the model is built (a d_model of 65536 would allocate gigabytes, a
// max_seq of 2^40 overflow a slice length).
func TestHostileCheckpointConfigs(t *testing.T) {
	src, err := os.ReadFile("checkpoints/tokenrig.safetensors")
	if err != nil {
		t.Fatal(err)
	}
	cases, err := hostile.Checkpoints(t.TempDir(), "model", src, hostile.ModelConfigLies)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			_, _, err := LoadCheckpointFile(tc.Path)
			if err == nil {
				t.Fatalf("%s loaded", tc.What)
			}
			if !strings.Contains(err.Error(), tc.Path) || !strings.Contains(err.Error(), tc.Want) {
				t.Fatalf("error %q does not name the file and %q", err, tc.Want)
			}
			if err := WarmStart(&Model{Cfg: DefaultConfig}, tc.Path); err == nil || !strings.Contains(err.Error(), tc.Want) {
				t.Errorf("warm start: error %v does not name %q", err, tc.Want)
			}
		})
	}
	// The untouched checkpoint still loads.
	if _, _, err := LoadCheckpointBytes(src); err != nil {
		t.Fatal(err)
	}
}
