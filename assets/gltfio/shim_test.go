package gltfio

import (
	"fmt"
	"io"
	"io/fs"

	"github.com/rigkit/rigkit/assets/format"
	"github.com/rigkit/rigkit/character"
)

// testOptions are the reader's options as the tests set them; they mirror
// assets.Options, which this package cannot import.
type testOptions struct {
	Budget       format.Budget
	KeepScene    bool
	AllowOrphans bool
}

// testLoad reads a glTF file the way assets.Load does.
func testLoad(path string, opt testOptions) (*character.Character, *format.LoadReport, error) {
	c, rep, err := Load(path, format.NewCounter(opt.Budget), opt.KeepScene)
	return refuseOrphans(path, c, rep, err, opt)
}

// testDecode reads glTF bytes the way assets.Decode does.
func testDecode(r io.Reader, name string, fsys fs.FS, opt testOptions) (*character.Character, *format.LoadReport, error) {
	budget := format.NewCounter(opt.Budget)
	data, err := io.ReadAll(io.LimitReader(r, budget.Limits().FileBytes+1))
	if err != nil {
		return nil, nil, err
	}
	if err := budget.ReadBytes(int64(len(data)), "input"); err != nil {
		return nil, nil, fmt.Errorf("load %s: %w", name, err)
	}
	c, rep, err := Decode(data, name, fsys, budget, opt.KeepScene)
	return refuseOrphans(name, c, rep, err, opt)
}

func refuseOrphans(name string, c *character.Character, rep *format.LoadReport, err error, opt testOptions) (*character.Character, *format.LoadReport, error) {
	if err != nil {
		return nil, nil, err
	}
	if rep.Orphans > 0 && !opt.AllowOrphans {
		return nil, nil, fmt.Errorf("load %s: %d of %d vertices have no joint weights (orphans)", name, rep.Orphans, len(c.Mesh.Positions))
	}
	return c, rep, nil
}
