package rewards

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/geom"
	"github.com/rigkit/rigkit/vecmath"
)

// Bad input never panics: broken rigs get a report (score 0 where vital), broken
// meshes a clear error.
func TestBadInput(t *testing.T) {
	base := capsuleMan(1, false).character(32)
	tests := []struct {
		name      string
		mutate    func(c *character.Character)
		wantErr   bool
		wantZero  bool
		wantBadSk bool
	}{
		{"NaN joint", func(c *character.Character) { c.Skeleton.BindWorld[3][12] = math.NaN() }, false, true, false},
		{"weights on missing joints", func(c *character.Character) {
			for v := 0; v < len(c.Skin.Weights); v += 3 {
				c.Skin.Weights[v] = []character.Influence{{Joint: 999, Weight: 1}}
			}
		}, false, false, true},
		{"NaN weights", func(c *character.Character) { c.Skin.Weights[0][0].Weight = math.NaN() }, false, false, true},
		{"orphans", func(c *character.Character) { c.Skin.Weights[5] = nil }, false, false, true},
		{"short weight list", func(c *character.Character) { c.Skin.Weights = c.Skin.Weights[:10] }, false, false, true},
		{"no skeleton", func(c *character.Character) { c.Skeleton, c.Skin = nil, nil }, false, true, false},
		{"parent after child", func(c *character.Character) { c.Skeleton.Parents[1] = 5 }, false, true, false},
		{"empty mesh", func(c *character.Character) { c.Mesh = character.Mesh{} }, true, false, false},
		{"NaN vertex", func(c *character.Character) { c.Mesh.Positions[0][1] = math.Inf(1) }, true, false, false},
		{"bad triangle index", func(c *character.Character) { c.Mesh.Triangles[0][0] = -4 }, true, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := base.Clone()
			tc.mutate(c)
			rep, err := Score(c, Options{Poses: 2})
			if tc.wantErr {
				if err == nil {
					t.Fatal("no error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, err := json.Marshal(rep); err != nil {
				t.Fatalf("report does not serialize: %v", err)
			}
			if math.IsNaN(rep.Score) || rep.Score < 0 || rep.Score > 1 {
				t.Fatalf("score %v", rep.Score)
			}
			if tc.wantZero && rep.Score != 0 {
				t.Errorf("score %.3f, want 0", rep.Score)
			}
			if tc.wantBadSk && !(rep.Rewards[SkinReward] < 1) {
				t.Errorf("skin reward %.3f, want < 1", rep.Rewards[SkinReward])
			}
			if len(rep.Problems) == 0 {
				t.Error("no problem reported")
			}
		})
	}
}

func TestMeshTooLarge(t *testing.T) {
	c := capsuleMan(1, false).character(32)
	_, err := Score(c, Options{MaxTriangles: 100})
	if !errors.Is(err, ErrMeshTooLarge) {
		t.Fatalf("error %v, want ErrMeshTooLarge", err)
	}
}

func TestScoreDeterministic(t *testing.T) {
	c := capsuleMan(4, true).character(32)
	a, err := Score(c, Options{Poses: 3, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Score(c, Options{Poses: 3, Seed: 9})
	if a.Score != b.Score {
		t.Errorf("same seed, scores %v and %v", a.Score, b.Score)
	}
	for _, name := range RewardNames {
		if v, ok := a.Rewards[name]; !ok || v < 0 || v > 1 {
			t.Errorf("reward %s = %v", name, v)
		}
	}
}

// A protrusion without a bone is named in the coverage details.
func TestUncoveredProtrusionNamed(t *testing.T) {
	spec := capsuleMan(1, true)
	c := spec.character(40)
	// Drop the tail joints: the tail has no bone.
	n := 0
	for n < len(spec.names) && spec.names[n] != "tail1" {
		n++
	}
	c.Skeleton = &character.Skeleton{Names: c.Skeleton.Names[:n], Parents: c.Skeleton.Parents[:n], BindWorld: c.Skeleton.BindWorld[:n]}
	c.Skin = smoothWeights(c.Mesh.Positions, c.Skeleton)
	rep, err := Score(c, Options{Poses: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Details.Coverage.Uncovered) == 0 {
		t.Fatal("no uncovered protrusion reported for a tail without bones")
	}
	top := rep.Details.Coverage.Uncovered[0]
	if top.Position[2] > -0.3 {
		t.Errorf("largest uncovered protrusion at %v (%s), want the tail (world z < -0.3)", top.Position, top.Where)
	}
}

func ExampleScore() {
	c := capsuleMan(1, false).character(32)
	rep, err := Score(c, Options{Poses: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rep.Score > 0.5, len(rep.Rewards))
	// Output: true 9
}

// cpuMillis returns this process's user+system CPU time in milliseconds, so that
// benchmarks on a shared machine can report CPU cost per rig besides wall-clock rate.
func cpuMillis() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e6
}

func cpuSince(t0 float64) float64 { return cpuMillis() - t0 }

// BenchmarkScore scores a ≈5k-vertex rig with 8 poses: "cold" prepares the mesh each
// time (what `rig score` does), "warm" reuses a Prepared mesh (an RL group sharing a
// mesh, or `rig serve` with its mesh cache). rigs/s is the throughput of all benchmark
// goroutines together (GOMAXPROCS of them; `-cpu 2` for two cores), cpu-ms/rig the
// process CPU time per rig. "winding" times the BVH winding number against brute force
// on the same mesh at the points containment queries (12 per bone) and reports the
// ratio as x-speedup, so one run gives all three figures.
func BenchmarkScore(b *testing.B) {
	c := capsuleMan(1, true).character(84)
	b.Logf("rig: %d vertices, %d triangles, %d joints", len(c.Mesh.Positions), len(c.Mesh.Triangles), c.Skeleton.NumJoints())
	opt := Options{Poses: 8}
	b.Run("cold", func(b *testing.B) {
		cpu0 := cpuMillis()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := Score(c, opt); err != nil {
					b.Error(err)
				}
			}
		})
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rigs/s")
		b.ReportMetric(cpuSince(cpu0)/float64(b.N), "cpu-ms/rig")
	})
	p, err := Prepare(&c.Mesh, opt)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("warm", func(b *testing.B) {
		cpu0 := cpuMillis()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := p.Score(c, opt); err != nil {
					b.Error(err)
				}
			}
		})
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rigs/s")
		b.ReportMetric(cpuSince(cpu0)/float64(b.N), "cpu-ms/rig")
	})
	b.Run("winding", func(b *testing.B) {
		mesh := &character.Mesh{Positions: p.pos, Triangles: p.tris}
		r := newRig(c, p.Norm, opt.withDefaults())
		var pts []vecmath.Vec3
		for _, s := range r.segs {
			for i := 0; i < bonePointsPerBone; i++ {
				pts = append(pts, s.a.Lerp(s.b, (float64(i)+0.5)/bonePointsPerBone))
			}
		}
		var fast, brute time.Duration
		for i := 0; i < b.N; i++ {
			q := pts[i%len(pts)]
			t0 := time.Now()
			p.wn.At(q)
			t1 := time.Now()
			geom.BruteForceWindingNumber(mesh, q)
			brute += time.Since(t1)
			fast += t1.Sub(t0)
		}
		b.ReportMetric(float64(brute)/float64(fast), "x-speedup")
		b.ReportMetric(float64(len(mesh.Triangles)), "triangles")
	})
}

