package autorig

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"time"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/classical"
	"github.com/rigkit/rigkit/rewards"
	"github.com/rigkit/rigkit/rigmodel"
)

// ModelRigger rigs meshes with the TokenRig model: it samples token streams, decodes
// each into a rig (rigmodel.Generator), scores them with the rewards and keeps the
// best. A rig that fails validity or scores below Floor is replaced by a fallback,
// and RigInfo says which method produced the final rig:
//
//   - "tokenrig": skeleton and skin both from the model's tokens;
//   - "tokenrig-skeleton+geodesic": the model's skeleton with geodesic skinning
//     (SkinFromBind, or its skin decode failed); "+heat" with Bind set to HeatSkin;
//   - "classical-skeleton+geodesic" ("+heat"): no usable model rig (see
//     RigInfo.Fallback).
type ModelRigger struct {
	rigmodel.Generator
	// Samples is how many streams are drawn; the first is greedy, the others use
	// Temperature and TopP.
	Samples           int
	Temperature, TopP float64
	// Floor is the combined reward score below which the model's rig is replaced.
	Floor float64
	// CompareClassical also builds the classical rig and keeps whichever of the two
	// scores higher (the report says which, with both scores).
	CompareClassical bool
}

// DefaultFloor is the combined score under which `rig auto` falls back to the
// classical rig. Artists' rigs in ../shared/data score about 0.7-0.8; streams from an
// untrained model score 0.1-0.3 (their sanity reward is 0).
const DefaultFloor = 0.35

// Rig implements Rigger.
func (r *ModelRigger) Rig(c *assets.Character) (*assets.Character, *RigInfo, error) {
	info := &RigInfo{TimingsMS: map[string]float64{}}
	t := time.Now()
	lap := func(stage string) { info.TimingsMS[stage] += ms(time.Since(t)); t = time.Now() }
	nm, norm := rigmodel.NormalizedMesh(&c.Mesh)
	// The region's voxelization runs beside the shape encoding and the scoring
	// preparation (2 cores); "region" times only the wait for it.
	regionCh := make(chan *rigmodel.Region, 1)
	go func() { regionCh <- r.Region(&nm) }()
	rng := rand.New(rand.NewSource(r.Seed))
	lat, err := r.Model.Encode(rigmodel.SamplePoints(&nm, r.Model.Cfg.Points, rng))
	if err != nil {
		<-regionCh
		return nil, nil, err
	}
	lap("encode")
	prep, perr := rewards.Prepare(&c.Mesh, rewards.Options{})
	lap("prepare_score")
	region := <-regionCh
	lap("region")
	skinMode := r.WritesSkin()
	var best *assets.Character
	var bestRep *rewards.Report
	bestScore, bestMethod := math.Inf(-1), ""
	var reasons []string
	// Every sample is drawn in one batch (the first greedy), then each is decoded
	// and scored.
	opts := make([]rigmodel.SampleOptions, max(r.Samples, 1))
	for s := range opts {
		opts[s] = rigmodel.SampleOptions{TopP: r.TopP, MaxJoints: r.Model.Cfg.MaxJoint, SkinTokens: r.Model.Cfg.SkinTokensPerJoint(), StopAtSEP: !skinMode, Region: region}
		if s > 0 {
			opts[s].Temperature = r.Temperature
			if opts[s].Temperature <= 0 {
				opts[s].Temperature = 1
			}
		}
	}
	sess, err := r.Model.NewSession(lat)
	if err != nil {
		return nil, nil, err
	}
	g0 := time.Now()
	streams, err := rigmodel.GenerateN(sess, nil, opts, rng)
	genTime := time.Since(g0)
	if err != nil {
		return nil, nil, err
	}
	lap("generate")
	tokens := 0
	for s, smp := range streams {
		tokens += len(smp.Tokens)
		info.Samples++
		cand, method, err := r.Decode(c, norm, smp.Tokens, lat, rng)
		lap("decode")
		if err == nil {
			err = rigmodel.CheckRig(cand)
		}
		if err != nil {
			reasons = append(reasons, fmt.Sprintf("sample %d: %v", s, err))
			info.SampleScores = append(info.SampleScores, 0)
			continue
		}
		score, rep := scoreWith(prep, perr, cand)
		lap("score")
		if method == "tokenrig" && score < r.Floor {
			// The skin tokens may be worse than the skeleton they belong to: try the
			// same skeleton with the binding's weights and keep the better.
			bind, name := r.BindSkin()
			if alt, err := withSkin(cand, bind); err == nil {
				if s2, rep2 := scoreWith(prep, perr, alt); s2 > score {
					cand, method, score, rep = alt, "tokenrig-skeleton+"+name, s2, rep2
				}
			}
			lap("decode_bind")
		}
		info.SampleScores = append(info.SampleScores, score)
		if score > bestScore {
			best, bestRep, bestScore, bestMethod = cand, rep, score, method
			info.Tokens = len(smp.Tokens)
		}
	}
	if genTime > 0 {
		info.TokensPerSecond = float64(tokens) / genTime.Seconds()
	}
	switch {
	case best == nil:
		info.Fallback = "no sampled stream gave a valid rig: " + strings.Join(reasons, "; ")
	case perr == nil && bestScore < r.Floor:
		info.Fallback = fmt.Sprintf("best sample scored %.3f, under the floor %.3f", bestScore, r.Floor)
	case !r.CompareClassical || perr != nil:
		return r.keep(info, best, bestRep, bestMethod)
	}
	t = time.Now()
	bind, name := r.BindSkin()
	out, cinfo, err := ClassicalRigger{Skin: bind, SkinName: name}.Rig(c)
	if err != nil {
		if info.Fallback == "" { // the model's rig passed the floor: keep it
			return r.keep(info, best, bestRep, bestMethod)
		}
		return nil, nil, fmt.Errorf("%s; classical fallback: %w", info.Fallback, err)
	}
	for k, v := range cinfo.TimingsMS {
		info.TimingsMS["classical_"+k] = v
	}
	cscore, crep := scoreWith(prep, perr, out)
	lap("classical_score")
	info.ClassicalScore = &cscore
	if info.Fallback == "" {
		if bestScore >= cscore {
			return r.keep(info, best, bestRep, bestMethod)
		}
		info.Fallback = fmt.Sprintf("the classical rig scored %.3f, the best sample %.3f", cscore, bestScore)
	}
	info.Method = cinfo.Method
	if crep != nil {
		info.Score, info.Rewards = &crep.Score, crep
	}
	return out, info, nil
}

// keep returns the model's best rig with its report.
func (r *ModelRigger) keep(info *RigInfo, best *assets.Character, rep *rewards.Report, method string) (*assets.Character, *RigInfo, error) {
	info.Method = method
	if rep != nil {
		info.Score, info.Rewards = &rep.Score, rep
	}
	return best, info, nil
}

// scoreWith scores a rig on the prepared mesh (0 when the mesh cannot be scored).
func scoreWith(prep *rewards.Prepared, perr error, c *assets.Character) (float64, *rewards.Report) {
	if perr != nil {
		return 0, nil
	}
	rep, err := prep.Score(c, rewards.Options{})
	if err != nil {
		return 0, nil
	}
	return rep.Score, rep
}

// withSkin returns a copy of a rig with the weights bind gives its skeleton.
func withSkin(c *assets.Character, bind classical.Skinner) (*assets.Character, error) {
	out := *c
	skin, err := bind(&out)
	if err != nil {
		return nil, err
	}
	out.Skin = skin
	if err := rigmodel.CheckRig(&out); err != nil {
		return nil, err
	}
	return &out, nil
}
