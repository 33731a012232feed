package anatomy

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/geom"
	"github.com/rigkit/rigkit/vecmath"
)

// Options says what the caller knows. Zero values ask Fit to detect.
type Options struct {
	Kind Kind   // "" or Auto: detect
	Up   string // "y", "z", or "" / "auto": detect, in the world of World
	// World takes the mesh's coordinates to its file's world (ForCharacter fills
	// it); the zero matrix for none. Up and front are the world's.
	World vecmath.Mat4
}

// ForCharacter returns o with World taken from the file c was read from, unless
// o sets it, so that a mesh stored Z-up under a rotated armature parent is seen
// the way the file shows it.
func (o Options) ForCharacter(c *character.Character) Options {
	if o.World == (vecmath.Mat4{}) {
		o.World, _ = character.WorldTransform(c)
	}
	return o
}

// Report says what Fit detected or was told, and how sure it is.
type Report struct {
	Kind       Kind     `json:"kind"`
	Confidence float64  `json:"confidence"` // 1 when told
	KindGiven  bool     `json:"kind_given,omitempty"`
	Up         string   `json:"up"`
	UpGiven    bool     `json:"up_given,omitempty"`
	Symmetry   Symmetry `json:"symmetry"`
	Warnings   []string `json:"warnings,omitempty"`
	// Status is "ok", or "suspect" when the rig fails Fit's own checks; Suspect
	// says why.
	Status  string   `json:"status"`
	Suspect []string `json:"suspect,omitempty"`
	// World is Options.World of the fit: Up is the up axis of that world.
	World vecmath.Mat4 `json:"-"`
}

// Fit returns the anatomical skeleton of a mesh, in the mesh's world frame, from a
// proposed skeleton whose joints lie inside the mesh and whose branches follow its
// parts (the classical Reeb-graph skeleton). When the kind's template does not fit
// (a "humanoid" with one arm), the result is the generic skeleton of kind Other
// and the report says so.
func Fit(m *character.Mesh, proposal *character.Skeleton, opt Options) (*character.Skeleton, *Report, error) {
	if err := m.Validate(); err != nil {
		return nil, nil, fmt.Errorf("anatomy: %w", err)
	}
	if proposal.NumJoints() == 0 {
		return nil, nil, errors.New("anatomy: the proposed skeleton has no joints")
	}
	kind, err := ParseKind(string(opt.Kind))
	if err != nil {
		return nil, nil, fmt.Errorf("anatomy: %w", err)
	}
	rep := &Report{World: opt.World}
	wn := geom.NewWindingNumber(m)
	var views map[string]upView
	rep.Up, rep.UpGiven, views, err = chooseUp(m, wn, proposal, opt)
	if err != nil {
		return nil, nil, fmt.Errorf("anatomy: %w", err)
	}
	if rep.Up == "z" && !rep.UpGiven {
		rep.Warnings = append(rep.Warnings, "the character looks Z-up in its file's world (glTF is Y-up); pass --up z to confirm or --up y to override")
	}
	view, measured := views[rep.Up]
	if !measured {
		view = upView{s: newShape(m, wn, axesFrame(rep.Up, rep.World)), planeErr: -1}
	}
	own := newTree(proposal, upFrame("y")) // in the mesh's own coordinates
	f, c, sym := findSymmetry(m, wn.BVH(), view, own.points(own.leaves()))
	s := view.s
	if f != s.f || c != s.mid {
		s = newShape(m, wn, f)
	}
	s.mid, s.symmetric, s.nearlySymmetric, rep.Symmetry = c, sym.Symmetric, sym.Trimmed < symmetricError, sym
	t := newTree(proposal, s.f)
	var detected kindDetection
	if kind == Auto {
		detected = kindScores(s, t, s.standingDepth())
		rep.Kind, rep.Confidence = detected.best, detected.conf
	} else {
		rep.Kind, rep.Confidence, rep.KindGiven = kind, 1, true
	}
	b, err := fitKind(s, t, rep.Kind)
	if err != nil && !rep.KindGiven {
		b, err = fitRunnerUp(s, t, detected, err, rep)
	}
	byProportion := false
	if err != nil && rep.KindGiven && rep.Kind == Humanoid {
		// Told it is a humanoid: the template stays, placed by proportions.
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("humanoid limbs not found (%v): joints placed by proportions", err))
		b, byProportion = buildHumanoid(s, t, proportionalLimbs(s)), true
	} else if err != nil {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s template does not fit (%v): generic skeleton", rep.Kind, err))
		rep.Kind, rep.Confidence = Other, 0
		if b, err = fitChain(s, t, Other); err != nil {
			return nil, nil, fmt.Errorf("anatomy: %w", err)
		}
	}
	if sym.Symmetric {
		b.symmetrize(s)
	} else {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("the mesh is not mirror-symmetric (error %.3f of its height): left and right are fitted apart", sym.Error))
	}
	rep.Status, rep.Suspect = "ok", suspicions(s, t, b, rep.Kind, byProportion)
	if len(rep.Suspect) > 0 {
		rep.Status = "suspect"
	}
	if !rep.KindGiven {
		rep.Confidence = calibrated(rep.Kind, rep.Confidence, len(rep.Suspect) > 0)
	}
	sk, err := b.skeleton(s.f)
	if err != nil {
		return nil, nil, err
	}
	return sk, rep, nil
}

