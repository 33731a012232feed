package assets

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/rigkit/rigkit/assets/format"
	"github.com/rigkit/rigkit/character"
)

// loadFileBudget is a glTF load charging budget.
func loadFileBudget(path string, budget *format.Counter) (*character.Character, *format.LoadReport, error) {
	return loadFileKeeping(path, budget, false)
}

// loadFileKeeping is loadFileBudget that also keeps the source scene when keepScene.
func loadFileKeeping(path string, budget *format.Counter, keepScene bool) (*character.Character, *format.LoadReport, error) {
	data, err := format.ReadInput(path, budget)
	if err != nil {
		return nil, nil, fmt.Errorf("load %s: %w", path, err)
	}
	root, err := os.OpenRoot(filepath.Dir(path))
	if err != nil {
		return nil, nil, fmt.Errorf("load %s: %w", path, err)
	}
	defer root.Close()
	return decodeKeeping(data, path, format.RootFS{Root: root}, budget, keepScene)
}
