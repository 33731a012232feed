package gltfio

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rigkit/rigkit/assets/format"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// LoadMotion reads the skeleton and the animations of a .glb or .gltf file, as Load
// reads files (budget, regular files inside the folder), for a file that may hold
// no mesh: motion libraries ship clips on a bare skeleton.
func LoadMotion(path string, budget *format.Counter) (*character.Character, error) {
	data, err := format.ReadInput(path, budget)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	root, err := os.OpenRoot(filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	defer root.Close()
	return DecodeMotion(data, path, format.RootFS{Root: root}, budget)
}

// DecodeMotion reads a file's skeleton and animations into a Character without a
// mesh. The joints are every skin's joints, bound by their inverse bind matrices,
// or, in a file without skins, every node of the default scene that draws no mesh
// and holds no camera, bound at its rest world transform. Root joints' channels
// are stored in the skeleton's frame (the skins' bind space), as Decode stores
// them. A file with neither joints nor joint animations is an error naming it.
func DecodeMotion(data []byte, name string, dir fs.FS, budget *format.Counter) (c *character.Character, err error) {
	defer func() {
		if r := recover(); r != nil {
			c, err = nil, fmt.Errorf("load %s: %w: %v", name, ErrDecoderPanic, r)
		}
	}()
	l, err := openDocument(data, dir, &format.LoadReport{Path: name}, budget)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", name, err)
	}
	toChar, err := l.motionJoints()
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", name, err)
	}
	base := filepath.Base(name)
	c = &character.Character{Name: strings.TrimSuffix(base, filepath.Ext(base))}
	l.buildSkeleton(c)
	if err := l.readAnimationsIn(c, toChar); err != nil {
		return nil, fmt.Errorf("load %s: %w", name, err)
	}
	if len(c.Animations) == 0 {
		return nil, fmt.Errorf("load %s: no animation drives its %d joints", name, c.Skeleton.NumJoints())
	}
	return c, nil
}

// motionJoints registers the joints of a motion file and returns the map from the
// world to their bind frame.
func (l *loader) motionJoints() (vecmath.Mat4, error) {
	if len(l.doc.Skins) > 0 {
		for s := range l.doc.Skins {
			if _, err := l.useSkin(s); err != nil {
				return vecmath.Mat4{}, err
			}
		}
		if inv, ok := l.bindToWorld().Inverse(); ok {
			return inv, nil
		}
		return vecmath.Identity4(), nil
	}
	for _, node := range l.sceneNodes() {
		nd := l.doc.Nodes[node]
		if nd.Mesh != nil || nd.Camera != nil {
			continue
		}
		l.joints.of[node] = len(l.jointNode)
		l.jointNode = append(l.jointNode, node)
		l.bindWorld = append(l.bindWorld, l.world[node])
	}
	if len(l.jointNode) == 0 {
		return vecmath.Mat4{}, fmt.Errorf("no skin and no node to use as a joint")
	}
	if err := l.budget.Instance(len(l.jointNode), "joints"); err != nil {
		return vecmath.Mat4{}, err
	}
	return vecmath.Identity4(), nil
}

// sceneNodes returns every node of the default scene (all scenes when there is
// none), parents first.
func (l *loader) sceneNodes() []int {
	var out []int
	seen := make([]bool, len(l.doc.Nodes))
	var walk func(i int)
	walk = func(i int) {
		if i < 0 || i >= len(l.doc.Nodes) || seen[i] {
			return
		}
		seen[i] = true
		out = append(out, i)
		for _, ch := range l.doc.Nodes[i].Children {
			walk(ch)
		}
	}
	for _, r := range l.sceneRoots() {
		walk(r)
	}
	return out
}
