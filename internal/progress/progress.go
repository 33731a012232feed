// Package progress draws the one-line progress bar of rigkit's long commands (rig
// auto, train, grpo, eval, train-tokenizer): steps done, elapsed time, an ETA and a
// free-form status, rewritten in place on stderr.
package progress

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Bar draws a one-line progress bar (`\r`-rewritten) with a rate and an ETA. A
// nil writer makes every method a no-op. It is safe for concurrent use.
type Bar struct {
	mu     sync.Mutex
	w      io.Writer
	label  string
	total  int
	done   int
	failed int
	extra  string
	start  time.Time
	last   time.Time
}

// New starts a bar for total steps.
func New(w io.Writer, label string, total int) *Bar {
	return &Bar{w: w, label: label, total: total, start: time.Now()}
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
	fmt.Fprintln(p.w)
}

func (p *Bar) draw(force bool) {
	now := time.Now()
	if !force && now.Sub(p.last) < 200*time.Millisecond && p.done < p.total {
		return
	}
	p.last = now
	const width = 24
	frac := 1.0
	if p.total > 0 {
		frac = float64(p.done) / float64(p.total)
	}
	fill := int(frac * width)
	el := now.Sub(p.start)
	eta := "?"
	if p.done > 0 && p.total >= p.done {
		eta = (time.Duration(float64(el) / float64(p.done) * float64(p.total-p.done))).Round(time.Second).String()
	}
	s := fmt.Sprintf("\r%s [%s%s] %d/%d %s elapsed, eta %s", p.label, strings.Repeat("#", fill), strings.Repeat(".", width-fill),
		p.done, p.total, el.Round(time.Second), eta)
	if p.failed > 0 {
		s += fmt.Sprintf(", %d failed", p.failed)
	}
	if p.extra != "" {
		s += " " + p.extra
	}
	fmt.Fprint(p.w, s+"\x1b[K")
}
