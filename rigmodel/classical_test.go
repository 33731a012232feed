package rigmodel

import (
	"testing"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/assets/geom"
)

func TestClassicalSkeletonInsideAndBranching(t *testing.T) {
	m := creatureMesh()
	sk, err := ClassicalSkeleton(&m)
	if err != nil {
		t.Fatal(err)
	}
	wn := geom.NewWindingNumber(&m)
	for j, p := range sk.Positions() {
		if wn.At(p) < 0.5 {
			t.Errorf("joint %d at %v is outside the mesh", j, p)
		}
	}
	// Four legs hanging off a body: at least four leaves below the body.
	children := sk.Children()
	leaves := 0
	for j, ch := range children {
		if len(ch) == 0 && sk.Position(j)[1] < 0.5 {
			leaves++
		}
	}
	if leaves < 4 {
		t.Errorf("%d leg tips, want 4 (joints %d, parents %v)", leaves, sk.NumJoints(), sk.Parents)
	}
	c := &assets.Character{Mesh: m}
	rigged, info, err := ClassicalRigger{}.Rig(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckRig(rigged); err != nil {
		t.Errorf("classical rig invalid: %v", err)
	}
	if info.Method != "classical-skeleton+rigid" {
		t.Errorf("method %q", info.Method)
	}
	if c.Skeleton != nil {
		t.Error("Rig modified its input")
	}
}
