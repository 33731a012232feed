package anatomy

import (
	"fmt"
	"strings"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// build collects a template's joints in the canonical frame, parents first.
type build struct {
	names   []string
	parents []int
	pos     []vecmath.Vec3
	centre  []bool // on the symmetry plane (spine, head, tail)
	index   map[string]int
}

func newBuild() *build { return &build{index: map[string]int{}} }

// add appends a joint under parent ("" for the root) and returns its index.
func (b *build) add(name, parent string, p vecmath.Vec3, centre bool) int {
	pi := -1
	if parent != "" {
		pi = b.index[parent]
	}
	b.index[name] = len(b.names)
	b.names = append(b.names, name)
	b.parents = append(b.parents, pi)
	b.pos = append(b.pos, p)
	b.centre = append(b.centre, centre)
	return len(b.names) - 1
}

// partner returns the index of the joint's mirror partner (Left ↔ Right), or -1.
func (b *build) partner(j int) int {
	n := b.names[j]
	var other string
	switch {
	case strings.HasPrefix(n, "Left"):
		other = "Right" + n[4:]
	case strings.HasPrefix(n, "Right"):
		other = "Left" + n[5:]
	default:
		return -1
	}
	if k, ok := b.index[other]; ok {
		return k
	}
	return -1
}

// symmetrize puts the centre joints on the plane and makes each Left/Right pair
// mirror images: both move to the mean of one and the other's reflection.
func (b *build) symmetrize(s *shape) {
	for j := range b.pos {
		if b.centre[j] {
			b.pos[j][0] = s.mid
			continue
		}
		k := b.partner(j)
		if k < 0 || !strings.HasPrefix(b.names[j], "Left") {
			continue
		}
		m := b.pos[j].Add(s.mirror(b.pos[k])).Scale(0.5)
		b.pos[j], b.pos[k] = m, s.mirror(m)
	}
}

// skeleton returns the joints as an oriented skeleton in the world frame.
func (b *build) skeleton(f frame) (*character.Skeleton, error) {
	sk := &character.Skeleton{Names: b.names, Parents: b.parents}
	world := make([]vecmath.Vec3, len(b.pos))
	for j, p := range b.pos {
		world[j] = f.from(p)
	}
	sk.BindWorld = orient(world, b.parents, f.up, f.fwd)
	if err := sk.Validate(); err != nil {
		return nil, fmt.Errorf("anatomy: %w", err)
	}
	return sk, nil
}
