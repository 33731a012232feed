package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rigkit/rigkit/assets/gltfio"
	"github.com/rigkit/rigkit/autorig"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/skinning"
)

func init() {
	register(&command{
		name:    "skin",
		usage:   "IN.glb|- --out OUT.glb|- [--method tokens+heat@0.3|tokens|geodesic|heat|rigid|A+B[@ALPHA]] [--samples N] [--json]",
		summary: "compute skin weights for a mesh's own skeleton",
		run:     runSkin,
	})
}

// skinMethod computes weights for a character's mesh and skeleton (its own skin, if
// any, is ignored). It must keep the skeleton, joint names and vertex positions.
type skinMethod func(c *character.Character) (*character.Skin, error)

// skinMethods are the methods of `rig skin` and `rig eval --task skin`. Other files
// register more (the learned model registers "tokens").
var skinMethods = map[string]skinMethod{
	"geodesic": func(c *character.Character) (*character.Skin, error) {
		return skinning.Geodesic(c, skinning.GeodesicOptions{})
	},
	"heat": func(c *character.Character) (*character.Skin, error) {
		return skinning.Heat(c, skinning.HeatOptions{})
	},
	"rigid": func(c *character.Character) (*character.Skin, error) {
		if c.Skeleton.NumJoints() == 0 {
			return nil, fmt.Errorf("rigid skin %q: no skeleton", c.Name)
		}
		return skinning.Rigid(c), nil
	},
}

// defaultSkinMethod is the documented default: the model's token skin refined
// by heat weights (autorig.DefaultTokenShare tokens, the rest heat). While
// "tokens" is not registered, resolveSkinMethod falls back to fallbackSkinMethod
// with a note on stderr.
var defaultSkinMethod = "tokens+heat@" + strconv.FormatFloat(autorig.DefaultTokenShare, 'g', -1, 64)

const fallbackSkinMethod = "geodesic"

// blocksSuffix ends a skin method whose weights then bind each rigid block of
// the mesh to one joint (skinning.BindBlocks).
const blocksSuffix = "/blocks"

// sidesSuffix ends a skin method whose weights on the other side of the
// skeleton's mirror plane then go to the mirrored bone (skinning.MirrorSides).
const sidesSuffix = "/sides"

// skinSteps are the steps a skin method's name may end in, each applied to the
// weights the method before it gives.
var skinSteps = []struct {
	suffix string
	post   func(*character.Character, *character.Skin) (*character.Skin, error)
}{
	{sidesSuffix, mirrorSidesStep},
	{blocksSuffix, func(c *character.Character, k *character.Skin) (*character.Skin, error) {
		k, _ = skinning.BindBlocks(c, k)
		return k, nil
	}},
}

// isTokenSkin reports whether a skin method name uses the model's skin tokens
// (tokens, or a blend or sharpening of them), whose weights --sides hands
// across the mirror plane.
func isTokenSkin(name string) bool { return strings.Contains(name, "tokens") }

// mirrorSidesStep hands weight across the skeleton's mirror plane to the
// mirrored bones (skinning.MirrorSides).
func mirrorSidesStep(c *character.Character, k *character.Skin) (*character.Skin, error) {
	k, _ = skinning.MirrorSides(c, k)
	return k, nil
}

// resolveSkinMethod returns the method to run for a --method value ("" = default).
func resolveSkinMethod(name string, stderr io.Writer) (string, skinMethod, error) {
	if name == "" {
		name = defaultSkinMethod
		if _, ok := skinMethods["tokens"]; !ok {
			fmt.Fprintf(stderr, "rig: skin method %q needs a shipped model that writes skin tokens (this one writes skeleton tokens only); using %q\n", name, fallbackSkinMethod)
			name = fallbackSkinMethod
		}
	}
	m, err := lookupSkinMethod(skinMethods, name)
	if err != nil {
		return "", nil, err
	}
	return name, m, nil
}

