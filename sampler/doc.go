// Package sampler draws token streams from the TokenRig model and turns them into
// rigs: grammar- and region-masked sampling, the skeleton vote, skin decoding and
// the validity gate every rig passes. It is the one place that says how the model is
// sampled: rig auto, rig skin, rig eval and GRPO all go through it.
package sampler
