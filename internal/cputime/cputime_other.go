//go:build !unix

// Package cputime reads the CPU time the process has used, for benchmarks that
// report CPU seconds per operation beside wall time on shared machines, where
// wall time says more about the other jobs than about the code.
package cputime

import "time"

// Process is unknown here: 0, and benchmarks report wall-clock time only.
func Process() time.Duration { return 0 }
