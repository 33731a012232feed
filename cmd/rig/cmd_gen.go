package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/rigkit/rigkit/assets"
	"github.com/rigkit/rigkit/internal/progress"
	"github.com/rigkit/rigkit/synth"
)

func init() {
	register(&command{
		name:    "gen",
		usage:   "--list | --kind KIND --seed N --out FILE.glb|- | --count N --out DIR [--kind K] [--seed S] [--vertices V] [--noise] [--posed] [--workers W] | --gallery DIR [--kind K] [--seed S] [--glb=false]",
		summary: "generate synthetic rigged creatures (one file, or many in parallel)",
		run:     runGen,
	})
}

// genRecord is one line of DIR/manifest.jsonl.
type genRecord struct {
	File     string `json:"file"`
	Kind     string `json:"kind"`
	Seed     int64  `json:"seed"`
	Vertices int    `json:"vertices"`
	Joints   int    `json:"joints"`
	Noise    bool   `json:"noise,omitempty"`
	Posed    bool   `json:"posed,omitempty"`
}

func runGen(args []string, stdout io.Writer) error {
	fs := newFlags("gen")
	list := fs.Bool("list", false, "print the kinds and exit")
	kind := fs.String("kind", "", "creature kind (default: one file: biped; many: cycle through all kinds)")
	seed := fs.Int64("seed", 0, "seed (many: the first seed; file i uses seed+i)")
	out := fs.String("out", "", "output .glb file (- for GLB on stdout), or directory with --count")
	count := fs.Int("count", 0, "number of creatures to write into --out DIR")
	vertices := fs.Int("vertices", synth.DefaultVertices, "target vertex count")
	noise := fs.Bool("noise", false, "add mesh defects (holes, fins, flipped triangles, loose pieces)")
	posed := fs.Bool("posed", false, "bake a random pose as the bind pose")
	workers := fs.Int("workers", runtime.NumCPU(), "parallel workers")
	quiet := fs.Bool("quiet", false, "no progress output")
	gallery := fs.String("gallery", "", "write one creature per kind (or --kind) into DIR: a contact sheet DIR/<kind>.png, the GLB and DIR/index.md")
	glb := fs.Bool("glb", true, "with --gallery: also write each creature's GLB")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, pos[0])
	}
	if *list {
		for _, k := range synth.Kinds() {
			fmt.Fprintln(stdout, k)
		}
		return nil
	}
	if *kind != "" && !validKind(*kind) {
		return fmt.Errorf("%w: unknown kind %q (kinds: %s)", errUsage, *kind, strings.Join(synth.Kinds(), " "))
	}
	opt := synth.Options{TargetVertices: *vertices, Noise: *noise, Posed: *posed}
	if *gallery != "" {
		if *out != "" || *count > 0 {
			return fmt.Errorf("%w: --gallery DIR writes its own files; drop --out and --count", errUsage)
		}
		kinds := synth.Kinds()
		if *kind != "" {
			kinds = []string{*kind}
		}
		return writeGallery(galleryOptions{Dir: *gallery, Kinds: kinds, Seed: *seed, Synth: opt, GLB: *glb}, stdout)
	}
	if *out == "" {
		return fmt.Errorf("%w: --out is required", errUsage)
	}
	if *count <= 0 {
		k := *kind
		if k == "" {
			k = "biped"
		}
		c, err := synth.Generate(k, *seed, opt)
		if err != nil {
			return err
		}
		if _, err := saveOutput(*out, c, stdout); err != nil {
			return fmt.Errorf("gen: %w", err)
		}
		fmt.Fprintf(resultLog(*out, stdout), "wrote %s: %s seed %d, %d vertices, %d joints\n", outputName(*out), k, *seed, len(c.Mesh.Positions), c.Skeleton.NumJoints())
		return nil
	}
	return genMany(*out, *count, *kind, *seed, opt, max(*workers, 1), *quiet, stdout)
}

func validKind(k string) bool {
	for _, x := range synth.Kinds() {
		if x == k {
			return true
		}
	}
	return false
}

