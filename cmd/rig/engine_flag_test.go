package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/internal/engine"
)

func TestUseEngine(t *testing.T) {
	defer engine.SetDefault(engine.Default())
	_, cudaErr := engine.Get("cuda")
	cases := []struct {
		name, engine string
		wantErr      string // substring; "" for success
		wantName     string // prefix of the engine's name on success
	}{
		{"cpu", "cpu", "", "cpu"},
		{"unknown", "tpu", "want cpu, cuda or auto", ""},
		{"auto", "auto", "", map[bool]string{true: "cuda", false: "cpu"}[cudaErr == nil]},
		{"cuda", "cuda", map[bool]string{true: "", false: "--engine cuda: cuda unavailable"}[cudaErr == nil], "cuda"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var log bytes.Buffer
			e, err := useEngine(tc.engine, 2, &log)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want one containing %q", err, tc.wantErr)
				}
				if strings.Contains(err.Error(), "using cpu") {
					t.Errorf("the error says it falls back to cpu, which it does not: %v", err)
				}
				if tc.engine == "tpu" && !errors.Is(err, errUsage) {
					t.Errorf("an unknown engine is not a usage error: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(e.Name(), tc.wantName) || engine.Default() != e {
				t.Fatalf("engine %s (default %s), want %s*", e.Name(), engine.Default().Name(), tc.wantName)
			}
			if tc.engine == "auto" && cudaErr != nil && !strings.Contains(log.String(), "cuda unavailable") {
				t.Errorf("auto fell back to cpu without saying so: %q", log.String())
			}
		})
	}
}
