package assets

import (
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/rigkit/rigkit/assets/format"
	"github.com/rigkit/rigkit/assets/gltfio"
	"github.com/rigkit/rigkit/assets/obj"
	"github.com/rigkit/rigkit/character"
)

// Options configures one Load or Decode. The zero value reads within the process
// budget, keeps no source scene and refuses rigs with orphan vertices.
type Options struct {
	// Budget caps what the file may make the reader spend; zero fields take
	// CurrentBudget's values.
	Budget format.Budget
	// KeepScene keeps the file's glTF document in Character.Source, so that Save
	// writes the input back with the character's rig (hierarchy, primitives,
	// materials and extensions kept). Formats without a document ignore it.
	KeepScene bool
	// AllowOrphans binds rigged vertices without joint weights to their nearest
	// joint (counted in the report) instead of refusing the file.
	AllowOrphans bool
	// Cancel stops the load with format.ErrLoadCanceled when it closes (nil:
	// never), at the next count the budget charges.
	Cancel <-chan struct{}
}

// Load reads a mesh file into one Character: glTF 2.0 (.glb, .gltf with external
// files beside it) or Wavefront OBJ (.obj with its MTL libraries and textures); FBX,
// COLLADA and .blend get an error that carries the commands converting them. The
// file and every file it names must be regular files inside its folder, read within
// the budget. Corrupt input returns an error naming the file; it never panics.
func Load(path string, opt Options) (*character.Character, *format.LoadReport, error) {
	if err := format.UnsupportedFormat(path); err != nil {
		return nil, nil, err
	}
	var (
		c   *character.Character
		rep *format.LoadReport
		err error
	)
	if isOBJ(path) {
		c, rep, err = obj.Load(path, format.NewCounter(opt.Budget).WithCancel(opt.Cancel))
	} else {
		c, rep, err = gltfio.Load(path, format.NewCounter(opt.Budget).WithCancel(opt.Cancel), opt.KeepScene)
	}
	return checkOrphans(path, c, rep, err, opt)
}

// Decode reads one mesh from r; name labels errors, sets Character.Name and picks
// the format (.obj is OBJ; anything else is GLB or glTF JSON, told apart by the
// bytes), and fsys resolves the external files the mesh names (nil: none are
// read). At most the budget's FileBytes are read from r.
func Decode(r io.Reader, name string, fsys fs.FS, opt Options) (*character.Character, *format.LoadReport, error) {
	data, err := io.ReadAll(io.LimitReader(r, format.NewCounter(opt.Budget).Limits().FileBytes+1))
	if err != nil {
		return nil, nil, fmt.Errorf("load %s: %w", name, err)
	}
	return DecodeBytes(data, name, fsys, opt)
}

// DecodeBytes is Decode of a file already in memory: data is read in place (the
// character may keep slices of it), with no copy, so a service holding an upload
// decodes it without a second buffer of its size.
func DecodeBytes(data []byte, name string, fsys fs.FS, opt Options) (*character.Character, *format.LoadReport, error) {
	budget := format.NewCounter(opt.Budget).WithCancel(opt.Cancel)
	var err error
	if err := budget.ReadBytes(int64(len(data)), "input"); err != nil {
		return nil, nil, fmt.Errorf("load %s: %w", name, err)
	}
	var (
		c   *character.Character
		rep *format.LoadReport
	)
	if isOBJ(name) {
		c, rep, err = obj.Decode(data, name, fsys, budget)
	} else {
		c, rep, err = gltfio.Decode(data, name, fsys, budget, opt.KeepScene)
	}
	return checkOrphans(name, c, rep, err, opt)
}

// Save writes c to path as GLB when path ends in .glb (any case) and as .gltf with
// its buffer embedded as a data: URI otherwise, atomically (a temporary sibling,
// synced, renamed over path).
//
// A character read with Options.KeepScene is written over its source scene: the
// output is the input plus the rig (every node, mesh, primitive, material, texture,
// extension and extra kept; see Save), and the report says what the save
// replaced or dropped. Any other character becomes a new scene and the report is
// nil: a rigged character is one skinned mesh whose joints are nodes (local T·R·S
// from BindWorld, inverse bind matrices the inverses of BindWorld), each vertex
// keeping its MaxInfluencesWritten heaviest weights renormalized (JOINTS_0 as
// unsigned bytes up to 256 joints, unsigned shorts beyond); normals are computed
// when the mesh has none; materials, base colour textures, UVs and animations are
// written when present.
func Save(path string, c *character.Character) (*gltfio.SceneReport, error) {
	return gltfio.Save(path, c)
}

// Encode writes c as GLB to w (see Save).
func Encode(w io.Writer, c *character.Character) (*gltfio.SceneReport, error) {
	return gltfio.Encode(w, c)
}

// LoadMotion reads the skeleton and animations of a glTF file that may hold no
// mesh (a motion library's clip on a bare skeleton), within the budget; other
// formats are refused. The Character has no mesh.
func LoadMotion(path string, opt Options) (*character.Character, error) {
	if err := format.UnsupportedFormat(path); err != nil {
		return nil, err
	}
	if isOBJ(path) {
		return nil, fmt.Errorf("load %s: an OBJ file holds no skeleton or animation; give a .glb or .gltf", path)
	}
	return gltfio.LoadMotion(path, format.NewCounter(opt.Budget))
}

// isOBJ reports whether name is read as Wavefront OBJ.
func isOBJ(name string) bool { return strings.EqualFold(filepath.Ext(name), ".obj") }

// checkOrphans passes a loaded character on unless its rig has orphan vertices and
// the options refuse them.
func checkOrphans(name string, c *character.Character, rep *format.LoadReport, err error, opt Options) (*character.Character, *format.LoadReport, error) {
	if err != nil {
		return nil, nil, err
	}
	if rep.Orphans > 0 && !opt.AllowOrphans {
		return nil, nil, fmt.Errorf("load %s: %d of %d vertices have no joint weights (orphans); load with AllowOrphans to bind them to their nearest joint",
			name, rep.Orphans, len(c.Mesh.Positions))
	}
	return c, rep, nil
}

// Loader returns Load with these options as a function of the path alone: the
// shape of the Load hooks in batch, training, evaluation and viewer options, which
// take a loader so that tests can hand them characters without files.
func (o Options) Loader() func(path string) (*character.Character, error) {
	return func(path string) (*character.Character, error) {
		c, _, err := Load(path, o)
		return c, err
	}
}
