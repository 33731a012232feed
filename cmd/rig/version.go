package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/rigkit/rigkit/rigmodel"
	"github.com/rigkit/rigkit/skincodec"
)

// version is the release this binary was built as, set at link time:
//
//	go build -ldflags "-X main.version=v1.2.0" ./cmd/rig
//
// Left empty, `rig --version` reports the module version and VCS revision that the
// Go toolchain recorded in the binary.
var version = ""

// buildVersion returns version, else the module version and VCS revision from the
// build info ("(devel)" with a revision and "+dirty" for a local build).
func buildVersion() string {
	if version != "" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, when, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		v += fmt.Sprintf(" %s%s", rev, dirty)
		if when != "" {
			v += " " + when
		}
	}
	return v
}

// printVersion writes the version, the Go toolchain and the fingerprints of the
// checkpoints embedded in the binary: what a rig made by this binary depends on.
func printVersion(w io.Writer) {
	fmt.Fprintf(w, "rig %s (%s, %s/%s)\n", buildVersion(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintln(w, "checkpoints:")
	model := rigmodel.ShippedFingerprint()
	if model == "" {
		model = "none shipped"
	}
	fmt.Fprintf(w, "  %-48s %s\n", rigmodel.ShippedCheckpoint, model)
	if tok, err := skincodec.Load(""); err == nil {
		fmt.Fprintf(w, "  %-48s %s\n", skincodec.ShippedCheckpoint, tok.Fingerprint())
	} else {
		fmt.Fprintf(w, "  %-48s unreadable: %v\n", skincodec.ShippedCheckpoint, err)
	}
}
