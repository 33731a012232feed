package main

import (
	"flag"
	"fmt"
	"strconv"

	"github.com/rigkit/rigkit/assets/format"
)

// loadingCommands are the commands that read glTF files and so take the loader's
// budget flags (--max-vertices and the others; docs/hardening.md, "Loading").
var loadingCommands = map[string]bool{
	"inspect": true, "convert": true, "score": true, "auto": true, "skin": true,
	"tokenize": true, "detokenize": true, "eval": true, "view": true, "serve": true,
	"train": true, "train-tokenizer": true, "grpo": true,
}

// addBudgetFlags registers one --max-* flag per format.Budget field on fs. Setting a
// flag raises (or lowers) that limit for every load of the process at once
// (format.SetDefaultBudget), so every package that loads files honours it; the
// budget starts from the defaults each time a command's flags are made.
func addBudgetFlags(fs *flag.FlagSet) {
	b := new(format.Budget)
	*b = format.DefaultBudget()
	format.SetDefaultBudget(*b)
	ints := []struct {
		field string
		v     *int
	}{
		{"JSONObjects", &b.JSONObjects}, {"Nodes", &b.Nodes}, {"Instances", &b.Instances},
		{"Primitives", &b.Primitives}, {"Vertices", &b.Vertices}, {"Triangles", &b.Triangles},
		{"AnimationKeys", &b.AnimationKeys}, {"RepairWork", &b.RepairWork},
	}
	for _, f := range ints {
		v := f.v
		name := format.BudgetFlags[f.field][2:]
		fs.Func(name, fmt.Sprintf("loader budget: most %s per file (default %d)", f.field, *v), func(s string) error {
			n, err := strconv.Atoi(s)
			if err != nil || n <= 0 {
				return fmt.Errorf("want a positive integer, got %q", s)
			}
			*v = n
			format.SetDefaultBudget(*b)
			return nil
		})
	}
	mbs := []struct {
		field string
		v     *int64
	}{{"FileBytes", &b.FileBytes}, {"JSONBytes", &b.JSONBytes}}
	for _, f := range mbs {
		v := f.v
		name := format.BudgetFlags[f.field][2:]
		fs.Func(name, fmt.Sprintf("loader budget: most MiB of %s per file (default %d)", f.field, *v>>20), func(s string) error {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil || n <= 0 || n > 1<<40 {
				return fmt.Errorf("want a positive number of MiB, got %q", s)
			}
			*v = n << 20
			format.SetDefaultBudget(*b)
			return nil
		})
	}
}
