//go:build unix

package hostile

import "syscall"

// mkfifo makes a named pipe at path.
func mkfifo(path string) (bool, error) { return true, syscall.Mkfifo(path, 0o644) }
