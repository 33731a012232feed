//go:build linux

package engine

import (
	"runtime"
	"syscall"
	"unsafe"
)

// cpuSet is a Linux CPU affinity mask for up to 1024 CPUs.
type cpuSet [16]uint64

// getcpuTrap is the getcpu system call's number (the syscall package names it on
// few architectures); 0 where unknown, which turns spreading off.
var getcpuTrap = map[string]uintptr{
	"amd64": 309, "386": 318, "arm64": 168, "riscv64": 168, "loong64": 168,
	"ppc64le": 302, "ppc64": 302, "s390x": 311,
}[runtime.GOARCH]

// currentCPU returns the CPU the calling thread is running on, or -1 when that
// cannot be told.
func currentCPU() int {
	if getcpuTrap == 0 {
		return -1
	}
	var cpu, node uint32
	if _, _, errno := syscall.RawSyscall(getcpuTrap, uintptr(unsafe.Pointer(&cpu)), uintptr(unsafe.Pointer(&node)), 0); errno != 0 || cpu >= 1024 {
		return -1
	}
	return int(cpu)
}

func getAffinity(s *cpuSet) bool {
	_, _, errno := syscall.RawSyscall(syscall.SYS_SCHED_GETAFFINITY, 0, unsafe.Sizeof(*s), uintptr(unsafe.Pointer(s)))
	return errno == 0
}

func setAffinity(s *cpuSet) bool {
	_, _, errno := syscall.RawSyscall(syscall.SYS_SCHED_SETAFFINITY, 0, unsafe.Sizeof(*s), uintptr(unsafe.Pointer(s)))
	return errno == 0
}

// avoidCPU keeps the calling goroutine, locked to its thread, off the given CPU
// until the returned function is called, which restores the thread's CPU set and
// unlocks it. It does nothing when cpu is negative or the thread may run on no
// other CPU.
//
// Why: a goroutine that starts a parallel GEMM wakes a sleeping thread for each
// helper, and when every CPU is busy (other processes, a background job) Linux
// often wakes it on the caller's own CPU, where the two then share one core for
// the whole product (measured here: 6 of 10 1024³ products ran both halves on one
// CPU, at half speed); the load balancer does not move them within the tens of
// milliseconds a product lasts. Threads that Go creates while this one is locked
// come from its template thread, so the narrowed set is not inherited.
func avoidCPU(cpu int) (restore func()) {
	if cpu < 0 {
		return func() {}
	}
	runtime.LockOSThread()
	var saved cpuSet
	if !getAffinity(&saved) {
		runtime.UnlockOSThread()
		return func() {}
	}
	narrowed := saved
	narrowed[cpu/64] &^= 1 << (cpu % 64)
	if narrowed == saved || narrowed == (cpuSet{}) || !setAffinity(&narrowed) {
		runtime.UnlockOSThread()
		return func() {}
	}
	return func() {
		setAffinity(&saved)
		runtime.UnlockOSThread()
	}
}
