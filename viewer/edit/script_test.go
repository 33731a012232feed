package edit

import (
	"strings"
	"testing"
)

// TestDecodeScript lists scripts that must be refused, and what the error says.
func TestDecodeScript(t *testing.T) {
	for _, tc := range []struct{ script, want string }{
		{`[{"op":"move","joint":"a"}]`, `exactly one of "delta", "to" and "along"`},
		{`[{"op":"move","joint":"a","delta":[1,0,0],"to":[0,0,0]}]`, `exactly one of`},
		{`[{"op":"add","at":[0,0,0]}]`, `needs "parent"`},
		{`[{"op":"reparent","joint":"a"}]`, `needs "parent" ("" for a root)`},
		{`[{"op":"rename","joint":"a"}]`, `needs "name"`},
		{`[{"op":"reskin","scope":"some"}]`, `scope "some"`},
		{`[{"op":"move","joint":"a","delta":[1,0]}]`, `want [x, y, z], got 2 numbers`},
		{`[{"op":"add","parent":"p","at":[1,2,3,4]}]`, `got 4 numbers`},
		{`[{"op":"move","joint":"a","to":"up"}]`, `want [x, y, z]`},
		{`[] []`, `data after`},
		{`[{"op":"undo"}, {"op":"fly"}]`, `edit 2 ("fly"): unknown op`},
	} {
		_, err := DecodeScript([]byte(tc.script))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("DecodeScript(%s) = %v, want an error containing %q", tc.script, err, tc.want)
		}
	}
	steps, err := DecodeScript([]byte(`[{"op":"move","joint":"a","along":-0.5},{"op":"reparent","joint":"a","parent":""},{"op":"save"}]`))
	if err != nil || len(steps) != 3 || *steps[0].Along != -0.5 || *steps[1].Parent != "" {
		t.Errorf("a good script: %+v, %v", steps, err)
	}
}

// FuzzDecodeScript: any bytes decode or fail with an error, never a panic, and
// every decoded step passes its own check.
func FuzzDecodeScript(f *testing.F) {
	f.Add([]byte(`[{"op":"move","joint":"a","delta":[1,2,3]},{"op":"save","out":"x.glb"}]`))
	f.Add([]byte(`[{"op":"add","parent":"p","at":[0,0,0],"name":"n"}]`))
	f.Add([]byte(`[{"op":"reskin","method":"tokens","scope":"all"},{"op":"undo"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		steps, err := DecodeScript(data)
		if err != nil {
			return
		}
		for i, s := range steps {
			if err := s.check(); err != nil {
				t.Fatalf("step %d decoded but fails its check: %v", i, err)
			}
		}
	})
}
