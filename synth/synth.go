// Package synth generates rigged creatures procedurally (bipeds, quadrupeds, winged,
// tailed, snakes, spiders, multi-limbed creatures and articulated props) with
// ground-truth skeletons and artist-like skin weights, deterministically per seed.
// Each creature is a grammar-sampled skeleton wrapped in a smooth union of tapered
// capsules, polygonized into a closed manifold mesh near a target vertex count and
// skinned by which body part owns each surface region, blended only near joints.
//
// Frames: +Y up, facing +Z, the creature's left ("_l") on +X. Bind matrices carry
// identity rotations at the joint positions (posed variants carry the posed joint
// rotations instead).
package synth

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"sort"

	"github.com/rigkit/rigkit/character"
)

// Options controls a generated creature.
type Options struct {
	// TargetVertices is the vertex count aimed at (within about ±15%); 0 means 5000.
	TargetVertices int
	// Noise adds defects real meshes have: holes, non-manifold fins, flipped
	// triangles, uneven triangle sizes and small disconnected pieces (eyes,
	// accessories) skinned rigidly to the bone they sit on.
	Noise bool
	// Posed re-bakes the creature in a random pose as its bind pose.
	Posed bool
	// PoseAngle is the largest per-joint rotation of a posed variant, in radians;
	// 0 means 30°.
	PoseAngle float64
}

// DefaultVertices is the vertex count aimed at when Options.TargetVertices is 0.
const DefaultVertices = 5000

type grammar func(b *builder)

var grammars = map[string]grammar{
	"biped": func(b *builder) {
		b.biped(bodyPlan{armPairs: 1, fingers: 0.6, toes: 0.2})
	},
	"quadruped": func(b *builder) {
		plan := bodyPlan{toes: 0.2}
		if b.chance(0.6) {
			plan.tail = [2]int{2, 6}
		}
		b.quadruped(plan)
	},
	"winged": func(b *builder) {
		if b.chance(0.5) {
			b.biped(bodyPlan{horizontal: true, wings: true, tail: [2]int{2, 4}, toes: 0.7})
			return
		}
		b.quadruped(bodyPlan{wings: true, tail: [2]int{3, 8}})
	},
	"tailed": func(b *builder) {
		switch b.in(0, 2) {
		case 0:
			b.biped(bodyPlan{armPairs: 1, horizontal: true, tail: [2]int{6, 14}, fingers: 0.3})
		case 1:
			b.quadruped(bodyPlan{sprawl: true, tail: [2]int{6, 14}, toes: 0.5})
		default:
			b.biped(bodyPlan{armPairs: 1, tail: [2]int{5, 10}, fingers: 0.5})
		}
	},
	"snake":  func(b *builder) { b.snake() },
	"spider": func(b *builder) { b.spider() },
	"multi": func(b *builder) {
		switch b.in(0, 3) {
		case 0:
			b.octopus()
		case 1:
			b.centipede()
		case 2:
			b.biped(bodyPlan{armPairs: b.in(2, 3)})
		default:
			b.quadruped(bodyPlan{heads: b.in(2, 3), tail: [2]int{0, 5}})
		}
	},
	"prop": func(b *builder) {
		b.blend = 0.15 // mechanical: rigid parts, narrow blends at hinges
		if b.chance(0.5) {
			b.lamp()
		} else {
			b.robotArm()
		}
	},
}

// Kinds returns the creature kinds Generate accepts, sorted.
func Kinds() []string {
	k := make([]string, 0, len(grammars))
	for n := range grammars {
		k = append(k, n)
	}
	sort.Strings(k)
	return k
}

const (
	smoothBlend   = 0.5  // smooth-min radius as a fraction of the thinner part's radius
	minRadiusGrid = 1.0  // thinnest part radius, in grid cells
	crossingsPerA = 1.25 // marching-cubes vertices per unit area per cell area
	relaxRounds   = 3    // smoothing rounds that even out triangle shapes
)

