package skincodec

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/nn"
	"github.com/rigkit/rigkit/synth"
)

// TestTrainStopBeforeValidationResumes stops a run before its first validation (the
// best validation loss is still unset) and checks that the state file it leaves is
// valid JSON that a resumed run continues from. A +Inf best loss used to make the
// state file empty, and the resume then failed.
func TestTrainStopBeforeValidationResumes(t *testing.T) {
	var extra []*character.Character
	for i, kind := range []string{"biped", "quadruped"} {
		c, err := synth.Generate(kind, int64(i+1), synth.Options{TargetVertices: 400})
		if err != nil {
			t.Fatal(err)
		}
		extra = append(extra, c)
	}
	out := filepath.Join(t.TempDir(), "runs", "new", "skin.safetensors") // a folder that does not exist yet
	opt := DefaultTrainOptions()
	opt.Data = []string{t.TempDir()} // no files: the synthetic creatures only
	opt.Extra, opt.ExtraVal = extra, []bool{false, true}
	opt.Out, opt.Schedule.Steps, opt.Batch = out, 2, TrainBatch{Chars: 1, BonesPerChar: 2, Queries: 16}
	opt.Config.D, opt.Config.Hidden, opt.Config.Latents = 16, 32, 4

	ctx, cancel := context.WithCancel(context.Background())
	cancel() // stopped at once: only the final checkpoint is written, at step 0
	if _, err := TrainSkinTokenizer(ctx, opt); err != context.Canceled {
		t.Fatalf("cancelled run: err %v, want context.Canceled", err)
	}
	sb, err := os.ReadFile(out + ".state.json")
	if err != nil {
		t.Fatal(err)
	}
	var st TrainState
	if err := json.Unmarshal(sb, &st); err != nil {
		t.Fatalf("state file of a run stopped before validation: %v (%d bytes)", err, len(sb))
	}
	if st.Step != 0 || st.BestStep != -1 {
		t.Fatalf("state after the stop: step %d, best step %d; want 0 and -1", st.Step, st.BestStep)
	}

	opt.Resume = true
	got, err := TrainSkinTokenizer(context.Background(), opt)
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	if got.Step != 2 || got.BestStep != 2 || len(got.ValStep) != 1 {
		t.Fatalf("resumed run: step %d, best step %d, validations %v; want 2, 2, [2]", got.Step, got.BestStep, got.ValStep)
	}
	// AdamW's moments are saved beside the checkpoint, for the next resume.
	tok, err := Load(out)
	if err != nil {
		t.Fatal(err)
	}
	adam := nn.NewAdamW[float32](1e-3)
	if ok, err := adam.RestoreBeside(out, tok.master.Params()); !ok || err != nil || adam.Steps() != 2 {
		t.Errorf("optimizer state: restored %v, err %v, steps %d; want true, nil, 2", ok, err, adam.Steps())
	}
}
