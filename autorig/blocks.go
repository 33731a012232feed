package autorig

import (
	"time"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/skinning"
)

// RigidBlocks is a Rigger whose rigs have every rigid block of the mesh (a part
// with at most skinning.MaxBlockCorners distinct positions, such as each box
// of a blocky character) bound wholly to one joint (skinning.BindBlocks). A
// box has no vertex between its corners for blended weights to bend, so they
// only shear it; the artists of such characters bind each box to one bone.
//
// When a block is bound, RigInfo.Method gains "/blocks" and the score is left
// to the caller (the skin is no longer the one the rigger scored).
type RigidBlocks struct {
	Rigger
}

// Rig implements Rigger.
func (r RigidBlocks) Rig(c *character.Character) (*character.Character, *RigInfo, error) {
	out, info, err := r.Rigger.Rig(c)
	if err != nil || info == nil || out == nil || out.Skin == nil {
		return out, info, err
	}
	start := time.Now()
	skin, rep := skinning.BindBlocks(out, out.Skin)
	if rep.Blocks == 0 {
		return out, info, nil
	}
	out.Skin = skin
	info.Method += "/blocks"
	info.Score, info.Rewards = nil, nil
	if info.TimingsMS == nil {
		info.TimingsMS = map[string]float64{}
	}
	info.TimingsMS["blocks"] = ms(time.Since(start))
	return out, info, nil
}
