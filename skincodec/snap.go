package skincodec

import (
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/geom"
)

// Rigid pieces. Game and prop assets are often built from separate pieces (a wheel,
// a plank, an eyeball) that the artist binds whole to one bone, whether or not that
// bone is the nearest. Decoded per bone, such a piece comes out mostly right with a
// fringe on other bones, and a fringe on a rigid piece tears it under any pose.
// SnapPieces removes the fringe: a piece (a connected component of the mesh, welded
// across seams) smaller than half the mesh whose vertices mostly have the same
// heaviest bone is bound wholly to that bone. A single-piece mesh, such as most
// generated characters, is never changed.

// snapWeld is the distance (in the normalized cube) within which vertices count as
// one position when pieces are found, so that UV and normal seams do not split them.
const snapWeld = 1e-6

// SnapPieces binds every piece of m (see above) with fewer than half of m's
// vertices, at least share of whose vertices have the same heaviest influence in
// skin, wholly to that joint, in place. share ≤ 0 or above 1 does nothing. It
// returns how many vertices it rebound.
func SnapPieces(m *character.Mesh, skin *character.Skin, share float64) int {
	V := len(m.Positions)
	if !(share > 0 && share <= 1) || skin == nil || len(skin.Weights) != V || V == 0 {
		return 0
	}
	keep := make([]bool, V)
	for v := range keep {
		keep[v] = true
	}
	labels, n := geom.NewEdgeGraph(m, snapWeld).Components(keep)
	if n < 2 {
		return 0
	}
	size := make([]int, n)
	for _, l := range labels {
		size[l]++
	}
	// Votes for each piece's heaviest joints: piece → joint → vertices.
	votes := make([]map[int]int, n)
	for v, infl := range skin.Weights {
		l := labels[v]
		if 2*size[l] >= V || len(infl) == 0 {
			continue
		}
		top := infl[0]
		for _, in := range infl[1:] {
			if in.Weight > top.Weight {
				top = in
			}
		}
		if votes[l] == nil {
			votes[l] = map[int]int{}
		}
		votes[l][top.Joint]++
	}
	bind := make([]int, n)
	for l := range bind {
		bind[l] = -1
		best := 0
		for j, c := range votes[l] {
			if c > best || (c == best && j < bind[l]) {
				best, bind[l] = c, j
			}
		}
		if float64(best) < share*float64(size[l]) {
			bind[l] = -1
		}
	}
	snapped := 0
	for v, l := range labels {
		j := bind[l]
		if j < 0 {
			continue
		}
		if infl := skin.Weights[v]; len(infl) == 1 && infl[0].Joint == j && infl[0].Weight == 1 {
			continue
		}
		skin.Weights[v] = []character.Influence{{Joint: j, Weight: 1}}
		snapped++
	}
	return snapped
}
