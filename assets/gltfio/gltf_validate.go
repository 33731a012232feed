package gltfio

import (
	"encoding/json"
	"fmt"
	"slices"
)

// The glTF decoder maps an enum value it does not know to its zero value
// (componentType 9999 reads as FLOAT, primitive mode 77 as TRIANGLES), so the loader
// checks every enum the glTF 2.0 specification defines on the raw JSON and refuses a
// file that uses any other value, naming the object, the field and the allowed
// values.

// enumDoc holds the enum-valued fields of a glTF document, as written.
type enumDoc struct {
	ExtensionsUsed []string `json:"extensionsUsed"`
	Accessors      []struct {
		ComponentType *int    `json:"componentType"`
		Type          *string `json:"type"`
		Sparse        *struct {
			Indices *struct {
				ComponentType *int `json:"componentType"`
			} `json:"indices"`
		} `json:"sparse"`
	} `json:"accessors"`
	BufferViews []struct {
		Target *int `json:"target"`
	} `json:"bufferViews"`
	Meshes []struct {
		Primitives []struct {
			Mode *int `json:"mode"`
		} `json:"primitives"`
	} `json:"meshes"`
	Samplers []struct {
		MagFilter *int `json:"magFilter"`
		MinFilter *int `json:"minFilter"`
		WrapS     *int `json:"wrapS"`
		WrapT     *int `json:"wrapT"`
	} `json:"samplers"`
	Animations []struct {
		Samplers []struct {
			Interpolation *string `json:"interpolation"`
		} `json:"samplers"`
		Channels []struct {
			Target *struct {
				Path *string `json:"path"`
			} `json:"target"`
		} `json:"channels"`
	} `json:"animations"`
	Materials []struct {
		AlphaMode *string `json:"alphaMode"`
	} `json:"materials"`
	Cameras []struct {
		Type *string `json:"type"`
	} `json:"cameras"`
}

// The values the glTF 2.0 specification allows for each enum.
var (
	enumComponentType = []int{5120, 5121, 5122, 5123, 5125, 5126}
	enumIndexType     = []int{5121, 5123, 5125}
	enumAccessorType  = []string{"SCALAR", "VEC2", "VEC3", "VEC4", "MAT2", "MAT3", "MAT4"}
	enumTarget        = []int{34962, 34963}
	enumMode          = []int{0, 1, 2, 3, 4, 5, 6}
	enumMagFilter     = []int{9728, 9729}
	enumMinFilter     = []int{9728, 9729, 9984, 9985, 9986, 9987}
	enumWrap          = []int{33071, 33648, 10497}
	enumInterpolation = []string{"LINEAR", "STEP", "CUBICSPLINE"}
	enumPath          = []string{"translation", "rotation", "scale", "weights"}
	enumAlphaMode     = []string{"OPAQUE", "MASK", "BLEND"}
	enumCameraType    = []string{"perspective", "orthographic"}
)

// checkEnums refuses a document whose enum fields hold values outside the spec.
func checkEnums(jsonData []byte) error {
	var d enumDoc
	if err := json.Unmarshal(jsonData, &d); err != nil {
		return fmt.Errorf("bad glTF JSON: %w", err)
	}
	var errs enumErrors
	for i, a := range d.Accessors {
		what := fmt.Sprintf("accessor %d", i)
		errs.int(what, "componentType", a.ComponentType, enumComponentType, true)
		errs.str(what, "type", a.Type, enumAccessorType, true)
		if a.Sparse != nil && a.Sparse.Indices != nil {
			errs.int(what+" sparse indices", "componentType", a.Sparse.Indices.ComponentType, enumIndexType, true)
		}
	}
	for i, v := range d.BufferViews {
		errs.int(fmt.Sprintf("bufferView %d", i), "target", v.Target, enumTarget, false)
	}
	for i, m := range d.Meshes {
		for k, p := range m.Primitives {
			errs.int(fmt.Sprintf("mesh %d primitive %d", i, k), "mode", p.Mode, enumMode, false)
		}
	}
	for i, s := range d.Samplers {
		what := fmt.Sprintf("sampler %d", i)
		errs.int(what, "magFilter", s.MagFilter, enumMagFilter, false)
		errs.int(what, "minFilter", s.MinFilter, enumMinFilter, false)
		errs.int(what, "wrapS", s.WrapS, enumWrap, false)
		errs.int(what, "wrapT", s.WrapT, enumWrap, false)
	}
	paths := enumPath
	if slices.Contains(d.ExtensionsUsed, "KHR_animation_pointer") {
		paths = append(slices.Clip(paths), "pointer")
	}
	for i, a := range d.Animations {
		for k, s := range a.Samplers {
			errs.str(fmt.Sprintf("animation %d sampler %d", i, k), "interpolation", s.Interpolation, enumInterpolation, false)
		}
		for k, c := range a.Channels {
			if c.Target != nil {
				errs.str(fmt.Sprintf("animation %d channel %d", i, k), "target.path", c.Target.Path, paths, true)
			}
		}
	}
	for i, m := range d.Materials {
		errs.str(fmt.Sprintf("material %d", i), "alphaMode", m.AlphaMode, enumAlphaMode, false)
	}
	for i, c := range d.Cameras {
		errs.str(fmt.Sprintf("camera %d", i), "type", c.Type, enumCameraType, true)
	}
	return errs.err()
}

// enumErrors collects the first few enum violations of a document.
type enumErrors struct {
	msgs  []string
	count int
}

func (e *enumErrors) add(format string, args ...any) {
	e.count++
	if len(e.msgs) < 3 {
		e.msgs = append(e.msgs, fmt.Sprintf(format, args...))
	}
}

func (e *enumErrors) int(what, field string, v *int, allowed []int, required bool) {
	switch {
	case v == nil && required:
		e.add("%s: %s is missing", what, field)
	case v != nil && !slices.Contains(allowed, *v):
		e.add("%s: %s %d is not one of the glTF values %v", what, field, *v, allowed)
	}
}

func (e *enumErrors) str(what, field string, v *string, allowed []string, required bool) {
	switch {
	case v == nil && required:
		e.add("%s: %s is missing", what, field)
	case v != nil && !slices.Contains(allowed, *v):
		e.add("%s: %s %q is not one of the glTF values %q", what, field, *v, allowed)
	}
}

func (e *enumErrors) err() error {
	if e.count == 0 {
		return nil
	}
	msg := e.msgs[0]
	for _, m := range e.msgs[1:] {
		msg += "; " + m
	}
	if e.count > len(e.msgs) {
		msg += fmt.Sprintf("; and %d more", e.count-len(e.msgs))
	}
	return fmt.Errorf("invalid glTF: %s", msg)
}
