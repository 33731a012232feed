package assets

import (
	"errors"
	"strings"
	"testing"
)

func TestMeasureGLTF(t *testing.T) {
	nodes := func(n int) string { return strings.TrimSuffix(strings.Repeat(`{"mesh":0},`, n), ",") }
	doc := func(nodeList, prims string) string {
		return `{"asset":{"version":"2.0"},"nodes":[` + nodeList + `],"meshes":[{"primitives":[` + prims + `]}],` +
			`"accessors":[{"count":10000},{"count":30000},{"count":12}]}`
	}
	tests := []struct {
		name string
		json string
		want GLTFSize
		over bool
	}{
		{"one instance", doc(nodes(1), `{"attributes":{"POSITION":0},"indices":1}`), GLTFSize{Nodes: 1, Primitives: 1, Vertices: 10000, Triangles: 10000}, false},
		{"2000 instances of one mesh", doc(nodes(2000), `{"attributes":{"POSITION":0},"indices":1}`), GLTFSize{Nodes: 2000, Primitives: 2000, Vertices: 20_000_000, Triangles: 20_000_000}, true},
		{"strip without indices", doc(nodes(1), `{"attributes":{"POSITION":2},"mode":5}`), GLTFSize{Nodes: 1, Primitives: 1, Vertices: 12, Triangles: 10}, false},
		{"lines count no triangles", doc(nodes(1), `{"attributes":{"POSITION":2},"mode":1}`), GLTFSize{Nodes: 1, Primitives: 1, Vertices: 12}, false},
		{"bad accessor and mesh indices", `{"nodes":[{"mesh":7},{"mesh":0}],"meshes":[{"primitives":[{"attributes":{"POSITION":9},"indices":-1}]}]}`, GLTFSize{Nodes: 2, Primitives: 1}, false},
		{"nodes without meshes", `{"nodes":[` + strings.TrimSuffix(strings.Repeat(`{},`, 200_001), ",") + `]}`, GLTFSize{Nodes: 200_001}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := MeasureGLTF([]byte(tc.json))
			if err != nil {
				t.Fatal(err)
			}
			tc.want.FileBytes, tc.want.JSONBytes = int64(len(tc.json)), int64(len(tc.json))
			if got != tc.want {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
			if err := got.Check(DefaultGLTFSizeLimit); errors.Is(err, ErrOverSize) != tc.over {
				t.Fatalf("Check: %v, want over the limit %v", err, tc.over)
			}
		})
	}
	for _, bad := range []string{"glTF", "glTF\x02\x00\x00\x00\x20\x00\x00\x00\xff\x00\x00\x00JSON{}", "{"} {
		if _, err := MeasureGLTF([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
