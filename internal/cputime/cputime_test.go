package cputime

import "testing"

// TestProcessGrows: busy work moves the process's CPU time forward (or the
// system does not report it at all).
func TestProcessGrows(t *testing.T) {
	t0 := Process()
	x := 0.0
	for i := 0; i < 20_000_000; i++ {
		x += float64(i) * 1e-9
	}
	if t1 := Process(); t0 != 0 && t1 <= t0 {
		t.Errorf("CPU time %v then %v after busy work (%g)", t0, t1, x)
	}
}
