//go:build unix

// Package cputime reads the CPU time the process has used, for benchmarks that
// report CPU seconds per operation beside wall time on shared machines, where
// wall time says more about the other jobs than about the code.
package cputime

import (
	"syscall"
	"time"
)

// Process is the CPU time (user + system) the process has used, or 0 when the
// system does not say.
func Process() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
