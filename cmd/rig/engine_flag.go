package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/rigkit/rigkit/internal/engine"
)

// Every command that runs a network (train, train-tokenizer, grpo, auto, skin)
// takes --engine: where its matrix products run.
//
//	cpu   OpenBLAS (or gonum under -tags purego) across the process's cores; the default
//	cuda  cuBLAS on the first CUDA device (a binary built with -tags cuda); an error
//	      when there is none, so a GPU run never slows to the cpu unnoticed
//	auto  cuda when usable, else cpu, saying which on stderr
//
// RIGKIT_ENGINE sets the default.

// engineFlag registers --engine on fs and returns its value.
func engineFlag(fs *flag.FlagSet) *string {
	def := os.Getenv("RIGKIT_ENGINE")
	if def == "" {
		def = "cpu"
	}
	return fs.String("engine", def, "where matrix products run: cpu, cuda (needs a -tags cuda build and a CUDA device) or auto (cuda if usable, else cpu); default $RIGKIT_ENGINE or cpu")
}

// useEngine installs the named engine as the process-wide default before any
// network is built and returns it. threads > 0 sizes the cpu engine (and the cuda
// engine's host side through GOMAXPROCS); 0 keeps GOMAXPROCS. Notes go to log.
func useEngine(name string, threads int, log io.Writer) (engine.Engine, error) {
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	var e engine.Engine
	switch name {
	case "cpu":
		e = engine.NewCPU(threads)
	case "cuda", "auto":
		got, err := engine.Get("cuda")
		if err != nil {
			if name == "cuda" {
				// Get's error says it falls back to cpu; here it does not.
				if inner := errors.Unwrap(err); inner != nil {
					err = inner
				}
				return nil, fmt.Errorf("--engine cuda: cuda unavailable: %w", err)
			}
			fmt.Fprintf(log, "engine: %v\n", err)
			got = engine.NewCPU(threads)
		}
		e = got
	default:
		return nil, fmt.Errorf("%w: --engine %q: want cpu, cuda or auto", errUsage, name)
	}
	engine.SetDefault(e)
	if e.Name() == "cuda" {
		fmt.Fprintln(log, "engine: cuda (cuBLAS on device 0; elementwise work on the host)")
	}
	return e, nil
}
