// Command rig is rigkit's single binary: it loads, inspects, generates, rigs, scores
// and views 3D characters. Each subcommand lives in its own file and registers itself;
// commands stay thin and call the packages that do the work.
package main

import (
	"bytes"
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
	// help is optional text printed by `rig help NAME` between the summary and
	// the flags.
	help string
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

// errUsage marks an error caused by bad arguments; main prints the command's usage
// and exits 2.
var errUsage = errors.New("usage")

// usageError is a flag-parsing error: it is an errUsage and keeps the flag package's
// message.
type usageError struct{ err error }

func (e usageError) Error() string   { return e.err.Error() }
func (e usageError) Unwrap() []error { return []error{errUsage, e.err} }

// Exit statuses of every command (documented in usage and the README).
const (
	exitOK     = 0 // everything asked for was done
	exitFailed = 1 // some inputs (or the command itself) failed
	exitUsage  = 2 // bad command line
)

func usage(w io.Writer) {
	fmt.Fprintln(w, "rig: rig 3D characters by token prediction")
	fmt.Fprintln(w, "\nusage: rig COMMAND [ARGS]\n       rig help COMMAND\n       rig --version\n\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-16s %s\n", n, commands[n].summary)
	}
	fmt.Fprint(w, `
Every command takes -h or --help (exit 0): its synopsis and all its flags.
Meshes are read from .glb, .gltf and .obj (with its .mtl and textures); FBX,
COLLADA and .blend files get the Blender and assimp commands that convert them.
A file argument "-" reads stdin (GLB or glTF JSON, sniffed; no external files)
and an output "-" writes stdout. Results go to stdout; progress, warnings and
failures go to stderr.

exit status:
  0  ok
  1  some inputs failed (the others are done), or the command failed
  2  usage: unknown command, bad flag or missing argument
`)
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	diag = stderr
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help":
		usage(stdout)
		return exitOK
	case "help":
		return runHelp(args[1:], stdout, stderr)
	case "-version", "--version", "version":
		printVersion(stdout)
		return exitOK
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "rig: unknown command %q (run 'rig help')\n", args[0])
		return exitUsage
	}
	if wantsHelp(args[1:]) {
		printCommandHelp(c, stdout)
		return exitOK
	}
	err := c.run(args[1:], stdout)
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "rig %s: %s\nusage: rig %s %s\nrun 'rig help %s' for its flags\n", c.name, oneLine(err), c.name, c.usage, c.name)
		return exitUsage
	default:
		fmt.Fprintf(stderr, "rig %s: %s\n", c.name, oneLine(err))
		return exitFailed
	}
}

// runHelp is `rig help [COMMAND]`.
func runHelp(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stdout)
		return exitOK
	}
	c, ok := commands[args[0]]
	if !ok || len(args) > 1 {
		fmt.Fprintf(stderr, "rig help: unknown command %q (run 'rig help')\n", strings.Join(args, " "))
		return exitUsage
	}
	printCommandHelp(c, stdout)
	return exitOK
}

// wantsHelp reports whether a command's arguments ask for its help (-h, -help or
// --help before a "--" that ends the flags).
func wantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}

// helpOut, while a command's help is printed, receives its flag defaults: every
// command defines its flags inside its run function, so printCommandHelp runs it
// with -h and the flag set (made by newFlags) prints itself here.
var helpOut io.Writer

// printCommandHelp writes a command's synopsis, summary and every flag to w.
func printCommandHelp(c *command, w io.Writer) {
	fmt.Fprintf(w, "usage: rig %s %s\n\n%s\n", c.name, c.usage, c.summary)
	if c.help != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(c.help))
	}
	var flags bytes.Buffer
	helpOut = &flags
	defer func() { helpOut = nil }()
	_ = c.run([]string{"-h"}, io.Discard) // returns flag.ErrHelp after printing
	if flags.Len() > 0 {
		fmt.Fprintf(w, "\nflags:\n%s", flags.String())
	} else {
		fmt.Fprintln(w, "\nflags: none")
	}
	fmt.Fprintln(w, "\nexit status: 0 ok, 1 some inputs failed, 2 usage")
}

// oneLine flattens an error message onto a single line.
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// lastFlags is the flag set newFlags made last (the help test checks that every
// flag of a command appears in its help).
var lastFlags *flag.FlagSet

// newFlags returns a flag set for a command that reports errors instead of exiting.
// Flags may come before or after positional arguments (see parseInterleaved).
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("rig "+name, flag.ContinueOnError)
	// The flag package's own messages are dropped: main prints the error once, with
	// the command's synopsis. -h prints the flags through printCommandHelp.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		if helpOut != nil {
			fs.SetOutput(helpOut)
			fs.PrintDefaults()
			fs.SetOutput(io.Discard)
		}
	}
	lastFlags = fs
	if loadingCommands[name] {
		addBudgetFlags(fs)
	}
	return fs
}

// parseInterleaved parses flags that may appear anywhere among the positional
// arguments (e.g. `rig inspect a.glb --json`) and returns the positionals. "--"
// ends the flags: everything after it is positional. An argument that looks like
// a flag rigkit does not define but names an existing file is positional too, so
// that a shell glob expanding to a file named "-evil.glb" rigs it instead of
// failing the whole command.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	flags, pos := splitFlags(fs, args)
	if err := fs.Parse(flags); err != nil {
		return nil, usageError{err}
	}
	return pos, nil
}

// splitFlags sorts args into the flag arguments (each flag with its value) and the
// positionals, in order, reading the flag set's definitions to know which flags
// take the next argument as their value.
func splitFlags(fs *flag.FlagSet, args []string) (flags, pos []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return flags, append(pos, args[i+1:]...)
		case len(a) < 2 || a[0] != '-':
			pos = append(pos, a)
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimPrefix(a[1:], "-"), "=")
		f := fs.Lookup(name)
		if f == nil {
			if _, err := os.Lstat(a); err == nil {
				pos = append(pos, a)
			} else {
				flags = append(flags, a) // fs.Parse names the unknown flag
			}
			continue
		}
		flags = append(flags, a)
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); hasValue || (ok && b.IsBoolFlag()) {
			continue
		}
		if i+1 < len(args) {
			i++
			flags = append(flags, args[i])
		}
	}
	return flags, pos
}

// parseTrainingFlags parses a training command's flags and positional arguments,
// which are appended to *data as more inputs; --data and --out are required. It
// takes pointers because the flags are only filled in by parsing.
func parseTrainingFlags(fs *flag.FlagSet, args []string, data *trainDataFlag, out *string) error {
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	*data = append(*data, pos...)
	if err := notStdio(*out, "a checkpoint with its log and best model beside it"); err != nil {
		return err
	}
	if len(*data) == 0 || *out == "" {
		return fmt.Errorf("%w: --data and --out are required", errUsage)
	}
	return nil
}
