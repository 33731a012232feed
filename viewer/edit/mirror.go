package edit

import (
	"fmt"
	"strings"

	"github.com/rigkit/rigkit/anatomy"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// pairTolerance is how far (share of the mesh's largest extent) a joint may lie from
// another's mirror image and still count as its partner when the names do not say.
const pairTolerance = 0.05

// sideWords are the side markers swapped anywhere in a name ("mixamorig:LeftArm",
// "arm_l_upper"); sidePrefixes and sideSuffixes are the short ones, swapped
// only at the ends ("L_arm", "arm_l", "arm.L").
var (
	sideWords    = [][2]string{{"Left", "Right"}, {"left", "right"}, {"LEFT", "RIGHT"}, {"_l_", "_r_"}, {"_L_", "_R_"}}
	sidePrefixes = [][2]string{{"L_", "R_"}, {"l_", "r_"}, {"L.", "R."}, {"l.", "r."}}
	sideSuffixes = [][2]string{{"_L", "_R"}, {"_l", "_r"}, {".L", ".R"}, {".l", ".r"}}
)

// Symmetry returns the mesh's mirror plane as anatomy.Fit detects it (with the
// rig's skeleton as the proposal), detected once: the plane rigkit's own rigs are
// made symmetric about.
func (r *Rig) Symmetry() (anatomy.Symmetry, error) {
	if r.sym == nil {
		sym, err := DetectSymmetry(r.Character())
		if err != nil {
			return anatomy.Symmetry{}, err
		}
		r.sym = &sym
	}
	return *r.sym, nil
}

// DetectSymmetry returns the mirror plane of a rigged character's mesh as
// anatomy.Fit detects it. It only reads c, so a viewer can run it off its UI thread
// and hand the result to SetSymmetry.
func DetectSymmetry(c *character.Character) (anatomy.Symmetry, error) {
	_, rep, err := anatomy.Fit(&c.Mesh, c.Skeleton, anatomy.Options{})
	if err != nil {
		return anatomy.Symmetry{}, fmt.Errorf("symmetry plane: %w", err)
	}
	return rep.Symmetry, nil
}

// SetSymmetry gives the rig its mirror plane (from DetectSymmetry), so that the
// first mirror edit does not detect it.
func (r *Rig) SetSymmetry(s anatomy.Symmetry) { r.sym = &s }

// mirrorPoint reflects a world-space point across the plane.
func mirrorPoint(sym anatomy.Symmetry, p vecmath.Vec3) vecmath.Vec3 {
	a := map[string]int{"x": 0, "y": 1, "z": 2}[sym.Axis]
	p[a] = 2*sym.Offset - p[a]
	return p
}

// Pair returns the joint that mirrors joint j: the one whose name swaps j's side
// marker (Left/Right, _l_/_r_, _l/_r, .L/.R, L_/R_), else the joint nearest j's mirror image
// across the symmetry plane, within pairTolerance of the mesh's size.
func (r *Rig) Pair(j int) (int, error) {
	if err := r.checkJoint(j); err != nil {
		return -1, err
	}
	for _, n := range mirroredNames(r.cur.skeleton.Names[j]) {
		if k, err := r.Joint(n); err == nil && k != j {
			return k, nil
		}
	}
	sym, err := r.Symmetry()
	if err != nil {
		return -1, err
	}
	return r.nearestMirror(j, sym)
}

// nearestMirror returns the joint nearest joint j's mirror image.
func (r *Rig) nearestMirror(j int, sym anatomy.Symmetry) (int, error) {
	sk := r.cur.skeleton
	lo, hi := r.base.Mesh.Bounds()
	size := max(hi[0]-lo[0], hi[1]-lo[1], hi[2]-lo[2])
	target := mirrorPoint(sym, sk.Position(j))
	if target.Dist(sk.Position(j)) < pairTolerance*size {
		return -1, fmt.Errorf("joint %s lies on the symmetry plane (%s = %.4g): it has no partner", sk.Names[j], sym.Axis, sym.Offset)
	}
	best, bestD := -1, pairTolerance*size
	for k := range sk.Names {
		if d := sk.Position(k).Dist(target); k != j && d < bestD {
			best, bestD = k, d
		}
	}
	if best < 0 {
		return -1, fmt.Errorf("joint %s has no partner: no joint by a mirrored name, none within %.0f%% of the size of its mirror image", sk.Names[j], 100*pairTolerance)
	}
	return best, nil
}

// Mirror moves joint j's partner (Pair) to j's mirror image across the symmetry
// plane: the edit made on one side, made on the other.
func (r *Rig) Mirror(j int) error {
	k, err := r.Pair(j)
	if err != nil {
		return fmt.Errorf("mirror: %w", err)
	}
	sym, err := r.Symmetry()
	if err != nil {
		return fmt.Errorf("mirror: %w", err)
	}
	sk := r.cur.skeleton
	target := mirrorPoint(sym, sk.Position(j))
	next := r.cur
	next.skeleton = sk.Clone()
	next.skeleton.BindWorld[k] = withTranslation(next.skeleton.BindWorld[k], target)
	next.dirty = r.boneDirty(k)
	r.commit(fmt.Sprintf("mirror %s to %s", sk.Names[j], sk.Names[k]), next)
	return nil
}

// mirroredNames returns the names a partner of a joint called name may have.
func mirroredNames(name string) []string {
	var out []string
	for _, w := range sideWords {
		for _, ab := range [][2]string{w, {w[1], w[0]}} {
			if strings.Contains(name, ab[0]) {
				out = append(out, strings.Replace(name, ab[0], ab[1], 1))
			}
		}
	}
	for _, w := range sidePrefixes {
		for _, ab := range [][2]string{w, {w[1], w[0]}} {
			if rest, ok := strings.CutPrefix(name, ab[0]); ok {
				out = append(out, ab[1]+rest)
			}
		}
	}
	for _, w := range sideSuffixes {
		for _, ab := range [][2]string{w, {w[1], w[0]}} {
			if rest, ok := strings.CutSuffix(name, ab[0]); ok {
				out = append(out, rest+ab[1])
			}
		}
	}
	return out
}
