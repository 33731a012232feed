package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/rigkit/rigkit/skincodec"
	"github.com/rigkit/rigkit/tokens"
)

func init() {
	register(&command{
		name:    "detokenize",
		usage:   "TOKENS.json|- --mesh FILE.glb|- --out RIG.glb|- [--checkpoint CKPT]",
		summary: "build the rig a token stream describes on a mesh and save it",
		run:     runDetokenize,
	})
}

func runDetokenize(args []string, stdout io.Writer) error {
	fs := newFlags("detokenize")
	meshPath := fs.String("mesh", "", "mesh to rig (.glb/.gltf; any rig it has is replaced)")
	out := fs.String("out", "", "rigged .glb to write")
	ckpt := fs.String("checkpoint", "", checkpointUsage)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || *meshPath == "" || *out == "" {
		return fmt.Errorf("%w: want TOKENS.json, --mesh and --out", errUsage)
	}
	if err := stdinOnce(pos, []string{*meshPath}); err != nil {
		return err
	}
	data, err := readInput(pos[0])
	if err != nil {
		return fmt.Errorf("detokenize: %w", err)
	}
	var sf skincodec.StreamFile
	if err := json.Unmarshal(data, &sf); err != nil {
		return fmt.Errorf("detokenize %s: %w", displayName(pos[0]), err)
	}
	if sf.VocabSize != 0 && sf.VocabSize != tokens.VocabSize {
		return fmt.Errorf("detokenize %s: vocabulary size %d, this build has %d", displayName(pos[0]), sf.VocabSize, tokens.VocabSize)
	}
	tok, err := skincodec.Load(*ckpt)
	if err != nil {
		return err
	}
	if err := skincodec.CheckK(sf.K, tok.K()); err != nil {
		return fmt.Errorf("detokenize %s: %w (pass --checkpoint with the tokenizer that wrote it)", displayName(pos[0]), err)
	}
	if err := skincodec.CheckSkinTokenizer(sf.SkinTokenizer, tok.Fingerprint()); err != nil {
		return fmt.Errorf("detokenize %s: %w (pass --checkpoint with the tokenizer that wrote it, or tokenize the rig again)", displayName(pos[0]), err)
	}
	mesh, err := loadInput(*meshPath)
	if err != nil {
		return err
	}
	rig, err := skincodec.Detokenize(sf.Tokens, sf.Names, mesh, tok)
	if err != nil {
		return fmt.Errorf("detokenize %s: %w", displayName(pos[0]), err)
	}
	if _, err := saveOutput(*out, rig, stdout); err != nil {
		return err
	}
	fmt.Fprintf(resultLog(*out, stdout), "%s: %d joints, %d vertices → %s\n", displayName(pos[0]), rig.Skeleton.NumJoints(), len(rig.Mesh.Positions), outputName(*out))
	return nil
}
