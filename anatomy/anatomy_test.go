package anatomy_test

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/qmuntal/gltf"

	"github.com/rigkit/rigkit/anatomy"
	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/autorig"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/classical"
	"github.com/rigkit/rigkit/synth"
	"github.com/rigkit/rigkit/vecmath"
)

// fit rigs a character's mesh with the classical skeleton and anatomy.Fit.
func fit(t *testing.T, c *character.Character, opt anatomy.Options) (*character.Skeleton, *anatomy.Report) {
	t.Helper()
	prop, err := classical.Skeleton(&c.Mesh, autorig.ClassicalOptions(&c.Mesh))
	if err != nil {
		t.Fatal(err)
	}
	sk, rep, err := anatomy.Fit(&c.Mesh, prop, opt)
	if err != nil {
		t.Fatal(err)
	}
	return sk, rep
}

func gen(t *testing.T, kind string, seed int64) *character.Character {
	t.Helper()
	c, err := synth.Generate(kind, seed, synth.Options{TargetVertices: 3000})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func height(m *character.Mesh, up int) float64 {
	lo, hi := m.Bounds()
	return hi[up] - lo[up]
}

// TestFitSynthetic fits the synthetic creatures: bipeds get Mixamo's hierarchy with
// the root at the pelvis, no limb on another limb and mirrored sides; each kind
// is detected.
func TestFitSynthetic(t *testing.T) {
	cases := []struct {
		kind string
		seed int64
		want anatomy.Kind
	}{
		{"biped", 2, anatomy.Humanoid},
		{"biped", 3, anatomy.Humanoid},
		{"biped", 4, anatomy.Humanoid},
		{"quadruped", 1, anatomy.Quadruped},
		{"quadruped", 3, anatomy.Quadruped},
		{"snake", 1, anatomy.Snake},
		{"snake", 2, anatomy.Snake},
	}
	for _, tc := range cases {
		c := gen(t, tc.kind, tc.seed)
		sk, rep := fit(t, c, anatomy.Options{})
		if rep.Kind != tc.want {
			t.Errorf("%s %d: kind %s (confidence %.2f), want %s", tc.kind, tc.seed, rep.Kind, rep.Confidence, tc.want)
			continue
		}
		H := height(&c.Mesh, 1)
		ch := anatomy.Check(sk, rep.Symmetry, H)
		if ch.Roots != 1 || len(ch.LimbOnLimb) > 0 {
			t.Errorf("%s %d: %d roots, limbs on limbs %v", tc.kind, tc.seed, ch.Roots, ch.LimbOnLimb)
		}
		if rep.Symmetry.Symmetric && ch.MirrorError > 0.02 {
			t.Errorf("%s %d: left/right pairs %.3f of the height from mirror images", tc.kind, tc.seed, ch.MirrorError)
		}
		if tc.want != anatomy.Humanoid {
			continue
		}
		if sk.Names[0] != anatomy.Hips || ch.RootToPelvis > 0.1 {
			t.Errorf("%s %d: root %s is %.3f of the height from the hips", tc.kind, tc.seed, sk.Names[0], ch.RootToPelvis)
		}
		hits, total, missed := anatomy.NameAccuracy(sk, c.Skeleton, 0.1*H)
		if total < 10 || float64(hits) < 0.8*float64(total) {
			t.Errorf("%s %d: %d of %d named joints within 0.1 of the height of the generator's (missed %v)", tc.kind, tc.seed, hits, total, missed)
		}
	}
}

// TestUpAxis: a Z-up copy of a biped is detected as Z-up with a warning, gets the
// same skeleton turned with it, and --up overrides detection.
func TestUpAxis(t *testing.T) {
	c := gen(t, "biped", 3)
	z := c.Clone()
	for i, p := range z.Mesh.Positions {
		z.Mesh.Positions[i] = vecmath.Vec3{p[0], -p[2], p[1]} // Blender's export of a Y-up mesh
	}
	skY, repY := fit(t, c, anatomy.Options{})
	skZ, repZ := fit(t, z, anatomy.Options{})
	if repY.Up != "y" || len(repY.Warnings) > 0 {
		t.Errorf("Y-up biped: up %s, warnings %v", repY.Up, repY.Warnings)
	}
	if repZ.Up != "z" || len(repZ.Warnings) == 0 || repZ.Kind != anatomy.Humanoid {
		t.Fatalf("Z-up biped: up %s, kind %s, warnings %v", repZ.Up, repZ.Kind, repZ.Warnings)
	}
	H := height(&c.Mesh, 1)
	for j, n := range skY.Names {
		p := skY.Position(j)
		k := indexOf(skZ.Names, n)
		if k < 0 {
			t.Errorf("%s missing from the Z-up skeleton", n)
			continue
		}
		if d := skZ.Position(k).Dist(vecmath.Vec3{p[0], -p[2], p[1]}); d > 0.03*H {
			t.Errorf("%s: Z-up fit %.3f of the height from the turned Y-up fit", n, d/H)
		}
	}
	_, told := fit(t, z, anatomy.Options{Up: "z"})
	if told.Up != "z" || !told.UpGiven || len(told.Warnings) > 0 {
		t.Errorf("told Z-up: up %s, warnings %v", told.Up, told.Warnings)
	}
}

// TestWorldFrame: a biped stored Z-up in centimetres under a Mixamo-style armature
// (−90° about X, scale 0.01) stands Y-up in its file's world; told that world, Fit
// finds it Y-up without a warning and places the same joints as on the Y-up mesh.
func TestWorldFrame(t *testing.T) {
	c := gen(t, "biped", 3)
	s := math.Sqrt(0.5)
	world := vecmath.TRS(vecmath.Vec3{}, vecmath.Quat{-s, 0, 0, s}, vecmath.Vec3{0.01, 0.01, 0.01})
	toBind, _ := world.Inverse()
	stored := c.Clone()
	for i, p := range stored.Mesh.Positions {
		stored.Mesh.Positions[i] = toBind.Point(p)
	}
	skY, repY := fit(t, c, anatomy.Options{})
	skW, repW := fit(t, stored, anatomy.Options{World: world})
	if repW.Up != "y" || repW.Kind != repY.Kind || len(repW.Warnings) != len(repY.Warnings) {
		t.Fatalf("armature-stored biped: up %s, kind %s, warnings %v; Y-up: kind %s, warnings %v",
			repW.Up, repW.Kind, repW.Warnings, repY.Kind, repY.Warnings)
	}
	H := height(&c.Mesh, 1)
	for j, n := range skY.Names {
		k := indexOf(skW.Names, n)
		if k < 0 {
			t.Errorf("%s missing from the armature-stored fit", n)
			continue
		}
		if d := world.Point(skW.Position(k)).Dist(skY.Position(j)); d > 0.03*H {
			t.Errorf("%s: armature-stored fit %.3f of the height from the Y-up fit", n, d/H)
		}
	}
	// Bones point at their children in the world too: the fitted Hips' +Z is the
	// world's front.
	if h := indexOf(skW.Names, "Hips"); h >= 0 {
		fwd := world.Dir(skW.BindWorld[h].Dir(vecmath.Vec3{0, 0, 1})).Normalize()
		if fwd[2] < 0.9 {
			t.Errorf("Hips' front in the world %v, want +Z", fwd)
		}
	}
}

func indexOf(names []string, n string) int {
	for j, m := range names {
		if m == n {
			return j
		}
	}
	return -1
}

// TestSymmetryPlane: the plane is found across X for a character facing +Z, across
// Z for one turned to face +X, and a coiled snake is not symmetric.
func TestSymmetryPlane(t *testing.T) {
	c := gen(t, "quadruped", 1)
	turned := c.Clone()
	for i, p := range turned.Mesh.Positions {
		turned.Mesh.Positions[i] = vecmath.Vec3{p[2] + 0.3, p[1], -p[0]}
	}
	cases := []struct {
		name      string
		c         *character.Character
		axis      string
		symmetric bool
	}{
		{"quadruped facing +Z", c, "x", true},
		{"quadruped facing +X", turned, "z", true},
		{"snake", gen(t, "snake", 1), "", false},
	}
	for _, tc := range cases {
		_, rep := fit(t, tc.c, anatomy.Options{})
		if rep.Symmetry.Symmetric != tc.symmetric || (tc.axis != "" && rep.Symmetry.Axis != tc.axis) {
			t.Errorf("%s: symmetry %+v, want axis %q symmetric %v", tc.name, rep.Symmetry, tc.axis, tc.symmetric)
		}
	}
}

// TestKindOverride: a told kind is used with confidence 1; a humanoid template
// whose limbs are not found is placed by proportions, with a warning, and the rig
// is suspect.
func TestKindOverride(t *testing.T) {
	c := gen(t, "snake", 1)
	sk, rep := fit(t, c, anatomy.Options{Kind: anatomy.Other})
	if rep.Kind != anatomy.Other || !rep.KindGiven || sk.Names[0] != "root" {
		t.Errorf("told other: kind %s, root %s", rep.Kind, sk.Names[0])
	}
	_, rep = fit(t, c, anatomy.Options{Kind: anatomy.Humanoid})
	if rep.Kind != anatomy.Humanoid || len(rep.Warnings) == 0 || rep.Status != "suspect" {
		t.Errorf("humanoid template on a snake: kind %s, status %s, warnings %v", rep.Kind, rep.Status, rep.Warnings)
	}
	if _, _, err := anatomy.Fit(&c.Mesh, c.Skeleton, anatomy.Options{Kind: "dragon"}); err == nil {
		t.Error("kind dragon: no error")
	}
}

// TestBonesPointAtChildren saves the fitted sample biped and reads the file's
// nodes: every joint with one child has that child on its local +Y axis.
func TestBonesPointAtChildren(t *testing.T) {
	c, _, err := assets.Load(filepath.Join("..", "assets", "samples", "biped.glb"), assets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sk, _ := fit(t, c, anatomy.Options{})
	out := c.Clone()
	out.Skeleton, out.Animations = sk, nil
	out.Skin = rigidSkin(out)
	path := filepath.Join(t.TempDir(), "biped.glb")
	if _, err := assets.Save(path, out); err != nil {
		t.Fatal(err)
	}
	doc, err := gltf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, n := range doc.Nodes {
		if len(n.Children) != 1 || n.Mesh != nil {
			continue
		}
		tr := doc.Nodes[n.Children[0]].Translation
		l := math.Sqrt(tr[0]*tr[0] + tr[1]*tr[1] + tr[2]*tr[2])
		if l == 0 {
			continue
		}
		checked++
		if tr[1]/l < 0.999 {
			t.Errorf("%s: child %s at local %v, not along +Y", n.Name, doc.Nodes[n.Children[0]].Name, tr)
		}
	}
	if checked < 10 {
		t.Errorf("only %d single-child joints checked", checked)
	}
}

// rigidSkin binds every vertex to its nearest joint, enough to save a rig.
func rigidSkin(c *character.Character) *character.Skin {
	k := &character.Skin{Weights: make([][]character.Influence, len(c.Mesh.Positions))}
	pos := c.Skeleton.Positions()
	for v, p := range c.Mesh.Positions {
		best := 0
		for j, q := range pos {
			if p.Dist(q) < p.Dist(pos[best]) {
				best = j
			}
		}
		k.Weights[v] = []character.Influence{{Joint: best, Weight: 1}}
	}
	return k
}

// TestFitAnyProposal: Fit gives a valid skeleton or an error, never a panic, for
// proposals that are not Reeb skeletons (an artist's skeleton, a forest, a lone
// joint) under every kind, and rejects an empty mesh or proposal.
func TestFitAnyProposal(t *testing.T) {
	c := gen(t, "biped", 5)
	forest := c.Skeleton.Select([]int{0, 1, 2, 5, 6, 7})
	forest.Parents[3] = -1 // a second root
	lone := c.Skeleton.Select([]int{0})
	for _, prop := range []*character.Skeleton{c.Skeleton, forest, lone} {
		for _, k := range anatomy.Kinds {
			sk, rep, err := anatomy.Fit(&c.Mesh, prop, anatomy.Options{Kind: k})
			if err != nil {
				t.Errorf("%d joints, kind %s: %v", prop.NumJoints(), k, err)
				continue
			}
			if err := sk.Validate(); err != nil || rep == nil {
				t.Errorf("%d joints, kind %s: invalid skeleton %v", prop.NumJoints(), k, err)
			}
		}
	}
	if _, _, err := anatomy.Fit(&character.Mesh{}, c.Skeleton, anatomy.Options{}); err == nil {
		t.Error("empty mesh: no error")
	}
	if _, _, err := anatomy.Fit(&c.Mesh, &character.Skeleton{}, anatomy.Options{}); err == nil {
		t.Error("empty proposal: no error")
	}
}

// TestBirdNames: the winged sample reads as a bird with wings and legs on both
// sides, hung from the spine.
func TestBirdNames(t *testing.T) {
	c, _, err := assets.Load(filepath.Join("..", "assets", "samples", "winged.glb"), assets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sk, rep := fit(t, c, anatomy.Options{})
	if rep.Kind != anatomy.Bird {
		t.Fatalf("kind %s (%.2f)", rep.Kind, rep.Confidence)
	}
	for _, n := range []string{"Hips", "Spine", "Head", "LeftWingArm", "RightWingHand", "LeftUpLeg", "RightFoot"} {
		if indexOf(sk.Names, n) < 0 {
			t.Errorf("no %s in %v", n, sk.Names)
		}
	}
	ch := anatomy.Check(sk, rep.Symmetry, height(&c.Mesh, 1))
	if ch.Roots != 1 || len(ch.LimbOnLimb) > 0 || ch.MirrorError > 0.02 {
		t.Errorf("checks %+v", ch)
	}
}

// TestHeldProp: a long, finely meshed prop held out in the right hand (a pistol, a
// staff) leaves the symmetry plane on the body and the joints near the artist's.
func TestHeldProp(t *testing.T) {
	c := gen(t, "biped", 2)
	H := height(&c.Mesh, 1)
	_, bare := fit(t, c, anatomy.Options{Kind: anatomy.Humanoid})
	hand := c.Skeleton.Position(indexOf(c.Skeleton.Names, "hand_r"))
	// 80 small boxes in a row from the hand outward (-X is the right): about a
	// sixth of the vertices, reaching half the height beyond the hand.
	r := 0.015 * H
	var boxes [][2]vecmath.Vec3
	for k := 0; k < 80; k++ {
		x := hand[0] - float64(k)*0.00625*H
		boxes = append(boxes, [2]vecmath.Vec3{{x - 0.00625*H, hand[1] - r, hand[2] - r}, {x, hand[1] + r, hand[2] + r}})
	}
	prop := synth.Boxes(boxes...)
	held := c.Clone()
	base := len(held.Mesh.Positions)
	held.Mesh.Positions = append(held.Mesh.Positions, prop.Positions...)
	held.Mesh.Normals, held.Mesh.UVs, held.Mesh.Groups = nil, nil, nil
	for _, tri := range prop.Triangles {
		held.Mesh.Triangles = append(held.Mesh.Triangles, [3]int{tri[0] + base, tri[1] + base, tri[2] + base})
	}
	sk, rep := fit(t, held, anatomy.Options{Kind: anatomy.Humanoid})
	if d := math.Abs(rep.Symmetry.Offset - bare.Symmetry.Offset); d > 0.01*H {
		t.Errorf("plane %.3f of the height off the bare mesh's (%+v)", d/H, rep.Symmetry)
	}
	hits, total, missed := anatomy.NameAccuracy(sk, c.Skeleton, 0.1*H)
	if total == 0 || float64(hits) < 0.85*float64(total) {
		t.Errorf("names %d/%d with the prop, missed %v", hits, total, missed)
	}
}

// TestTailOnTheGround: a biped with a long tail lying on the ground behind it
// (a cartoon squirrel) is still a humanoid; the tail makes it twice as deep as
// it is tall, which the bounds alone would read as no biped.
func TestTailOnTheGround(t *testing.T) {
	c := gen(t, "biped", 1)
	lo, hi := c.Mesh.Bounds()
	H := hi[1] - lo[1]
	tail := synth.Boxes([2]vecmath.Vec3{{-0.03 * H, lo[1], lo[2] - 2*H}, {0.03 * H, lo[1] + 0.08*H, lo[2] + 0.02*H}})
	base := len(c.Mesh.Positions)
	c.Mesh.Positions = append(c.Mesh.Positions, tail.Positions...)
	for _, tr := range tail.Triangles {
		c.Mesh.Triangles = append(c.Mesh.Triangles, [3]int{tr[0] + base, tr[1] + base, tr[2] + base})
	}
	c.Mesh.Normals, c.Mesh.UVs, c.Mesh.Groups = nil, nil, nil
	if lo, hi := c.Mesh.Bounds(); hi[2]-lo[2] < 2*H {
		t.Fatalf("the tail leaves the body %.2f of its height deep", (hi[2]-lo[2])/H)
	}
	_, rep := fit(t, c, anatomy.Options{})
	if rep.Kind != anatomy.Humanoid {
		t.Errorf("detected %s at %.2f, want humanoid", rep.Kind, rep.Confidence)
	}
}
