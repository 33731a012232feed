package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/rigkit/rigkit/assets"
)

func init() {
	register(&command{
		name:    "inspect",
		usage:   "FILE|- [--json]",
		summary: "print a character's size, rig, bounds and problems found",
		run:     runInspect,
	})
}

func runInspect(args []string, stdout io.Writer) error {
	fs := newFlags("inspect")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: want one FILE, got %d arguments", errUsage, len(pos))
	}
	r, err := inspectInput(pos[0])
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	printInspect(stdout, displayName(pos[0]), r)
	return nil
}

// inspectInput is assets.InspectFile for a path or "-" (stdin).
func inspectInput(path string) (assets.InspectReport, error) {
	if path != stdio {
		return assets.InspectFile(path)
	}
	c, rep, err := loadInputFile(path)
	if err != nil {
		return assets.InspectReport{}, err
	}
	r := assets.Inspect(c)
	r.LoadWarnings = rep.Warnings
	for _, w := range rep.Warnings {
		r.Problems = append(r.Problems, "load: "+w)
	}
	return r, nil
}

func printInspect(w io.Writer, path string, r assets.InspectReport) {
	fmt.Fprintf(w, "%s\n", path)
	fmt.Fprintf(w, "  vertices     %d\n", r.Vertices)
	fmt.Fprintf(w, "  triangles    %d\n", r.Triangles)
	if r.Rigged {
		fmt.Fprintf(w, "  joints       %d\n", r.Joints)
		fmt.Fprintf(w, "  influences   max %d, mean %.2f per vertex\n", r.MaxInfluences, r.MeanInfluences)
	} else if r.Joints > 0 {
		fmt.Fprintf(w, "  joints       %d (skeleton without skin)\n", r.Joints)
	} else {
		fmt.Fprintf(w, "  joints       0 (static mesh)\n")
	}
	lo, hi := r.BoundsMin, r.BoundsMax
	fmt.Fprintf(w, "  bounds       [%.4g %.4g %.4g] .. [%.4g %.4g %.4g] (size %.4g x %.4g x %.4g)\n",
		lo[0], lo[1], lo[2], hi[0], hi[1], hi[2], hi[0]-lo[0], hi[1]-lo[1], hi[2]-lo[2])
	fmt.Fprintf(w, "  parts        %d\n", r.Mesh.Components)
	fmt.Fprintf(w, "  materials    %d%s\n", len(r.Materials), listSuffix(r.Materials))
	fmt.Fprintf(w, "  animations   %d%s\n", len(r.Animations), listSuffix(r.Animations))
	if len(r.Problems) == 0 {
		fmt.Fprintf(w, "  problems     none\n")
		return
	}
	fmt.Fprintf(w, "  problems     %d\n", len(r.Problems))
	for _, p := range r.Problems {
		fmt.Fprintf(w, "    - %s\n", p)
	}
}

func listSuffix(items []string) string {
	if len(items) == 0 {
		return ""
	}
	const show = 6
	s := items
	more := ""
	if len(s) > show {
		s, more = s[:show], fmt.Sprintf(", ... (%d more)", len(items)-show)
	}
	return ": " + strings.Join(s, ", ") + more
}
