package eval

import (
	"math"
	"strings"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

func skeletonOf(names []string, parents []int, pos []vecmath.Vec3) *character.Skeleton {
	sk := &character.Skeleton{Names: names, Parents: parents}
	for _, p := range pos {
		sk.BindWorld = append(sk.BindWorld, vecmath.Translate4(p))
	}
	return sk
}

func TestKeptExactly(t *testing.T) {
	given := skeletonOf([]string{"a", "b"}, []int{-1, 0}, []vecmath.Vec3{{0, 0, 0}, {0, 1, 0}})
	tests := []struct {
		name string
		sk   *character.Skeleton
		want bool
	}{
		{"kept, one added", skeletonOf([]string{"a", "b", "c"}, []int{-1, 0, 1}, []vecmath.Vec3{{0, 0, 0}, {0, 1, 0}, {0, 2, 0}}), true},
		{"renamed", skeletonOf([]string{"a", "B"}, []int{-1, 0}, []vecmath.Vec3{{0, 0, 0}, {0, 1, 0}}), false},
		{"moved by a hair", skeletonOf([]string{"a", "b"}, []int{-1, 0}, []vecmath.Vec3{{0, 0, 0}, {0, 1 + 1e-12, 0}}), false},
		{"reparented", skeletonOf([]string{"a", "b"}, []int{-1, -1}, []vecmath.Vec3{{0, 0, 0}, {0, 1, 0}}), false},
		{"fewer joints", skeletonOf([]string{"a"}, []int{-1}, []vecmath.Vec3{{0, 0, 0}}), false},
	}
	for _, tt := range tests {
		if got := keptExactly(tt.sk, given); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestWithoutNearestAndAdded(t *testing.T) {
	given := skeletonOf([]string{"a", "b"}, []int{-1, 0}, []vecmath.Vec3{{0, 0, 0}, {0, 1, 0}})
	baseline := skeletonOf([]string{"x", "y", "z"}, []int{-1, 0, 1}, []vecmath.Vec3{{0, 0.1, 0}, {0, 0.9, 0}, {0, 2, 0}})
	if got := withoutNearest(baseline, given); len(got) != 1 || got[0] != (vecmath.Vec3{0, 2, 0}) {
		t.Fatalf("baseline's added part %v, want the joint at y=2", got)
	}
	artist := skeletonOf([]string{"a", "b", "tip"}, []int{-1, 0, 1}, []vecmath.Vec3{{0, 0, 0}, {0, 1, 0}, {0, 2, 0}})
	if got := addedOf(artist, given); len(got) != 1 || got[0] != (vecmath.Vec3{0, 2, 0}) {
		t.Fatalf("artist's added part %v", got)
	}
	norm := character.Normalization{Scale: 1}
	s := scoreCompletion(artist, baseline, addedOf(artist, given), nil, norm)
	if math.IsNaN(s.AddedCDJ2J) || s.Joints != 3 {
		t.Fatalf("score %+v: an empty added part stands in with the whole skeleton", s)
	}
}

func TestCompleteMarkdownCountsChecks(t *testing.T) {
	rep := &CompleteReport{Split: "test", Rows: []CompleteRow{
		{File: "a", Humanoid: true, Artist: 10, Given: 4, GivenKept: true, MaxKept: true, Increasing: false,
			Methods: map[string]CompleteScore{"classical": {Joints: 8, CDJ2J: 0.2, AddedCDJ2J: 0.3}}},
		{File: "b", Humanoid: true, Artist: 10, Given: 4, GivenKept: true, MaxKept: false, Increasing: true,
			Methods: map[string]CompleteScore{"classical": {Joints: 12, CDJ2J: 0.4, AddedCDJ2J: math.NaN()}}},
		{File: "c", Error: "ground truth: not rigged"},
	}}
	md := rep.Markdown()
	for _, want := range []string{
		"given joints kept exactly: 2 / 2; --max-joints (the artist's count) respected: 1 / 2; joints increase low < medium < high: 1 / 2",
		"| classical | 30.00 | 30.00 | 10.0 | 2.0 |",
		"other creatures: 1 files, 1 failed",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}
