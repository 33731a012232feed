//go:build !unix

package hostile

// mkfifo reports that this platform has no named pipes.
func mkfifo(string) (bool, error) { return false, nil }
