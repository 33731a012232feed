// Package atomicfile writes files so that a reader never sees half of one: the bytes
// go to a temporary sibling that is synced and renamed into place. Every file rigkit
// writes (rigged GLBs, reports, checkpoints, images) goes through it, so an
// interrupted run leaves either the old file or the new one.
package atomicfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"unicode/utf8"
)

// Write writes a file through a temporary file in the same folder that is
// synced and renamed into place, so a reader (or a resumed batch run) never sees a
// half-written file; the folder is synced after the rename. The temporary file is
// removed on any failure. A missing parent folder is created first (as `mkdir -p`),
// so an output path never fails only because its folder is new.
func Write(path string, write func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := replaceable(path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), tempPattern(filepath.Base(path)))
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	err = write(f)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	// The rename is durable only once the folder is synced.
	if err := SyncDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// SyncDir flushes a folder's entries (a rename into it) to disk. File systems that
// cannot sync a folder (EINVAL, unsupported) are left as they are.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync folder %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, errors.ErrUnsupported) {
		return fmt.Errorf("sync folder %s: %w", dir, err)
	}
	return nil
}

// WriteFile writes data to path atomically (see Write).
func WriteFile(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := io.Copy(w, bytes.NewReader(data))
		return err
	})
}

// maxTempBase is the longest base name a temporary file gets before its random
// suffix: a legal 255-byte output name must still fit once the dot, the ".tmp" and
// CreateTemp's up-to-20-digit suffix are added.
const maxTempBase = 200

// tempPattern is the CreateTemp pattern of a temporary sibling of base: hidden,
// marked .tmp, and short enough for any file system's 255-byte name limit.
func tempPattern(base string) string {
	if len(base) > maxTempBase {
		cut := maxTempBase
		for cut > 0 && !utf8.RuneStart(base[cut]) {
			cut--
		}
		base = base[:cut]
	}
	return "." + base + ".tmp*"
}

// replaceable refuses to replace anything at path but a regular file: the rename
// would otherwise swap a device node, FIFO, socket or folder for a file (as root,
// `rig convert in.glb /dev/full` would replace the device). A missing path is fine.
func replaceable(path string) error {
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("refusing to replace %s, which is not a regular file (%s)", path, kind(st.Mode()))
	}
	return nil
}

// kind names a non-regular file mode for messages.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return m.Type().String()
}
