// Package eval measures rigkit's methods against ground-truth rigs: skeletons, whole
// rigs, skin weights, the rewards' ranking of candidate skins, the skin tokenizer's
// round trip and the anatomical skeletons, each over a split of a folder of rigged
// files, with Markdown and JSON reports. Commands choose the files, the methods and
// where the reports go; the metrics themselves are package metrics.
package eval