// lookupSkinMethod returns the method called name in methods, or a blend "A+B" (or
// "A+B@ALPHA", ALPHA in [0, 1], default 0.5) of two of them: each vertex's weights
// are ALPHA·A + (1−ALPHA)·B, pruned to 4 influences (skinning.Blend). A suffix "^P"
// (P in [1, 16]) sharpens what the method before it gives (skinning.Sharpen):
// "heat^1.5", "heat+geodesic@0.7^2". A last suffix "/blocks" binds each rigid
// block of the mesh to one joint (skinning.BindBlocks): "heat/blocks".
func lookupSkinMethod(methods map[string]skinMethod, name string) (skinMethod, error) {
	if m, ok := methods[name]; ok {
		return m, nil
	}
	for _, step := range skinSteps {
		if base, ok := strings.CutSuffix(name, step.suffix); ok {
			m, err := lookupSkinMethod(methods, base)
			if err != nil {
				return nil, err
			}
			return followedBy(m, step.post), nil
		}
	}
	if i := strings.LastIndex(name, "^"); i >= 0 {
		base, powText := name[:i], name[i+1:]
		p, err := strconv.ParseFloat(powText, 64)
		if err != nil || !(p >= 1 && p <= 16) || strings.Contains(base, "^") {
			return nil, fmt.Errorf("%w: skin method %q: sharpening power %q is not one number in [1, 16]", errUsage, name, powText)
		}
		m, err := lookupSkinMethod(methods, base)
		if err != nil {
			return nil, err
		}
		return followedBy(m, func(_ *character.Character, k *character.Skin) (*character.Skin, error) {
			return skinning.Sharpen(k, p, character.MaxInfluencesWritten)
		}), nil
	}
	unknown := fmt.Errorf("%w: unknown skin method %q (available: %v, or a blend A+B[@ALPHA], either sharpened by ^P, any of them ending in /blocks)", errUsage, name, skinMethodNames())
	pair, alphaText, hasAlpha := strings.Cut(name, "@")
	an, bn, ok := strings.Cut(pair, "+")
	a, okA := methods[an]
	b, okB := methods[bn]
	if !ok || !okA || !okB {
		return nil, unknown
	}
	alpha := 0.5
	if hasAlpha {
		v, err := strconv.ParseFloat(alphaText, 64)
		if err != nil || !(v >= 0 && v <= 1) {
			return nil, fmt.Errorf("%w: skin method %q: blend weight %q is not in [0, 1]", errUsage, name, alphaText)
		}
		alpha = v
	}
	return func(c *character.Character) (*character.Skin, error) {
		ka, err := a(c)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", an, err)
		}
		kb, err := b(c)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", bn, err)
		}
		return skinning.Blend(ka, kb, alpha, character.MaxInfluencesWritten)
	}, nil
}

// followedBy returns method m with post applied to the weights it gives.
func followedBy(m skinMethod, post func(*character.Character, *character.Skin) (*character.Skin, error)) skinMethod {
	return func(c *character.Character) (*character.Skin, error) {
		k, err := m(c)
		if err != nil {
			return nil, err
		}
		return post(c, k)
	}
}

