//go:build !cuda || !cgo

package engine

import "errors"

func newCUDA() (Engine, error) {
	return nil, errors.New("rigkit was built without the cuda build tag (go build -tags cuda)")
}
