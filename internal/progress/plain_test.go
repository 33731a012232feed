package progress

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProgressPlainLines checks that progress written to a file (not a terminal)
// is plain lines, without carriage returns or escape codes.
func TestProgressPlainLines(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if IsTerminal(f) {
		t.Fatal("a regular file is a terminal")
	}
	p := New(f, "work", 3)
	for i := 0; i < 3; i++ {
		p.Add(1, 0)
	}
	p.Finish()
	data, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	if strings.ContainsAny(s, "\r\x1b") || !strings.HasPrefix(s, "work 3/3 ") || strings.Count(s, "\n") != 1 {
		t.Fatalf("progress %q: want one plain final line (updates come every %v)", s, PlainEvery)
	}
}
