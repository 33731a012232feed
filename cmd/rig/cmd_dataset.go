package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"text/tabwriter"

	"github.com/rigkit/rigkit/dataset"
)

func init() {
	register(&command{
		name:    "dataset",
		usage:   "DIR... [--list held-out|train] [--json]",
		summary: "the training/held-out split of rigged characters, by family and category",
		run:     runDataset,
	})
}

// splitCount is one row of `rig dataset`: the files of a category on each side.
type splitCount struct {
	Category string `json:"category"`
	Train    int    `json:"train"`
	HeldOut  int    `json:"held_out"`
	Families int    `json:"held_out_families"`
}

func runDataset(args []string, stdout io.Writer) error {
	fs := newFlags("dataset")
	list := fs.String("list", "", "print the paths of one side instead of the table: held-out or train")
	asJSON := fs.Bool("json", false, "print the table as JSON")
	roots, err := parseInterleaved(fs, args)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if len(roots) == 0 {
		return fmt.Errorf("%w: no folder given", errUsage)
	}
	files, err := dataset.Discover(roots)
	if err != nil {
		return err
	}
	train, held := dataset.Split(files)
	switch *list {
	case "":
	case "held-out", "train":
		side := train
		if *list == "held-out" {
			side = held
		}
		for _, f := range side {
			fmt.Fprintln(stdout, f.Path)
		}
		return nil
	default:
		return fmt.Errorf("%w: --list %q: want held-out or train", errUsage, *list)
	}
	rows := countSplit(train, held)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "category\ttrain\theld out\theld-out families\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t\n", r.Category, r.Train, r.HeldOut, r.Families)
	}
	return tw.Flush()
}

// countSplit tallies both sides by category, with a total row last.
func countSplit(train, held []dataset.File) []splitCount {
	by := map[string]*splitCount{}
	fams := map[string]map[string]bool{}
	get := func(c string) *splitCount {
		if c == "" {
			c = "(none)"
		}
		if by[c] == nil {
			by[c] = &splitCount{Category: c}
			fams[c] = map[string]bool{}
		}
		return by[c]
	}
	for _, f := range train {
		get(f.Category).Train++
	}
	total := splitCount{Category: "total"}
	allFams := map[string]bool{}
	for _, f := range held {
		r := get(f.Category)
		r.HeldOut++
		fams[r.Category][f.Family] = true
		allFams[f.Family] = true
	}
	var rows []splitCount
	for c, r := range by {
		r.Families = len(fams[c])
		total.Train += r.Train
		total.HeldOut += r.HeldOut
		rows = append(rows, *r)
	}
	sort.Slice(rows, func(a, b int) bool { return rows[a].Category < rows[b].Category })
	total.Families = len(allFams)
	return append(rows, total)
}
