package eval

import (
	"fmt"
	"io"
	"sync"

	"github.com/rigkit/rigkit/anatomy"
	"github.com/rigkit/rigkit/autorig"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/classical"
	"github.com/rigkit/rigkit/critic"
	"github.com/rigkit/rigkit/dataset"
	"github.com/rigkit/rigkit/metrics"
)

// The learned critic's training candidates (`rig train-critic`, package
// critic): per creature file, the artist's deforming skeleton, jittered copies
// of it at several strengths, the broken ones of the skeleton ranking (a limb
// dropped, the legs merged, extra leaves) and the classical and template
// skeletons `rig auto` builds, each with its CD-J2J to the artist's and its
// features (rewards.Prepared.CriticFeatures).

// criticJitters are the jitter strengths, in % of the height, of the training
// candidates: finer than the ranking's 2/5/10 so that the critic learns the
// order of small displacements too.
var criticJitters = []float64{1, 2, 3, 5, 7, 10, 15}

// CriticCandidates builds the candidates of the creature files of both halves
// of the families (critic.Fit fits on the tune half's), workers at a time.
func CriticCandidates(files []File, seed int64, workers int, progress io.Writer) ([]critic.Character, error) {
	var chars []critic.Character
	for _, half := range []string{dataset.TuneHalf, dataset.ReportHalf} {
		held, _, err := rankHeldOut(files, half)
		if err != nil {
			return nil, err
		}
		for _, c := range criticCharacters(held, seed, workers, progress) {
			c.Half = half
			chars = append(chars, c)
		}
	}
	return chars, nil
}

// criticCharacters builds every file's candidates, workers files at a time.
func criticCharacters(files []File, seed int64, workers int, progress io.Writer) []critic.Character {
	out := make([]critic.Character, len(files))
	var mu sync.Mutex
	done := 0
	forEach(len(files), workers, func(i int) {
		out[i] = criticCharacterOf(files[i], seed+int64(i))
		mu.Lock()
		done++
		if progress != nil {
			fmt.Fprintf(progress, "\rtrain critic: %d/%d characters", done, len(files))
		}
		mu.Unlock()
	})
	if progress != nil {
		fmt.Fprintln(progress)
	}
	return out
}

// criticCharacterOf makes one file's candidates and their features.
func criticCharacterOf(f File, seed int64) critic.Character {
	out := critic.Character{File: f.Path}
	gt, prep, err := loadRigged(f.Path)
	if err != nil {
		out.Err = err.Error()
		return out
	}
	gt.Skeleton = deformingSkeleton(gt)
	norm := character.NormalizationOf(gt.Mesh)
	add := func(name string, sk *character.Skeleton, err error) {
		if err != nil || sk == nil {
			return
		}
		feat, err := prep.CriticFeatures(sk)
		if err != nil {
			return
		}
		cd := metrics.JointChamfer(gt.Skeleton, sk, norm)
		out.Cands = append(out.Cands, critic.Candidate{Name: name, CD: cd, F: feat})
	}
	add(skeletonTruth, gt.Skeleton, nil)
	for _, pct := range criticJitters {
		add(fmt.Sprintf("jitter%g", pct), jitterSkeleton(gt.Skeleton, pct/100*2/norm.Scale, seed), nil)
	}
	for _, name := range []string{"drop_limb", "merge_legs", "extra_joints"} {
		sk, err := perturbSkeleton(gt.Skeleton, name, 2/norm.Scale, seed)
		add(name, sk, err)
	}
	sk, err := classical.Skeleton(&gt.Mesh, autorig.ClassicalOptions(&gt.Mesh))
	add("classical", sk, err)
	if err == nil {
		sk, _, err = anatomy.Fit(&gt.Mesh, sk, anatomy.Options{})
		add("classical-anatomy", sk, err)
	}
	if len(out.Cands) < 2 {
		out.Err = "fewer than two candidates"
	}
	return out
}
