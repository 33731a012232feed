// Package tokens is the token-stream contract: the vocabulary, the grammar and the
// skeleton codec that the skin tokenizer, the model, the sampler, the scoring service
// and the RL trainer share.
//
// A stream is BOS · skeleton · SEP · K skin tokens per joint · EOS. The skeleton is
// written depth-first with coordinate bins and POP tokens; the grammar state machine
// (Grammar, State) gives the allowed next tokens for any prefix, so a sampler that
// respects it always produces a stream that decodes to a valid rig. The skin codes
// themselves come from package skincodec's skin tokenizer.
package tokens
