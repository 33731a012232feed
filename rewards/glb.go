package rewards

import (
	"fmt"

	"github.com/rigkit/rigkit/assets"
)

// ScoreGLB decodes a GLB (or self-contained glTF) and scores it. Vertices the loader
// had to repair (orphans bound to their nearest joint, weights renormalized) count as
// bad vertices in the skin reward, so a file cannot hide them behind the repair.
func ScoreGLB(data []byte, name string, opt Options) (*Report, error) {
	var uncached *Cache
	return uncached.ScoreGLB(data, name, opt)
}

// ScoreGLB is ScoreGLB with the mesh prepared through the cache.
func (cache *Cache) ScoreGLB(data []byte, name string, opt Options) (*Report, error) {
	return cache.ScoreGLBWith(data, name, opt, assets.Options{})
}

// ScoreGLBWith is the cache's ScoreGLB decoding with load's options (its budget:
// a file over it fails with the loader's *format.BudgetError before its geometry
// is read).
func (cache *Cache) ScoreGLBWith(data []byte, name string, opt Options, load assets.Options) (*Report, error) {
	load.AllowOrphans = true
	c, lrep, err := assets.DecodeBytes(data, name, nil, load)
	if err != nil {
		return nil, err
	}
	if !c.Rigged() {
		return nil, fmt.Errorf("score %s: not rigged (no skin)", name)
	}
	rep, err := cache.Score(c, opt)
	if err != nil {
		return nil, err
	}
	repaired := lrep.Orphans + lrep.UnnormalizedWeights
	if repaired > 0 && len(c.Mesh.Positions) > 0 && rep.Details.Skin != nil {
		d := rep.Details.Skin
		if d.Reasons == nil {
			d.Reasons = map[string]int{}
		}
		if lrep.Orphans > 0 {
			d.Reasons["no weights in the file (orphan)"] += lrep.Orphans
			rep.Problems = append(rep.Problems, fmt.Sprintf("skin: %d vertices: no weights in the file (orphan)", lrep.Orphans))
		}
		if lrep.UnnormalizedWeights > 0 {
			d.Reasons["weights in the file do not sum to 1"] += lrep.UnnormalizedWeights
			rep.Problems = append(rep.Problems, fmt.Sprintf("skin: %d vertices: weights in the file do not sum to 1", lrep.UnnormalizedWeights))
		}
		d.BadVertices += repaired
		rep.Rewards[SkinReward] *= skinFactor(repaired, len(c.Mesh.Positions))
		rep.Score = Combine(rep.Rewards)
	}
	return rep, nil
}
