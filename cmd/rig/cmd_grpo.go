package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/rigkit/rigkit/anatomy"
	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/autorig"
	"github.com/rigkit/rigkit/rewards"
	"github.com/rigkit/rigkit/rigmodel"
	"github.com/rigkit/rigkit/sampler"
	"github.com/rigkit/rigkit/train"
)

// `rig grpo`: GRPO fine-tuning of a TokenRig checkpoint on meshes, scored by the
// rewards.

func init() {
	register(&command{
		name:    "grpo",
		usage:   "--data DIR... --out CKPT [--model CKPT] [--steps N] [--meshes M] [--group G] [--lr LR] [--temperature T] [--skin tokens|geodesic] [--inside-joints=false] [--kl W] [--reward v4|v3|name=w,...] [--skin-credit] [--resume]",
		summary: "fine-tune the TokenRig model with GRPO on meshes, rewarded by rig scores",
		run:     runGRPO,
	})
}

func runGRPO(args []string, stdout io.Writer) error {
	fs := newFlags("grpo")
	var data trainDataFlag
	fs.Var(&data, "data", "folder, file or manifest of meshes (repeatable; their rigs are ignored)")
	out := fs.String("out", "", "fine-tuned checkpoint (.safetensors); the log and the best checkpoint go beside it")
	model := fs.String("model", "", "checkpoint to start from (default: the shipped model)")
	steps := fs.Int("steps", 100, "total GRPO steps")
	meshes := fs.Int("meshes", 2, "meshes per step")
	group := fs.Int("group", 8, "streams sampled per mesh (the GRPO group)")
	lr := fs.Float64("lr", 1e-5, "AdamW learning rate")
	temp := fs.Float64("temperature", 1, "sampling temperature of the policy")
	std := fs.Bool("scale-std", true, "divide each group's advantages by its standard deviation")
	inside := fs.Bool("inside-joints", true, "sample joint coordinates inside the mesh volume, as rig auto does (the gradient is taken under the same mask)")
	skin := fs.String("skin", "tokens", "tokens: the policy writes whole streams, skins decoded from its own skin tokens (a checkpoint without them: skeletons); geodesic: skeletons only, scored with geodesic skins, the skin tokens left to drift with the weights they share")
	kl := fs.Float64("kl", 0, "weight of the KL penalty that keeps the policy near the starting model (0: none)")
	skinCredit := fs.Bool("skin-credit", false, "with --skin tokens: judge the skin tokens by the rewards that read the weights (coverage, skin, locality, deformation) and the skeleton tokens by the whole score")
	reward := fs.String("reward", "", "the combination of the rewards to optimize: a reward version ("+strings.Join(rewards.RewardVersions(), ", ")+"; weights only, the rewards are this build's), or name=w,... (default: the current combined score)")
	names := fs.Bool("names", true, "name each sampled rig as rig auto names its model candidates before scoring it, so that rigkit's clips pose it (its joints stay, its tokens are the sampled ones)")
	all := fs.Bool("all-files", false, "also use files of the model's held-out families (by default they stay unseen)")
	resume := fs.Bool("resume", false, "continue from --out if it exists")
	seed := fs.Int64("seed", 1, "random seed")
	saveEvery := fs.Int("save-every", 10, "checkpoint every N steps")
	saveMin := fs.Float64("save-minutes", 3, "also checkpoint every N minutes")
	quiet := fs.Bool("quiet", false, "no progress output")
	eng := engineFlag(fs)
	if err := parseTrainingFlags(fs, args, &data, out); err != nil {
		return err
	}
	if _, err := useEngine(*eng, 0, diag); err != nil {
		return err
	}
	if _, err := rewards.WeightsFor(*reward); err != nil {
		return fmt.Errorf("%w: --reward: %v", errUsage, err)
	}
	if *skin != "tokens" && *skin != "geodesic" {
		return fmt.Errorf("%w: --skin %q: want tokens or geodesic", errUsage, *skin)
	}
	from := *model
	var m *rigmodel.Model
	var st *rigmodel.TrainState
	var err error
	if from == "" {
		from = "shipped " + rigmodel.ShippedCheckpoint
		if m, st, err = rigmodel.LoadShipped(); err != nil {
			return fmt.Errorf("grpo: %w (give --model)", err)
		}
	}
	opt := train.GRPOOptions{
		Init: from, Out: *out, Model: m, State: st, Resume: *resume, Seed: *seed,
		Data:     train.GRPOData{Inputs: data, AllFiles: *all, Load: assets.Options{}.Loader()},
		Schedule: train.GRPOSchedule{Steps: *steps, Meshes: *meshes, Group: *group, LR: *lr},
		Policy: train.GRPOPolicy{Temperature: *temp, ScaleByStd: *std, InsideJoints: *inside, KL: *kl,
			Propose: autorig.ClassicalProposal, Reward: strings.TrimSpace(*reward), SkinCredit: *skinCredit},
		Checkpoints: train.GRPOCheckpoints{SaveEvery: *saveEvery, SaveMinutes: *saveMin},
		Report:      train.GRPOReport{Progress: progressOut(*quiet), Log: stdout},
	}
	if *names {
		opt.Policy.Name = autorig.NewRigNamer(anatomy.Options{}).Name
	}
	if *kl > 0 && *model == "" { // the reference is a second copy of the shipped model
		if opt.Policy.Ref, _, err = rigmodel.LoadShipped(); err != nil {
			return fmt.Errorf("grpo: KL reference: %w", err)
		}
	}
	if *skin == "tokens" {
		opt.Policy.SkinFor = func(st *rigmodel.TrainState) sampler.SkinDecoder {
			tok, err := sampler.SkinTokenizerFor(st)
			if err != nil {
				fmt.Fprintf(diag, "rig grpo: %v: skeleton-only policy, geodesic skins\n", err)
				return nil
			}
			return tok
		}
	}
	final, err := train.GRPO(opt)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(final)
}
