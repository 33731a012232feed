package sampler

import (
	"fmt"
	"math"
	"math/rand"
	"slices"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/metrics"
	"github.com/rigkit/rigkit/tokens"
	"github.com/rigkit/rigkit/vecmath"
	"gorgonia.org/tensor"
)

// This file is the skeleton vote: rather than the greedy stream, whose skeletons
// are the farthest from the artists' of any decoding measured (docs/model.md), the
// model draws several skeletons and keeps the consensus, the one nearest to all the
// others (a minimum-Bayes-risk choice under CD-J2J). A rig's streams (Streams) are
// the vote followed by freely sampled ones.

// DefaultVotes is how many sampled skeletons `rig auto` and the skeleton task of
// `rig eval` draw for the vote (Generator.Votes).
const DefaultVotes = 4

// Vote streams are drawn at temperature 1 with top-p 0.95, the distribution the
// model was trained to match, without its least likely tail.
const (
	voteTemperature = 1
	voteTopP        = 0.95
)

// voteSkeleton draws Votes skeleton-only streams (BOS · skeleton · SEP) from one
// reading of the shape latents lat, masked by region (nil: the grammar only), and
// returns the stream whose joints have the least summed CD-J2J to the joints of
// the other streams and of proposal (the cube-frame proposal skeleton; nil: not
// counted), which thus votes as one more stream, among the streams with about the
// median joint count (consensus). Streams whose skeleton has a single joint take no
// part (the first is returned when all have one). With Votes below 2 it returns
// the greedy stream.
func (g *Generator) voteSkeleton(lat *tensor.Dense, region *Region, proposal *character.Skeleton, rng *rand.Rand) (*Sampled, error) {
	opts := make([]SampleOptions, max(g.Votes, 1))
	for i := range opts {
		opts[i] = SampleOptions{MaxJoints: g.Model.Cfg.MaxJoint, K: g.Model.Cfg.K(), StopAtSEP: true, Region: region}
		if len(opts) > 1 {
			opts[i].Temperature, opts[i].TopP = voteTemperature, voteTopP
		}
	}
	sess, err := g.Model.NewSession(lat)
	if err != nil {
		return nil, err
	}
	streams, err := GenerateN(sess, nil, opts, rng)
	if err != nil {
		return nil, err
	}
	if len(streams) == 1 {
		return streams[0], nil
	}
	joints := make([][]vecmath.Vec3, len(streams))
	for i, s := range streams {
		if sk, err := tokens.DecodeSkeleton(s.Tokens); err == nil && sk.NumJoints() > 1 {
			joints[i] = sk.Positions()
		}
	}
	var ref []vecmath.Vec3
	if proposal != nil && proposal.NumJoints() > 0 {
		ref = proposal.Positions()
	}
	// With no stream of two joints there is nothing to vote on: the first goes on,
	// and decoding rejects it as it would a greedy single-joint stream.
	return streams[max(consensus(joints, ref), 0)], nil
}

// consensus returns the index of the joint set with the least summed Chamfer
// distance to the other sets and to ref (skipped when nil), among the sets whose
// joint count is within a quarter of the median count (all sets when none is): the
// sum alone favours dense skeletons, which lie near everything. nil sets take no
// part; -1 means every set is nil.
func consensus(sets [][]vecmath.Vec3, ref []vecmath.Vec3) int {
	risk := make([]float64, len(sets))
	var counts []int
	for i, a := range sets {
		if a == nil {
			continue
		}
		counts = append(counts, len(a))
		if ref != nil {
			risk[i] += metrics.Chamfer(a, ref)
		}
		for j := i + 1; j < len(sets); j++ {
			if sets[j] != nil {
				d := metrics.Chamfer(a, sets[j])
				risk[i] += d
				risk[j] += d
			}
		}
	}
	if len(counts) == 0 {
		return -1
	}
	slices.Sort(counts)
	median := float64(counts[(len(counts)-1)/2]+counts[len(counts)/2]) / 2
	best, bestAll := -1, -1
	for i, a := range sets {
		if a == nil {
			continue
		}
		if bestAll < 0 || risk[i] < risk[bestAll] {
			bestAll = i
		}
		if math.Abs(float64(len(a))-median) <= median/4 && (best < 0 || risk[i] < risk[best]) {
			best = i
		}
	}
	if best < 0 {
		return bestAll
	}
	return best
}

// voteStream is voteSkeleton followed, for a generator that writes skin tokens,
// by the greedy skin codes after the chosen skeleton: a complete stream whose
// log-probabilities are those the tokens were drawn with.
func (g *Generator) voteStream(lat *tensor.Dense, region *Region, proposal *character.Skeleton, rng *rand.Rand) (*Sampled, error) {
	skel, err := g.voteSkeleton(lat, region, proposal, rng)
	if err != nil || !g.WritesSkin() {
		return skel, err
	}
	sess, err := g.Model.NewSession(lat)
	if err != nil {
		return nil, err
	}
	full, err := Generate(sess, skel.Tokens, SampleOptions{MaxJoints: g.Model.Cfg.MaxJoint, K: g.Model.Cfg.K()}, rng)
	if err != nil {
		return nil, fmt.Errorf("vote: skin tokens after the chosen skeleton: %w", err)
	}
	copy(full.LogProbs, skel.LogProbs)
	full.Prompt = skel.Prompt
	return full, nil
}

// Draw is how many streams one rig draws and how: the first is the vote of
// Generator.Votes sampled skeletons (greedy when Votes < 2), the Samples-1 others
// are drawn at Temperature (0: 1) and TopP as one batch.
type Draw struct {
	Samples           int
	Temperature, TopP float64
}

// Streams draws the streams of one rig (Draw) from the shape latents lat, masked
// by region (nil: the grammar only). proposal is the mesh's proposal skeleton in
// its world frame, which norm maps into the cube; it votes when the model reads it.
func (g *Generator) Streams(lat *tensor.Dense, region *Region, proposal *character.Skeleton, norm character.Normalization, d Draw, rng *rand.Rand) ([]*Sampled, error) {
	skinMode := g.WritesSkin()
	var propCube *character.Skeleton
	if proposal != nil && g.Model.Proposal != nil {
		propCube = tokens.SkeletonToCube(proposal, norm)
	}
	first, err := g.voteStream(lat, region, propCube, rng)
	if err != nil {
		return nil, err
	}
	if d.Samples < 2 {
		return []*Sampled{first}, nil
	}
	opts := make([]SampleOptions, d.Samples-1)
	for s := range opts {
		opts[s] = SampleOptions{Temperature: d.Temperature, TopP: d.TopP, MaxJoints: g.Model.Cfg.MaxJoint, K: g.Model.Cfg.K(), StopAtSEP: !skinMode, Region: region}
		if opts[s].Temperature <= 0 {
			opts[s].Temperature = 1
		}
	}
	sess, err := g.Model.NewSession(lat)
	if err != nil {
		return nil, err
	}
	more, err := GenerateN(sess, nil, opts, rng)
	return append([]*Sampled{first}, more...), err
}
