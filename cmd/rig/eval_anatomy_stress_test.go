package main

import (
	"errors"
	"testing"
)

func TestStressVariants(t *testing.T) {
	for _, tc := range []struct {
		in    string
		first string
		n     int
		usage bool
	}{
		{"all", "none", 13, false},
		{"robe,fused+robe", "robe", 2, false},
		{"none,legs", "none", 2, false},
		{"legs+fused", "legs+fused", 1, false},
		{"legs,wings", "", 0, true},
	} {
		got, err := stressVariants(tc.in)
		if tc.usage {
			if !errors.Is(err, errUsage) {
				t.Errorf("%q: error %v, want a usage error", tc.in, err)
			}
			continue
		}
		if err != nil || len(got) != tc.n || got[0] != tc.first {
			t.Errorf("%q: %v %v, want %d variants starting with %s", tc.in, got, err, tc.n, tc.first)
		}
	}
}
