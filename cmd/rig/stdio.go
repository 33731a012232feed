package main

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/rigkit/rigkit/assets/format"
	"github.com/rigkit/rigkit/assets/gltfio"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/character"
)

// A file argument "-" means stdin (an input) or stdout (an output), wherever a
// command reads or writes one file. A character read from stdin is sniffed (GLB
// magic or a glTF JSON object) and may not refer to external files: there is no
// folder to resolve them in, and a stream must not make rig read the disk.

// stdio is the file name that means stdin or stdout.
const stdio = "-"

// stdin is where "-" inputs come from; tests replace it.
var stdin io.Reader = os.Stdin

// diag receives diagnostics (warnings, skipped files, failures, progress): the
// stderr that run was given.
var diag io.Writer = os.Stderr

// stdinName labels a character read from stdin in errors and reports.
const stdinName = "stdin"

// readInput returns the bytes of path, or of stdin for "-".
func readInput(path string) ([]byte, error) {
	if path != stdio {
		return format.ReadFile(path) // a regular file within the budget; its error names the file
	}
	// stdin obeys the same FileBytes budget (--max-file-mb) as a file, so an
	// endless pipe ends in an error instead of filling memory.
	limit := format.CurrentBudget().FileBytes
	data, err := io.ReadAll(io.LimitReader(stdin, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read stdin: %w", err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("read stdin: more than %d bytes (Budget.FileBytes; raise it with --max-file-mb)", limit)
	}
	return data, nil
}

// displayName is how an input path appears in messages.
func displayName(path string) string {
	if path == stdio {
		return stdinName
	}
	return path
}

// loadInputFile is assets.Load keeping the scene (the character with its source scene, so that
// a save keeps it), or a decode of stdin for "-" (no external files; GLB or glTF
// JSON, whichever the bytes are).
func loadInputFile(path string) (*character.Character, *format.LoadReport, error) {
	if path != stdio {
		return assets.Load(path, assets.Options{KeepScene: true, AllowOrphans: true})
	}
	data, err := readInput(path)
	if err != nil {
		return nil, nil, err
	}
	if err := sniffGLTF(data); err != nil {
		return nil, nil, fmt.Errorf("load %s: %w", stdinName, err)
	}
	return assets.Decode(bytes.NewReader(data), stdinName, nil, assets.Options{KeepScene: true, AllowOrphans: true})
}

// sniffGLTF refuses bytes that are neither GLB nor glTF JSON with a message that
// says what stdin accepts (an OBJ needs its folder for the MTL and textures).
func sniffGLTF(data []byte) error {
	if bytes.HasPrefix(data, []byte("glTF")) {
		return nil
	}
	t := bytes.TrimLeft(data, " \t\r\n\xef\xbb\xbf")
	if len(t) > 0 && t[0] == '{' {
		return nil
	}
	if len(data) == 0 {
		return fmt.Errorf("nothing on stdin (want GLB or glTF JSON)")
	}
	return fmt.Errorf("stdin is neither GLB (magic \"glTF\") nor glTF JSON; pass other formats as files")
}

// loadInput is assets.Load for a path or "-": rigs with orphan vertices are refused.
func loadInput(path string) (*character.Character, error) {
	c, rep, err := loadInputFile(path)
	if err != nil {
		return nil, err
	}
	if rep.Orphans > 0 {
		return nil, fmt.Errorf("load %s: %d of %d vertices have no joint weights (orphans)",
			displayName(path), rep.Orphans, len(c.Mesh.Positions))
	}
	return c, nil
}

// saveOutput saves c to path (over its source scene when it has one; GLB for .glb,
// else glTF JSON), or as GLB to stdout for "-". The report says what the save
// replaced or dropped of the source scene (nil without one).
func saveOutput(path string, c *character.Character, stdout io.Writer) (*gltfio.SceneReport, error) {
	if path != stdio {
		return assets.Save(path, c)
	}
	var buf bytes.Buffer
	rep, err := assets.Encode(&buf, c)
	if err != nil {
		return nil, err
	}
	if _, err := stdout.Write(buf.Bytes()); err != nil {
		return nil, fmt.Errorf("write stdout: %w", err)
	}
	return rep, nil
}

// resultLog is where a command's one-line summary goes: stdout, unless stdout
// carries the output file itself ("-"), then stderr.
func resultLog(out string, stdout io.Writer) io.Writer {
	if out == stdio {
		return diag
	}
	return stdout
}

// stdinOnce refuses a command line that reads stdin ("-") more than once.
func stdinOnce(paths ...[]string) error {
	n := 0
	for _, ps := range paths {
		for _, p := range ps {
			if p == stdio {
				n++
			}
		}
	}
	if n > 1 {
		return fmt.Errorf("%w: \"-\" (stdin) is given %d times; it can be read once", errUsage, n)
	}
	return nil
}

// outputName is how an output path appears in messages.
func outputName(path string) string {
	if path == stdio {
		return "stdout"
	}
	return path
}

// notStdio refuses "-" for an --out that names a folder or a file with siblings
// (checkpoints with their logs, a report with its JSON), which stdout cannot hold.
func notStdio(out, what string) error {
	if out == stdio {
		return fmt.Errorf("%w: --out -: this command writes %s, not one stream; give a path", errUsage, what)
	}
	return nil
}
