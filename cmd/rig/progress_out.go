package main

import (
	"bytes"
	"io"
	"sync"
	"time"

	"github.com/rigkit/rigkit/internal/progress"
)

// Progress output follows one rule for every command: a rewritten bar on a
// terminal, a plain line every few seconds anywhere else (log files, pipes, cluster
// job output), nothing with --quiet.

// progressOut returns where a command's progress goes: io.Discard with quiet,
// diag (stderr) on a terminal, else diag through plainProgress.
func progressOut(quiet bool) io.Writer {
	switch {
	case quiet:
		return io.Discard
	case progress.IsTerminal(diag):
		return diag
	}
	return &plainProgress{w: diag, every: progress.PlainEvery}
}

// plainProgress turns terminal progress output into plain lines: carriage returns
// and escape sequences (erase-line) are removed, a bar state (text ended by the next "\r") is
// printed as a line at most once per every, and whole lines (ended by "\n") always.
type plainProgress struct {
	mu    sync.Mutex
	w     io.Writer
	every time.Duration
	last  time.Time
	cur   []byte
	esc   bool // inside an ANSI escape sequence (ESC [ ... letter), which is dropped
}

func (p *plainProgress) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(b)
	for _, c := range b {
		if p.esc { // inside an escape sequence: it ends with a letter
			p.esc = !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z')
			continue
		}
		switch c {
		case '\x1b':
			p.esc = true
		case '\r':
			if len(bytes.TrimSpace(p.cur)) > 0 && time.Since(p.last) >= p.every {
				if err := p.emit(); err != nil {
					return n, err
				}
			}
			p.cur = p.cur[:0]
		case '\n':
			if err := p.emit(); err != nil {
				return n, err
			}
			p.cur = p.cur[:0]
		default:
			p.cur = append(p.cur, c)
		}
	}
	return n, nil
}

// emit prints the current text as one line (nothing for a blank one).
func (p *plainProgress) emit() error {
	line := bytes.TrimRight(p.cur, " ")
	if len(line) == 0 {
		return nil
	}
	p.last = time.Now()
	_, err := p.w.Write(append(append([]byte{}, line...), '\n'))
	return err
}
