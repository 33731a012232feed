package rigmodel

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Progress draws a one-line progress bar (`\r`-rewritten) with a rate and an ETA. A
// nil writer makes every method a no-op. It is safe for concurrent use.
type Progress struct {
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

// NewProgress starts a bar for total steps.
func NewProgress(w io.Writer, label string, total int) *Progress {
	return &Progress{w: w, label: label, total: total, start: time.Now()}
}

// Add advances the bar by n steps and sets the failure count shown.
func (p *Progress) Add(n, failed int) {
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
func (p *Progress) Set(done int, status string) {
	if p == nil || p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done, p.extra = done, status
	p.draw(false)
}

// Finish draws the final state and ends the line.
func (p *Progress) Finish() {
	if p == nil || p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.draw(true)
	fmt.Fprintln(p.w)
}

func (p *Progress) draw(force bool) {
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