// Generate builds creature kind from seed. The same kind, seed and options always
// give the same character.
func Generate(kind string, seed int64, opt Options) (*character.Character, error) {
	g, ok := grammars[kind]
	if !ok {
		return nil, fmt.Errorf("synth: unknown kind %q (kinds: %v)", kind, Kinds())
	}
	target := opt.TargetVertices
	if target == 0 {
		target = DefaultVertices
	}
	if target < 100 {
		return nil, fmt.Errorf("synth: target of %d vertices is too small (at least 100)", target)
	}
	build := func(minR float64) (*builder, error) {
		b := newBuilder(seed, minR)
		b.blend = b.u(0.8, 1.2)
		g(b)
		if err := b.finish(); err != nil {
			return nil, fmt.Errorf("synth: %s seed %d: %w", kind, seed, err)
		}
		return b, nil
	}
	b, err := build(0)
	if err != nil {
		return nil, err
	}
	h := math.Sqrt(crossingsPerA * surfaceArea(b.prims) / float64(target))
	thinnest := math.Inf(1)
	for _, p := range b.prims {
		thinnest = math.Min(thinnest, math.Min(p.ra, p.rb)*p.flatScale)
	}
	if thinnest < minRadiusGrid*h {
		if b, err = build(minRadiusGrid * h); err != nil {
			return nil, err
		}
		h = math.Sqrt(crossingsPerA * surfaceArea(b.prims) / float64(target))
	}
	for i := range b.prims {
		b.prims[i].prepare(smoothBlend)
	}
	surf := polygonize(b.prims, h)
	if n := len(surf.positions); n > 0 && math.Abs(float64(n)/float64(target)-1) > 0.12 {
		h *= math.Sqrt(float64(n) / float64(target))
		surf = polygonize(b.prims, h)
	}
	relax(b.prims, surf, h, relaxRounds)
	if len(surf.triangles) == 0 {
		return nil, fmt.Errorf("synth: %s seed %d: empty surface", kind, seed)
	}
	c := &character.Character{
		Name:     fmt.Sprintf("%s_%d", kind, seed),
		Mesh:     character.Mesh{Positions: surf.positions, Triangles: surf.triangles},
		Skeleton: b.skeleton(),
		Skin:     skinWeights(b.prims, b.parents, surf),
	}
	c.Materials = []character.Material{{Name: kind, BaseColor: kindColor(kind, seed), Roughness: 0.8}}
	c.Mesh.Groups = []character.TriangleGroup{{Start: 0, Count: len(c.Mesh.Triangles), Material: 0}}
	if opt.Posed {
		angle := opt.PoseAngle
		if angle == 0 {
			angle = deg(30)
		}
		repose(c, b.prims, rand.New(rand.NewSource(seed^0x5ca1ab1e)), angle)
	}
	if opt.Noise {
		addNoise(c, rand.New(rand.NewSource(seed^0x0dd5eed)))
		c.Mesh.Groups = []character.TriangleGroup{{Start: 0, Count: len(c.Mesh.Triangles), Material: 0}}
	}
	c.Mesh.Normals = c.Mesh.ComputeNormals()
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("synth: %s seed %d: %w", kind, seed, err)
	}
	return c, nil
}

// kindColor is a pleasant base color varied per seed.
func kindColor(kind string, seed int64) [4]float64 {
	h := 0.0
	for _, ch := range kind {
		h = math.Mod(h*31+float64(ch), 360)
	}
	h = math.Mod(h+float64(seed%7)*9, 360) / 360
	// HSV with s=0.45, v=0.85 to linear-ish RGB.
	r, g, bl := hsv(h, 0.45, 0.85)
	return [4]float64{r, g, bl, 1}
}

func hsv(h, s, v float64) (float64, float64, float64) {
	i := math.Floor(h * 6)
	f := h*6 - i
	p, q, t := v*(1-s), v*(1-f*s), v*(1-(1-f)*s)
	switch int(i) % 6 {
	case 0:
		return v, t, p
	case 1:
		return q, v, p
	case 2:
		return p, v, t
	case 3:
		return p, q, v
	case 4:
		return t, p, v
	default:
		return v, p, q
	}
}

var errNoSkin = errors.New("synth: character has no skin")
