package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/rigkit/rigkit/viewer/edit"
)

// viewScriptFlags are `rig view`'s flags for replaying an edit script without a
// window. Both builds take them (with and without the OpenGL viewer): a batch fix
// needs no display.
type viewScriptFlags struct {
	script, out      *string
	overwrite, score *bool
}

func addViewScriptFlags(fs *flag.FlagSet) viewScriptFlags {
	return viewScriptFlags{
		script:    fs.String("script", "", "replay this JSON list of edits (move, mirror, add, delete, reparent, rename, lock, unlock, reskin, undo, redo, save) without a window"),
		out:       fs.String("out", "", "where the edited rig is saved (.glb or .gltf; default: FILE.edited.glb beside the input), with its JSON report beside it"),
		overwrite: fs.Bool("overwrite", false, "allow saving over the input file"),
		score:     fs.Bool("score", false, "add the rewards' scores and problems to the saved JSON report"),
	}
}

// runViewScript loads path, replays the script's edits and, unless the script ends
// with a save, saves to --out (or beside the input).
func runViewScript(path string, f viewScriptFlags, stdout io.Writer) error {
	if path == stdio && *f.out == "" {
		return fmt.Errorf("%w: --script on stdin needs --out", errUsage)
	}
	steps, err := edit.ParseScript(*f.script)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	c, err := loadInput(path)
	if err != nil {
		return err // names the file
	}
	r, err := edit.New(c)
	if err != nil {
		return fmt.Errorf("edit %s: %w", displayName(path), err)
	}
	input := path
	if path == stdio {
		input = ""
	}
	if len(steps) == 0 || steps[len(steps)-1].Op != "save" {
		steps = append(steps, edit.Step{Op: "save"})
	}
	env := edit.Env{Skinners: editSkinners(), Out: *f.out, Log: stdout,
		Save: edit.SaveOptions{Input: input, Overwrite: *f.overwrite, Score: *f.score}}
	if err := edit.Replay(r, steps, env); err != nil {
		return fmt.Errorf("script %s on %s: %w", *f.script, displayName(path), err)
	}
	return nil
}

// editSkinners are `rig skin`'s methods as the workbench's re-skin methods, the
// token skins with their weight across the mirror plane handed over as `rig
// skin --sides` hands it.
func editSkinners() map[string]edit.Skinner {
	out := make(map[string]edit.Skinner, len(skinMethods))
	for name, m := range skinMethods {
		if isTokenSkin(name) {
			m = followedBy(m, mirrorSidesStep)
		}
		out[name] = edit.Skinner(m)
	}
	return out
}