// fitRunnerUp fits the second kind of a detection whose best kind's template did
// not fit (failed), when that kind has a template (humanoid or quadruped) and
// scored above Other: a fused human whose legs read as four feet is a humanoid
// whose quadruped fit fails, not a generic chain. The report then names the
// second kind, at its share of the two scores, with a warning; failed is returned
// when there is no such kind or it does not fit either.
func fitRunnerUp(s *shape, t *tree, d kindDetection, failed error, rep *Report) (*build, error) {
	if (d.second != Humanoid && d.second != Quadruped) || d.runner <= otherScore {
		return nil, failed
	}
	b, err := fitKind(s, t, d.second)
	if err != nil {
		return nil, failed
	}
	rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s template does not fit (%v): fitted as %s, the next best kind", d.best, failed, d.second))
	rep.Kind, rep.Confidence = d.second, d.runner/(d.score+d.runner)
	return b, nil
}

// calibrated caps a detection's confidence (the winner's share of the two best
// scores): kind Other is what is left when nothing fits; a bird, a fish or a
// snake is read from proportions and end points alone, with no limbs traced
// (props and other creatures pass for them: 3 of 15 held-out detections at 0.8 or
// more were such); and a rig that fails its own checks was not detected surely.
func calibrated(k Kind, share float64, suspect bool) float64 {
	switch k {
	case Other:
		share = math.Min(share, otherConfidence)
	case Bird, Fish, Snake:
		share = math.Min(share, proportionsConfidence)
	}
	if suspect {
		share = math.Min(share, suspectConfidence)
	}
	return share
}

// proportionsConfidence caps the confidence of the kinds detected from
// proportions alone (calibrated).
const proportionsConfidence = 0.75

// fitKind fits a kind's template.
func fitKind(s *shape, t *tree, k Kind) (*build, error) {
	switch k {
	case Humanoid:
		return fitHumanoid(s, t)
	case Quadruped:
		return fitQuadruped(s, t)
	default:
		return fitChain(s, t, k)
	}
}

// chooseUp returns the up axis: the one given, or Z when under Z a pair of the
// proposed skeleton's end points stands on the ground on either side of the middle
// (feet; or the solid at the ground parts in two there, feetApart, and the body
// reads as a humanoid under Z) and the body reads as a creature of some kind
// better under Z than under Y (a Z-up biped's toes stand on the ground under Y
// too, lying on its front), unless
// it reads as a humanoid under Y: a standing biped is Y-up whatever it resembles
// lying down (a wide mech reads as a quadruped on its back). Y otherwise: glTF is
// Y-up, and legless bodies give no evidence (a fish's tail lobes stand on its rear
// under Z, but not apart). When
// it detects, it returns the views it measured, by up axis, for Fit to go on from.
func chooseUp(m *character.Mesh, wn *geom.WindingNumber, proposal *character.Skeleton, opt Options) (string, bool, map[string]upView, error) {
	switch opt.Up {
	case "y", "z":
		return opt.Up, true, nil, nil
	case "", "auto":
	default:
		return "", false, nil, fmt.Errorf("up %q: want y, z or auto", opt.Up)
	}
	views := map[string]upView{}
	trees := map[string]*tree{}
	for _, u := range []string{"y", "z"} {
		v := upView{s: newShape(m, wn, axesFrame(u, opt.World)), planeErr: -1}
		if u == "y" {
			v.s.mid, v.planeErr = bestPlane(m, wn.BVH(), v.s.f, v.s.lo, v.s.hi)
		}
		views[u], trees[u] = v, newTree(proposal, v.s.f)
	}
	// Under Z the feet are looked for about the bounding box's middle; the plane
	// is searched and the kinds are scored (the costly parts) only when they
	// stand apart there: the skeleton's end points, or the solid at the ground
	// when the voxels join the legs, which counts for a humanoid only.
	pair := standsOnPair(views["z"].s, trees["z"])
	if !pair && !feetApart(views["z"].s) {
		delete(views, "z")
		return "y", false, views, nil
	}
	z := views["z"]
	z.s.mid, z.planeErr = bestPlane(m, wn.BVH(), z.s.f, z.s.lo, z.s.hi)
	views["z"] = z
	zs, ys := views["z"].s, views["y"].s
	underZ, underY := kindScores(zs, trees["z"], zs.hi[2]-zs.lo[2]), kindScores(ys, trees["y"], ys.hi[2]-ys.lo[2])
	if underZ.best != Other && underZ.score > underY.score && underY.best != Humanoid && (pair || underZ.best == Humanoid) {
		return "z", false, views, nil
	}
	return "y", false, views, nil
}

