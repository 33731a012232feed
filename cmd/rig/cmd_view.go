//go:build !noviewer

package main

import (
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/rigkit/rigkit/animation"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/atomicfile"
	"github.com/rigkit/rigkit/rewards"
	"github.com/rigkit/rigkit/viewer"
)

func init() {
	register(&command{
		name: "view",
		usage: "FILE [--compare FILE2] | FILE --screenshot OUT.png [--bone NAME] [--pose random --seed N] " +
			"[--anim NAME --time T] [--yaw DEG] [--size WxH] [--mode shaded|textured|heatmap|influences|wireframe] | DIR --sheet OUT.png" +
			" | FILE --script EDITS.json [--out OUT.glb] [--overwrite] [--score]",
		summary: "open the OpenGL viewer, or render a screenshot / contact sheet offscreen",
		run:     runView,
	})
}

func runView(args []string, stdout io.Writer) error {
	fs := newFlags("view")
	compare := fs.String("compare", "", "second rig of the same mesh, shown beside the first (C toggles)")
	shot := fs.String("screenshot", "", "render offscreen to this PNG and exit")
	sheet := fs.String("sheet", "", "render a contact sheet of every .glb in DIR to this PNG and exit")
	bone := fs.String("bone", "", "selected bone (highlighted; the heatmap shows its weights)")
	pose := fs.String("pose", "rest", "pose for --screenshot: rest or random")
	seed := fs.Int64("seed", 1, "random pose seed")
	size := fs.String("size", "1280x720", "image or window size WxH (--sheet: the thumbnail size N or NxN)")
	mode := fs.String("mode", "", "shaded, textured, heatmap, influences or wireframe (default: heatmap with --bone, else shaded)")
	noSkel := fs.Bool("no-skeleton", false, "hide the skeleton")
	noText := fs.Bool("no-text", false, "no text overlay in screenshots")
	anim := fs.String("anim", "", "for --screenshot: pose by the file's animation of this name (or index)")
	animTime := fs.Float64("time", 0, "with --anim: the time in seconds")
	yaw := fs.Float64("yaw", math.NaN(), "for --screenshot: camera yaw in degrees (0: the front, 90: the left side; default 26)")
	script := addViewScriptFlags(fs)
	problem := fs.Int("problem", 0, "for --screenshot: show the problems panel with problem N (from 1) selected and its region highlighted")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("want one FILE (or DIR with --sheet), got %d: %w", len(pos), errUsage)
	}
	path := pos[0]
	w, h, err := viewParseSize(*size)
	if err != nil {
		return fmt.Errorf("--size %q: %v: %w", *size, err, errUsage)
	}
	m, err := viewMode(*mode, *bone)
	if err != nil {
		return err
	}
	if *pose != "rest" && *pose != "random" {
		return fmt.Errorf("--pose %q: want rest or random: %w", *pose, errUsage)
	}

	switch {
	case *script.script != "":
		return runViewScript(path, script, stdout)
	case *sheet != "":
		return viewSheet(path, *sheet, *size, m, stdout)
	case *shot != "":
		if err := stdinOnce([]string{path, *compare}); err != nil {
			return err
		}
		c, err := viewLoadRig(path)
		if err != nil {
			return err
		}
		o := viewer.ShotOptions{Mode: m, Bone: *bone, HideSkeleton: *noSkel, Frame: viewer.ShotFrame{Width: w, Height: h},
			Pose: viewer.ShotPose{Random: *pose == "random", Seed: *seed, Animation: *anim, Time: *animTime}}
		if !math.IsNaN(*yaw) {
			y := *yaw * math.Pi / 180
			o.Frame.Yaw = &y
		}
		if *compare != "" {
			if o.Compare, err = viewLoadRig(*compare); err != nil {
				return err
			}
			o.Labels = [2]string{filepath.Base(path), filepath.Base(*compare)}
		}
		if !*noText {
			o.Overlay = viewOverlay(c, o, m, *bone, *pose, *seed, *anim, *animTime)
		}
		if *problem > 0 {
			if err := viewProblemShot(c, path, *problem, &o); err != nil {
				return err
			}
		}
		img, err := viewer.Screenshot(c, o)
		if err != nil {
			return fmt.Errorf("screenshot %s: %w", path, err)
		}
		if err := viewWritePNG(*shot, img, stdout); err != nil {
			return err
		}
		fmt.Fprintf(resultLog(*shot, stdout), "wrote %s (%dx%d)\n", outputName(*shot), w, h)
		return nil
	default:
		if path == stdio || *compare == stdio {
			return fmt.Errorf("%w: the interactive viewer reads files (it reloads them when they change); \"-\" (stdin) works with --screenshot", errUsage)
		}
		err := viewer.Run(viewer.RunOptions{Path: path, Compare: *compare, Width: w, Height: h, Score: viewScoreLine,
			Out: *script.out, Skinners: editSkinners()})
		if err != nil {
			return fmt.Errorf("view %s: %w", path, err)
		}
		return nil
	}
}