func skinMethodNames() []string {
	n := make([]string, 0, len(skinMethods))
	for k := range skinMethods {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

func runSkin(args []string, stdout io.Writer) error {
	fs := newFlags("skin")
	out := fs.String("out", "", "output .glb, or - for GLB on stdout (required)")
	method := fs.String("method", "", "tokens+heat@0.3 (default: the token skin refined by heat), tokens, geodesic, heat, rigid, or a blend A+B[@ALPHA] of two (ALPHA·A + (1−ALPHA)·B per vertex, default 0.5); a suffix ^P sharpens (weights to the power P, renormalized)")
	samples := fs.Int("samples", 0, "tokens: skin-token streams whose decoded weights are averaged (0: the method's default; 1: greedy)")
	blocks := fs.Bool("blocks", true, "bind each rigid block of the mesh (a part of at most 8 distinct positions, such as each box of a blocky character) wholly to one joint; the method gains \"/blocks\"")
	sides := fs.Bool("sides", true, "token skins: the weight a bone gives across the skeleton's mirror plane goes to its mirror image where that lies at most half as far (legs pressed together); the method gains \"/sides\"")
	keepIdle := fs.Bool("keep-idle", true, "joints the input's own skin gives no weight (a floor root, an armature node, IK targets) get none in the new skin")
	asJSON := fs.Bool("json", false, "print a JSON report (with what the output kept and replaced of the input's scene) instead of a line")
	eng := engineFlag(fs)
	files, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if _, err := useEngine(*eng, 0, diag); err != nil {
		return err
	}
	if len(files) != 1 || *out == "" {
		return fmt.Errorf("%w: need one input file and --out", errUsage)
	}
	name, fn, err := resolveSkinMethod(*method, diag)
	if err != nil {
		return err
	}
	if *samples < 0 || *samples > 64 {
		return fmt.Errorf("%w: --samples %d: want 0..64", errUsage, *samples)
	}
	if *samples > 0 {
		if fn, err = withTokenSamples(name, *samples); err != nil {
			return err
		}
	}
	c, err := loadInput(files[0])
	if err != nil {
		return err // the loader's errors name the file
	}
	src := displayName(files[0])
	if c.Skeleton.NumJoints() == 0 {
		return fmt.Errorf("skin %s: the file has no skeleton (rig skin keeps the input's skeleton; use rig auto to make one)", src)
	}
	t0 := time.Now()
	skin, fallback, err := skinOrFallback(c, name, fn)
	if err != nil {
		return fmt.Errorf("skin %s with %s: %w", src, name, err)
	}
	if fallback != "" {
		fmt.Fprintf(diag, "rig: skin %s: %s\n", src, fallback)
		name = fallbackSkinMethod
	}
	var sided *skinning.SideReport
	if *sides && isTokenSkin(name) {
		var rep skinning.SideReport
		if skin, rep = skinning.MirrorSides(c, skin); rep.Moved > 0 {
			sided, name = &rep, name+sidesSuffix
		}
	}
	var idle []string
	if *keepIdle {
		skin, idle = keepIdleJoints(c, skin)
	}
	var bound *skinning.BlockReport
	if *blocks {
		var rep skinning.BlockReport
		if skin, rep = skinning.BindBlocks(c, skin); rep.Blocks > 0 {
			bound, name = &rep, name+blocksSuffix
		}
	}
	if err := skin.Validate(len(c.Mesh.Positions), c.Skeleton.NumJoints(), 1e-3); err != nil {
		return fmt.Errorf("skin %s with %s: invalid weights: %w", src, name, err)
	}
	elapsed := time.Since(t0)
	rigged := c.Clone()
	rigged.Skin = skin
	scene, err := saveOutput(*out, rigged, stdout)
	if err != nil {
		return err // the writer's errors name the file
	}
	if *asJSON {
		return printSkinRun(stdout, skinRun{Input: files[0], Output: *out, Method: name, Fallback: fallback,
			Vertices: len(c.Mesh.Positions), Joints: c.Skeleton.NumJoints(), Idle: idle, Sides: sided, Blocks: bound, Seconds: elapsed.Seconds(), Scene: scene})
	}
	fmt.Fprintf(resultLog(*out, stdout), "%s: %d vertices, %d joints, method %s, %.3f s → %s\n",
		src, len(c.Mesh.Positions), c.Skeleton.NumJoints(), name, elapsed.Seconds(), outputName(*out))
	return nil
}

// skinRun is `rig skin --json`: the run, and under "scene" what the output kept
// of the input (the file's skins and animations stay; only weights are new).
type skinRun struct {
	Input    string                `json:"input"`
	Output   string                `json:"output"`
	Method   string                `json:"method"`
	Fallback string                `json:"fallback,omitempty"` // why the tokens method gave way to geodesic
	Vertices int                   `json:"vertices"`
	Joints   int                   `json:"joints"`
	Idle     []string              `json:"idle_joints,omitempty"` // left without weight, as the input's skin had them (--keep-idle)
	Sides    *skinning.SideReport  `json:"sides,omitempty"`       // token weight handed across the mirror plane (--sides)
	Blocks   *skinning.BlockReport `json:"blocks,omitempty"`      // rigid blocks bound to one joint (--blocks)
	Seconds  float64               `json:"seconds"`
	Scene    *gltfio.SceneReport   `json:"scene"`
}

// withTokenSamples returns method name (tokens, or a blend with tokens first)
// with its token skin the mean of samples streams.
func withTokenSamples(name string, samples int) (skinMethod, error) {
	if name != "tokens" && !strings.HasPrefix(name, "tokens+") {
		return nil, fmt.Errorf("%w: --samples applies to --method tokens or a blend tokens+B, not %s", errUsage, name)
	}
	methods := maps.Clone(skinMethods)
	methods["tokens"] = tokensSkin(skinSampling{Samples: samples})
	return lookupSkinMethod(methods, name)
}

// skinOrFallback runs method name on c. When a skin-token method fails (the model
// or the tokenizer cannot skin this character), the README's promise holds: the
// skin is geodesic, and fallback says why; any other method's error is returned.
func skinOrFallback(c *character.Character, name string, fn skinMethod) (skin *character.Skin, fallback string, err error) {
	skin, err = fn(c)
	if err == nil || !strings.HasPrefix(name, "tokens") {
		return skin, "", err
	}
	fallback = fmt.Sprintf("skin tokens failed (%v): the skin is %s", err, fallbackSkinMethod)
	if skin, err = skinMethods[fallbackSkinMethod](c); err != nil {
		return nil, fallback, fmt.Errorf("%s, which failed too: %w", fallback, err)
	}
	return skin, fallback, nil
}

// keepIdleJoints returns skin with the joints c's own skin gives no weight left
// without weight (skinning.KeepIdle), and their names, sorted; skin as is when c
// has no skin or its skin weights no joint.
func keepIdleJoints(c *character.Character, skin *character.Skin) (*character.Skin, []string) {
	idle := skinning.IdleJoints(c)
	if len(idle) == 0 {
		return skin, nil
	}
	names := slices.Sorted(maps.Keys(idle))
	return skinning.KeepIdle(skin, c, idle), names
}

func printSkinRun(w io.Writer, r skinRun) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
