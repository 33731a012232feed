//go:build linux

package engine

import (
	"runtime"
	"testing"
)

// TestAvoidCPU checks that avoidCPU moves the thread off the CPU and that its
// restore function gives the thread back its CPU set.
func TestAvoidCPU(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var before cpuSet
	if !getAffinity(&before) {
		t.Skip("sched_getaffinity unavailable")
	}
	cpu := currentCPU()
	if cpu < 0 {
		t.Skip("getcpu unavailable")
	}
	others := before
	others[cpu/64] &^= 1 << (cpu % 64)
	restore := avoidCPU(cpu)
	var during cpuSet
	getAffinity(&during)
	if others == (cpuSet{}) {
		if during != before {
			t.Fatal("avoidCPU narrowed the set of a thread allowed on one CPU only")
		}
	} else {
		if during != others {
			t.Fatalf("CPU set while avoiding CPU %d: %x, want %x", cpu, during[0], others[0])
		}
		if now := currentCPU(); now == cpu {
			t.Fatalf("still running on CPU %d", cpu)
		}
	}
	restore()
	var after cpuSet
	getAffinity(&after)
	if after != before {
		t.Fatalf("CPU set after restore %x, want %x", after[0], before[0])
	}
	avoidCPU(-1)() // a no-op
}
