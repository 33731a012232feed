package copilot

import (
	"fmt"
	"math"

	"github.com/rigkit/rigkit/anatomy"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// Where an added joint comes from, as the report says.
const (
	sourceGiven    = "given"
	sourceModel    = "model"
	sourceTemplate = "template"
)

// merge builds a completed skeleton: the given joints, then the model's, then the
// template's. unnamed marks the model's joints that no template joint names yet.
type merge struct {
	sk      *character.Skeleton
	source  []string
	unnamed []bool
	radius  float64
}

func newMerge(p *Prepared) *merge {
	b := &merge{sk: p.given.Clone(), radius: p.radius}
	for range p.given.Names {
		b.source, b.unnamed = append(b.source, sourceGiven), append(b.unnamed, false)
	}
	return b
}

// add appends a joint and returns its index.
func (b *merge) add(name string, parent int, pos vecmath.Vec3, source string) int {
	b.sk.Names = append(b.sk.Names, name)
	b.sk.Parents = append(b.sk.Parents, parent)
	b.sk.BindWorld = append(b.sk.BindWorld, vecmath.Translate4(pos))
	b.source = append(b.source, source)
	b.unnamed = append(b.unnamed, source == sourceModel)
	return len(b.sk.Names) - 1
}

// nearest returns the joint nearest to q among those accept takes, and its
// distance (-1, +Inf when none).
func (b *merge) nearest(q vecmath.Vec3, accept func(j int) bool) (int, float64) {
	best, bd := -1, math.Inf(1)
	for j := range b.sk.Names {
		if accept != nil && !accept(j) {
			continue
		}
		if d := b.sk.Position(j).Dist(q); d < bd {
			best, bd = j, d
		}
	}
	return best, bd
}

// addModel adds the first perPoint joints of every continuation. A joint within
// half the radius of one already there is that joint: its children hang from it.
func (b *merge) addModel(points []continuation, perPoint int) {
	for _, cont := range points {
		idx := make([]int, 0, len(cont.joints))
		for k, aj := range cont.joints {
			if k >= perPoint {
				break
			}
			parent := cont.anchor
			if aj.parent >= 0 {
				parent = idx[aj.parent]
			}
			if j, d := b.nearest(aj.pos, nil); j >= 0 && d < b.radius/2 {
				idx = append(idx, j)
				continue
			}
			idx = append(idx, b.add("", parent, aj.pos, sourceModel))
		}
	}
}

// maxShift bounds (in radii) how far a template chain moves to meet the given
// joint it hangs from: a given joint farther from its namesake (a "root" on the
// floor, the template's in the pelvis) is another joint, and moving the whole
// template by the gap would take it out of the mesh.
const maxShift = 4

// addTemplate adds the template's joints that no joint stands for. A template
// joint stands for a given joint of the same (anatomical) name; the template's
// chains are moved with the named joints they hang from, so that they meet them
// (up to maxShift);
// then a template joint within the radius of a model joint names it, and one
// within the radius of any joint is that joint. The rest are added, hanging from
// what their template parent became.
func (b *merge) addTemplate(t *character.Skeleton) {
	n := t.NumJoints()
	cover := b.coverByName(t)
	pos := make([]vecmath.Vec3, n)
	offset := make([]vecmath.Vec3, n)
	for j := range pos {
		switch p := t.Parents[j]; {
		case cover[j] >= 0:
			if d := b.sk.Position(cover[j]).Sub(t.Position(j)); d.Len() <= maxShift*b.radius {
				offset[j] = d
			}
		case p >= 0:
			offset[j] = offset[p]
		}
		pos[j] = t.Position(j).Add(offset[j])
	}
	for j := range pos {
		if cover[j] >= 0 {
			continue
		}
		if m, d := b.nearest(pos[j], func(k int) bool { return b.unnamed[k] }); m >= 0 && d <= b.radius {
			b.sk.Names[m], b.unnamed[m], cover[j] = t.Names[j], false, m
		} else if k, d := b.nearest(pos[j], nil); k >= 0 && d <= b.radius {
			cover[j] = k
		}
	}
	for j := range pos {
		if cover[j] >= 0 {
			continue
		}
		parent := -1
		if p := t.Parents[j]; p >= 0 {
			parent = cover[p]
		} else {
			parent, _ = b.nearest(pos[j], nil)
		}
		cover[j] = b.add(t.Names[j], parent, pos[j], sourceTemplate)
	}
}

// coverByName maps each template joint to the given joint of the same name, or of
// an artist's name for it (anatomy.MixamoName), -1 for none.
func (b *merge) coverByName(t *character.Skeleton) []int {
	given := map[string]int{}
	for j, s := range b.source {
		if s != sourceGiven {
			break
		}
		given[b.sk.Names[j]] = j
		if m := anatomy.MixamoName(b.sk.Names[j]); m != "" {
			if _, taken := given[m]; !taken {
				given[m] = j
			}
		}
	}
	cover := make([]int, t.NumJoints())
	for j, n := range t.Names {
		cover[j] = -1
		if g, ok := given[n]; ok {
			cover[j] = g
		}
	}
	return cover
}

// nameExtras names the model's joints no template joint named <parent>_extra_k
// (k from 1 for each parent; "root" for a root), then makes every added name
// unique by a numeric suffix.
func (b *merge) nameExtras() {
	count := map[int]int{}
	for j, un := range b.unnamed {
		if !un {
			continue
		}
		p := b.sk.Parents[j]
		count[p]++
		parent := "root"
		if p >= 0 {
			parent = b.sk.Names[p]
		}
		b.sk.Names[j] = fmt.Sprintf("%s_extra_%d", parent, count[p])
		b.unnamed[j] = false
	}
	seen := map[string]bool{}
	for j, n := range b.sk.Names {
		if b.source[j] != sourceGiven && seen[n] {
			k := 2
			for seen[fmt.Sprintf("%s_%d", n, k)] {
				k++
			}
			n = fmt.Sprintf("%s_%d", n, k)
			b.sk.Names[j] = n
		}
		seen[n] = true
	}
}

// isTranslation reports whether m only translates (a joint from a JSON partial).
func isTranslation(m vecmath.Mat4) bool {
	m[12], m[13], m[14] = 0, 0, 0
	return m == vecmath.Translate4(vecmath.Vec3{})
}
