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
			"[--kind humanoid|quadruped] [--replace] [--in-place] [--force] [--fps N] [--json] | --list",
		summary: "add rigkit's animation clips (walk, run, idle, wave, …) or another file's animation to a rig",
		help: `The output is RIG's scene (node hierarchy and transforms, meshes and all their
primitives, materials, textures, extensions) with the animations added; the
animations RIG already has are kept unless --replace, and one of the same name
is replaced. --clip-from reads a .glb/.gltf with or without a mesh (a skeleton
and its clips is enough) and retargets in world space, whatever rotates, scales
or turns Z up above either skeleton. A clip of one kind (humanoid, quadruped) on
a rig of the other, by its joint names or by its shape, is refused unless
--force. Before writing, every added clip is posed at 5 times and checked to
stay upright and sized (docs/animation.md); a clip that fails exits 1 naming
the clip and the time, and nothing is written.`,
		run: runAnimate,
	})
}

// stringsFlag collects a repeated flag.
type stringsFlag []string

func (s *stringsFlag) String() string     { return strings.Join(*s, ",") }
func (s *stringsFlag) Set(v string) error { *s = append(*s, v); return nil }

// animateArgs are the parsed flags of `rig animate`.
type animateArgs struct {
	rig, out, from, fromAnim, kind string
	clips                          []string
	opt                            animation.Options
	replace, asJSON                bool
}

func parseAnimate(args []string, stdout io.Writer) (*animateArgs, bool, error) {
	fs := newFlags("animate")
	var clips stringsFlag
	fs.Var(&clips, "clip", "a built-in clip to add (repeat for several; see --list)")
	from := fs.String("clip-from", "", "retarget this glTF/GLB's animations onto the rig by joint name")
	fromAnim := fs.String("from-anim", "", "with --clip-from: the source animation's name (default: every one)")
	out := fs.String("out", "", "output GLB")
	kind := fs.String("kind", "", "skeleton kind for the clips: humanoid or quadruped (default: from the joint names)")
	fps := fs.Float64("fps", animation.DefaultFPS, "key samples per second")
	replace := fs.Bool("replace", false, "drop the rig's own animations (default: keep them)")
	inPlace := fs.Bool("in-place", false, "keep the hips over their rest position (only the up-down part of root motion)")
	force := fs.Bool("force", false, "apply a clip to a rig of another kind (humanoid clip on a quadruped, …)")
	list := fs.Bool("list", false, "list the built-in clips and exit")
	asJSON := fs.Bool("json", false, "print one JSON report per animation instead of a line")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return nil, false, fmt.Errorf("%w: %v", errUsage, err)
	}
	if *list {
		for _, c := range animation.Clips() {
			fmt.Fprintf(stdout, "%-10s %-6s %5.2f s  %s\n", c.Kind, c.Name, c.Duration, c.Description)
		}
		return nil, true, nil
	}
	switch {
	case len(pos) != 1:
		return nil, false, fmt.Errorf("%w: want one RIG.glb, got %d arguments", errUsage, len(pos))
	case *out == "":
		return nil, false, fmt.Errorf("%w: --out is required", errUsage)
	case len(clips) == 0 && *from == "":
		return nil, false, fmt.Errorf("%w: give --clip NAME or --clip-from ANIM.glb (rig animate --list shows the clips)", errUsage)
	case *kind != "" && *kind != animation.Humanoid && *kind != animation.Quadruped:
		return nil, false, fmt.Errorf("%w: --kind %q: want humanoid or quadruped", errUsage, *kind)
	case !(*fps > 0) || *fps > 1000:
		return nil, false, fmt.Errorf("%w: --fps %v: want a rate in (0, 1000]", errUsage, *fps)
	}
	if err := checkWritable(*out); err != nil {
		return nil, false, err
	}
	return &animateArgs{rig: pos[0], out: *out, from: *from, fromAnim: *fromAnim, kind: *kind, clips: clips,
		opt:     animation.Options{FPS: *fps, InPlace: *inPlace, Force: *force},
		replace: *replace, asJSON: *asJSON}, false, nil
}

func runAnimate(args []string, stdout io.Writer) error {
	a, done, err := parseAnimate(args, stdout)
	if err != nil || done {
		return err
	}
	c, _, err := assets.Load(a.rig, assets.Options{KeepScene: true})
	if err != nil {
		return err
	}
	if c.Skeleton.NumJoints() == 0 {
		return fmt.Errorf("%s: no skeleton to animate (rig it first: rig auto)", a.rig)
	}
	if a.replace {
		c.Animations = nil
	}
	target, reps, err := addAnimations(c, a, stdout)
	if err != nil {
		return err
	}
	if err := checkPostures(target, c, reps); err != nil {
		return fmt.Errorf("%s: %w; nothing written", a.rig, err)
	}
	if _, err := assets.Save(a.out, c); err != nil {
		return err
	}
	for _, r := range reps {
		printAnimateReport(stdout, r, a.asJSON)
	}
	if !a.asJSON {
		fmt.Fprintf(stdout, "wrote %s (%d joints, %d animations; %d checked upright and sized at %d times each)\n",
			a.out, c.Skeleton.NumJoints(), len(c.Animations), len(reps), animation.PostureSamples)
	}
	return nil
}

