package format

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// This file holds the loader's file access: the input and the files it names are
// opened without blocking (a FIFO or device never hangs the open), must be regular
// files, and are size-checked before a byte is read. External files are opened
// through an os.Root on the input's folder, so neither "..", an absolute path nor a
// symlink that points outside the folder reaches any other file.

// openRegular opens name with open (O_RDONLY|O_NONBLOCK) and accepts regular files
// only; it checks the opened file itself, so a file swapped after a check is caught.
func openRegular(open func(flag int) (*os.File, error), name string) (*os.File, fs.FileInfo, error) {
	f, err := open(os.O_RDONLY | syscall.O_NONBLOCK)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%s is not a regular file (%s)", name, KindOf(st.Mode()))
	}
	return f, st, nil
}

// kindOf names a non-regular file mode for error messages.
func KindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	}
	return m.Type().String()
}

// readInput reads the file at path after checking that it is regular and within
// the budget's FileBytes; it never reads more than the size it checked.
func ReadInput(path string, budget *Counter) ([]byte, error) {
	f, st, err := openRegular(func(flag int) (*os.File, error) { return os.OpenFile(path, flag, 0) }, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := budget.ReadBytes(st.Size(), "file"); err != nil {
		return nil, err
	}
	return ReadAtMost(f, st.Size())
}

// readAtMost reads exactly n bytes from r (a file that shrank is an error, one that
// grew is read only up to n).
func ReadAtMost(r io.Reader, n int64) ([]byte, error) {
	data := make([]byte, n)
	if _, err := io.ReadFull(r, data); err != nil {
		return nil, fmt.Errorf("read %d bytes: %w", n, err)
	}
	return data, nil
}

// RootFS is an fs.FS over an os.Root that opens regular files only, without
// blocking. It is what LoadFile resolves a .gltf's external buffers and images in.
type RootFS struct{ Root *os.Root }

// Open implements fs.FS.
func (r RootFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	f, _, err := openRegular(func(flag int) (*os.File, error) { return r.Root.OpenFile(name, flag, 0) }, name)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// Stat implements fs.StatFS (following symlinks inside the root only).
func (r RootFS) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	return r.Root.Stat(name)
}

// ReadFile reads a file for Decode the way LoadFile does: it must be a regular file
// (a FIFO or device is refused without blocking) within the process budget's
// FileBytes, checked before a byte is read. Commands that score or hash a file's
// bytes use it instead of os.ReadFile.
func ReadFile(path string) ([]byte, error) {
	data, err := ReadInput(path, NewCounter(Budget{}))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return data, nil
}
