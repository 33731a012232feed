package sampler

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/rigkit/rigkit/internal/modeltest"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/rigmodel"
	"github.com/rigkit/rigkit/synth"
	"github.com/rigkit/rigkit/tokens"
	"github.com/rigkit/rigkit/vecmath"
	"gorgonia.org/tensor"
)

func TestConsensus(t *testing.T) {
	pt := func(x float64) []vecmath.Vec3 { return []vecmath.Vec3{{x, 0, 0}} }
	pts := func(xs ...float64) []vecmath.Vec3 {
		var p []vecmath.Vec3
		for _, x := range xs {
			p = append(p, vecmath.Vec3{x, 0, 0})
		}
		return p
	}
	tests := []struct {
		name string
		sets [][]vecmath.Vec3
		ref  []vecmath.Vec3
		want int
	}{
		{"the middle one", [][]vecmath.Vec3{pt(0), pt(1), pt(10)}, nil, 1},
		{"an outlier never wins", [][]vecmath.Vec3{pt(10), pt(0), pt(0.5), pt(1)}, nil, 2},
		{"nil sets take no part", [][]vecmath.Vec3{nil, pt(0), pt(5)}, nil, 1},
		{"the proposal votes", [][]vecmath.Vec3{pt(0), pt(2)}, pt(2), 1},
		{"the proposal votes the other way", [][]vecmath.Vec3{pt(0), pt(2)}, pt(0), 0},
		{"nothing to choose", [][]vecmath.Vec3{nil, nil}, pt(0), -1},
		{"a dense skeleton is out of the running", [][]vecmath.Vec3{pts(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10), pts(0, 10), pts(5, 10), pts(0, 5), pts(2, 8)}, nil, 4},
		{"no one has the median count: all run", [][]vecmath.Vec3{pts(0), pts(5), pts(0, 1, 2, 3), pts(2, 3, 4, 5)}, nil, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := consensus(tc.sets, tc.ref); got != tc.want {
				t.Errorf("consensus = %d, want %d", got, tc.want)
			}
		})
	}
}

// voteFixture is an untrained tiny model that writes skin tokens, a generator for
// it, the shape latents of the box quadruped, a fresh random source for each call
// and the sampling region.
func voteFixture(t *testing.T) (*rigmodel.Model, *Generator, *tensor.Dense, func() *rand.Rand, *Region) {
	t.Helper()
	cfg := modeltest.TinyConfig
	cfg.MaxJoint, cfg.SkinK = 6, 2
	m, err := rigmodel.NewModel(cfg, 5)
	if err != nil {
		t.Fatal(err)
	}
	mesh := synth.BoxQuadruped()
	nm, _ := rigmodel.NormalizedMesh(&mesh)
	lat, err := m.Encode(rigmodel.SamplePoints(&nm, m.Cfg.Points, rand.New(rand.NewSource(1))), nil)
	if err != nil {
		t.Fatal(err)
	}
	g := &Generator{Model: m, Skin: rigidDecoder{}, SkinMode: SkinFromTokens, InsideJoints: true}
	return m, g, lat, func() *rand.Rand { return rand.New(rand.NewSource(4)) }, g.region(&nm)
}

// TestVoteSkeletonIsTheConsensus checks that one vote is the greedy stream and
// that several return the consensus of exactly the streams GenerateN draws from
// the same random source, each a skeleton-only stream the grammar accepts.
func TestVoteSkeletonIsTheConsensus(t *testing.T) {
	m, g, lat, rng, region := voteFixture(t)
	prop := &character.Skeleton{Names: []string{"a"}, Parents: []int{-1}, BindWorld: []vecmath.Mat4{vecmath.Identity4()}}
	for _, votes := range []int{0, 1, 2, 7} {
		g.Votes = votes
		got, err := g.voteSkeleton(lat, region, prop, rng())
		if err != nil {
			t.Fatalf("votes %d: %v", votes, err)
		}
		if got.Tokens[len(got.Tokens)-1] != tokens.SEP {
			t.Fatalf("votes %d: the stream does not end at SEP", votes)
		}
		opts := make([]SampleOptions, max(votes, 1))
		for i := range opts {
			opts[i] = SampleOptions{MaxJoints: m.Cfg.MaxJoint, K: m.Cfg.K(), StopAtSEP: true, Region: region}
			if votes > 1 {
				opts[i].Temperature, opts[i].TopP = voteTemperature, voteTopP
			}
		}
		sess, err := m.NewSession(lat)
		if err != nil {
			t.Fatal(err)
		}
		streams, err := GenerateN(sess, nil, opts, rng())
		if err != nil {
			t.Fatal(err)
		}
		sets := make([][]vecmath.Vec3, len(streams))
		for i, s := range streams {
			sk, err := tokens.DecodeSkeleton(s.Tokens)
			if err != nil {
				t.Fatalf("votes %d, stream %d: %v", votes, i, err)
			}
			if sk.NumJoints() > 1 {
				sets[i] = sk.Positions()
			}
		}
		want := 0
		if votes > 1 {
			want = max(consensus(sets, prop.Positions()), 0)
		}
		if !slices.Equal(got.Tokens, streams[want].Tokens) {
			t.Errorf("votes %d: got %v, want stream %d %v", votes, got.Tokens, want, streams[want].Tokens)
		}
	}
}

// TestVoteStreamWritesSkin checks that the vote's complete stream is the voted
// skeleton followed by skin codes for each of its joints, with the skeleton's
// log-probabilities kept.
func TestVoteStreamWritesSkin(t *testing.T) {
	m, g, lat, rng, region := voteFixture(t)
	g.Votes = 4
	skel, err := g.voteSkeleton(lat, region, nil, rng())
	if err != nil {
		t.Fatal(err)
	}
	full, err := g.voteStream(lat, region, nil, rng())
	if err != nil {
		t.Fatal(err)
	}
	skelPart, codes, err := tokens.Split(full.Tokens, m.Cfg.K())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(skelPart, skel.Tokens) || !slices.Equal(full.LogProbs[:len(skel.LogProbs)], skel.LogProbs) {
		t.Fatalf("the complete stream does not start with the voted skeleton and its log-probabilities")
	}
	sk, err := tokens.DecodeSkeleton(skelPart)
	if err != nil {
		t.Fatal(err)
	}
	if len(codes) != sk.NumJoints() || len(full.LogProbs) != len(full.Tokens) || full.Prompt != 1 {
		t.Errorf("%d code rows for %d joints, %d log-probabilities for %d tokens, prompt %d", len(codes), sk.NumJoints(), len(full.LogProbs), len(full.Tokens), full.Prompt)
	}
	g.SkinMode = SkinFromBind
	bare, err := g.voteStream(lat, region, nil, rng())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(bare.Tokens, skel.Tokens) {
		t.Error("a generator without skin tokens: the vote is not the skeleton-only stream")
	}
}
