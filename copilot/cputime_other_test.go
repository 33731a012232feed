//go:build !unix

package copilot

import "time"

// processCPUTime is unknown here: benchmarks report wall-clock time only.
func processCPUTime() time.Duration { return 0 }
