// Package workgroup runs the goroutines of one parallel step and hands a panic on
// any of them back to the goroutine that waits. A panic on a bare goroutine ends
// the process whatever the caller recovers, so one poison input of a batch would
// end the batch; through a Group it reaches the caller, which can report that
// input and go on.
package workgroup

import (
	"fmt"
	"runtime/debug"
	"sync"
)

// Group is a set of goroutines started by Go and awaited by Wait. The zero value
// is ready to use; a Group must not be copied after first use.
type Group struct {
	wg    sync.WaitGroup
	mu    sync.Mutex
	first *Panic
}

// Panic is the first panic of a Group's goroutines, re-raised by Wait: the value
// and the stack of the goroutine that panicked, which the re-raise would lose.
type Panic struct {
	Value any
	Stack []byte
}

// Error makes a recovered Panic readable as an error message.
func (p *Panic) Error() string {
	return fmt.Sprintf("%v\n%s", p.Value, p.Stack)
}

// Go runs f on a goroutine of the group; a panic in f is kept for Wait.
func (g *Group) Go(f func()) {
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		defer g.catch()
		f()
	}()
}

// catch keeps the first panic of the group's goroutines.
func (g *Group) catch() {
	r := recover()
	if r == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.first == nil {
		g.first = &Panic{Value: r, Stack: debug.Stack()}
	}
}

// Wait waits for every goroutine started by Go, then panics with a *Panic if any
// of them panicked.
func (g *Group) Wait() {
	g.wg.Wait()
	g.mu.Lock()
	p := g.first
	g.mu.Unlock()
	if p != nil {
		panic(p)
	}
}

// Recover runs f on the calling goroutine and returns its panic as an error (a
// *Panic), for a goroutine that reports its outcome on a channel instead of being
// awaited.
func Recover(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if p, ok := r.(*Panic); ok {
				err = p
				return
			}
			err = &Panic{Value: r, Stack: debug.Stack()}
		}
	}()
	f()
	return nil
}
