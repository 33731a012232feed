package copilot

import (
	"slices"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/sampler"
	"github.com/rigkit/rigkit/tokens"
	"github.com/rigkit/rigkit/vecmath"
)

// chain is Hips with two legs (a leaf and a two-joint chain), in the cube; the
// stream writes RightLeg (lower x) first.
func chain() *character.Skeleton {
	sk := &character.Skeleton{}
	for _, j := range []struct {
		name   string
		parent int
		pos    vecmath.Vec3
	}{
		{"Hips", -1, vecmath.Vec3{0, 0, 0}},
		{"LeftLeg", 0, vecmath.Vec3{0.2, -0.5, 0}},
		{"LeftFoot", 1, vecmath.Vec3{0.2, -0.9, 0}},
		{"RightLeg", 0, vecmath.Vec3{-0.2, -0.5, 0}},
	} {
		sk.Names, sk.Parents = append(sk.Names, j.name), append(sk.Parents, j.parent)
		sk.BindWorld = append(sk.BindWorld, vecmath.Translate4(j.pos))
	}
	return sk
}

func TestContinuationPoints(t *testing.T) {
	sk := chain()
	norm := character.Normalization{Scale: 1}
	stream, _, err := tokens.EncodeSkeleton(sk, norm)
	if err != nil {
		t.Fatal(err)
	}
	pts, err := continuationPoints(sk, norm)
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != sk.NumJoints() {
		t.Fatalf("%d points for %d joints", len(pts), sk.NumJoints())
	}
	for _, pt := range pts {
		// Each prompt is a prefix of the one encoding, then POPs only, and the
		// grammar takes it with the anchor on top of the stack.
		core := pt.prompt
		for len(core) > 0 && core[len(core)-1] == tokens.POP {
			core = core[:len(core)-1]
		}
		if !slices.Equal(core, stream[:len(core)]) {
			t.Fatalf("%s: prompt %v is not a prefix of %v", sk.Names[pt.anchor], pt.prompt, stream)
		}
		cur := sampler.NewCursor(0, 0, nil)
		for i, tok := range pt.prompt {
			if err := cur.Next(tok); err != nil {
				t.Fatalf("%s: prompt token %d: %v", sk.Names[pt.anchor], i, err)
			}
		}
	}
	byName := map[string]point{}
	for _, pt := range pts {
		byName[sk.Names[pt.anchor]] = pt
	}
	tests := []struct {
		name       string
		depth, pop int
	}{{"Hips", 1, 2}, {"LeftLeg", 2, 1}, {"LeftFoot", 3, 0}, {"RightLeg", 2, 0}}
	for _, tt := range tests {
		pt := byName[tt.name]
		pops := 0
		for i := len(pt.prompt) - 1; i >= 0 && pt.prompt[i] == tokens.POP; i-- {
			pops++
		}
		if pt.depth != tt.depth || pops != tt.pop {
			t.Errorf("%s: depth %d, %d trailing POPs; want %d, %d", tt.name, pt.depth, pops, tt.depth, tt.pop)
		}
	}
}

func TestSubtreeWalkStops(t *testing.T) {
	c := tokens.CoordToken(100)
	tests := []struct {
		name  string
		toks  []int
		limit int
		kept  int // tokens taken before the stop
	}{
		{"pop closes the anchor", []int{tokens.POP}, 8, 0},
		{"child then close", []int{c, c, c, tokens.POP, tokens.POP}, 8, 4},
		{"SEP ends", []int{c, c, c, tokens.SEP}, 8, 3},
		{"limit", []int{c, c, c, c, c, c}, 1, 3},
		{"two children", []int{c, c, c, tokens.POP, c, c, c, tokens.POP, tokens.POP}, 8, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &subtreeWalk{stack: 2, floor: 2, limit: tt.limit}
			kept := len(tt.toks)
			for i, tok := range tt.toks {
				if w.stop(tok) {
					kept = i
					break
				}
			}
			if kept != tt.kept {
				t.Fatalf("kept %d tokens, want %d", kept, tt.kept)
			}
		})
	}
}

func TestJointsAfter(t *testing.T) {
	c := tokens.CoordToken(128)
	js := jointsAfter([]int{c, c, c, c, c, c, tokens.POP, c, c, c}, character.Normalization{Scale: 1})
	var parents []int
	for _, j := range js {
		parents = append(parents, j.parent)
	}
	if !slices.Equal(parents, []int{-1, 0, 0}) {
		t.Fatalf("parents %v, want [-1 0 0]", parents)
	}
}
