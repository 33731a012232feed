//go:build !linux

package engine

// currentCPU cannot tell the CPU outside Linux.
func currentCPU() int { return -1 }

// avoidCPU does nothing outside Linux.
func avoidCPU(cpu int) (restore func()) { return func() {} }
