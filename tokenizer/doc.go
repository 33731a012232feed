// Package tokenizer turns a rig into tokens and back: the token-stream contract
// (vocabulary, layout and grammar, in stream.go), the skeleton tokenizer, and the
// SkinTokens skin tokenizer (an FSQ-CVAE that compresses one bone's weight field into
// a few discrete codes).
//
// A stream is BOS · skeleton · SEP · K skin tokens per joint · EOS. The skeleton is
// written depth-first with coordinate bins and POP tokens; the grammar state machine
// (Grammar, State) gives the allowed next tokens for any prefix, so a sampler that
// respects it always produces a stream that decodes to a valid rig.
package tokenizer