// upView is the mesh seen with one up axis: its shape, with mid at the best plane
// across canonical X (bestPlane) when planeErr, that plane's trimmed mirror error,
// is not negative.
type upView struct {
	s        *shape
	planeErr float64
}

// standsOnPair reports whether end points within 10% of the height of the bottom
// lie on both sides of the bounding box's middle, apart by 5% of the width.
func standsOnPair(s *shape, t *tree) bool {
	gap := 0.05 * (s.hi[0] - s.lo[0])
	left, right := false, false
	for _, l := range groundLeaves(s, t, 0.1) {
		x := t.pos[l][0] - s.mid
		left = left || x > gap
		right = right || x < -gap
	}
	return left && right
}

// feetApart reports whether the solid just above the ground (at 2.5% of the
// height, across the depth of the vertices within 5% of it) is two runs along
// the width with the gap between them within a quarter of the width of the
// bounding box's middle: two feet on the ground whose legs the skeleton's
// voxels join (an astronaut's boots, legs that touch above the ankles). A body
// lying on its back touches the ground with one run (its back) or more than two
// (arms and trunk).
func feetApart(s *shape) bool {
	depth := [2]float64{math.Inf(1), math.Inf(-1)}
	for _, p := range s.pts {
		if p[1] < s.lo[1]+0.05*s.height() {
			depth = [2]float64{math.Min(depth[0], p[2]), math.Max(depth[1], p[2])}
		}
	}
	if !(depth[1] >= depth[0]) {
		return false
	}
	const samples, depths = 64, 5
	width := s.hi[0] - s.lo[0]
	y := s.lo[1] + 0.025*s.height()
	var runs []int // the first sample of each run of solid samples
	prev := false
	for i := range samples {
		x := s.lo[0] + (float64(i)+0.5)/samples*width
		solid := false
		for k := 0; k < depths && !solid; k++ {
			solid = s.inside(vecmath.Vec3{x, y, depth[0] + (float64(k)+0.5)/depths*(depth[1]-depth[0])})
		}
		if solid && !prev {
			runs = append(runs, i)
		}
		prev = solid
	}
	if len(runs) != 2 {
		return false
	}
	gap := s.lo[0] + float64(runs[1])/samples*width
	return math.Abs(gap-s.mid) <= 0.25*width
}

// groundLeaves returns the end points within share of the height of the bottom.
func groundLeaves(s *shape, t *tree, share float64) []int {
	var out []int
	for _, l := range t.leaves() {
		if t.pos[l][1] < s.lo[1]+share*s.height() {
			out = append(out, l)
		}
	}
	return out
}

// kindDetection is what kindScores finds: the two best kinds but Other (second
// is Other when no second kind scores), their scores, and the best's share of
// the two.
type kindDetection struct {
	best, second  Kind
	score, runner float64
	conf          float64
}

// kindScores scores every kind from the proposed skeleton's end points and the
// mesh's proportions; a humanoid is taller than depth (the front-to-back extent:
// the bounds' when choosing the up axis, which its rule was tuned with, the
// standing depth when detecting the kind under the chosen one).
func kindScores(s *shape, t *tree, depth float64) kindDetection {
	H := s.height()
	ext := s.hi.Sub(s.lo)
	L, W := ext[2], ext[0]
	ground := len(groundLeaves(s, t, 0.2))
	leaves := len(t.leaves())
	a, _ := t.farthest(0)
	_, arc := t.farthest(a)
	clamp := func(x float64) float64 { return math.Max(0, math.Min(1, x)) }
	score := map[Kind]float64{Other: otherScore}
	pressed := false
	if l, err := findHumanoidLimbs(s, t); err == nil && (ground >= 2 || l.fromShape[0]) {
		pressed = l.pressed || l.covered
		// End points on the ground beyond two feet count against a biped, unless
		// the slices show both legs and both arms: then the extra ones are held
		// (a rifle, a staff) or trail (a coat's tails).
		feet := clamp(float64(5-ground) / 2)
		if l.fromShape[0] && l.fromShape[1] {
			feet = 1
		}
		score[Humanoid] = clamp((H/depth-1)/1.5) * feet
	}
	fourFeet := ground >= 4 || quadFeetInSlices(s)
	if fourFeet {
		score[Quadruped] = clamp(L/H) * 0.9 * clamp(s.clearance()/(0.1*H))
	}
	if ground >= 2 && ground <= 3 {
		wings := clamp((W/math.Max(H, L) - 0.8) / 0.8)
		score[Bird] = wings * clamp(1.5-H/L)
	}
	if ground <= 1 && !fourFeet { // legs pressed together end in one point, but stand
		thin := arc / math.Max(math.Min(H, W), 1e-9)
		score[Snake] = clamp((thin-8)/8) * clamp(float64(5-leaves)/2)
		score[Fish] = clamp((L/math.Max(H, W)-1)/1) * (1 - score[Snake])
	}
	d := kindDetection{best: Other, second: Other}
	for _, k := range Kinds[1:] {
		if score[k] > score[d.best] {
			d.best = k
		}
	}
	for _, k := range Kinds[1:] {
		if k != d.best && score[k] > d.runner {
			d.second, d.runner = k, score[k]
		}
	}
	d.score = score[d.best]
	d.conf = d.score / (d.score + d.runner)
	if d.best == Humanoid && pressed {
		d.conf = math.Min(d.conf, pressedConfidence)
	}
	return d
}

