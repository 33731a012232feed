package workgroup

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"
)

func TestGroup(t *testing.T) {
	tests := []struct {
		name      string
		panicAt   int // index of the goroutine that panics; -1 none
		wantPanic string
	}{
		{"none panic", -1, ""},
		{"first panics", 0, "boom 0"},
		{"last panics", 7, "boom 7"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var ran atomic.Int32
			err := Recover(func() {
				var g Group
				for i := range 8 {
					g.Go(func() {
						ran.Add(1)
						if i == tc.panicAt {
							panic("boom " + string(rune('0'+i)))
						}
					})
				}
				g.Wait()
			})
			if ran.Load() != 8 {
				t.Errorf("%d goroutines ran, want 8 (Wait must wait for all)", ran.Load())
			}
			if tc.wantPanic == "" {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			var p *Panic
			if !errors.As(err, &p) || p.Value != tc.wantPanic {
				t.Fatalf("error %v, want a *Panic of %q", err, tc.wantPanic)
			}
			if !strings.Contains(string(p.Stack), "workgroup_test.go") {
				t.Errorf("the stack does not name the goroutine that panicked:\n%s", p.Stack)
			}
		})
	}
}

func TestRecoverNilPointer(t *testing.T) {
	var m map[string]int
	var p *struct{ x int }
	tests := []struct {
		name string
		f    func()
		want string
	}{
		{"nil pointer", func() { _ = p.x }, "nil pointer"},
		{"nil map write", func() { m["a"] = 1 }, "nil map"},
		{"no panic", func() {}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Recover(tc.f)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
