// Command rig is rigkit's single binary: it loads, inspects, generates, rigs, scores
// and views 3D characters. Each subcommand lives in its own file and registers itself;
// commands stay thin and call the packages that do the work.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// command is one `rig` subcommand.
type command struct {
	name    string
	usage   string // argument synopsis, e.g. "FILE [--json]"
	summary string // one line
	// run executes the command; args exclude the command name. It writes results to
	// stdout and returns an error for the one-line message on stderr.
	run func(args []string, stdout io.Writer) error
}

var commands = map[string]*command{}

// register adds a subcommand; called from init functions in this package.
func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("rig: duplicate command " + c.name)
	}
	commands[c.name] = c
}

// errUsage marks an error caused by bad arguments; main prints the command's usage.
var errUsage = errors.New("usage")

func usage(w io.Writer) {
	fmt.Fprintln(w, "rig: rig 3D characters by token prediction")
	fmt.Fprintln(w, "\nusage: rig COMMAND [ARGS]\n\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-16s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nrun 'rig COMMAND -h' for a command's flags")
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "rig: unknown command %q (run 'rig help')\n", args[0])
		return 2
	}
	err := c.run(args[1:], stdout)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "rig %s: %s\nusage: rig %s %s\n", c.name, oneLine(err), c.name, c.usage)
		return 2
	default:
		fmt.Fprintf(stderr, "rig %s: %s\n", c.name, oneLine(err))
		return 1
	}
}

// oneLine flattens an error message onto a single line.
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// newFlags returns a flag set for a command that reports errors instead of exiting.
// Flags may come before or after positional arguments (see parseInterleaved).
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("rig "+name, flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	if loadingCommands[name] {
		addBudgetFlags(fs)
	}
	return fs
}

// parseInterleaved parses flags that may appear anywhere among the positional
// arguments (e.g. `rig inspect a.glb --json`) and returns the positionals.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if rest[0] == "--" {
			return append(pos, rest[1:]...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// parseTrainingFlags parses a training command's flags and positional arguments,
// which are appended to *data as more inputs; --data and --out are required. It
// takes pointers because the flags are only filled in by parsing.
func parseTrainingFlags(fs *flag.FlagSet, args []string, data *trainDataFlag, out *string) error {
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	*data = append(*data, pos...)
	if len(*data) == 0 || *out == "" {
		return fmt.Errorf("%w: --data and --out are required", errUsage)
	}
	return nil
}
