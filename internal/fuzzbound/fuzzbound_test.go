package fuzzbound

import (
	"testing"
)

// sink keeps allocations alive past the compiler's escape analysis.
var sink []byte

// TestCheckFailsOverBound runs Check on calls within and over an allocation bound
// and checks which fail.
func TestCheckFailsOverBound(t *testing.T) {
	tests := []struct {
		name     string
		alloc    int
		wantFail bool
	}{
		{"within", 1 << 10, false},
		{"over", 64 << 20, true},
	}
	for _, tc := range tests {
		failed := runIsolated(func(tb testing.TB) {
			Check(tb, Bound{Alloc: 16 << 20}, func() { sink = make([]byte, tc.alloc) })
		})
		if failed != tc.wantFail {
			t.Errorf("%s: failed = %v, want %v", tc.name, failed, tc.wantFail)
		}
	}
}

// runIsolated runs f with a testing.TB whose Fatalf is recorded instead of ending
// the test.
func runIsolated(f func(testing.TB)) (failed bool) {
	r := &recorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { recover() }()
		f(r)
	}()
	<-done
	return r.failed
}

type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(string, ...any) {
	r.failed = true
	panic("fatal")
}
