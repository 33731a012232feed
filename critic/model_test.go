package critic

import (
	"encoding/json"
	"testing"
)

// TestShipped: the shipped critic parses, has fitted weights and says what it
// was trained on.
func TestShipped(t *testing.T) {
	c, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	nonzero := 0
	for _, w := range c.Weights {
		if w != 0 {
			nonzero++
		}
	}
	if nonzero == 0 || c.Training.Characters == 0 || c.Training.Pairs == 0 || c.Training.Command == "" || c.Training.Attribution == "" {
		t.Fatalf("critic: %d nonzero weights, training %+v: want a fitted critic with its provenance", nonzero, c.Training)
	}
}

// TestParseRejects: a critic file that does not match the features or
// holds non-finite numbers is refused.
func TestParseRejects(t *testing.T) {
	tests := []struct{ name, json string }{
		{"not json", `{`},
		{"wrong features", `{"features": ["a"], "mean": [0], "scale": [1], "weights": [1]}`},
		{"short arrays", `{"features": ` + namesJSON() + `, "mean": [0], "scale": [1], "weights": [1]}`},
	}
	for _, tc := range tests {
		if _, err := Parse([]byte(tc.json)); err == nil {
			t.Errorf("%s: parsed", tc.name)
		}
	}
	c, _ := Shipped()
	bad := *c
	bad.Scale = append([]float64(nil), c.Scale...)
	bad.Scale[0] = 0
	if _, err := Parse(mustJSON(t, bad)); err == nil {
		t.Error("zero scale: parsed")
	}
}

func namesJSON() string {
	b, _ := json.Marshal(FeatureNames)
	return string(b)
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
