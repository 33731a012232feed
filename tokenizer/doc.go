// Package tokenizer is the skin tokenizer: an FSQ-CVAE that compresses one bone's
// weight field into K discrete codes and decodes codes back into weights, its
// training loop, and the token-stream files (StreamFile) that pair a skeleton with
// skin codes. The vocabulary and grammar the codes live in are package tokens.
package tokenizer
