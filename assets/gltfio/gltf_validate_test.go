package gltfio

import (
	"strings"
	"testing"
)

// TestCheckEnums refuses each enum value outside the glTF 2.0 specification and
// accepts the spec's values and absent optional fields.
func TestCheckEnums(t *testing.T) {
	tests := []struct {
		name, json, want string // want "" accepts
	}{
		{"valid", `{"accessors":[{"componentType":5126,"type":"VEC3"}],"meshes":[{"primitives":[{"mode":4}]}],
			"samplers":[{"magFilter":9729,"minFilter":9987,"wrapS":10497,"wrapT":33071}],"bufferViews":[{"target":34962}],
			"animations":[{"samplers":[{"interpolation":"STEP"}],"channels":[{"target":{"path":"rotation"}}]}],
			"materials":[{"alphaMode":"MASK"}],"cameras":[{"type":"perspective"}]}`, ""},
		{"optional fields absent", `{"meshes":[{"primitives":[{}]}],"samplers":[{}],"materials":[{}]}`, ""},
		{"componentType", `{"accessors":[{"componentType":9999,"type":"VEC3"}]}`, "accessor 0: componentType 9999"},
		{"componentType missing", `{"accessors":[{"type":"VEC3"}]}`, "componentType is missing"},
		{"accessor type", `{"accessors":[{"componentType":5126,"type":"VEC5"}]}`, `type "VEC5"`},
		{"sparse index type", `{"accessors":[{"componentType":5126,"type":"VEC3","sparse":{"indices":{"componentType":5126}}}]}`, "sparse indices: componentType 5126"},
		{"mode", `{"meshes":[{"primitives":[{"mode":77}]}]}`, "mesh 0 primitive 0: mode 77"},
		{"target", `{"bufferViews":[{"target":1}]}`, "bufferView 0: target 1"},
		{"magFilter", `{"samplers":[{"magFilter":9984}]}`, "magFilter 9984"},
		{"minFilter", `{"samplers":[{"minFilter":1}]}`, "minFilter 1"},
		{"wrapS", `{"samplers":[{"wrapS":0}]}`, "wrapS 0"},
		{"wrapT", `{"samplers":[{"wrapT":33072}]}`, "wrapT 33072"},
		{"interpolation", `{"animations":[{"samplers":[{"interpolation":"SMOOTH"}]}]}`, `interpolation "SMOOTH"`},
		{"path", `{"animations":[{"channels":[{"target":{"path":"pointer"}}]}]}`, `target.path "pointer"`},
		{"path with KHR_animation_pointer", `{"extensionsUsed":["KHR_animation_pointer"],"animations":[{"channels":[{"target":{"path":"pointer"}}]}]}`, ""},
		{"alphaMode", `{"materials":[{"alphaMode":"ADD"}]}`, `alphaMode "ADD"`},
		{"camera type", `{"cameras":[{"type":"fisheye"}]}`, `camera 0: type "fisheye"`},
		{"many", `{"meshes":[{"primitives":[{"mode":7},{"mode":8},{"mode":9},{"mode":10}]}]}`, "and 1 more"},
	}
	for _, tc := range tests {
		err := checkEnums([]byte(tc.json))
		if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestScanJSONCounts checks the object-and-array and top-level node counts of the
// pre-decode scan, including braces inside strings, nested "nodes" keys, and keys
// the decoder reads as "nodes" (case-folded, escaped, repeated).
func TestScanJSONCounts(t *testing.T) {
	tests := []struct {
		json           string
		objects, nodes int
	}{
		{`{}`, 1, 0},
		{`{"nodes":[]}`, 2, 0},
		{`{"nodes":[{},{},{"children":[1]}]}`, 6, 3},
		{`{"nodes":[ {} ]}`, 3, 1},
		{`{"scenes":[{"nodes":[0,1,2]}],"nodes":[{"name":"a{b}\"{"}]}`, 6, 1},
		{`{"asset":{"generator":"{{{"},"nodes":[{},{}]}`, 5, 2},
		{`{"Nodes":[{},{}]}`, 4, 2},
		{`{"node\u0073":[{},{},{}]}`, 5, 3},
		{`{"NODES":[{}],"nodes":[{},{}]}`, 6, 3},
		{`{"asset":{"extras":[[],[],[[]]]}}`, 7, 0},
	}
	for _, tc := range tests {
		if o, n := scanJSONCounts([]byte(tc.json)); o != tc.objects || n != tc.nodes {
			t.Errorf("%s: %d objects, %d nodes; want %d, %d", tc.json, o, n, tc.objects, tc.nodes)
		}
	}
}
