package render

import (
	"image"
	"testing"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// TestSheet renders a two-joint cube: both halves of the sheet show the character,
// and they differ, since the left colours parts and the right is one joint's heatmap.
func TestSheet(t *testing.T) {
	m := cube()
	skin := &character.Skin{Weights: make([][]character.Influence, len(m.Positions))}
	for v, p := range m.Positions {
		j := 0
		if p[1] > 0 {
			j = 1
		}
		skin.Weights[v] = []character.Influence{{Joint: j, Weight: 1}}
	}
	c := &character.Character{Mesh: m, Skin: skin, Skeleton: &character.Skeleton{Names: []string{"a", "b"}, Parents: []int{-1, 0},
		BindWorld: []vecmath.Mat4{vecmath.Translate4(vecmath.Vec3{0, -0.4, 0}), vecmath.Translate4(vecmath.Vec3{0, 0.4, 0})}}}
	const size = 48
	sheet := Sheet(c, 1, size)
	if b := sheet.Bounds(); b.Dx() != 2*size || b.Dy() != size {
		t.Fatalf("sheet is %v, want %d×%d", b, 2*size, size)
	}
	left := sheet.SubImage(image.Rect(0, 0, size, size)).(*image.RGBA)
	right := sheet.SubImage(image.Rect(size, 0, 2*size, size)).(*image.RGBA)
	for name, half := range map[string]*image.RGBA{"parts": left, "heatmap": right} {
		if cov := Coverage(half, sheetBackground); cov < 0.1 {
			t.Errorf("%s half covers %.1f%% of its tile", name, 100*cov)
		}
	}
	same := true
	for y := 0; y < size && same; y++ {
		for x := 0; x < size; x++ {
			if left.RGBAAt(x, y) != right.RGBAAt(size+x, y) {
				same = false
				break
			}
		}
	}
	if same {
		t.Error("the parts and heatmap halves are identical")
	}
}
