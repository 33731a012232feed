//go:build !unix

package viewer

// processCPU is not measured on this platform.
func processCPU() float64 { return 0 }
