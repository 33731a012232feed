package assets

import (
	"fmt"
	"github.com/rigkit/rigkit/character"
	"io/fs"
	"os"
	"path/filepath"
)

// LoadOptions configures one load. The zero value loads with the process budget
// (CurrentBudget: DefaultBudget unless a command raised it).
type LoadOptions struct {
	// Budget caps the load; zero fields take CurrentBudget's values.
	Budget Budget
}

// LoadFileWith is LoadFile with options. The file must be a regular file within
// the budget's FileBytes (checked before it is read); its external buffers and
// images are opened through an os.Root on its folder and must be regular files
// inside that folder (a symlink that leaves it is refused), so no byte of any other
// file reaches the character.
func LoadFileWith(path string, opt LoadOptions) (*character.Character, *LoadReport, error) {
	return loadFileBudget(path, newBudgetCounter(opt.Budget))
}

// loadFileBudget is LoadFileWith charging budget.
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

// DecodeWith is Decode with options.
func DecodeWith(data []byte, name string, dir fs.FS, opt LoadOptions) (*character.Character, *LoadReport, error) {
	budget := newBudgetCounter(opt.Budget)
	if err := budget.readBytes(int64(len(data)), "input"); err != nil {
		return nil, nil, fmt.Errorf("load %s: %w", name, err)
	}
	return decodeBudget(data, name, dir, budget)
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
