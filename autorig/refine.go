package autorig

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/classical"
	"github.com/rigkit/rigkit/skinning"
)

// DefaultTokenShare is the token skin's share of each vertex's weights in
// RefinedSkin's blend with heat weights. On the held-out characters of
// ../shared/data (docs/skinning.md, "Refined token skin") the blend at 0.3, 0.5
// and 0.7 is closer to the artist's skin than heat and geodesic weights over the
// whole mesh and at the joints; 0.3 tears the fewest joint regions of the three.
const DefaultTokenShare = 0.3

// DefaultRefineMaxVertices is the largest mesh RefinedSkin refines by default.
// Heat's solves grow faster than the vertex count: 0.05 s at 5k vertices, 0.4 s at
// 8k with 43 joints, 1.9 s at 53k with 6 and 7.1 s at 89k with 43 (2 cores), where
// the token skin itself takes 2.5 s; above the limit the token skin is written as
// decoded and the report says so.
const DefaultRefineMaxVertices = 40000

// RefinedSkin is a Rigger whose token skins are refined by a dense method: each
// vertex's weights become Share·tokens + (1−Share)·Dense on the final skeleton,
// pruned to character.MaxInfluencesWritten. The token skin knows where artists
// put each bone's influence; the dense weights are smooth across it, so the blend
// keeps the first and tears fewer joint regions than the tokens alone. Rigs
// skinned otherwise (geodesic, heat fallbacks) pass through unchanged.
//
// RigInfo.Method gains "+DenseName@Share", and the score is left to the caller
// (the blend is not the skin the rigger scored).
type RefinedSkin struct {
	Rigger
	Dense     classical.Skinner
	DenseName string
	Share     float64
	// MaxVertices skips the refinement of larger meshes, with a warning (0: no
	// limit).
	MaxVertices int
	// Idle names joints that stay without weight after the blend
	// (skinning.KeepIdle): a rigged partial's idle joints, which the dense
	// method would otherwise weight again (copilot.Rigger.Idle).
	Idle map[string]bool
}

// Rig implements Rigger.
func (r RefinedSkin) Rig(c *character.Character) (*character.Character, *RigInfo, error) {
	out, info, err := r.Rigger.Rig(c)
	if err != nil || info == nil || !tokenSkinned(info.Method) || out.Skin == nil {
		return out, info, err
	}
	r.refine(out, info)
	mirrorSides(out, info)
	return out, info, nil
}

// refine blends the token skin of out with the dense method's weights at Share;
// when it does not (Share 1, a mesh above MaxVertices, a failed dense method),
// the decoded token skin stays and a warning says why where it was asked for.
func (r RefinedSkin) refine(out *character.Character, info *RigInfo) {
	if r.Share >= 1 {
		return
	}
	if n := len(out.Mesh.Positions); r.MaxVertices > 0 && n > r.MaxVertices {
		info.Warnings = append(info.Warnings, fmt.Sprintf("token skin kept as decoded: %d vertices, above the %d refined by %s", n, r.MaxVertices, r.DenseName))
		return
	}
	start := time.Now()
	dense, err := r.Dense(out)
	if err == nil {
		out.Skin, err = skinning.Blend(out.Skin, dense, r.Share, character.MaxInfluencesWritten)
	}
	if err == nil && len(r.Idle) > 0 {
		out.Skin = skinning.KeepIdle(out.Skin, out, r.Idle)
	}
	if err != nil {
		info.Warnings = append(info.Warnings, fmt.Sprintf("token skin kept as decoded: %s refinement failed: %v", r.DenseName, err))
		return
	}
	info.Method += "+" + r.DenseName + "@" + strconv.FormatFloat(r.Share, 'g', -1, 64)
	info.Score, info.Rewards = nil, nil
	if info.TimingsMS == nil {
		info.TimingsMS = map[string]float64{}
	}
	info.TimingsMS["refine"] = float64(time.Since(start).Microseconds()) / 1000
}

// tokenSkinned reports whether a RigInfo.Method names a rig skinned by the
// model's skin tokens ("tokenrig", "classical-skeleton+tokens", "copilot+tokens").
func tokenSkinned(method string) bool {
	return method == "tokenrig" || strings.HasSuffix(method, "+tokens")
}

// mirrorSides hands the weight a token skin gives across the skeleton's mirror
// plane to the mirrored bones (skinning.MirrorSides): where mirrored parts
// touch, the learned weights spill onto the other side's bones. When weight
// moves, RigInfo.Method gains "/sides" and the score is left to the caller.
func mirrorSides(out *character.Character, info *RigInfo) {
	skin, rep := skinning.MirrorSides(out, out.Skin)
	if rep.Moved == 0 {
		return
	}
	out.Skin = skin
	info.Method += "/sides"
	info.Score, info.Rewards = nil, nil
}
