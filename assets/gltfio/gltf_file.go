package gltfio

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/rigkit/rigkit/assets/format"
	"github.com/rigkit/rigkit/character"
)

// loadFileBudget is Load without keeping the scene.
func loadFileBudget(path string, budget *format.Counter) (*character.Character, *format.LoadReport, error) {
	return Load(path, budget, false)
}

// Load reads a .glb or .gltf file (see Decode) charging budget: the file must be a
// regular file within its FileBytes, and its external buffers and images are opened
// through an os.Root at its folder as regular files inside it, so no byte of any
// other file reaches the character. keepScene keeps the document (Decode).
func Load(path string, budget *format.Counter, keepScene bool) (*character.Character, *format.LoadReport, error) {
	data, err := format.ReadInput(path, budget)
	if err != nil {
		return nil, nil, fmt.Errorf("load %s: %w", path, err)
	}
	root, err := os.OpenRoot(filepath.Dir(path))
	if err != nil {
		return nil, nil, fmt.Errorf("load %s: %w", path, err)
	}
	defer root.Close()
	return Decode(data, path, format.RootFS{Root: root}, budget, keepScene)
}
