package animation_test

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/animation"
	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/fixtures"
	"github.com/rigkit/rigkit/vecmath"
)

// bodyFrame is a skeleton's rest axes measured from its joints alone (up from the
// feet to the hips, left from the right thigh to the left one), independent of
// the package's own frame code, so that the test checks it.
type bodyFrame struct{ left, up, fwd vecmath.Vec3 }

func measureFrame(t *testing.T, sk *character.Skeleton) (bodyFrame, map[string]int) {
	t.Helper()
	idx := map[string]int{}
	for j, n := range animation.CanonicalNames(sk.Names) {
		if _, ok := idx[n]; !ok {
			idx[n] = j
		}
	}
	for _, n := range []string{"Hips", "LeftFoot", "RightFoot", "LeftUpLeg", "RightUpLeg"} {
		if _, ok := idx[n]; !ok {
			t.Fatalf("no %s among %v", n, sk.Names)
		}
	}
	feet := sk.Position(idx["LeftFoot"]).Add(sk.Position(idx["RightFoot"])).Scale(0.5)
	up := sk.Position(idx["Hips"]).Sub(feet).Normalize()
	left := sk.Position(idx["LeftUpLeg"]).Sub(sk.Position(idx["RightUpLeg"]))
	left = left.Sub(up.Scale(left.Dot(up))).Normalize()
	return bodyFrame{left: left, up: up, fwd: left.Cross(up)}, idx
}

func (f bodyFrame) of(d vecmath.Vec3) vecmath.Vec3 {
	d = d.Normalize()
	return vecmath.Vec3{d.Dot(f.left), d.Dot(f.up), d.Dot(f.fwd)}
}

// comparedBones are the bones whose directions retargeting must carry over.
var comparedBones = [][2]string{
	{"LeftUpLeg", "LeftLeg"}, {"LeftLeg", "LeftFoot"}, {"RightUpLeg", "RightLeg"}, {"RightLeg", "RightFoot"},
	{"LeftArm", "LeftForeArm"}, {"RightArm", "RightForeArm"}, {"Hips", "Head"},
}

// worldTargets are rigged humanoids to retarget onto: rigkit's synthetic biped of
// another seed in its own pose (arms about 33° down) and in a T pose.
func worldTargets(t *testing.T) map[string]*character.Character {
	t.Helper()
	own, err := fixtures.SynthBiped(2, 1200)
	if err != nil {
		t.Fatal(err)
	}
	tpose := own.Clone()
	tpose.Skeleton = own.Skeleton.Clone()
	tpose.Mesh.Positions = append([]vecmath.Vec3(nil), own.Mesh.Positions...)
	if err := fixtures.WithArms(tpose, 0); err != nil {
		t.Fatal(err)
	}
	return map[string]*character.Character{"own pose": own, "T pose": tpose}
}

// TestRetargetInWorldSpace retargets the walk of every motion fixture (rotated and
// scaled armature, Z-up centimetres, Biped, Unreal and VRM names, A pose, a mesh
// outside the armature) onto two humanoids and checks, at 5 sampled times, that
// the posed mesh stays upright and sized (CheckPosture), that every compared bone points where the source's does
// in the two characters' own frames (within 12°), and that the hips travel the
// source's distance in leg lengths (within 5%), or stay put with InPlace.
func TestRetargetInWorldSpace(t *testing.T) {
	dir := t.TempDir()
	for _, f := range fixtures.Motions() {
		path, err := f.Write(dir)
		if err != nil {
			t.Fatal(err)
		}
		src, err := assets.LoadMotion(path, assets.Options{})
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		sources := map[string]*character.Character{"LoadMotion": src}
		if f.Rigged {
			// The same file read with its mesh (assets.Load) animates the same way.
			full, _, err := assets.Load(path, assets.Options{})
			if err != nil {
				t.Fatalf("%s: %v", f.Name, err)
			}
			sources["Load"] = full
		}
		for how, s := range sources {
			for name, target := range worldTargets(t) {
				t.Run(f.Name+"/"+how+"/"+name, func(t *testing.T) {
					checkWorldRetarget(t, s, target)
				})
			}
		}
	}
}

