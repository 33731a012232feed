//go:build !unix

package assets

import "errors"

func mkfifo(string) error { return errors.New("no FIFOs here") }
