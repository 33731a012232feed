package stress

import (
	"math"
	"slices"
	"testing"

	"github.com/rigkit/rigkit/vecmath"

	"github.com/rigkit/rigkit/anatomy"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/geom"
	"github.com/rigkit/rigkit/synth"
)

func biped(t *testing.T) *character.Character {
	t.Helper()
	c, err := synth.Generate("biped", 3, synth.Options{TargetVertices: 3000})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// legGap is the smallest distance across the mirror plane between the lower three
// quarters of the two legs, over the height (negative: they overlap).
func legGap(t *testing.T, c *character.Character) float64 {
	t.Helper()
	b, err := newBody(c)
	if err != nil {
		t.Fatal(err)
	}
	gap := 0.0
	for _, sd := range []int{1, -1} {
		j := b.joint[anatomy.Side(sd, anatomy.UpLeg)]
		pivot := c.Skeleton.Position(j)
		reach := pivot.Dot(b.up) - 0.2*(pivot.Dot(b.up)-b.floor)
		g := math.Inf(1)
		for _, v := range b.vertices(j) {
			if p := c.Mesh.Positions[v]; p.Dot(b.up) < reach {
				g = math.Min(g, b.sideOf(pivot)*(p.Dot(b.side)-b.mid))
			}
		}
		gap += g
	}
	return gap / b.height()
}

// armElevation is the angle of the left upper arm's centroid below (negative) or
// above its shoulder joint, in degrees.
func armElevation(t *testing.T, c *character.Character) float64 {
	t.Helper()
	b, err := newBody(c)
	if err != nil {
		t.Fatal(err)
	}
	j := b.joint[anatomy.Side(1, anatomy.Arm)]
	var pts []vecmath.Vec3
	for _, v := range b.vertices(j) {
		pts = append(pts, c.Mesh.Positions[v])
	}
	d := centroid(pts).Sub(c.Skeleton.Position(j))
	return math.Atan2(d.Dot(b.up), math.Abs(d.Dot(b.side))) * 180 / math.Pi
}

func TestPoses(t *testing.T) {
	base := biped(t)
	before := legGap(t, base)
	if before < 0.01 {
		t.Fatalf("the synthetic biped's legs are already together (gap %.4f): the test needs them apart", before)
	}
	for _, tc := range []struct {
		v              Variant
		legsTogether   bool
		elevLo, elevHi float64
	}{
		{"legs", true, -90, 90},
		{"apose", false, -47, -43},
		{"armsdown", false, -89, -46},
		{"legs+apose", true, -47, -43},
	} {
		t.Run(string(tc.v), func(t *testing.T) {
			c, err := Apply(base, tc.v)
			if err != nil {
				t.Fatal(err)
			}
			if g := legGap(t, c); tc.legsTogether != (g < 0.001) {
				t.Errorf("leg gap %.4f of the height (before %.4f), want together=%v", g, before, tc.legsTogether)
			}
			if e := armElevation(t, c); e < tc.elevLo || e > tc.elevHi {
				t.Errorf("arm elevation %.1f°, want in [%g, %g]", e, tc.elevLo, tc.elevHi)
			}
			// The skeleton moves with the mesh: every joint's skinned vertices
			// stay as near to it as before.
			if d0, d1 := jointSpread(base), jointSpread(c); d1 > d0*1.05+1e-9 {
				t.Errorf("mean vertex-to-dominant-joint distance grew from %.4f to %.4f", d0, d1)
			}
		})
	}
}

// jointSpread is the mean distance from each vertex to its heaviest joint.
func jointSpread(c *character.Character) float64 {
	sum := 0.0
	for v, ws := range c.Skin.Weights {
		best, j := 0.0, -1
		for _, w := range ws {
			if w.Weight > best {
				best, j = w.Weight, w.Joint
			}
		}
		if j >= 0 {
			sum += c.Mesh.Positions[v].Dist(c.Skeleton.Position(j))
		}
	}
	return sum / float64(len(c.Mesh.Positions))
}

func TestFuseIsClosedAndOutward(t *testing.T) {
	c, err := Apply(biped(t), "fused+legs+armsdown")
	if err != nil {
		t.Fatal(err)
	}
	m := &c.Mesh
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := c.Skin.Validate(len(m.Positions), c.Skeleton.NumJoints(), 1e-6); err != nil {
		t.Fatal(err)
	}
	// Closed and consistently wound: every directed edge has its reverse.
	edges := map[[2]int]int{}
	for _, tr := range m.Triangles {
		for k := 0; k < 3; k++ {
			edges[[2]int{tr[k], tr[(k+1)%3]}]++
		}
	}
	for e, n := range edges {
		if edges[[2]int{e[1], e[0]}] != n {
			t.Fatalf("edge %v used %d times, its reverse %d: the surface is not closed", e, n, edges[[2]int{e[1], e[0]}])
		}
	}
	// Facing out: the hips lie inside by winding number.
	wn := geom.NewWindingNumber(m)
	b, err := newBody(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{anatomy.Side(1, anatomy.UpLeg), anatomy.Side(-1, anatomy.UpLeg), anatomy.Side(1, anatomy.Arm)} {
		if w := wn.At(c.Skeleton.Position(b.joint[n])); w < 0.5 {
			t.Errorf("winding number at %s is %.2f: the surface faces in", n, w)
		}
	}
	t.Logf("fused: %d vertices, %d triangles", len(m.Positions), len(m.Triangles))
}

func TestParseVariant(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{{"legs", true}, {"fused+legs+armsdown", true}, {"fused+robe", true}, {"legs+tail", false}, {"", false}} {
		if _, err := ParseVariant(tc.in); (err == nil) != tc.ok {
			t.Errorf("ParseVariant(%q) error %v, want ok=%v", tc.in, err, tc.ok)
		}
	}
}

// TestGarments: a skirt and a robe are each one closed, outward part added to the
// mesh, skinned, hanging from above the hip joints to the knees or the ankles,
// and wrapping both legs: at the knees' height the robe spans them.
func TestGarments(t *testing.T) {
	base := biped(t)
	nv, nt := len(base.Mesh.Positions), len(base.Mesh.Triangles)
	hems := map[Variant]float64{}
	for _, v := range []Variant{"skirt", "robe"} {
		c, err := Apply(base, v)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Skin.Validate(len(c.Mesh.Positions), c.Skeleton.NumJoints(), 1e-6); err != nil {
			t.Fatal(err)
		}
		part := &character.Mesh{Positions: c.Mesh.Positions[nv:]}
		for _, tr := range c.Mesh.Triangles[nt:] {
			part.Triangles = append(part.Triangles, [3]int{tr[0] - nv, tr[1] - nv, tr[2] - nv})
		}
		if len(part.Triangles) == 0 {
			t.Fatalf("%s: no part added", v)
		}
		edges := map[[2]int]bool{}
		for _, tr := range part.Triangles {
			for k := 0; k < 3; k++ {
				edges[[2]int{tr[k], tr[(k+1)%3]}] = true
			}
		}
		for e := range edges {
			if !edges[[2]int{e[1], e[0]}] {
				t.Fatalf("%s: edge %v has no reverse: the garment is not closed", v, e)
			}
		}
		b, err := newBody(c)
		if err != nil {
			t.Fatal(err)
		}
		knee, _ := b.meanHeight(anatomy.Leg)
		wn := geom.NewWindingNumber(part)
		for _, sd := range []int{1, -1} {
			hip := c.Skeleton.Position(b.joint[anatomy.Side(sd, anatomy.UpLeg)])
			if w := wn.At(hip); w < 0.5 {
				t.Errorf("%s: winding number %.2f at the %s hip: the garment faces in or misses it", v, w, anatomy.Side(sd, "leg"))
			}
		}
		lo, hi := part.Bounds()
		hems[v] = lo.Dot(b.up)
		if hips, _ := b.meanHeight(anatomy.UpLeg); hi.Dot(b.up) < hips {
			t.Errorf("%s: the garment's top %.3f is below the hips", v, hi.Dot(b.up))
		}
		if v == "robe" {
			for _, sd := range []int{1, -1} {
				k := c.Skeleton.Position(b.joint[anatomy.Side(sd, anatomy.Leg)])
				if w := wn.At(k); w < 0.5 {
					t.Errorf("robe: winding number %.2f at the %s knee (height %.3f)", w, anatomy.Side(sd, "leg"), knee)
				}
			}
		}
	}
	if hems["robe"] >= hems["skirt"] {
		t.Errorf("the robe's hem (%.3f) is not below the skirt's (%.3f)", hems["robe"], hems["skirt"])
	}
}

// boxTriangles appends the 12 triangles of the box [lo, hi] to m, facing out, or
// in when inward (the inner wall of a hollow part).
func boxTriangles(m *character.Mesh, lo, hi vecmath.Vec3, inward bool) {
	base := len(m.Positions)
	for i := 0; i < 8; i++ {
		p := lo
		for a := 0; a < 3; a++ {
			if i>>a&1 == 1 {
				p[a] = hi[a]
			}
		}
		m.Positions = append(m.Positions, p)
	}
	for _, f := range [6][4]int{{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}} {
		a, b, c, d := base+f[0], base+f[1], base+f[2], base+f[3]
		if inward {
			b, d = d, b
		}
		m.Triangles = append(m.Triangles, [3]int{a, b, c}, [3]int{a, c, d})
	}
}

// TestFuseKeepsPartsAndFillsCavities fuses a body, an arm the voxels do not join
// to it, a speck and a hollow box: the arm stays a closed piece of its own (a
// voxel remesh keeps it; dropping it made a one-armed stress character), the
// speck goes, and the hollow box's air is filled, so no inner wall faces into it.
func TestFuseKeepsPartsAndFillsCavities(t *testing.T) {
	c := &character.Character{Name: "parts"}
	boxTriangles(&c.Mesh, vecmath.Vec3{-0.2, 0, -0.1}, vecmath.Vec3{0.2, 1, 0.1}, false)         // body
	boxTriangles(&c.Mesh, vecmath.Vec3{0.25, 0.4, -0.05}, vecmath.Vec3{0.35, 0.9, 0.05}, false)  // arm, 0.05 off the body
	boxTriangles(&c.Mesh, vecmath.Vec3{-0.6, 0.5, 0}, vecmath.Vec3{-0.595, 0.505, 0.005}, false) // speck
	boxTriangles(&c.Mesh, vecmath.Vec3{-0.55, 0, -0.15}, vecmath.Vec3{-0.3, 0.3, 0.15}, false)   // hollow box
	boxTriangles(&c.Mesh, vecmath.Vec3{-0.5, 0.05, -0.1}, vecmath.Vec3{-0.35, 0.25, 0.1}, true)  // its air
	c.Skeleton = &character.Skeleton{Names: []string{"root"}, Parents: []int{-1}, BindWorld: []vecmath.Mat4{vecmath.Identity4()}}
	c.Skin = &character.Skin{Weights: make([][]character.Influence, len(c.Mesh.Positions))}
	for v := range c.Skin.Weights {
		c.Skin.Weights[v] = []character.Influence{{Joint: 0, Weight: 1}}
	}
	out, err := Fuse(c, DefaultFuseOptions())
	if err != nil {
		t.Fatal(err)
	}
	if _, count := trianglePieces(&out.Mesh); len(count) != 3 {
		t.Errorf("fused into %d pieces, want 3 (body, arm, hollow box; no speck, no inner wall)", len(count))
	}
	wn := geom.NewWindingNumber(&out.Mesh)
	for _, p := range []vecmath.Vec3{{0, 0.5, 0}, {0.3, 0.6, 0}, {-0.42, 0.15, 0}} {
		if w := wn.At(p); w < 0.5 {
			t.Errorf("winding number %.2f at %v: want inside the fused surface", w, p)
		}
	}
}

// ikFeetBiped is the synthetic biped with its feet hung from a second root on
// the floor, as an IK rig hangs them (Quaternius' mechs and astronauts): the
// feet and toes are outside the legs' subtrees.
func ikFeetBiped(t *testing.T) *character.Character {
	t.Helper()
	c := biped(t).Clone()
	sk := c.Skeleton
	sk.Names = append([]string{"IKRoot"}, sk.Names...)
	sk.BindWorld = append([]vecmath.Mat4{vecmath.Identity4()}, sk.BindWorld...)
	parents := []int{-1}
	for j, p := range sk.Parents {
		switch {
		case sk.Names[j+1] == "foot_l" || sk.Names[j+1] == "foot_r":
			p = 0
		case p >= 0:
			p++
		}
		parents = append(parents, p)
	}
	sk.Parents = parents
	for _, ws := range c.Skin.Weights {
		for i := range ws {
			ws[i].Joint++
		}
	}
	if err := sk.Validate(); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestPressLegsCarriesFloorFeet: feet hung from a root on the floor turn with
// their legs, so that they reach the plane with them and their joints stay on
// their vertices.
func TestPressLegsCarriesFloorFeet(t *testing.T) {
	base := ikFeetBiped(t)
	c, err := Apply(base, "legs")
	if err != nil {
		t.Fatal(err)
	}
	// The gap is measured with the feet hung from their legs again, so that the
	// feet count as the legs' lower parts.
	joined := c.Clone()
	for j, n := range joined.Skeleton.Names {
		if n == "foot_l" || n == "foot_r" {
			joined.Skeleton.Parents[j] = j - 1
		}
	}
	if g := legGap(t, joined); g >= 0.001 {
		t.Errorf("leg gap %.4f of the height, want the legs together", g)
	}
	for _, name := range []string{"foot_l", "foot_r", "toe_l"} {
		j := slices.Index(c.Skeleton.Names, name)
		before, after := math.Abs(base.Skeleton.Position(j)[0]), math.Abs(c.Skeleton.Position(j)[0])
		if after >= 0.8*before {
			t.Errorf("%s: %.3f from the plane before, %.3f after; want it carried in with its leg", name, before, after)
		}
	}
	if d0, d1 := jointSpread(base), jointSpread(c); d1 > d0*1.05+1e-9 {
		t.Errorf("mean vertex-to-dominant-joint distance grew from %.4f to %.4f", d0, d1)
	}
}
