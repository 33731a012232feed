package viewer

import (
	"fmt"
	"unicode"

	"github.com/go-gl/glfw/v3.3/glfw"
)

// This file is the workbench's one text entry: F2 renames the selected joint. While
// it is open, typed characters go to the name, Backspace erases, Enter commits
// (edit.Rig.Rename refuses a name another joint has) and Esc cancels.

// maxNameLength bounds a typed joint name.
const maxNameLength = 128

// renameKey handles keys while a rename is open, and F2, which opens one. It
// reports whether it took the key.
func (a *app) renameKey(k glfw.Key) bool {
	b, p := a.bench, a.primary()
	if b == nil || p == nil {
		return false
	}
	if b.naming == nil {
		if k != glfw.KeyF2 {
			return false
		}
		if p.Selected < 0 {
			b.message = "!select a joint first (click it)"
			return true
		}
		name := []rune(p.Char.Skeleton.Names[p.Selected])
		b.naming = &name
		return true
	}
	name := b.naming
	switch k {
	case glfw.KeyEscape:
		b.naming = nil
	case glfw.KeyBackspace:
		if n := len(*name); n > 0 {
			*name = (*name)[:n-1]
		}
	case glfw.KeyEnter, glfw.KeyKPEnter:
		b.naming = nil
		j := p.Selected
		old := p.Char.Skeleton.Names[j]
		a.report(fmt.Sprintf("rename %s to %s", old, string(*name)), b.rig.Rename(j, string(*name)))
	}
	return true // every other key is typing, not a command
}

// typed adds a typed character to an open rename.
func (a *app) typed(r rune) {
	if a.bench == nil || a.bench.naming == nil || !unicode.IsPrint(r) || len(*a.bench.naming) >= maxNameLength {
		return
	}
	*a.bench.naming = append(*a.bench.naming, r)
	a.needsFrame = true
}

// renameLine is the open rename's overlay line.
func (a *app) renameLine() string {
	if a.bench == nil || a.bench.naming == nil {
		return ""
	}
	return "rename to: " + string(*a.bench.naming) + "_   (Enter: rename, Esc: cancel)"
}
