package meshtest

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// SharedData returns the path of rel inside ../shared/data beside the repository
// root, skipping the test when it is absent: the real rigs are not part of the
// repository, and a clean checkout without them still passes.
func SharedData(t testing.TB, rel string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	path := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "data", rel)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("real data not found at %s: %v", path, err)
	}
	return path
}
