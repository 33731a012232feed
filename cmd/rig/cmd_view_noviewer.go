//go:build noviewer

package main

import (
	"errors"
	"fmt"
	"io"
)

// With -tags noviewer the rig binary links no OpenGL/X11 libraries (for headless
// servers); `rig view` then replays edit scripts (they need no window) and
// otherwise explains how to get the viewer.
func init() {
	register(&command{
		name:    "view",
		usage:   "FILE --script EDITS.json [--out OUT.glb] [--overwrite] [--score] (the OpenGL viewer is not in this build)",
		summary: "replay an edit script on a rig (the OpenGL viewer is not in this build: built with -tags noviewer)",
		run:     runViewHeadless,
	})
}

func runViewHeadless(args []string, stdout io.Writer) error {
	fs := newFlags("view")
	script := addViewScriptFlags(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if *script.script == "" {
		return errors.New("this rig was built with -tags noviewer; rebuild without it for the OpenGL viewer (--script works in this build)")
	}
	if len(pos) != 1 {
		return fmt.Errorf("want one FILE, got %d: %w", len(pos), errUsage)
	}
	return runViewScript(pos[0], script, stdout)
}
