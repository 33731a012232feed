package autorig

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFinished: a written rig whose report says ok or suspect is finished (a
// rerun does not rig it again); a failed one, or one whose GLB is missing, is not.
func TestFinished(t *testing.T) {
	for _, tc := range []struct {
		status string
		glb    bool
		want   bool
	}{
		{"ok", true, true},
		{"suspect", true, true},
		{"failed", true, false},
		{"ok", false, false},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "a.json"), []byte(`{"status": "`+tc.status+`"}`), 0o644); err != nil {
			t.Fatal(err)
		}
		if tc.glb {
			if err := os.WriteFile(filepath.Join(dir, "a.glb"), []byte("glTF"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if got := Finished(dir, "a"); got != tc.want {
			t.Errorf("status %s, glb %v: Finished %v, want %v", tc.status, tc.glb, got, tc.want)
		}
	}
}
