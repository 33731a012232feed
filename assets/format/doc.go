// Package format holds what every mesh-file reader of rigkit shares: which file
// extensions are read and which are refused with a conversion command, the budget of
// resources a file may make a reader spend, the rule that only regular files inside
// the input's folder are opened, and the report of what a reader repaired.
package format
