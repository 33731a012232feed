package main

import (
	"fmt"
	"io"

	"github.com/rigkit/rigkit/assets"
)

func init() {
	register(&command{
		name:    "convert",
		usage:   "IN OUT",
		summary: "load a .glb/.gltf and write it again, scene kept (GLB when OUT ends in .glb)",
		run:     runConvert,
	})
}

func runConvert(args []string, stdout io.Writer) error {
	fs := newFlags("convert")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return fmt.Errorf("%w: want IN and OUT, got %d arguments", errUsage, len(pos))
	}
	// The scene is kept: the output is the input's document, re-encoded.
	c, rep, err := assets.LoadScene(pos[0])
	if err != nil {
		return err
	}
	for _, w := range rep.Warnings {
		fmt.Fprintf(stdout, "warning: %s: %s\n", pos[0], w)
	}
	if _, err := assets.SaveScene(pos[1], c); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (%d vertices, %d triangles, %d joints)\n",
		pos[1], len(c.Mesh.Positions), len(c.Mesh.Triangles), c.Skeleton.NumJoints())
	return nil
}
