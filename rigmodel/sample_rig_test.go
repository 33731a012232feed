package rigmodel

import (
	"math"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/assets"
)

// An untrained model's streams are nonsense; the rigger must still return a valid
// rig and say which method made it.
func TestModelRiggerAlwaysGivesAValidRig(t *testing.T) {
	m, err := NewModel(tinyConfig, 11)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		floor float64
		want  string // method prefix
	}{
		{"floor forces the fallback", 1.1, "classical-skeleton+"},
		{"no floor keeps the model skeleton", 0, "tokenrig-skeleton+geodesic"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &ModelRigger{Model: m, Samples: 2, Temperature: 1, Floor: tc.floor, Seed: 1}
			c := &assets.Character{Name: "box", Mesh: creatureMesh()}
			rig, info, err := r.Rig(c)
			if err != nil {
				t.Fatal(err)
			}
			if err := CheckRig(rig); err != nil {
				t.Fatalf("invalid rig: %v", err)
			}
			for _, p := range rig.Skeleton.Positions() {
				if !p.IsFinite() {
					t.Fatalf("joint at %v", p)
				}
			}
			if !strings.HasPrefix(info.Method, tc.want) {
				t.Errorf("method %q, want %s…", info.Method, tc.want)
			}
			if (info.Fallback != "") != strings.HasPrefix(info.Method, "classical") {
				t.Errorf("method %q with fallback reason %q", info.Method, info.Fallback)
			}
			if info.Samples != 2 || len(info.SampleScores) != 2 || info.TokensPerSecond <= 0 || math.IsNaN(info.SampleScores[0]) {
				t.Errorf("info %+v", info)
			}
			if c.Skeleton != nil {
				t.Error("Rig modified its input")
			}
		})
	}
}