// genMany writes count creatures into dir in parallel. A file already listed in
// dir/manifest.jsonl and present on disk is skipped, so an interrupted run resumes.
// Manifest lines are appended in file order as soon as each prefix is complete.
func genMany(dir string, count int, kind string, seed int64, opt synth.Options, workers int, quiet bool, stdout io.Writer) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("gen: %w", err)
	}
	manifestPath := filepath.Join(dir, "manifest.jsonl")
	done, err := readManifest(manifestPath)
	if err != nil {
		return err
	}
	mf, err := os.OpenFile(manifestPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("gen: %w", err)
	}
	defer mf.Close()

	todo := genPlan(dir, count, kind, seed, opt, done)
	skipped := count - len(todo)

	stop := make(chan struct{})
	results := startGenWorkers(dir, todo, opt, workers, stop)

	bar := progress.New(progressOut(quiet), "gen", len(todo))
	start := time.Now()
	order := make(map[int]int, len(todo)) // file index → position in todo
	for n, j := range todo {
		order[j.index] = n
	}
	pending := make(map[int]genRecord)
	next := 0
	w := bufio.NewWriter(mf)
	var firstErr error
	written := 0
	for r := range results {
		if r.err != nil {
			if firstErr == nil {
				firstErr = fmt.Errorf("gen %s: %w", r.rec.File, r.err)
				close(stop)
			}
			continue
		}
		written++
		bar.Set(written, "")
		pending[order[r.slot]] = r.rec
		for {
			rec, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			line, _ := json.Marshal(rec)
			w.Write(append(line, '\n'))
		}
		if err := w.Flush(); err != nil && firstErr == nil {
			firstErr = fmt.Errorf("gen: manifest: %w", err)
		}
	}
	// Records past a failed file still describe finished files: keep them.
	for n := next; n < len(todo); n++ {
		if rec, ok := pending[n]; ok {
			line, _ := json.Marshal(rec)
			w.Write(append(line, '\n'))
		}
	}
	if err := w.Flush(); err != nil && firstErr == nil {
		firstErr = fmt.Errorf("gen: manifest: %w", err)
	}
	bar.Finish()
	if firstErr != nil {
		return firstErr
	}
	el := time.Since(start).Seconds()
	rate := 0.0
	if el > 0 {
		rate = float64(written) / el
	}
	fmt.Fprintf(stdout, "wrote %d creatures to %s (%d already there) in %.1fs: %.1f creatures/s with %d workers\n",
		written, dir, skipped, el, rate, workers)
	return nil
}

// genJob is one creature to write: its index in the run and its manifest record.
type genJob struct {
	index int
	rec   genRecord
}

// genResult is a written (or failed) creature; slot is its genJob index.
type genResult struct {
	slot int
	rec  genRecord
	err  error
}

// genPlan names the count creatures (kinds in turn unless kind is set, seeds from
// seed up) and leaves out those the manifest lists and the disk still holds.
func genPlan(dir string, count int, kind string, seed int64, opt synth.Options, done map[string]bool) []genJob {
	kinds := synth.Kinds()
	var todo []genJob
	for i := 0; i < count; i++ {
		k := kind
		if k == "" {
			k = kinds[i%len(kinds)]
		}
		s := seed + int64(i)
		name := fmt.Sprintf("%06d_%s_%d.glb", i, k, s)
		if done[name] {
			if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
				continue
			}
		}
		todo = append(todo, genJob{i, genRecord{File: name, Kind: k, Seed: s, Noise: opt.Noise, Posed: opt.Posed}})
	}
	return todo
}

// startGenWorkers generates and saves todo's creatures on workers goroutines and
// returns their results, in completion order; the channel closes when all are
// done. Closing stop hands out no further jobs.
func startGenWorkers(dir string, todo []genJob, opt synth.Options, workers int, stop <-chan struct{}) <-chan genResult {
	jobs := make(chan genJob)
	results := make(chan genResult)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				c, err := synth.Generate(j.rec.Kind, j.rec.Seed, opt)
				if err == nil {
					j.rec.Vertices, j.rec.Joints = len(c.Mesh.Positions), c.Skeleton.NumJoints()
					_, err = assets.Save(filepath.Join(dir, j.rec.File), c)
				}
				results <- genResult{j.index, j.rec, err}
			}
		}()
	}
	go func() {
		defer close(jobs)
		for _, j := range todo {
			select {
			case jobs <- j:
			case <-stop:
				return
			}
		}
	}()
	go func() { wg.Wait(); close(results) }()
	return results
}

// readManifest returns the files listed in an existing manifest.
func readManifest(path string) (map[string]bool, error) {
	done := map[string]bool{}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return done, nil
	}
	if err != nil {
		return nil, fmt.Errorf("gen: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		var rec genRecord
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			continue // a torn last line from an interrupted run: regenerate that file
		}
		done[rec.File] = true
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("gen: read %s: %w", path, err)
	}
	return done, nil
}