// viewOverlay is a screenshot's text: each rig's counts and score, and what the
// image shows.
func viewOverlay(c *character.Character, o viewer.ShotOptions, m viewer.Mode, bone, pose string, seed int64, anim string, animTime float64) []string {
	lines := []string{viewer.Stats(c), "  " + viewScoreLine(c)}
	if o.Compare != nil {
		lines = append(lines, viewer.Stats(o.Compare), "  "+viewScoreLine(o.Compare))
	}
	line := "mode: " + m.String()
	if bone != "" {
		line += " | bone: " + bone
	}
	if pose == "random" {
		line += fmt.Sprintf(" | random pose, seed %d", seed)
	}
	if anim != "" {
		line += fmt.Sprintf(" | animation %s at %.2f s", anim, animTime)
	}
	return append(lines, line)
}

// viewProblemShot adds the problems panel (the rewards' problems and the suspect
// reasons of the report beside the file) to a screenshot, with problem n (from 1)
// selected: its joint selected and its region highlighted.
func viewProblemShot(c *character.Character, path string, n int, o *viewer.ShotOptions) error {
	rep, err := rewards.Score(c, rewards.Options{Motion: animation.ClipPoses})
	if err != nil {
		return fmt.Errorf("score %s: %w", displayName(path), err)
	}
	ps := viewer.FindProblems(c, rep, viewer.SuspectReasons(path))
	if n > len(ps) {
		return fmt.Errorf("--problem %d: %s has %d problems: %w", n, displayName(path), len(ps), errUsage)
	}
	pr := ps[n-1]
	o.Highlight = pr.Vertices
	if pr.Joint >= 0 {
		o.Bone = c.Skeleton.Names[pr.Joint]
		if o.Mode == viewer.ModeHeatmap {
			o.Mode = viewer.ModeShaded // the highlight paints over the shaded colours
		}
	}
	o.Overlay = append(o.Overlay, viewer.PanelLines(ps, n-1)...)
	return nil
}

// viewMode reads --mode; without it the heatmap shows a selected bone's weights.
func viewMode(mode, bone string) (viewer.Mode, error) {
	switch {
	case mode != "":
		m, err := viewer.ParseMode(mode)
		if err != nil {
			return 0, fmt.Errorf("--mode: %v: %w", err, errUsage)
		}
		return m, nil
	case bone != "":
		return viewer.ModeHeatmap, nil
	}
	return viewer.ModeShaded, nil
}

// viewScoreLine summarizes a rig's rewards (package rewards) on one line.
func viewScoreLine(c *character.Character) string {
	rep, err := rewards.Score(c, rewards.Options{Motion: animation.ClipPoses})
	if err != nil {
		return "rewards: " + oneLine(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "score %.3f (", rep.Score)
	for i, n := range rewards.RewardNames {
		if i > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "%s %.2f", n, rep.Rewards[n])
	}
	b.WriteString(")")
	return b.String()
}

// viewLoadRig reads and validates a character for a screenshot.
func viewLoadRig(path string) (*character.Character, error) {
	c, err := loadInput(path) // its errors name the file; "-" is stdin
	if err != nil {
		return nil, err
	}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("load %s: %w", displayName(path), err)
	}
	return c, nil
}

func viewSheet(dir, out, size string, m viewer.Mode, stdout io.Writer) error {
	var paths []string
	if st, err := os.Stat(dir); err != nil {
		return fmt.Errorf("sheet: %w", err)
	} else if !st.IsDir() {
		return fmt.Errorf("sheet: %s is not a folder: %w", dir, errUsage)
	}
	for _, pat := range []string{"*.glb", "*.gltf"} {
		found, _ := filepath.Glob(filepath.Join(dir, pat))
		paths = append(paths, found...)
	}
	sort.Strings(paths)
	if len(paths) == 0 {
		return fmt.Errorf("sheet: no .glb or .gltf files in %s", dir)
	}
	cell := 256
	if size != "1280x720" { // the default is the window size, not a thumbnail size
		w, h, err := viewParseSize(size)
		if err != nil {
			return fmt.Errorf("--size %q: %v: %w", size, err, errUsage)
		}
		cell = min(w, h)
	}
	img, failed, err := viewer.ContactSheet(paths, viewer.SheetOptions{Cell: cell, Mode: m})
	if err != nil {
		return fmt.Errorf("sheet %s: %w", dir, err)
	}
	if err := viewWritePNG(out, img, stdout); err != nil {
		return err
	}
	fmt.Fprintf(resultLog(out, stdout), "wrote %s: %d files, %d failed to load\n", outputName(out), len(paths), failed)
	return nil
}

// viewParseSize reads "WxH" or "N" (square).
func viewParseSize(s string) (int, int, error) {
	a, b, ok := strings.Cut(strings.ToLower(s), "x")
	if !ok {
		b = a
	}
	w, err1 := strconv.Atoi(a)
	h, err2 := strconv.Atoi(b)
	if err := errors.Join(err1, err2); err != nil || w <= 0 || h <= 0 || w > 8192 || h > 8192 {
		return 0, 0, errors.New("want WxH, each 1..8192")
	}
	return w, h, nil
}

// viewWritePNG writes img as a PNG atomically (its folder created if missing), or
// to stdout for "-".
func viewWritePNG(path string, img image.Image, stdout io.Writer) error {
	if path == stdio {
		if err := png.Encode(stdout, img); err != nil {
			return fmt.Errorf("write stdout: %w", err)
		}
		return nil
	}
	return atomicfile.Write(path, func(w io.Writer) error { return png.Encode(w, img) })
}