// otherScore is the score of kind Other: what a kind must beat to be detected.
const otherScore = 0.25

// pressedConfidence caps the confidence of a humanoid whose arms are not seen
// apart from the body but placed along its sides (outlineArm), or whose legs show
// only below a garment (hipsUnderGarment).
const pressedConfidence = 0.75

// quadFeetInSlices reports whether the body's slices show four feet, front and
// hind pairs apart (findQuadFeet): legs pressed together or fused, which the
// proposed skeleton's end points do not resolve.
func quadFeetInSlices(s *shape) bool {
	_, err := s.profile().findQuadFeet(s)
	return err == nil
}

// standingDepth is the body's front-to-back extent above the lowest quarter of
// its height: a biped's depth without what lies on the ground behind or before
// its feet (a tail, a cape's hem, a base), which the whole bounds would count,
// nor the surface's last depthTrim at either end (by area: an antenna, a cable
// or a rod reaching far behind a figure, whose bounds it would double). A long
// body (a quadruped, a bipedal dinosaur) stays long above its legs. It is
// measured once per shape (kind detection and the standing-figure check both
// read it).
func (s *shape) standingDepth() float64 {
	if s.depth == 0 {
		s.depth = s.measureStandingDepth()
	}
	return s.depth
}

// measureStandingDepth is standingDepth's measurement.
func (s *shape) measureStandingDepth() float64 {
	y0 := s.lo[1] + standingBand*s.height()
	area := vertexAreas(s.pts, s.tris)
	var at []depthAt
	for i, p := range s.pts {
		if p[1] >= y0 && area[i] > 0 {
			at = append(at, depthAt{p[2], area[i]})
		}
	}
	if len(at) == 0 {
		return s.hi[2] - s.lo[2]
	}
	return trimmedExtent(at, depthTrim)
}

// depthAt is a vertex's depth and its share of the surface.
type depthAt struct{ z, area float64 }

// vertexAreas gives each vertex a third of the area of every triangle it is a
// corner of.
func vertexAreas(pts []vecmath.Vec3, tris [][3]int) []float64 {
	area := make([]float64, len(pts))
	for _, t := range tris {
		a := pts[t[1]].Sub(pts[t[0]]).Cross(pts[t[2]].Sub(pts[t[0]])).Len() / 6
		for _, v := range t {
			area[v] += a
		}
	}
	return area
}

// trimmedExtent is the extent of the depths at (sorted in place) less the
// vertices holding the share trim of the total area at either end.
func trimmedExtent(at []depthAt, trim float64) float64 {
	sort.Slice(at, func(i, j int) bool { return at[i].z < at[j].z })
	total := 0.0
	for _, d := range at {
		total += d.area
	}
	lo, hi := 0, len(at)-1
	for sum := at[lo].area; lo < hi && sum <= trim*total; sum += at[lo].area {
		lo++
	}
	for sum := at[hi].area; hi > lo && sum <= trim*total; sum += at[hi].area {
		hi--
	}
	return at[hi].z - at[lo].z
}

// depthTrim is the share of the surface (by area) standingDepth leaves out at
// either end front to back.
const depthTrim = 0.01

// standingBand is the share of the height below which standingDepth ignores the
// body.
const standingBand = 0.25

// clearance is how far above the bottom the body starts under its centre of mass:
// a standing quadruped's belly is clear of the ground, a lying body's is not.
func (s *shape) clearance() float64 {
	var com vecmath.Vec3
	for _, p := range s.pts {
		com = com.Add(p)
	}
	com = com.Scale(1 / float64(len(s.pts)))
	lo, _, ok := s.run(vecmath.Vec3{s.mid, com[1], com[2]}, 1)
	if !ok {
		return 0
	}
	return lo - s.lo[1]
}
