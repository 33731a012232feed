package rewards

import (
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// longHeadMan is capsuleMan with a head as long as a helmet's crest (up to y
// 1.05), so that its side lies beyond the reach of a bone ending at the skull's
// base; full keeps the head_end joint at its top, bare leaves it out, as artists
// do.
func longHeadMan() (full, bare *character.Character) {
	spec := capsuleMan(1, false)
	head, end := -1, -1
	for i, n := range spec.names {
		switch n {
		case "head":
			head = i
		case "head_end":
			end = i
		}
	}
	spec.joints[end] = vecmath.Vec3{0, 1.05, 0}
	spec.caps[len(spec.caps)-1] = capsule{spec.joints[head], spec.joints[end], 0.1}
	full = spec.character(44)
	bare = full.Clone()
	sk := bare.Skeleton
	keep := func(i int) bool { return i != end }
	bare.Skeleton = &character.Skeleton{}
	for i := range sk.Names {
		if keep(i) {
			parent := sk.Parents[i]
			if parent > end {
				parent--
			}
			bare.Skeleton.Names = append(bare.Skeleton.Names, sk.Names[i])
			bare.Skeleton.Parents = append(bare.Skeleton.Parents, parent)
			bare.Skeleton.BindWorld = append(bare.Skeleton.BindWorld, sk.BindWorld[i])
		}
	}
	bare.Skin = smoothWeights(bare.Mesh.Positions, bare.Skeleton)
	for v, q := range bare.Mesh.Positions { // the head joint moves the head, as an artist weights it
		if q[1] > spec.joints[head][1]-0.04 {
			bare.Skin.Weights[v] = []character.Influence{{Joint: head, Weight: 1}}
		}
	}
	return full, bare
}

// TestLeafBones checks that a joint without children is judged as the bone
// through the part it moves (a head joint reaches the top of a long head), and
// only while it sits at that part's base.
func TestLeafBones(t *testing.T) {
	full, bare := longHeadMan()
	p, err := Prepare(&full.Mesh, Options{Poses: 2})
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{}.withDefaults()
	fullCov, _ := p.coverage(newRig(full, p.Norm, opt))
	bareRig := newRig(bare, p.Norm, opt)
	bareCov, _ := p.coverage(bareRig)
	if bareCov < fullCov-0.01 {
		t.Errorf("coverage without the head's end joint %.3f, with it %.3f: leaving out an end joint costs", bareCov, fullCov)
	}
	head := jointIndex(bareRig, "head")
	leaves := leafEnds(p.reachBones(bareRig))
	top := p.Norm.Point(vecmath.Vec3{0, 0.85, 0}) // past the middle of the head (0.72 to 1.05), as far as the neck allows
	if b, ok := leaves[head]; !ok || b.b[1] < top[1] {
		t.Errorf("head leaf bone %v (found %v), want it to reach y %.3f (cube)", b.b, ok, top[1])
	}

	// The same rig with every joint moved halfway to the joints' centre, weights
	// kept: the head joint is off its part and gets no bone.
	moved, _ := shrunkToward(towardJoints, 0.5)(bare, 1)
	movedRig := newRig(moved, p.Norm, opt)
	if b, ok := leafEnds(p.reachBones(movedRig))[head]; ok {
		t.Errorf("moved head joint got a leaf bone to %v", b.b)
	}
	if movedCov, _ := p.coverage(movedRig); movedCov >= bareCov {
		t.Errorf("coverage of the shrunk rig %.3f, of the rig %.3f: shrinking pays", movedCov, bareCov)
	}
}

// jointIndex returns the index of the joint named name, or -1.
func jointIndex(r *rig, name string) int {
	for i, n := range r.names {
		if n == name {
			return i
		}
	}
	return -1
}
