package rigmodel

import (
	"bytes"
	_ "embed"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/rigkit/rigkit/assets/format"
	"github.com/rigkit/rigkit/internal/nn"
)

// This file is the checkpoint: the model's weights in the safetensors layout
// (nn.SaveCheckpoint) with the training state as its metadata, the shipped
// checkpoint embedded in the binary, and warm starts from a checkpoint of
// compatible shapes.

// TrainState is the metadata stored in every checkpoint beside the config.
type TrainState struct {
	Config   Config  `json:"config"`
	Step     int     `json:"step"`
	BestVal  float64 `json:"best_val"`
	BestStep int     `json:"best_step"`
	WallS    float64 `json:"wall_s"` // training time over all runs
	TrainingData
	SkinTokens bool `json:"skin_tokens"` // trained on skin tokens too
	// SkinTokenizer is the Fingerprint of the skin tokenizer whose codes the
	// model writes.
	SkinTokenizer string    `json:"skin_tokenizer,omitempty"`
	Saved         time.Time `json:"saved"`
	// GRPO is set once the checkpoint has been fine-tuned by GRPO (`rig grpo`).
	GRPO *GRPOState `json:"grpo,omitempty"`
	// Averaged lists the checkpoints whose weights were averaged into this one
	// (`rig average`), each with its step; the rest of the state is the last one's.
	Averaged []string `json:"averaged,omitempty"`
	// Training is what the training loop measured of itself (nil for checkpoints
	// that do not record it).
	Training *TrainingFacts `json:"training,omitempty"`
}

// TrainingFacts are what a training run records of how it ran, so that a
// checkpoint says how fast it was trained and how its skin codes were made.
type TrainingFacts struct {
	// SkinCodes says where the skin codes of the examples came from.
	SkinCodes string `json:"skin_codes,omitempty"`
	// StepsPerS and TokensPerS are the loop's throughput over the last
	// validation interval (optimizer steps and training tokens per second).
	StepsPerS  float64 `json:"steps_per_s,omitempty"`
	TokensPerS float64 `json:"tokens_per_s,omitempty"`
	Batch      int     `json:"batch,omitempty"`
	Workers    int     `json:"data_workers,omitempty"`
}

// TrainingData is what a checkpoint was trained on: the files of each split, the
// generated creatures added to the training files, and the inputs they came from.
// Its fields are TrainState's in the checkpoint's JSON.
type TrainingData struct {
	TrainFiles int      `json:"train_files"`
	Synthetic  int      `json:"synthetic"` // generated creatures in the training set
	ValFiles   int      `json:"val_files"`
	Data       []string `json:"data"`
}

// GRPOState is kept in the checkpoint's TrainState so that a run resumes.
type GRPOState struct {
	Step       int     `json:"step"`
	Group      int     `json:"group"`
	Meshes     int     `json:"meshes_per_step"`
	Files      int     `json:"files"`
	WallS      float64 `json:"wall_s"`
	Init       string  `json:"init"`
	BestReward float64 `json:"best_reward"` // best running mean reward (window of 10 steps)
	BestStep   int     `json:"best_step"`
	GRPOPolicyState
}

// GRPOPolicyState is what a GRPO run optimizes and how; its fields sit in
// GRPOState's JSON.
type GRPOPolicyState struct {
	Skeleton bool    `json:"skeleton_only"`
	Inside   bool    `json:"inside_joints,omitempty"` // joints sampled inside the mesh region
	KL       float64 `json:"kl,omitempty"`            // weight of the KL penalty to Init
	// Reward is the combination of the rewards the run optimized
	// (rewards.WeightsFor; "" the combined score of the reward version it ran under).
	Reward string `json:"reward,omitempty"`
	// SkinCredit: the skin tokens were judged by the rewards that read the
	// weights (train.SkinCredit), the skeleton tokens by the whole score.
	SkinCredit bool `json:"skin_credit,omitempty"`
}

// SaveCheckpoint writes the model's weights in the safetensors layout with the
// training state, stamped with the model's config and the time, as metadata.
func SaveCheckpoint(w io.Writer, m *Model, st *TrainState) error {
	st.Config = m.Cfg
	st.Saved = time.Now().UTC()
	return nn.SaveCheckpoint(w, m.Params(), st)
}

// readCheckpointMeta reads the training state from a checkpoint's header without
// loading the tensors (the model must be built from its config first).
func readCheckpointMeta(data []byte) (*TrainState, error) {
	if len(data) < 8 {
		return nil, errors.New("file too short for a safetensors header")
	}
	n := binary.LittleEndian.Uint64(data[:8])
	if n > nn.MaxCheckpointHeader || uint64(len(data)-8) < n {
		return nil, fmt.Errorf("header length %d does not fit the file", n)
	}
	var hdr struct {
		Meta map[string]string `json:"__metadata__"`
	}
	if err := json.Unmarshal(data[8:8+n], &hdr); err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	cfg, ok := hdr.Meta["config"]
	if !ok {
		return nil, errors.New("no config in the checkpoint metadata")
	}
	st := &TrainState{}
	if err := json.Unmarshal([]byte(cfg), st); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return st, nil
}