func checkWorldRetarget(t *testing.T, src, target *character.Character) {
	a, rep, err := animation.Retarget(target, src, 0, animation.Options{})
	if err != nil {
		t.Fatal(err)
	}
	times := animation.PostureTimes(rep.Duration, animation.PostureSamples)
	if err := animation.CheckPosture(target, a, times); err != nil {
		t.Fatal(err)
	}
	sf, si := measureFrame(t, src.Skeleton)
	tf, ti := measureFrame(t, target.Skeleton)
	worst := 0.0
	for _, tm := range times {
		sw := animation.AnimatedWorld(src.Skeleton, src.Animations[0], tm)
		tw := animation.AnimatedWorld(target.Skeleton, a, tm)
		for _, bone := range comparedBones {
			ds := sf.of(sw[si[bone[1]]].Translation().Sub(sw[si[bone[0]]].Translation()))
			dt := tf.of(tw[ti[bone[1]]].Translation().Sub(tw[ti[bone[0]]].Translation()))
			deg := math.Acos(math.Max(-1, math.Min(1, ds.Dot(dt)))) * 180 / math.Pi
			worst = math.Max(worst, deg)
			if deg > 12 {
				t.Errorf("t=%.2f: %s→%s points %v on the target, %v on the source (%.1f° apart)", tm, bone[0], bone[1], dt, ds, deg)
			}
		}
	}
	travel := func(sk *character.Skeleton, anim character.Animation, f bodyFrame, hips int) float64 {
		d := animation.AnimatedWorld(sk, anim, times[len(times)-1])[hips].Translation().Sub(
			animation.AnimatedWorld(sk, anim, 0)[hips].Translation())
		return d.Dot(f.fwd) / legLength(sk, f, hips)
	}
	want := travel(src.Skeleton, src.Animations[0], sf, si["Hips"])
	got := travel(target.Skeleton, a, tf, ti["Hips"])
	t.Logf("worst bone direction %.2f° off the source's; hips travel %.3f leg lengths (source %.3f)", worst, got, want)
	if math.Abs(got-want) > 0.05*math.Abs(want) || want < 0.5 {
		t.Errorf("the hips travel %.3f leg lengths forward, the source's %.3f", got, want)
	}
	still, _, err := animation.Retarget(target, src, 0, animation.Options{InPlace: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := travel(target.Skeleton, still, tf, ti["Hips"]); math.Abs(got) > 1e-6 {
		t.Errorf("in place, the hips travel %.3g leg lengths", got)
	}
}

// legLength is the hips' height above the lowest joint along the frame's up.
func legLength(sk *character.Skeleton, f bodyFrame, hips int) float64 {
	lo := math.Inf(1)
	for j := range sk.Names {
		lo = math.Min(lo, sk.Position(j).Dot(f.up))
	}
	return sk.Position(hips).Dot(f.up) - lo
}

// TestRetargetedClipRoundTrips retargets a walk onto each rigged scene fixture
// (internal/fixtures: a Mixamo armature, two skins under a turned parent, a
// turntable; and the two armature motion fixtures), saves it over that scene and
// reads it back: every joint is posed where it was before the save at 5 times, to
// 10⁻⁴ of the mesh size, so the writer takes root channels into their parent node's
// frame exactly as the loader takes them out.
func TestRetargetedClipRoundTrips(t *testing.T) {
	dir := t.TempDir()
	var targets []string
	var source string
	for _, f := range append(fixtures.All(), fixtures.Motions()...) {
		if !f.Rigged || (strings.HasPrefix(f.Name, "walk-") && f.Name != "walk-mixamo-armature" && f.Name != "walk-mesh-outside-armature") {
			if f.Name == "walk-zup-centimetres" {
				p, err := f.Write(dir)
				if err != nil {
					t.Fatal(err)
				}
				source = p
			}
			continue
		}
		p, err := f.Write(dir)
		if err != nil {
			t.Fatal(err)
		}
		targets = append(targets, p)
	}
	src, err := assets.LoadMotion(source, assets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range targets {
		t.Run(filepath.Base(p), func(t *testing.T) { checkRoundTrip(t, p, src) })
	}
}

func checkRoundTrip(t *testing.T, path string, src *character.Character) {
	target, _, err := assets.Load(path, assets.Options{KeepScene: true, AllowOrphans: true})
	if err != nil {
		t.Fatal(err)
	}
	a, rep, err := animation.Retarget(target, src, 0, animation.Options{Name: "retargeted"})
	if err != nil {
		t.Fatal(err)
	}
	target.Animations = append(target.Animations, a)
	out := filepath.Join(t.TempDir(), "out.glb")
	if _, err := assets.Save(out, target); err != nil {
		t.Fatal(err)
	}
	back, _, err := assets.Load(out, assets.Options{AllowOrphans: true})
	if err != nil {
		t.Fatal(err)
	}
	i, err := animation.FindAnimation(back, "retargeted")
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := target.Mesh.Bounds()
	tol := 1e-4 * hi.Sub(lo).Len()
	for _, tm := range animation.PostureTimes(rep.Duration, animation.PostureSamples) {
		want := animation.AnimatedWorld(target.Skeleton, a, tm)
		got := animation.AnimatedWorld(back.Skeleton, back.Animations[i], tm)
		for j := range want {
			if d := got[j].Translation().Dist(want[j].Translation()); d > tol {
				t.Fatalf("t=%.2f: joint %s is %.3g away from where it was before the save (tolerance %.3g)", tm, back.Skeleton.Names[j], d, tol)
			}
		}
	}
}
