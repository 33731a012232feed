package copilot

import (
	"fmt"
	"math/rand"
	"sort"
	"time"

	"github.com/rigkit/rigkit/autorig"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/classical"
	"github.com/rigkit/rigkit/sampler"
	"github.com/rigkit/rigkit/skinning"
)

// Rigger is `rig auto --skeleton`: it completes the partial skeleton on each mesh
// and skins the completed skeleton, with the model's skin tokens when it writes
// them (SkinTokens), else with Bind.
type Rigger struct {
	Completer
	// Partial is the user's skeleton in the meshes' world frame (nil: nothing
	// given, only the density asked for).
	Partial *character.Skeleton
	// Idle names the partial's joints its own skin gave no weight (LoadPartial):
	// they get none in the completed rig's skin either.
	Idle    map[string]bool
	Density Density
	// SkinTokens skins with the model's skin tokens, written after the completed
	// skeleton's tokens; Bind skins otherwise, or when they fail. BindName names
	// Bind in the method ("geodesic").
	SkinTokens bool
	Bind       classical.Skinner
	BindName   string
}

// maxCubeReach is how far outside the mesh's normalized cube (|x| <= 1) a given
// joint may lie: beyond it, the partial is taken to be in another frame or unit.
const maxCubeReach = 1.5

// Rig implements autorig.Rigger.
func (r *Rigger) Rig(c *character.Character) (*character.Character, *autorig.RigInfo, error) {
	t0 := time.Now()
	if err := r.checkFrame(c); err != nil {
		return nil, nil, err
	}
	prep, err := r.prepare(c, r.Partial, r.Density.Detail.ModelJoints() > 0)
	if err != nil {
		return nil, nil, err
	}
	comp, err := prep.Complete(r.Density)
	if err != nil {
		return nil, nil, err
	}
	info := &autorig.RigInfo{Completion: comp.Report, TimingsMS: map[string]float64{"complete": ms(time.Since(t0))}}
	t1 := time.Now()
	out := c.Clone()
	out.Skeleton, out.Skin, out.Animations = comp.Skeleton, nil, nil
	if info.Method, err = r.skin(out, prep, info); err != nil {
		return nil, nil, err
	}
	comp.Report.Idle = r.keepIdle(out)
	info.TimingsMS["skin"] = ms(time.Since(t1))
	return out, info, nil
}

// checkFrame refuses a partial whose joints lie far outside the mesh: a partial
// in another unit or frame than the input file.
func (r *Rigger) checkFrame(c *character.Character) error {
	if r.Partial == nil {
		return nil
	}
	norm := character.NormalizationOf(c.Mesh)
	for j, name := range r.Partial.Names {
		p := norm.Point(r.Partial.Position(j))
		for _, v := range p {
			if v > maxCubeReach || v < -maxCubeReach {
				return fmt.Errorf("partial skeleton: joint %q at %v lies far outside the mesh (want positions in the input file's world units and frame)", name, r.Partial.Position(j))
			}
		}
	}
	return nil
}

// skin skins the completed skeleton and returns the method's name.
func (r *Rigger) skin(out *character.Character, prep *Prepared, info *autorig.RigInfo) (string, error) {
	if r.SkinTokens && r.Model != nil && r.Model.WritesSkin() && prep.lat != nil {
		skin, err := r.Model.SkinWith(out, prep.lat, rand.New(rand.NewSource(r.Seed+1)))
		if err == nil {
			out.Skin = skin
			if err = sampler.CheckRig(out); err == nil {
				return "copilot+tokens", nil
			}
		}
		info.Warnings = append(info.Warnings, fmt.Sprintf("skin tokens failed (%v): skinned by %s", err, r.bindName()))
	}
	bind := r.Bind
	if bind == nil {
		bind = sampler.GeodesicSkin
	}
	skin, err := bind(out)
	if err != nil {
		return "", fmt.Errorf("%s skin of the completed skeleton: %w", r.bindName(), err)
	}
	out.Skin = skin
	if err := sampler.CheckRig(out); err != nil {
		return "", fmt.Errorf("completed rig: %w", err)
	}
	return "copilot+" + r.bindName(), nil
}

// keepIdle moves the weight of out's joints named in r.Idle to the others
// (skinning.KeepIdle) and returns their names, sorted.
func (r *Rigger) keepIdle(out *character.Character) []string {
	var names []string
	for _, n := range out.Skeleton.Names {
		if r.Idle[n] {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return nil
	}
	out.Skin = skinning.KeepIdle(out.Skin, out, r.Idle)
	sort.Strings(names)
	return names
}

func (r *Rigger) bindName() string {
	if r.Bind == nil || r.BindName == "" {
		return "geodesic"
	}
	return r.BindName
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
