package train

import (
	"bytes"
	"fmt"

	"github.com/rigkit/rigkit/internal/atomicfile"
	"github.com/rigkit/rigkit/rigmodel"
)

// SaveCheckpointFile writes the model's weights and the training state
// (rigmodel.SaveCheckpoint) atomically: a reader never sees half a checkpoint, and
// a run killed while saving keeps the previous one.
func SaveCheckpointFile(path string, m *rigmodel.Model, st *rigmodel.TrainState) error {
	var buf bytes.Buffer
	if err := rigmodel.SaveCheckpoint(&buf, m, st); err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return atomicfile.WriteFile(path, buf.Bytes())
}
