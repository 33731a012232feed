package hostile

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// The cases in this file are checkpoints whose config lies about the network's
// size: a loader that builds the network from the config before looking at the
// tensors allocates what the config claims.

// ConfigLie is one field of a checkpoint's config set to a hostile value, with the
// substring the loader's error must hold.
type ConfigLie struct {
	Field string
	Value any
	Want  string
}

// ModelConfigLies are the model checkpoint cases: sizes far past any buildable
// network, and one within bounds that contradicts the tensors.
var ModelConfigLies = []ConfigLie{
	{"d_model", 65536, "d_model"},
	{"max_seq", int64(1) << 40, "max_seq"},
	{"layers", 1_000_000, "layers"},
	{"latents", -5, "latents"},
	{"d_model", 64, "d_model"},
	{"layers", 9, "layers"},
}

// SkinConfigLies are the skin tokenizer checkpoint cases.
var SkinConfigLies = []ConfigLie{
	{"d", 65536, "field d "},
	{"hidden", int64(1) << 40, "hidden"},
	{"k", 100_000, "field k "},
	{"latents", 1 << 30, "latents"},
	{"blocks", 7, "blocks"},
}

// Checkpoints writes one copy of the safetensors checkpoint src per lie, each
// with that field of the config in its metadata (under "config", where rigkit's
// model and skin tokenizer keep it) changed, as dir/<prefix>-<field>-<value>.safetensors.
func Checkpoints(dir, prefix string, src []byte, lies []ConfigLie) ([]Case, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var out []Case
	for _, l := range lies {
		data, err := withConfigField(src, l.Field, l.Value)
		if err != nil {
			return nil, fmt.Errorf("hostile checkpoint %s=%v: %w", l.Field, l.Value, err)
		}
		name := fmt.Sprintf("%s-%s-%v", prefix, l.Field, l.Value)
		p := filepath.Join(dir, name+".safetensors")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return nil, err
		}
		out = append(out, Case{Name: name, Path: p, Want: l.Want,
			What: fmt.Sprintf("a %s checkpoint whose config says %s = %v", prefix, l.Field, l.Value)})
	}
	return out, nil
}

// withConfigField rewrites the header of a safetensors file: metadata "config"
// (a JSON string) gets config.<field> = value; the tensor data is kept.
func withConfigField(src []byte, field string, value any) ([]byte, error) {
	if len(src) < 8 {
		return nil, errors.New("not a safetensors file")
	}
	n := binary.LittleEndian.Uint64(src[:8])
	if n > uint64(len(src)-8) {
		return nil, errors.New("header longer than the file")
	}
	var hdr map[string]json.RawMessage
	if err := json.Unmarshal(src[8:8+n], &hdr); err != nil {
		return nil, err
	}
	var meta map[string]string
	if err := json.Unmarshal(hdr["__metadata__"], &meta); err != nil {
		return nil, fmt.Errorf("__metadata__: %w", err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal([]byte(meta["config"]), &top); err != nil {
		return nil, fmt.Errorf("metadata config: %w", err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(top["config"], &cfg); err != nil {
		return nil, fmt.Errorf("metadata config.config: %w", err)
	}
	cfg[field] = value
	var err error
	if top["config"], err = json.Marshal(cfg); err != nil {
		return nil, err
	}
	topJSON, err := json.Marshal(top)
	if err != nil {
		return nil, err
	}
	meta["config"] = string(topJSON)
	if hdr["__metadata__"], err = json.Marshal(meta); err != nil {
		return nil, err
	}
	js, err := json.Marshal(hdr)
	if err != nil {
		return nil, err
	}
	for len(js)%8 != 0 {
		js = append(js, ' ')
	}
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(js)))
	out = append(out, js...)
	return append(out, src[8+n:]...), nil
}
