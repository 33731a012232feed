package train

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/rigkit/rigkit/internal/modeltest"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/nn"
	"github.com/rigkit/rigkit/rigmodel"
	"github.com/rigkit/rigkit/synth"
)

func TestGRPOWritesAndResumes(t *testing.T) {
	dir := t.TempDir()
	chars := map[string]*character.Character{}
	for _, n := range []string{"a.glb", "b.glb"} {
		os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644)
		chars[n] = &character.Character{Name: n, Mesh: synth.BoxQuadruped()}
	}
	m0, err := rigmodel.NewModel(modeltest.TinyConfig, 5)
	if err != nil {
		t.Fatal(err)
	}
	init := filepath.Join(t.TempDir(), "init.safetensors")
	if err := SaveCheckpointFile(init, m0, &rigmodel.TrainState{Step: 7}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "grpo.safetensors")
	opt := GRPOOptions{Init: init, Out: out, Seed: 1,
		Data:        GRPOData{Inputs: []string{dir}, AllFiles: true, Load: memLoad(chars)},
		Schedule:    GRPOSchedule{Steps: 3, Meshes: 1, Group: 3, LR: 1e-3},
		Policy:      GRPOPolicy{ScaleByStd: true},
		Checkpoints: GRPOCheckpoints{SaveEvery: 2}}
	st, err := GRPO(opt)
	if err != nil {
		t.Fatal(err)
	}
	if st.GRPO == nil || st.GRPO.Step != 3 || st.Step != 7 || st.GRPO.Files != 2 || !st.GRPO.Skeleton {
		t.Fatalf("state %+v grpo %+v", st, st.GRPO)
	}
	var rows []grpoLogRow
	readRows := func() {
		rows = nil
		data, err := os.ReadFile(sibling(out, ".log.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
			var r grpoLogRow
			if err := json.Unmarshal(line, &r); err != nil {
				t.Fatalf("log line %q: %v", line, err)
			}
			rows = append(rows, r)
		}
	}
	readRows()
	if len(rows) != 3 || rows[2].Step != 3 {
		t.Fatalf("log rows %+v", rows)
	}
	for _, r := range rows {
		if r.MeanReward < 0 || r.MeanReward > 1 || r.MaxReward < r.MeanReward {
			t.Errorf("row %+v: rewards out of range", r)
		}
	}
	m1, st1, err := rigmodel.LoadCheckpointFile(out)
	if err != nil || st1.GRPO == nil || st1.GRPO.Step != 3 {
		t.Fatalf("checkpoint: %v %+v", err, st1)
	}
	changed := false
	for i, p := range m1.Params() {
		for k, v := range p.Data() {
			if v != m0.Params()[i].Data()[k] {
				changed = true
			}
		}
	}
	if !changed {
		t.Error("GRPO did not change the weights")
	}
	// Resume: two more steps from the saved checkpoint.
	opt.Schedule.Steps, opt.Resume = 5, true
	st, err = GRPO(opt)
	if err != nil {
		t.Fatal(err)
	}
	if st.GRPO.Step != 5 {
		t.Errorf("resumed to step %d, want 5", st.GRPO.Step)
	}
	// AdamW's moments are saved with the checkpoint and the resumed run continues
	// them: the optimizer has taken every step of both runs (each step had tokens).
	adam := nn.NewAdamW[float32](1e-3)
	if ok, err := adam.RestoreBeside(out, m1.Params()); !ok || err != nil || adam.Steps() != 5 {
		t.Errorf("optimizer state after resume: restored %v, err %v, steps %d; want 5", ok, err, adam.Steps())
	}
	readRows()
	if len(rows) != 5 || rows[4].Step != 5 {
		t.Errorf("log after resume: %+v", rows)
	}
	// Without a mesh there is nothing to do.
	opt.Data.Inputs, opt.Out = []string{t.TempDir()}, filepath.Join(t.TempDir(), "x.safetensors")
	if _, err := GRPO(opt); err == nil {
		t.Error("no error without meshes")
	}
}