// A rig that moves the mesh rigidly has no folds even when it turns triangles past
// 90° (folds are judged in the triangle's own skinned frame), and no articulation,
// so its deformation reward is 0; the true rig articulates.
func TestDeformationRigidMotion(t *testing.T) {
	c := capsuleMan(1, true).character(32)
	one, ok := singleJoint(c, 1)
	if !ok {
		t.Fatal("single_joint not built")
	}
	tests := []struct {
		name      string
		c         *character.Character
		wantFolds bool // whether folds may occur
		wantArt   bool // whether the poses must articulate
	}{
		{"single joint, up to 170°", one, false, false},
		{"true rig", c, true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := Score(tc.c, Options{Poses: 6, MaxAngle: 170 * math.Pi / 180})
			if err != nil {
				t.Fatal(err)
			}
			d := rep.Details.Deformation
			if !tc.wantFolds && d.FlipRate != 0 {
				t.Errorf("fold rate %.4f under rigid motion, want 0", d.FlipRate)
			}
			if tc.wantArt != (d.Articulation > 1e-6) {
				t.Errorf("articulation %.6f", d.Articulation)
			}
			if !tc.wantArt && rep.Rewards[Deformation] > 1e-6 {
				t.Errorf("deformation %.4f for a rig that cannot bend, want 0", rep.Rewards[Deformation])
			}
		})
	}
}

