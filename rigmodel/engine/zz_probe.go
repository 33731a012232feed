package engine

import "gorgonia.org/tensor"

var probe = tensor.New(tensor.WithShape(2, 3), tensor.WithBacking(make([]float32, 6)))
