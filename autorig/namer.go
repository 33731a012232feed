package autorig

import (
	"sync"

	"github.com/rigkit/rigkit/anatomy"
	"github.com/rigkit/rigkit/character"
)

// RigNamer gives decoded rigs the anatomical names `rig auto` gives its model
// candidates before scoring them: the template fitted on the mesh's classical
// skeleton (fitted once per mesh, kept while the namer lives), then
// anatomy.NameFromTemplate, which renames and re-roots but moves no joint. GRPO
// scores its sampled rigs through it so that rigkit's clips, which play only on
// named skeletons, pose them as they pose `rig auto`'s; the training tokens stay
// the sampled ones.
type RigNamer struct {
	opt  anatomy.Options
	mu   sync.Mutex
	fits map[*character.Character]*namerFit
}

// namerFit is one mesh's template fit, made once however many samples of the
// mesh are named at the same time.
type namerFit struct {
	once sync.Once
	anatomyFit
}

// NewRigNamer returns a namer fitting the templates with opt.
func NewRigNamer(opt anatomy.Options) *RigNamer {
	return &RigNamer{opt: opt, fits: map[*character.Character]*namerFit{}}
}

// Name returns rig, decoded for c's mesh, with the template's names and root and
// its skin renumbered to match; the rig unchanged when c's mesh has no fitted
// template. It fails only where NameFromTemplate does (an invalid skeleton).
func (n *RigNamer) Name(c, rig *character.Character) (*character.Character, error) {
	f := n.fit(c)
	if f.err != nil || f.fitted == nil {
		return rig, nil
	}
	named, err := anatomy.NameFromTemplate(rig.Skeleton, f.fitted, &c.Mesh, anatomy.Options{Up: f.rep.Up, World: f.rep.World})
	if err != nil {
		return nil, err
	}
	out := *rig
	out.Skeleton, out.Skin = named.Skeleton, named.Skin(rig.Skin)
	return &out, nil
}

// fit returns c's template fit, fitting it on first use.
func (n *RigNamer) fit(c *character.Character) *anatomyFit {
	n.mu.Lock()
	f, ok := n.fits[c]
	if !ok {
		f = &namerFit{}
		n.fits[c] = f
	}
	n.mu.Unlock()
	f.once.Do(func() { f.anatomyFit = fitAnatomy(&c.Mesh, nil, n.opt.ForCharacter(c)) })
	return &f.anatomyFit
}
