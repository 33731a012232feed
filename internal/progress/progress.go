// Package progress draws the one-line progress bar of rigkit's long commands (rig
// auto, train, grpo, eval, train-tokenizer): steps done, elapsed time, an ETA and a
// free-form status, rewritten in place on stderr.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// Bar draws a one-line progress bar (`\r`-rewritten) with a rate and an ETA on
// a terminal. Written anywhere else (a log file, a pipe, a cluster job's output) it
// prints a plain line every PlainEvery instead, with no carriage returns or escape
// codes. A nil writer makes every method a no-op. It is safe for concurrent use.
type Bar struct {
	mu     sync.Mutex
	w      io.Writer
	tty    bool // draw the bar; else plain lines
	label  string
	total  int
	done   int
	failed int
	extra  string
	start  time.Time
	last   time.Time
}

// PlainEvery is how often a progress line is printed when the writer is not a
// terminal.
const PlainEvery = 5 * time.Second

// New starts a bar for total steps.
func New(w io.Writer, label string, total int) *Bar {
	now := time.Now()
	// The first plain line comes after PlainEvery, not at once.
	return &Bar{w: w, tty: IsTerminal(w), label: label, total: total, start: now, last: now}
}

// IsTerminal reports whether w is a character device (a terminal), where a
// rewritten progress bar is readable.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || f == nil {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Add advances the bar by n steps and sets the failure count shown.
func (p *Bar) Add(n, failed int) {
	if p == nil || p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += n
	p.failed = failed
	p.draw(false)
}

// Set moves the bar to step done with a free-form status (e.g. losses).
func (p *Bar) Set(done int, status string) {
	if p == nil || p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done, p.extra = done, status
	p.draw(false)
}

// Finish draws the final state and ends the line.
func (p *Bar) Finish() {
	if p == nil || p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.draw(true)
	if p.tty {
		fmt.Fprintln(p.w)
	}
}

func (p *Bar) draw(force bool) {
	now := time.Now()
	every := 200 * time.Millisecond
	if !p.tty {
		every = PlainEvery
	}
	if !force && now.Sub(p.last) < every && (p.done < p.total || !p.tty) {
		return
	}
	p.last = now
	const width = 24
	frac := 1.0
	if p.total > 0 {
		frac = float64(p.done) / float64(p.total)
	}
	fill := min(max(int(frac*width), 0), width)
	el := now.Sub(p.start)
	eta := "?"
	if p.done > 0 && p.total >= p.done {
		eta = (time.Duration(float64(el) / float64(p.done) * float64(p.total-p.done))).Round(time.Second).String()
	}
	bar := fmt.Sprintf("[%s%s] ", strings.Repeat("#", fill), strings.Repeat(".", width-fill))
	if !p.tty {
		bar = ""
	}
	s := fmt.Sprintf("%s %s%d/%d %s elapsed, eta %s", p.label, bar, p.done, p.total, el.Round(time.Second), eta)
	if p.failed > 0 {
		s += fmt.Sprintf(", %d failed", p.failed)
	}
	if p.extra != "" {
		s += " " + p.extra
	}
	if p.tty {
		fmt.Fprint(p.w, "\r"+s+"\x1b[K")
		return
	}
	fmt.Fprintln(p.w, s)
}