// LoadCheckpointBytes builds a model from a checkpoint's bytes.
func LoadCheckpointBytes(data []byte) (*Model, *TrainState, error) {
	st, err := readCheckpointMeta(data)
	if err != nil {
		return nil, nil, err
	}
	if err := checkConfig(data, st.Config); err != nil {
		return nil, nil, err
	}
	m, err := NewModel(st.Config, 0)
	if err != nil {
		return nil, nil, err
	}
	if _, err := nn.LoadCheckpoint(bytes.NewReader(data), m.Params()); err != nil {
		return nil, nil, err
	}
	return m, st, nil
}

// LoadCheckpointFile reads a checkpoint written by SaveCheckpoint.
func LoadCheckpointFile(path string) (*Model, *TrainState, error) {
	// A regular file within --max-file-mb: a FIFO or /dev/zero named as the
	// checkpoint is refused before a byte is read.
	data, err := format.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("load checkpoint %s: %w", path, err)
	}
	m, st, err := LoadCheckpointBytes(data)
	if err != nil {
		return nil, nil, fmt.Errorf("load checkpoint %s: %w", path, err)
	}
	return m, st, nil
}

// WarmStart copies the weights of the checkpoint at path into m, whose config must
// have the same shapes (dropout may differ).
func WarmStart(m *Model, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("warm start: %w", err)
	}
	st, err := readCheckpointMeta(data)
	if err != nil {
		return fmt.Errorf("warm start %s: %w", path, err)
	}
	a, b := st.Config, m.Cfg
	a.Dropout, b.Dropout = 0, 0
	// A longer stream (more skin tokens per joint) only adds positions: the
	// checkpoint's position embeddings fill the first rows, the rest keep their
	// initialization.
	a.MaxSeq, b.MaxSeq = 0, 0
	a.SkinK, b.SkinK = 0, 0
	// A model that reads a proposal starts from one that does not: the proposal
	// encoder's parameters come last and keep their initialization.
	if a.Proposal == 0 {
		b.Proposal = 0
	}
	if a != b || st.Config.MaxSeq > m.Cfg.MaxSeq {
		return fmt.Errorf("warm start %s: config %+v differs from %+v (only dropout, K, a longer MaxSeq and a proposal encoder may)", path, st.Config, m.Cfg)
	}
	// Load into a model of the checkpoint's own config, then copy over (the position
	// embeddings into the first rows when the stream got longer).
	if err := checkConfig(data, st.Config); err != nil {
		return fmt.Errorf("warm start %s: %w", path, err)
	}
	src, err := NewModel(st.Config, 0)
	if err != nil {
		return fmt.Errorf("warm start %s: %w", path, err)
	}
	if _, err := nn.LoadCheckpoint(bytes.NewReader(data), src.Params()); err != nil {
		return fmt.Errorf("warm start %s: %w", path, err)
	}
	dst, from := m.Params(), src.Params()
	if len(dst) < len(from) {
		return fmt.Errorf("warm start %s: %d parameters, the model has %d", path, len(from), len(dst))
	}
	for i, q := range from {
		p := dst[i]
		if p.Name != q.Name || p.Size() < q.Size() || (p.Size() != q.Size() && p.Name != m.Decoder.Pos.Weight.Name) {
			return fmt.Errorf("warm start %s: parameter %s %v does not fit %s %v", path, q.Name, q.Shape(), p.Name, p.Shape())
		}
		copy(p.Data(), q.Data())
	}
	return nil
}

// ShippedCheckpoint is the trained model inside the repository; the same bytes are
// embedded in the binary (see DefaultModel).
const ShippedCheckpoint = "rigmodel/checkpoints/tokenrig.safetensors"

//go:embed checkpoints/tokenrig.safetensors
var shippedCheckpoint []byte

var (
	defaultOnce  sync.Once
	defaultModel *Model
	defaultState *TrainState
	defaultErr   error
)

// DefaultModel returns the shipped model embedded in the binary (loaded once) with
// its training state, or an error when the shipped checkpoint is empty or invalid.
func DefaultModel() (*Model, *TrainState, error) {
	defaultOnce.Do(func() {
		if len(shippedCheckpoint) == 0 {
			defaultErr = fmt.Errorf("embedded %s is empty (no trained model shipped)", ShippedCheckpoint)
			return
		}
		defaultModel, defaultState, defaultErr = LoadCheckpointBytes(shippedCheckpoint)
		if defaultErr != nil {
			defaultErr = fmt.Errorf("embedded %s: %w", ShippedCheckpoint, defaultErr)
		}
	})
	return defaultModel, defaultState, defaultErr
}

// LoadShipped returns a fresh copy of the embedded shipped model (one that the
// caller may train without touching DefaultModel's).
func LoadShipped() (*Model, *TrainState, error) {
	if len(shippedCheckpoint) == 0 {
		return nil, nil, fmt.Errorf("embedded %s is empty (no trained model shipped)", ShippedCheckpoint)
	}
	m, st, err := LoadCheckpointBytes(shippedCheckpoint)
	if err != nil {
		return nil, nil, fmt.Errorf("embedded %s: %w", ShippedCheckpoint, err)
	}
	return m, st, nil
}

// ShippedState reads the training state of the embedded checkpoint from its header
// only (cheap: no tensors are loaded).
func ShippedState() (*TrainState, error) {
	if len(shippedCheckpoint) == 0 {
		return nil, fmt.Errorf("embedded %s is empty (no trained model shipped)", ShippedCheckpoint)
	}
	return readCheckpointMeta(shippedCheckpoint)
}