// addAnimations bakes the asked clips and retargeted animations onto c and returns
// the named character they were matched against (c itself, or a copy named by its
// shape) and one report per added animation.
func addAnimations(c *character.Character, a *animateArgs, stdout io.Writer) (*character.Character, []animation.Report, error) {
	target, detected, err := namedTarget(c, a.rig, a.kind, stdout)
	if err != nil {
		return nil, nil, err
	}
	var reps []animation.Report
	if len(a.clips) > 0 {
		r, err := animateClips(c, target, detected, a, stdout)
		if err != nil {
			return nil, nil, err
		}
		reps = append(reps, r...)
	}
	if a.from != "" {
		r, err := animateFrom(c, target, a)
		if err != nil {
			return nil, nil, err
		}
		reps = append(reps, r...)
	}
	return target, reps, nil
}

// checkPostures poses every added animation at PostureSamples times.
func checkPostures(target, c *character.Character, reps []animation.Report) error {
	for _, r := range reps {
		i, err := animation.FindAnimation(c, r.Animation)
		if err != nil {
			return err
		}
		a := c.Animations[i]
		if err := animation.CheckPosture(target, a, animation.PostureTimes(r.Duration, animation.PostureSamples)); err != nil {
			return err
		}
	}
	return nil
}

// namedTarget returns the character whose joint names the motion is matched
// against, and the kind its names say: c itself when its names follow a scheme,
// else, for a quadruped or a biped, a copy named by its shape (the channels still
// target c's joints, which keep their names; the guess is printed).
func namedTarget(c *character.Character, path, kind string, stdout io.Writer) (*character.Character, string, error) {
	detected, err := animation.DetectKind(c.Skeleton)
	if err == nil {
		return c, detected, nil
	}
	guessed, gkind, gerr := animation.GuessNames(c.Skeleton, kind)
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
	fmt.Fprintf(stdout, "joint names guessed from the skeleton's shape (%s): %s\n", gkind, strings.Join(pairs, " "))
	return target, gkind, nil
}

// checkKind refuses motion of kind on a rig whose names say another kind or whose
// shape is not that kind's, unless forced. guessed says target's names were
// guessed from its shape (namedTarget), which holds the shape to a stricter test.
func checkKind(target *character.Character, guessed bool, path, detected, kind string, force bool) error {
	if force {
		return nil
	}
	if detected != kind {
		return fmt.Errorf("%s: a %s clip on a rig whose joint names are a %s's; pass --force to apply it anyway", path, kind, detected)
	}
	if err := animation.CheckKind(target.Skeleton, kind, !guessed); err != nil {
		return fmt.Errorf("%s: a %s clip: %w; pass --force to apply it anyway", path, kind, err)
	}
	return nil
}

// animateClips bakes the named built-in clips onto c.
func animateClips(c, target *character.Character, detected string, a *animateArgs, stdout io.Writer) ([]animation.Report, error) {
	kind := a.kind
	if kind == "" {
		kind = detected
	}
	if err := checkKind(target, target != c, a.rig, detected, kind, a.opt.Force); err != nil {
		return nil, err
	}
	var reps []animation.Report
	for _, name := range a.clips {
		clip, err := animation.Lookup(name, kind)
		if err != nil {
			return nil, fmt.Errorf("--clip: %w", err)
		}
		anim, rep, err := animation.Apply(target, clip, a.opt)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", a.rig, err)
		}
		putAnimation(c, anim)
		reps = append(reps, rep)
	}
	return reps, nil
}

// animateFrom retargets the animations of the file a.from onto c.
func animateFrom(c, target *character.Character, a *animateArgs) ([]animation.Report, error) {
	src, err := assets.LoadMotion(a.from, assets.Options{})
	if err != nil {
		return nil, fmt.Errorf("--clip-from: %w", err)
	}
	srcKind, err := animation.DetectKind(src.Skeleton)
	if err != nil {
		return nil, fmt.Errorf("--clip-from %s: %w", a.from, err)
	}
	tgtKind, err := animation.DetectKind(target.Skeleton)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a.rig, err)
	}
	if err := checkKind(target, target != c, a.rig, tgtKind, srcKind, a.opt.Force); err != nil {
		return nil, fmt.Errorf("--clip-from %s: %w", a.from, err)
	}
	idx, err := sourceAnimations(src, a)
	if err != nil {
		return nil, err
	}
	var reps []animation.Report
	for _, i := range idx {
		anim, rep, err := animation.Retarget(target, src, i, a.opt)
		if err != nil {
			return nil, fmt.Errorf("--clip-from %s: %w", a.from, err)
		}
		putAnimation(c, anim)
		reps = append(reps, rep)
	}
	return reps, nil
}

// sourceAnimations returns the indices of the source animations to retarget.
func sourceAnimations(src *character.Character, a *animateArgs) ([]int, error) {
	if a.fromAnim != "" {
		i, err := animation.FindAnimation(src, a.fromAnim)
		if err != nil {
			return nil, fmt.Errorf("--clip-from %s: %w", a.from, err)
		}
		return []int{i}, nil
	}
	idx := make([]int, len(src.Animations))
	for i := range idx {
		idx[i] = i
	}
	return idx, nil
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
	if len(r.Unmatched) > 0 {
		line += fmt.Sprintf(", rig joints without a %s name (they follow their parents): %s", r.Kind, strings.Join(r.Unmatched, ", "))
	}
	if r.RootMotion {
		line += fmt.Sprintf("; root motion scaled to leg length %.3g", r.HipHeight)
	}
	fmt.Fprintln(w, line)
}
