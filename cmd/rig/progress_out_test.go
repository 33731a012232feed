package main

import (
	"bytes"
	"testing"
	"time"
)

func TestPlainProgress(t *testing.T) {
	bar := "\rwork 1/4\x1b[K\rwork 2/4\x1b[K\rwork 3/4\x1b[K\rwork 4/4\x1b[K\n\r\x1b[Kstep 10: loss 0.5\n\rnext 1/9"
	tests := []struct {
		name  string
		every time.Duration
		want  string
	}{
		{"every state", 0, "work 1/4\nwork 2/4\nwork 3/4\nwork 4/4\nstep 10: loss 0.5\n"},
		// The first state passes, then within the interval only whole lines; the
		// unfinished last state waits.
		{"throttled", time.Hour, "work 1/4\nwork 4/4\nstep 10: loss 0.5\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			p := &plainProgress{w: &out, every: tc.every}
			for i := 0; i < len(bar); i += 3 { // writes split inside escape sequences too
				if _, err := p.Write([]byte(bar[i:min(i+3, len(bar))])); err != nil {
					t.Fatal(err)
				}
			}
			if out.String() != tc.want {
				t.Fatalf("got %q, want %q", out.String(), tc.want)
			}
		})
	}
}
