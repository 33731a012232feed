//go:build noviewer

package main

import (
	"errors"
	"io"
)

// With -tags noviewer the rig binary links no OpenGL/X11 libraries (for headless
// servers); `rig view` then only explains how to get it.
func init() {
	register(&command{
		name:    "view",
		usage:   "FILE [--compare FILE2] | FILE --screenshot OUT.png ...",
		summary: "open the OpenGL viewer (not in this build: built with -tags noviewer)",
		run: func(args []string, stdout io.Writer) error {
			return errors.New("this rig was built with -tags noviewer; rebuild without it for the OpenGL viewer")
		},
	})
}
