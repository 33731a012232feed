package character

import (
	"github.com/rigkit/rigkit/vecmath"
	"math"
	"testing"
)

func TestSegmentDist(t *testing.T) {
	a, b := vecmath.Vec3{0, 0, 0}, vecmath.Vec3{2, 0, 0}
	tests := []struct {
		name string
		p    vecmath.Vec3
		a, b vecmath.Vec3
		want float64
	}{
		{"beside the middle", vecmath.Vec3{1, 3, 0}, a, b, 3},
		{"past the end", vecmath.Vec3{5, 4, 0}, a, b, 5},
		{"before the start", vecmath.Vec3{-3, 0, 4}, a, b, 5},
		{"a point segment", vecmath.Vec3{0, 0, 2}, a, a, 2},
	}
	for _, tt := range tests {
		if got := vecmath.SegmentDist(tt.p, tt.a, tt.b); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: SegmentDist = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestRigidSkin(t *testing.T) {
	// A chain root (0,0,0) → mid (0,2,0) → tip (0,4,0): root and mid own a bone
	// each, tip is a point. Past the tip, the tip's point ties with mid's bone end
	// and the earlier bone (mid) wins.
	sk := &Skeleton{Names: []string{"root", "mid", "tip"}, Parents: []int{-1, 0, 1},
		BindWorld: []vecmath.Mat4{vecmath.Identity4(), vecmath.Translate4(vecmath.Vec3{0, 2, 0}), vecmath.Translate4(vecmath.Vec3{0, 4, 0})}}
	pos := []vecmath.Vec3{{0.5, 1, 0}, {0.5, 3, 0}, {0, 5, 0}, {0, -1, 0}}
	k := RigidSkin(pos, sk)
	for v, want := range []int{0, 1, 1, 0} {
		if ws := k.Weights[v]; len(ws) != 1 || ws[0].Joint != want || ws[0].Weight != 1 {
			t.Errorf("vertex %d: weights %v, want joint %d at 1", v, ws, want)
		}
	}
	if k := RigidSkin(pos, &Skeleton{}); len(k.Weights) != 4 || k.Weights[0] != nil {
		t.Errorf("no joints: weights %v, want 4 orphans", k.Weights)
	}
}
