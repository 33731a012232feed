package edit

import (
	"errors"
	"fmt"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/skinning"
)

// Skinner computes weights for a character's mesh and skeleton (its own skin
// ignored), as `rig skin`'s methods do.
type Skinner func(c *character.Character) (*character.Skin, error)

// Geodesic is the fast skinner (skinning.Geodesic with its defaults), the one the
// viewer runs synchronously.
func Geodesic(c *character.Character) (*character.Skin, error) {
	return skinning.Geodesic(c, skinning.GeodesicOptions{})
}

// Scope says which vertices a re-skin may change.
type Scope int

const (
	// ScopeEdited changes the vertices that the edited bones reach: those with
	// weight on an edited joint before or after the re-skin. Elsewhere the weights
	// (an artist's, say) stay as they are.
	ScopeEdited Scope = iota
	// ScopeAll changes every vertex.
	ScopeAll
)

// ParseScope reads "edited" or "all" ("" is edited).
func ParseScope(s string) (Scope, error) {
	switch s {
	case "", "edited":
		return ScopeEdited, nil
	case "all":
		return ScopeAll, nil
	}
	return 0, fmt.Errorf("re-skin scope %q: want edited or all", s)
}

// ErrStale means the rig changed while a background re-skin ran.
var ErrStale = errors.New("the rig changed while re-skinning; re-skin again")

// Job is a re-skin of a snapshot of the rig, safe to run off the UI thread: Start
// takes the snapshot, Run computes, Rig.Finish applies.
type Job struct {
	char  *character.Character
	gen   uint64
	scope Scope
	skin  *character.Skin
}

// Start snapshots the rig for a re-skin of the given scope.
func (r *Rig) Start(scope Scope) (*Job, error) {
	if scope == ScopeEdited && !anyTrue(r.cur.dirty) {
		return nil, errors.New("re-skin: no bone was edited since the last re-skin (re-skin all to redo every weight)")
	}
	return &Job{char: r.Character(), gen: r.gen, scope: scope}, nil
}

// Run computes the job's weights with skin, each rigid block of the mesh then
// bound to one joint as `rig skin` binds them (skinning.BindBlocks). It
// touches only the snapshot.
func (j *Job) Run(skin Skinner) error {
	k, err := skin(j.char)
	if err != nil {
		return fmt.Errorf("re-skin %s: %w", j.char.Name, err)
	}
	k, _ = skinning.BindBlocks(j.char, k)
	if err := k.Validate(len(j.char.Mesh.Positions), j.char.Skeleton.NumJoints(), 1e-3); err != nil {
		return fmt.Errorf("re-skin %s: invalid weights: %w", j.char.Name, err)
	}
	j.skin = k
	return nil
}

// Finish applies a job that ran: only the weights change, within the job's scope,
// and locked joints keep theirs. It refuses a job whose rig has changed since Start.
func (r *Rig) Finish(j *Job) error {
	if j.skin == nil {
		return errors.New("re-skin: the job has not run")
	}
	if j.gen != r.gen {
		return ErrStale
	}
	var inScope []bool
	if j.scope == ScopeEdited {
		inScope = reached(r.cur.skin, j.skin, r.cur.dirty)
	}
	next := r.cur
	next.skin = mergeSkins(r.cur.skin, j.skin, inScope, r.cur.locked)
	next.dirty = make([]bool, len(r.cur.dirty))
	label := "re-skin edited bones"
	if j.scope == ScopeAll {
		label = "re-skin all"
	}
	r.commit(label, next)
	return nil
}

// Reskin re-skins synchronously: Start, Run and Finish.
func (r *Rig) Reskin(skin Skinner, scope Scope) error {
	j, err := r.Start(scope)
	if err != nil {
		return err
	}
	if err := j.Run(skin); err != nil {
		return err
	}
	return r.Finish(j)
}

// reached marks the vertices that an edited joint weighs on in old or fresh.
func reached(old, fresh *character.Skin, dirty []bool) []bool {
	out := make([]bool, len(fresh.Weights))
	for _, k := range []*character.Skin{old, fresh} {
		if k == nil {
			continue
		}
		for v, infl := range k.Weights {
			for _, in := range infl {
				if in.Joint >= 0 && in.Joint < len(dirty) && dirty[in.Joint] && in.Weight > 0 {
					out[v] = true
				}
			}
		}
	}
	return out
}

// mergeSkins returns fresh's weights on the vertices in scope (nil: all), old's
// elsewhere, with every locked joint's old weight kept and the rest of each vertex's
// weight shared among the unlocked joints in fresh's proportions.
func mergeSkins(old, fresh *character.Skin, inScope, locked []bool) *character.Skin {
	out := &character.Skin{Weights: make([][]character.Influence, len(fresh.Weights))}
	anyLocked := anyTrue(locked)
	for v := range fresh.Weights {
		switch {
		case old == nil || v >= len(old.Weights):
			out.Weights[v] = fresh.Weights[v]
		case inScope != nil && !inScope[v]:
			out.Weights[v] = old.Weights[v]
		case !anyLocked:
			out.Weights[v] = fresh.Weights[v]
		default:
			out.Weights[v] = lockedMerge(old.Weights[v], fresh.Weights[v], locked)
		}
	}
	return out
}

// lockedMerge merges one vertex's weights: the locked joints' old weights stay and
// the unlocked joints of fresh share the remainder, up to the written influence
// count. With nothing to share (all weight locked, or fresh only on locked joints)
// the old weights stay.
func lockedMerge(old, fresh []character.Influence, locked []bool) []character.Influence {
	isLocked := func(j int) bool { return j >= 0 && j < len(locked) && locked[j] }
	var out []character.Influence
	held := 0.0
	for _, in := range old {
		if isLocked(in.Joint) {
			out = append(out, in)
			held += in.Weight
		}
	}
	var free []character.Influence
	for _, in := range fresh {
		if !isLocked(in.Joint) && len(out)+len(free) < max(character.MaxInfluencesWritten, len(out)+1) {
			free = append(free, in)
		}
	}
	share := 0.0
	for _, in := range free {
		share += in.Weight
	}
	if held >= 1-1e-9 || share <= 0 {
		return old
	}
	for _, in := range free {
		out = append(out, character.Influence{Joint: in.Joint, Weight: in.Weight * (1 - held) / share})
	}
	sortHeaviest(out)
	return out
}

func anyTrue(b []bool) bool {
	for _, x := range b {
		if x {
			return true
		}
	}
	return false
}
