package copilot

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/assets/format"
	"github.com/rigkit/rigkit/vecmath"
)

func TestParsePartialErrors(t *testing.T) {
	tests := []struct {
		name, json, want string
	}{
		{"unknown parent", `{"joints": [{"name": "Hips", "parent": "Root", "position": [0, 1, 0]}]}`, `unknown parent "Root"`},
		{"cycle", `{"joints": [{"name": "A", "parent": "B", "position": [0, 0, 0]}, {"name": "B", "parent": "A", "position": [0, 1, 0]}]}`, "cycle"},
		{"own parent", `{"joints": [{"name": "A", "parent": "A", "position": [0, 0, 0]}]}`, "its own parent"},
		{"duplicate", `{"joints": [{"name": "A", "parent": null, "position": [0, 0, 0]}, {"name": "A", "parent": null, "position": [0, 1, 0]}]}`, `duplicate joint name "A"`},
		{"no name", `{"joints": [{"name": " ", "parent": null, "position": [0, 0, 0]}]}`, "no name"},
		{"short position", `{"joints": [{"name": "A", "parent": null, "position": [0, 0]}]}`, "2 values"},
		{"overflowing position", `{"joints": [{"name": "A", "parent": null, "position": [1e999, 0, 0]}]}`, "1e999"},
		{"empty parent", `{"joints": [{"name": "A", "parent": "", "position": [0, 0, 0]}]}`, "use null"},
		{"no joints", `{"joints": []}`, "no joints"},
		{"unknown field", `{"joints": [{"name": "A", "parnet": null, "position": [0, 0, 0]}]}`, "parnet"},
		{"not JSON", `joints`, "JSON"},
		{"too many", manyJoints(129), "129 joints, at most 128"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParsePartial([]byte(tt.json))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func manyJoints(n int) string {
	var b strings.Builder
	b.WriteString(`{"joints": [`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"name": "j` + strings.Repeat("x", i) + `", "parent": null, "position": [0, 0, 0]}`)
	}
	b.WriteString("]}")
	return b.String()
}

func TestParsePartialOrdersParentsFirst(t *testing.T) {
	sk, err := ParsePartial([]byte(`{"joints": [
		{"name": "Hand", "parent": "Arm", "position": [2, 1, 0]},
		{"name": "Arm", "parent": "Hips", "position": [1, 1, 0]},
		{"name": "Hips", "parent": null, "position": [0, 1, 0.25]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(sk.Names, " "); got != "Hips Arm Hand" {
		t.Fatalf("order %q, want parents first", got)
	}
	if sk.Parents[0] != -1 || sk.Parents[1] != 0 || sk.Parents[2] != 1 {
		t.Fatalf("parents %v", sk.Parents)
	}
	if p := sk.Position(0); p != (vecmath.Vec3{0, 1, 0.25}) {
		t.Fatalf("Hips at %v, want the given position exactly", p)
	}
	if err := sk.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestBuildPartialRefusesNonFinite(t *testing.T) {
	m := vecmath.Translate4(vecmath.Vec3{math.NaN(), 0, 0})
	_, err := buildPartial([]string{"A"}, []string{""}, []vecmath.Mat4{m})
	if err == nil || !strings.Contains(err.Error(), "not finite") {
		t.Fatalf("error %v, want a non-finite position", err)
	}
}

func TestLoadPartialFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ok := write("ok.json", `{"joints": [{"name": "Hips", "parent": null, "position": [0, 1, 0]}]}`)
	tests := []struct {
		name, path string
		budget     format.Budget
		want       string
	}{
		{"over budget", ok, format.Budget{JSONBytes: 10}, "over the budget"},
		{"missing", filepath.Join(dir, "none.json"), format.Budget{}, "none.json"},
		{"extension", write("p.txt", "x"), format.Budget{}, "want a .json"},
		{"unrigged glTF", write("mesh.gltf", `{"asset": {"version": "2.0"}}`), format.Budget{}, "mesh.gltf"},
		{"bad JSON names the file", write("bad.json", `{`), format.Budget{}, "bad.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := LoadPartial(tt.path, tt.budget)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
	if sk, idle, err := LoadPartial(ok, format.Budget{}); err != nil || sk.NumJoints() != 1 || idle != nil {
		t.Fatalf("LoadPartial(ok) = %v, %v, %v", sk, idle, err)
	}
}

// FuzzParsePartial: any bytes give a valid skeleton (parents first, finite) or an
// error, never a panic.
func FuzzParsePartial(f *testing.F) {
	f.Add([]byte(`{"joints": [{"name": "A", "parent": null, "position": [0, 1, 0]}, {"name": "B", "parent": "A", "position": [0, 2, 0]}]}`))
	f.Add([]byte(`{"joints": [{"name": "A", "parent": "B", "position": [0, 0, 0]}, {"name": "B", "parent": "A", "position": [0, 1, 0]}]}`))
	f.Add([]byte(`{"joints": null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		sk, err := ParsePartial(data)
		if err != nil {
			return
		}
		if err := sk.Validate(); err != nil {
			t.Fatalf("accepted an invalid skeleton: %v", err)
		}
	})
}
