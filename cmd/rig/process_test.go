package main

import (
	"os"
	"testing"
)

// asRigEnv, set to 1, makes this test binary run as the rig command itself, so tests
// can start rig subprocesses (shards, memory-bounded hostile inputs) without a
// separate build.
const asRigEnv = "RIGKIT_TEST_RUN_RIG"

func TestMain(m *testing.M) {
	if os.Getenv(asRigEnv) == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}