// Bones that carry no weight of the mesh are not judged by containment, coverage or
// pivot placement, so they must not be able to raise a score either: adding
// weightless bones poking out of the surface (a wearer's skeleton around a prop,
// helpers, or decoys placed where coverage looks) never scores above the true rig.
func TestWeightlessBonesEarnNothing(t *testing.T) {
	c := capsuleMan(2, true).character(40)
	opt := Options{Poses: 4}
	p, err := Prepare(&c.Mesh, opt)
	if err != nil {
		t.Fatal(err)
	}
	truth, err := p.Score(c, opt)
	if err != nil {
		t.Fatal(err)
	}
	decoy, ok := decoyBones(c, 3)
	if !ok {
		t.Fatal("decoys not built")
	}
	// The same decoy bones, with their weight handed back to the true joints.
	weightless := decoy.Clone()
	weightless.Skin = c.Skin.Clone()
	for _, n := range []int{0, 200} {
		h := weightless
		if n > 0 { // and far more joints than the budget allows
			h = weightless.Clone()
			for i := 0; i < n; i++ {
				h.Skeleton.Names = append(h.Skeleton.Names, fmt.Sprintf("extra%d", i))
				h.Skeleton.Parents = append(h.Skeleton.Parents, 0)
				h.Skeleton.BindWorld = append(h.Skeleton.BindWorld, vecmath.Translate4(vecmath.Vec3{2, float64(i) / 100, 0}))
			}
		}
		rep, err := p.Score(h, opt)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Score > truth.Score {
			t.Errorf("%d weightless bones: score %.4f above the true rig's %.4f (%v)", h.Skeleton.NumJoints()-c.Skeleton.NumJoints(), rep.Score, truth.Score, rep.Rewards)
		}
		for _, name := range []string{Containment, Coverage, Locality, Deformation} {
			if math.Abs(rep.Rewards[name]-truth.Rewards[name]) > 1e-9 {
				t.Errorf("%d weightless bones changed %s: %.4f → %.4f", h.Skeleton.NumJoints()-c.Skeleton.NumJoints(), name, truth.Rewards[name], rep.Rewards[name])
			}
		}
	}
}

