package assets

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/rigkit/rigkit/character"
)

// loadFileBudget is a glTF load charging budget.
func loadFileBudget(path string, budget *budgetCounter) (*character.Character, *LoadReport, error) {
	return loadFileKeeping(path, budget, false)
}

// loadFileKeeping is loadFileBudget that also keeps the source scene when keepScene.
func loadFileKeeping(path string, budget *budgetCounter, keepScene bool) (*character.Character, *LoadReport, error) {
	data, err := readInput(path, budget)
	if err != nil {
		return nil, nil, fmt.Errorf("load %s: %w", path, err)
	}
	root, err := os.OpenRoot(filepath.Dir(path))
	if err != nil {
		return nil, nil, fmt.Errorf("load %s: %w", path, err)
	}
	defer root.Close()
	return decodeKeeping(data, path, rootFS{root}, budget, keepScene)
}

// ReadFile reads a file for Decode the way LoadFile does: it must be a regular file
// (a FIFO or device is refused without blocking) within the process budget's
// FileBytes, checked before a byte is read. Commands that score or hash a file's
// bytes use it instead of os.ReadFile.
func ReadFile(path string) ([]byte, error) {
	data, err := readInput(path, newBudgetCounter(Budget{}))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return data, nil
}
