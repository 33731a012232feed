package khronos

import (
	"errors"
	"os"
	"testing"
)

// Check validates files and fails t on any validator error. Without node or the
// installed validator it only logs, unless RIGKIT_REQUIRE_VALIDATOR=1 (as `make
// test` sets it), where it fails: CI never passes without validating.
func Check(t testing.TB, files ...string) {
	t.Helper()
	if len(files) == 0 {
		return
	}
	out, err := Validate(files...)
	if errors.Is(err, ErrNoValidator) {
		if os.Getenv("RIGKIT_REQUIRE_VALIDATOR") == "1" {
			t.Fatalf("%v and RIGKIT_REQUIRE_VALIDATOR=1", err)
		}
		t.Log(err)
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if testing.Verbose() && len(files) <= 4 {
		t.Log(out)
	}
}
