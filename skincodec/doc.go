// Package skincodec is the skin tokenizer: an FSQ-CVAE that encodes one bone's weight
// field into K discrete skin codes and decodes codes back into weights, with its
// training loop and the stream files (StreamFile) that pair a skeleton with its codes.
// The vocabulary and grammar the codes live in belong to package tokens.
package skincodec
