package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestAdvantagesCommand(t *testing.T) {
	tests := []struct {
		name, in string
		args     []string
		want     string
		wantErr  bool
	}{
		{"array", "[1, 2, 3]", nil, "[-1,0,1]", false},
		{"lines", "1\n\n3\n", nil, "[-1,1]", false},
		{"score lines", `{"file":"a","score":0.25}` + "\n" + `{"file":"b","score":0.75}`, []string{"--std"}, "[-0.9999999600000016,0.9999999600000016]", false},
		{"all equal", "0.5\n0.5", []string{"--std"}, "[0,0]", false},
		{"garbage", "abc", nil, "", true},
		{"object without score", `{"file":"a","error":"x"}`, nil, "", true},
		{"extra argument", "1", []string{"x"}, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			err := runAdvantages(tc.args, strings.NewReader(tc.in), &out)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v", err)
			}
			if !tc.wantErr && strings.TrimSpace(out.String()) != tc.want {
				t.Errorf("got %s, want %s", out.String(), tc.want)
			}
		})
	}
}
