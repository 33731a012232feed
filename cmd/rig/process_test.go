package main

import (
	"os"
	"testing"
)

// asRigEnv, set to 1, makes this test binary run as the rig command itself, so tests
// can start rig subprocesses (shards, memory-bounded hostile inputs, `rig auto
// --isolate` workers) without a separate build; set to "die", it dies as the
// runtime does on a fatal error (a poison input for --isolate).
const asRigEnv = "RIGKIT_TEST_RUN_RIG"

func TestMain(m *testing.M) {
	switch os.Getenv(asRigEnv) {
	case "1":
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	case "die":
		os.Stderr.WriteString("fatal error: runtime: out of memory\n\ngoroutine 1 [running]:\n")
		os.Exit(2)
	}
	os.Exit(m.Run())
}
