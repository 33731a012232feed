package train

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/internal/modeltest"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/rigmodel"
)

// memLoad serves characters by file name, standing in for glTF files.
func memLoad(chars map[string]*character.Character) func(string) (*character.Character, error) {
	return func(p string) (*character.Character, error) {
		c, ok := chars[filepath.Base(p)]
		if !ok {
			return nil, errors.New("no such character")
		}
		return c.Clone(), nil
	}
}

func TestTrainWritesAndResumes(t *testing.T) {
	dir := t.TempDir()
	chars := map[string]*character.Character{}
	for _, n := range []string{"a.glb", "b.glb", "c.glb"} {
		os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644)
		chars[n] = modeltest.Rig(t)
	}
	out := filepath.Join(t.TempDir(), "runs", "new", "m.safetensors") // a folder that does not exist yet
	opt := Options{Out: out, Config: modeltest.TinyConfig, Skin: modeltest.FakeSkin{}, SkinID: "fake",
		Data:        Data{Inputs: []string{dir}, Load: memLoad(chars), Augment: DefaultAugment, Pool: 4},
		Schedule:    Schedule{Steps: 4, Batch: 2, LR: 1e-3},
		Checkpoints: Checkpoints{EvalEvery: 2, SaveEvery: 2},
		Report:      Report{Plot: func(_, png string) error { return os.WriteFile(png, nil, 0o644) }}}
	st, err := Run(opt)
	if err != nil {
		t.Fatal(err)
	}
	if st.Step != 4 || st.TrainFiles+st.ValFiles != 3 || !st.SkinTokens {
		t.Errorf("state %+v", st)
	}
	for _, suffix := range []string{".safetensors", ".optim.safetensors", ".log.jsonl", ".losses.png"} {
		if _, err := os.Stat(sibling(out, suffix)); err != nil {
			t.Errorf("missing %s: %v", suffix, err)
		}
	}
	rows, err := ReadLog(sibling(out, ".log.jsonl"))
	if err != nil || len(rows) != 2 || rows[1].TrainSkel <= 0 || rows[1].TrainSkin <= 0 {
		t.Fatalf("log %+v, %v", rows, err)
	}
	// Resuming continues from step 4 to 6 with the saved weights.
	m0, _, err := rigmodel.LoadCheckpointFile(out)
	if err != nil {
		t.Fatal(err)
	}
	opt.Schedule.Steps, opt.Resume = 6, true
	var log strings.Builder
	opt.Report.Log = &log
	st, err = Run(opt)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "optimizer state restored at step 4") {
		t.Errorf("resume did not restore the optimizer state; log:\n%s", log.String())
	}
	if st.Step != 6 {
		t.Errorf("resumed to step %d, want 6", st.Step)
	}
	m1, st1, err := rigmodel.LoadCheckpointFile(out)
	if err != nil || st1.Step != 6 {
		t.Fatalf("reload: %v, step %d", err, st1.Step)
	}
	same := true
	for i, p := range m1.Params() {
		if p.Data()[0] != m0.Params()[i].Data()[0] {
			same = false
		}
	}
	if same {
		t.Error("resumed training did not change the weights")
	}
	// Resuming with a skin tokenizer of another K is refused: the checkpoint's
	// streams have its own K codes per joint.
	opt.Schedule.Steps, opt.Skin = 8, otherK{modeltest.FakeSkin{}}
	if _, err := Run(opt); err == nil || !strings.Contains(err.Error(), "codes per joint") {
		t.Errorf("resume with K = %d against a K = %d checkpoint: %v", opt.Skin.K(), modeltest.TinyConfig.K(), err)
	}
}

// otherK is a skin encoder that claims a K other than the tiny model's.
type otherK struct{ modeltest.FakeSkin }

func (otherK) K() int { return modeltest.TinyConfig.K() + 1 }

// TestWarmStartLongerStream warm-starts a model with more skin tokens per joint (a
// longer MaxSeq) from a checkpoint: every weight is copied, the position embeddings
// into their first rows, and the new rows keep their initialization.
func TestWarmStartLongerStream(t *testing.T) {
	dir := t.TempDir()
	chars := map[string]*character.Character{}
	for _, n := range []string{"a.glb", "b.glb"} {
		os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644)
		chars[n] = modeltest.Rig(t)
	}
	out := filepath.Join(t.TempDir(), "m.safetensors")
	if _, err := Run(Options{Out: out, Config: modeltest.TinyConfig, Skin: modeltest.FakeSkin{}, SkinID: "fake",
		Data:     Data{Inputs: []string{dir}, Load: memLoad(chars), Augment: DefaultAugment, Pool: 2},
		Schedule: Schedule{Steps: 2, Batch: 2, LR: 1e-3}}); err != nil {
		t.Fatal(err)
	}
	src, _, err := rigmodel.LoadCheckpointFile(out)
	if err != nil {
		t.Fatal(err)
	}
	cfg := modeltest.TinyConfig
	cfg.SkinK = 8
	cfg.MaxSeq = cfg.LongestStream()
	m, err := rigmodel.NewModel(cfg, 7)
	if err != nil {
		t.Fatal(err)
	}
	fresh := append([]float32(nil), m.Decoder.Pos.Weight.Data()...)
	if err := rigmodel.WarmStart(m, out); err != nil {
		t.Fatal(err)
	}
	for i, p := range m.Params() {
		q := src.Params()[i]
		if p.Name == m.Decoder.Pos.Weight.Name {
			n := q.Size()
			if !slices.Equal(p.Data()[:n], q.Data()) || !slices.Equal(p.Data()[n:], fresh[n:]) {
				t.Fatalf("%s: the first %d values are not the checkpoint's, or the rest not the initialization", p.Name, n)
			}
			continue
		}
		if !slices.Equal(p.Data(), q.Data()) {
			t.Fatalf("%s not copied", p.Name)
		}
	}
	// A shorter stream or another width is refused.
	short := modeltest.TinyConfig
	short.MaxSeq--
	small, err := rigmodel.NewModel(short, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := rigmodel.WarmStart(small, out); err == nil {
		t.Error("warm start into a shorter MaxSeq: no error")
	}
	wide := cfg
	wide.DModel, wide.Heads = 2*modeltest.TinyConfig.DModel, modeltest.TinyConfig.Heads
	if mw, err := rigmodel.NewModel(wide, 1); err != nil {
		t.Fatal(err)
	} else if err := rigmodel.WarmStart(mw, out); err == nil {
		t.Error("warm start into another width: no error")
	}
}
