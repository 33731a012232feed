package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

func init() {
	register(&command{
		name:    "convert",
		usage:   "IN OUT  (\"-\": stdin / stdout as GLB)",
		summary: "load a .glb/.gltf/.obj and write it again, scene kept (GLB when OUT ends in .glb or is -)",
		help: `IN is a .glb, .gltf or .obj file (with its .mtl and textures, read from the
OBJ's folder only), or "-" for GLB or glTF JSON on stdin. OUT is written as GLB
when it ends in .glb or is "-" (stdout), as .gltf with embedded data when it
ends in .gltf; any other extension (.fbx, .obj, …) is refused (exit 2), since
rigkit writes glTF only. Load warnings go to stderr. FBX, COLLADA and .blend
inputs are refused with the commands that convert them to GLB.`,
		run: runConvert,
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
	if err := checkWritable(pos[1]); err != nil {
		return err
	}
	c, rep, err := loadInputFile(pos[0])
	if err != nil {
		return err
	}
	for _, w := range rep.Warnings {
		fmt.Fprintf(diag, "warning: %s: %s\n", displayName(pos[0]), w)
	}
	if _, err := saveOutput(pos[1], c, stdout); err != nil {
		return err
	}
	fmt.Fprintf(resultLog(pos[1], stdout), "wrote %s (%d vertices, %d triangles, %d joints)\n",
		outputName(pos[1]), len(c.Mesh.Positions), len(c.Mesh.Triangles), c.Skeleton.NumJoints())
	return nil
}

// writableExts are the output extensions rigkit writes (both glTF).
var writableExts = []string{".glb", ".gltf"}

// checkWritable refuses an output path whose extension names a format rigkit does
// not write, before any work: writing glTF under another format's name would
// give a file its readers reject.
func checkWritable(out string) error {
	if out == stdio {
		return nil
	}
	ext := strings.ToLower(filepath.Ext(out))
	for _, w := range writableExts {
		if ext == w {
			return nil
		}
	}
	if ext == "" {
		ext = "no extension"
	}
	return fmt.Errorf("%w: %s: cannot write %s; rigkit writes %s (import the GLB into Blender to export other formats)",
		errUsage, out, ext, strings.Join(writableExts, " or "))
}
