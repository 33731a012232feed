package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/rigkit/rigkit/animation"
	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/character"
)

func init() {
	register(&command{
		name: "animate",
		usage: "RIG.glb (--clip NAME ... | --clip-from ANIM.glb [--from-anim NAME]) --out OUT.glb " +
			"[--kind humanoid|quadruped] [--fps N] [--json] | --list",
		summary: "add rigkit's animation clips (walk, run, idle, wave, …) or another file's animation to a rig",
		run:     runAnimate,
	})
}

// stringsFlag collects a repeated flag.
type stringsFlag []string

func (s *stringsFlag) String() string     { return strings.Join(*s, ",") }
func (s *stringsFlag) Set(v string) error { *s = append(*s, v); return nil }

func runAnimate(args []string, stdout io.Writer) error {
	fs := newFlags("animate")
	var clips stringsFlag
	fs.Var(&clips, "clip", "a built-in clip to add (repeat for several; see --list)")
	from := fs.String("clip-from", "", "retarget this GLB's animation onto the rig by joint name")
	fromAnim := fs.String("from-anim", "", "with --clip-from: the source animation's name (default: every one)")
	out := fs.String("out", "", "output GLB")
	kind := fs.String("kind", "", "skeleton kind for the clips: humanoid or quadruped (default: from the joint names)")
	fps := fs.Float64("fps", animation.DefaultFPS, "key samples per second")
	list := fs.Bool("list", false, "list the built-in clips and exit")
	asJSON := fs.Bool("json", false, "print one JSON report per animation instead of a line")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if *list {
		for _, c := range animation.Clips() {
			fmt.Fprintf(stdout, "%-10s %-6s %5.2f s  %s\n", c.Kind, c.Name, c.Duration, c.Description)
		}
		return nil
	}
	switch {
	case len(pos) != 1:
		return fmt.Errorf("%w: want one RIG.glb, got %d arguments", errUsage, len(pos))
	case *out == "":
		return fmt.Errorf("%w: --out is required", errUsage)
	case len(clips) == 0 && *from == "":
		return fmt.Errorf("%w: give --clip NAME or --clip-from ANIM.glb (rig animate --list shows the clips)", errUsage)
	case *kind != "" && *kind != animation.Humanoid && *kind != animation.Quadruped:
		return fmt.Errorf("%w: --kind %q: want humanoid or quadruped", errUsage, *kind)
	case !(*fps > 0) || *fps > 1000:
		return fmt.Errorf("%w: --fps %v: want a rate in (0, 1000]", errUsage, *fps)
	}
	c, _, err := assets.Load(pos[0], assets.Options{})
	if err != nil {
		return err
	}
	if c.Skeleton.NumJoints() == 0 {
		return fmt.Errorf("%s: no skeleton to animate (rig it first: rig auto)", pos[0])
	}
	opt := animation.Options{FPS: *fps}
	var reps []animation.Report
	if len(clips) > 0 {
		r, err := animateClips(c, pos[0], clips, *kind, opt, stdout)
		if err != nil {
			return err
		}
		reps = append(reps, r...)
	}
	if *from != "" {
		r, err := animateFrom(c, pos[0], *from, *fromAnim, opt, stdout)
		if err != nil {
			return err
		}
		reps = append(reps, r...)
	}
	if _, err := assets.Save(*out, c); err != nil {
		return err
	}
	for _, r := range reps {
		printAnimateReport(stdout, r, *asJSON)
	}
	if !*asJSON {
		fmt.Fprintf(stdout, "wrote %s (%d joints, %d animations)\n", *out, c.Skeleton.NumJoints(), len(c.Animations))
	}
	return nil
}

// namedTarget returns the character whose joint names the motion is matched
// against, and its kind: c itself when its names follow a scheme, else, for a
// quadruped or a biped, a copy named by its shape (the channels still target c's
// joints, which keep their names; the guess is printed).
func namedTarget(c *character.Character, path, kind string, stdout io.Writer) (*character.Character, string, error) {
	detected, err := animation.DetectKind(c.Skeleton)
	if err == nil {
		if kind == "" {
			kind = detected
		}
		return c, kind, nil
	}
	guessed, kind, gerr := animation.GuessNames(c.Skeleton, kind)
	if gerr != nil {
		return nil, "", fmt.Errorf("%s: %w; %v", path, err, gerr)
	}
	target := c.Clone()
	var pairs []string
	for j, n := range guessed {
		if n != "" {
			pairs = append(pairs, n+"="+c.Skeleton.Names[j])
			target.Skeleton.Names[j] = n
		}
	}
	fmt.Fprintf(stdout, "joint names guessed from the skeleton's shape (%s): %s\n", kind, strings.Join(pairs, " "))
	return target, kind, nil
}

// animateClips bakes the named built-in clips onto c.
func animateClips(c *character.Character, path string, names []string, kind string, opt animation.Options, stdout io.Writer) ([]animation.Report, error) {
	target, kind, err := namedTarget(c, path, kind, stdout)
	if err != nil {
		return nil, err
	}
	var reps []animation.Report
	for _, name := range names {
		clip, err := animation.Lookup(name, kind)
		if err != nil {
			return nil, fmt.Errorf("--clip: %w", err)
		}
		a, rep, err := animation.Apply(target, clip, opt)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		putAnimation(c, a)
		reps = append(reps, rep)
	}
	return reps, nil
}

// animateFrom retargets the animations of the file at from onto c.
func animateFrom(c *character.Character, path, from, name string, opt animation.Options, stdout io.Writer) ([]animation.Report, error) {
	target, _, err := namedTarget(c, path, "", stdout)
	if err != nil {
		return nil, err
	}
	src, _, err := assets.Load(from, assets.Options{})
	if err != nil {
		return nil, fmt.Errorf("--clip-from: %w", err)
	}
	idx := []int{}
	if name != "" {
		i, err := animation.FindAnimation(src, name)
		if err != nil {
			return nil, fmt.Errorf("--clip-from %s: %w", from, err)
		}
		idx = append(idx, i)
	} else {
		if len(src.Animations) == 0 {
			return nil, fmt.Errorf("--clip-from %s: no animation on its joints", from)
		}
		for i := range src.Animations {
			idx = append(idx, i)
		}
	}
	var reps []animation.Report
	for _, i := range idx {
		a, rep, err := animation.Retarget(target, src, i, opt)
		if err != nil {
			return nil, fmt.Errorf("--clip-from %s: %w", from, err)
		}
		putAnimation(c, a)
		reps = append(reps, rep)
	}
	return reps, nil
}

// putAnimation adds a to c, replacing an animation of the same name.
func putAnimation(c *character.Character, a character.Animation) {
	for i := range c.Animations {
		if c.Animations[i].Name == a.Name {
			c.Animations[i] = a
			return
		}
	}
	c.Animations = append(c.Animations, a)
}

func printAnimateReport(w io.Writer, r animation.Report, asJSON bool) {
	if asJSON {
		b, _ := json.Marshal(r)
		fmt.Fprintln(w, string(b))
		return
	}
	line := fmt.Sprintf("%s (%s): %.2f s, %d channels, %d joints matched", r.Animation, r.Kind, r.Duration, r.Channels, len(r.Matched))
	if len(r.Missing) > 0 {
		line += fmt.Sprintf(", skipped (not on the rig): %s", strings.Join(r.Missing, ", "))
	}
	if r.RootMotion {
		line += fmt.Sprintf("; root motion scaled to hip height %.3g", r.HipHeight)
	}
	fmt.Fprintln(w, line)
}
