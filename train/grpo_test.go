package train

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/rigkit/rigkit/internal/modeltest"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/internal/nn"
	"github.com/rigkit/rigkit/rigmodel"
	"github.com/rigkit/rigkit/sampler"
	"github.com/rigkit/rigkit/synth"
	"github.com/rigkit/rigkit/tokens"
)

// lowBins rewards streams whose coordinates sit in the lower half of the cube.
func lowBins(c *character.Character, stream []int) Reward { return both(lowShare(c, stream)) }

// both is a Reward that judges skeleton and skin tokens alike.
func both(v float64) Reward { return Reward{Score: v, Skin: v} }

// lowShare is the share of a stream's coordinates in the lower half of the cube.
func lowShare(_ *character.Character, stream []int) float64 {
	n, low := 0, 0
	for _, t := range stream {
		if tokens.IsCoord(t) {
			n++
			if t-tokens.CoordBase < tokens.CoordBins/2 {
				low++
			}
		}
	}
	if n == 0 {
		return 0
	}
	return float64(low) / float64(n)
}

func TestGRPORaisesReward(t *testing.T) {
	m, err := rigmodel.NewModel(modeltest.TinyConfig, 3)
	if err != nil {
		t.Fatal(err)
	}
	meshes := []*character.Character{{Mesh: synth.BoxQuadruped()}}
	opt := grpoStepOptions{Group: 8, MaxJoints: 2, StopAtSEP: true, ScaleByStd: true}
	var first, last float64
	const steps = 40
	err = grpoTrain(m, meshes, lowBins, opt, steps, 3e-3, 1, func(step int, st grpoStats) {
		if step < 3 {
			first += st.MeanReward / 3
		}
		if step >= steps-3 {
			last += st.MeanReward / 3
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("mean reward %.3f → %.3f", first, last)
	if last < first+0.15 {
		t.Errorf("GRPO did not raise the reward: %.3f → %.3f", first, last)
	}
}

func TestGRPOEqualRewardsTeachNothing(t *testing.T) {
	m, err := rigmodel.NewModel(modeltest.TinyConfig, 4)
	if err != nil {
		t.Fatal(err)
	}
	nn.ZeroGrad[float32](m)
	flat := func(*character.Character, []int) Reward { return both(0.5) }
	st, err := grpoStep(m, []*character.Character{{Mesh: synth.BoxQuadruped()}}, flat, grpoStepOptions{Group: 4, MaxJoints: 3, StopAtSEP: true}, rand.New(rand.NewSource(1)))
	if err != nil {
		t.Fatal(err)
	}
	if st.Tokens != 0 {
		t.Errorf("%d tokens carried gradient in an all-equal group", st.Tokens)
	}
	for _, p := range m.Params() {
		for _, g := range p.GradData() {
			if g != 0 {
				t.Fatalf("%s has gradient %v", p.Name, g)
			}
		}
	}
}

// TestGRPOInsideJoints checks that with InsideJoints every sampled joint lies in the
// mesh region (and that without it some do not, so the check can fail), and that
// the step still carries a finite gradient.
func TestGRPOInsideJoints(t *testing.T) {
	mesh := synth.BoxQuadruped()
	nm, _ := rigmodel.NormalizedMesh(&mesh)
	region := sampler.MeshRegion(&nm)
	for _, inside := range []bool{true, false} {
		t.Run(fmt.Sprint("inside=", inside), func(t *testing.T) {
			m, err := rigmodel.NewModel(modeltest.TinyConfig, 5)
			if err != nil {
				t.Fatal(err)
			}
			nn.ZeroGrad[float32](m)
			joints, outside := 0, 0
			reward := func(c *character.Character, stream []int) Reward {
				var xyz []int
				for _, tok := range stream {
					if tok == tokens.SEP {
						break
					}
					if tokens.IsCoord(tok) {
						xyz = append(xyz, tok-tokens.CoordBase)
					}
				}
				for j := 0; j+2 < len(xyz); j += 3 {
					joints++
					if !region.Contains([3]int{xyz[j], xyz[j+1], xyz[j+2]}) {
						outside++
					}
				}
				return lowBins(c, stream)
			}
			opt := grpoStepOptions{Group: 8, MaxJoints: 6, StopAtSEP: true, InsideJoints: inside}
			st, err := grpoStep(m, []*character.Character{{Mesh: mesh}}, reward, opt, rand.New(rand.NewSource(2)))
			if err != nil {
				t.Fatal(err)
			}
			if joints == 0 || st.Tokens == 0 {
				t.Fatalf("%d joints sampled, %d tokens with gradient", joints, st.Tokens)
			}
			if inside && outside > 0 {
				t.Errorf("%d of %d joints outside the region", outside, joints)
			}
			if !inside && outside == 0 {
				t.Errorf("no joint of %d outside the region without the mask: the check cannot fail", joints)
			}
			for _, p := range m.Params() {
				for _, g := range p.GradData() {
					if math.IsNaN(float64(g)) || math.IsInf(float64(g), 0) {
						t.Fatalf("%s has gradient %v", p.Name, g)
					}
				}
			}
		})
	}
}

// TestGRPOKLPullsTowardReference moves a policy away from its reference with GRPO,
// then runs GRPO steps whose rewards are all equal (zero advantages): only the KL
// term acts, and it must bring the policy back toward the reference.
func TestGRPOKLPullsTowardReference(t *testing.T) {
	m, err := rigmodel.NewModel(modeltest.TinyConfig, 3)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := rigmodel.NewModel(modeltest.TinyConfig, 3) // the same weights: the reference
	if err != nil {
		t.Fatal(err)
	}
	meshes := []*character.Character{{Mesh: synth.BoxQuadruped()}}
	opt := grpoStepOptions{Group: 8, MaxJoints: 2, StopAtSEP: true, ScaleByStd: true}
	if err := grpoTrain(m, meshes, lowBins, opt, 25, 3e-3, 1, nil); err != nil {
		t.Fatal(err)
	}
	flat := func(*character.Character, []int) Reward { return both(0.5) }
	opt.Ref, opt.KL = ref, 1
	var kls []float64
	err = grpoTrain(m, meshes, flat, opt, 40, 3e-3, 2, func(step int, st grpoStats) {
		kls = append(kls, st.KL)
	})
	if err != nil {
		t.Fatal(err)
	}
	first := (kls[0] + kls[1] + kls[2]) / 3
	last := (kls[len(kls)-1] + kls[len(kls)-2] + kls[len(kls)-3]) / 3
	t.Logf("KL to the reference %.4f → %.4f", first, last)
	if !(first > 0.01) || last > first/2 {
		t.Errorf("KL term did not pull the policy back: %.4f → %.4f", first, last)
	}
}

// TestKLGradient checks addKLGrad's gradient against finite differences of the KL it
// returns, under a real grammar mask (the coordinates allowed after BOS) and two
// temperatures; tokens outside the mask get no gradient.
func TestKLGradient(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	st := tokens.NewGrammar(8, 0).Start()
	if err := st.Next(tokens.BOS); err != nil {
		t.Fatal(err)
	}
	mask := st.Allowed()
	V := tokens.VocabSize
	row, ref := make([]float32, V), make([]float32, V)
	for i := range row {
		row[i], ref[i] = float32(rng.NormFloat64()*2), float32(rng.NormFloat64()*2)
	}
	for _, temp := range []float64{1, 0.7} {
		grad := make([]float32, V)
		kl := addKLGrad(row, ref, &mask, temp, 1, grad)
		if !(kl > 0) {
			t.Fatalf("KL %v", kl)
		}
		scratch := make([]float32, V)
		for _, k := range append(rng.Perm(V)[:40], tokens.CoordBase, tokens.CoordBase+7) {
			const h = 1e-2
			up := append([]float32(nil), row...)
			dn := append([]float32(nil), row...)
			up[k] += h
			dn[k] -= h
			num := (addKLGrad(up, ref, &mask, temp, 0, scratch) - addKLGrad(dn, ref, &mask, temp, 0, scratch)) / (2 * h)
			if math.Abs(num-float64(grad[k])) > 1e-4 {
				t.Fatalf("temp %v token %d: gradient %.6f, finite difference %.6f", temp, k, grad[k], num)
			}
			if !mask.Has(k) && grad[k] != 0 {
				t.Fatalf("token %d outside the mask has gradient %v", k, grad[k])
			}
		}
	}
}

// grpoTrain runs steps of GRPO on meshes with AdamW at learning rate lr, calling
// report after each step.
func grpoTrain(m *rigmodel.Model, meshes []*character.Character, reward RewardFunc, opt grpoStepOptions, steps int, lr float64, seed int64, report func(step int, st grpoStats)) error {
	adam := nn.NewAdamW[float32](lr)
	adam.WeightDecay = 0
	rng := rand.New(rand.NewSource(seed))
	for step := 0; step < steps; step++ {
		nn.ZeroGrad[float32](m)
		st, err := grpoStep(m, meshes, reward, opt, rng)
		if err != nil {
			return err
		}
		nn.ClipGradNorm(m.Params(), 1)
		adam.Step(m.Params())
		if report != nil {
			report(step, st)
		}
	}
	return nil
}

// TestGRPOSkinCredit: with SkinCredit the skin tokens take their advantages from
// Reward.Skin and the skeleton tokens from Reward.Score. A group whose scores are
// all equal but whose skin scores differ teaches the skin tokens only; without
// SkinCredit it teaches nothing.
func TestGRPOSkinCredit(t *testing.T) {
	skinTokens := func(stream []int) (after int) {
		for i, tok := range stream {
			if tok == tokens.SEP {
				return len(stream) - i - 1
			}
		}
		return 0
	}
	// skinDraw scores the skin codes a stream drew (any function of them will do).
	skinDraw := func(_ *character.Character, s []int) float64 {
		sum := 0
		for _, tok := range s[len(s)-skinTokens(s):] {
			sum += tok
		}
		return float64(sum%7) / 7
	}
	for _, tc := range []struct {
		name   string
		credit bool
		reward func(*character.Character, []int) Reward
		want   func(got, skinPositions int) bool
	}{
		{"flat score, varied skin, credited", true,
			func(c *character.Character, s []int) Reward { return Reward{Score: 0.5, Skin: skinDraw(c, s)} },
			func(got, skin int) bool { return got > 0 && got <= skin }},
		{"flat score, varied skin, not credited", false,
			func(c *character.Character, s []int) Reward { return Reward{Score: 0.5, Skin: skinDraw(c, s)} },
			func(got, _ int) bool { return got == 0 }},
		{"varied score, flat skin, credited", true,
			func(c *character.Character, s []int) Reward { return Reward{Score: lowShare(c, s), Skin: 0.5} },
			func(got, skin int) bool { return got > 0 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := rigmodel.NewModel(modeltest.TinyConfig, 6)
			if err != nil {
				t.Fatal(err)
			}
			nn.ZeroGrad[float32](m)
			skin := 0
			reward := func(c *character.Character, s []int) Reward {
				skin += skinTokens(s)
				return tc.reward(c, s)
			}
			opt := grpoStepOptions{Group: 6, MaxJoints: 3, SkinCredit: tc.credit}
			st, err := grpoStep(m, []*character.Character{{Mesh: synth.BoxQuadruped()}}, reward, opt, rand.New(rand.NewSource(3)))
			if err != nil {
				t.Fatal(err)
			}
			if skin == 0 {
				t.Fatal("no stream wrote skin tokens")
			}
			if !tc.want(st.Tokens, skin) {
				t.Errorf("%d positions carried gradient (%d skin tokens sampled)", st.Tokens, skin)
			}
		})
	}
}