// TestCarriedRig checks that a worn piece rigged by its wearer's skeleton is seen as
// carried (its weighted joints sit outside it) and the wearer itself is not.
func TestCarriedRig(t *testing.T) {
	man := capsuleMan(1, false).character(48)
	// The bib: the front of the torso, lifted off the body by 40% of its distance
	// from the spine axis, rigged by the man's skeleton and weights.
	bib := man.Clone()
	keep := map[int]int{}
	bib.Mesh.Positions, bib.Mesh.Triangles, bib.Mesh.Normals = nil, nil, nil
	bib.Skin = &character.Skin{}
	for _, tri := range man.Mesh.Triangles {
		ok := true
		for _, v := range tri {
			p := man.Mesh.Positions[v]
			ok = ok && p[2] > 0.05 && p[1] > 0 && p[1] < 0.4 && math.Abs(p[0]) < 0.2
		}
		if !ok {
			continue
		}
		var nt [3]int
		for k, v := range tri {
			if _, seen := keep[v]; !seen {
				p := man.Mesh.Positions[v]
				keep[v] = len(bib.Mesh.Positions)
				bib.Mesh.Positions = append(bib.Mesh.Positions, vecmath.Vec3{1.4 * p[0], p[1], 1.4 * p[2]})
				bib.Skin.Weights = append(bib.Skin.Weights, man.Skin.Weights[v])
			}
			nt[k] = keep[v]
		}
		bib.Mesh.Triangles = append(bib.Mesh.Triangles, nt)
	}
	if len(bib.Mesh.Triangles) < 20 {
		t.Fatalf("bib has %d triangles", len(bib.Mesh.Triangles))
	}
	tests := []struct {
		name    string
		c       *character.Character
		carried bool
	}{
		{"wearer", man, false},
		{"worn bib", bib, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := Score(tc.c, Options{Poses: 2})
			if err != nil {
				t.Fatal(err)
			}
			if got := rep.Carried(); got != tc.carried {
				t.Errorf("Carried() = %v (outside mass %.2f), want %v", got, rep.Details.Sanity.OutsideMass, tc.carried)
			}
			said := strings.Contains(strings.Join(rep.Problems, "\n"), "built for a wearer")
			if said != tc.carried {
				t.Errorf("problems mention a wearer: %v, want %v: %q", said, tc.carried, rep.Problems)
			}
		})
	}
}

// Containment's details name the share of each listed bone that lies outside, the
// same number the problem text prints.
func TestContainmentOutsideFraction(t *testing.T) {
	c := capsuleMan(1, false).character(32)
	h, ok := pokeOut(c, 1)
	if !ok {
		t.Fatal("poke_out did not apply")
	}
	rep, err := Score(h, Options{Poses: 2})
	if err != nil {
		t.Fatal(err)
	}
	out := rep.Details.Containment.Outside
	if len(out) == 0 {
		t.Fatal("no bone listed outside after poke_out")
	}
	for i, b := range out {
		if !(b.OutsideFraction > 0.05 && b.OutsideFraction <= 1) {
			t.Errorf("%s→%s: outside fraction %v, want in (0.05, 1]", b.Parent, b.Child, b.OutsideFraction)
		}
		if i > 0 && b.OutsideFraction > out[i-1].OutsideFraction {
			t.Errorf("not worst first: %v after %v", b.OutsideFraction, out[i-1].OutsideFraction)
		}
	}
	want := fmt.Sprintf("containment: bone %s→%s is %.0f%% outside the mesh", out[0].Parent, out[0].Child, 100*out[0].OutsideFraction)
	found := false
	for _, p := range rep.Problems {
		found = found || p == want
	}
	if !found {
		t.Errorf("problems %q lack %q", rep.Problems, want)
	}
}

// A skeleton moved wholly out of the mesh has every moving bone 100% outside.
func TestContainmentOutsideFractionAllOut(t *testing.T) {
	c := capsuleMan(1, false).character(32)
	lo, hi := c.Mesh.Bounds()
	shift := vecmath.Vec3{3 * hi.Sub(lo).Len(), 0, 0}
	for j := range c.Skeleton.BindWorld {
		c.Skeleton.BindWorld[j] = withTranslation(c.Skeleton.BindWorld[j], c.Skeleton.Position(j).Add(shift))
	}
	rep, err := Score(c, Options{Poses: 2})
	if err != nil {
		t.Fatal(err)
	}
	out := rep.Details.Containment.Outside
	if len(out) == 0 || rep.Rewards[Containment] != 0 {
		t.Fatalf("containment %v with %d bones listed outside", rep.Rewards[Containment], len(out))
	}
	for _, b := range out {
		if b.OutsideFraction != 1 {
			t.Errorf("%s→%s: outside fraction %v, want 1", b.Parent, b.Child, b.OutsideFraction)
		}
	}
}
