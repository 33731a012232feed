package animation

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path"
	"sort"
	"strings"

	"github.com/rigkit/rigkit/vecmath"
)

// Kinds of skeleton a clip is written for (the joint naming schemes of docs/naming.md).
const (
	Humanoid  = "humanoid"
	Quadruped = "quadruped"
)

// Clip is one of rigkit's motions, as stored in clips/*.json (docs/animation.md).
//
// Rotations are Euler angles in degrees about the character's axes (X left, Y up,
// Z forward), applied X first, then Y, then Z. Each is the joint's turn relative to
// its parent, measured from the canonical rest pose: the bind pose with every bone
// named in Rest turned to point along its Rest direction. Root translations are
// offsets of the Hips joint in the character's frame, in units of the hip height
// (the Hips joint's height above the lowest joint of the bind pose).
type Clip struct {
	Name        string  `json:"name"`
	Kind        string  `json:"kind"`
	Description string  `json:"description"`
	Duration    float64 `json:"duration"` // seconds
	// Loop says the motion repeats: the pose at Duration is the pose at 0, and
	// interpolation wraps around.
	Loop bool `json:"loop"`
	// Rest gives canonical bone directions (joint → child, character frame) for
	// the joints whose bind direction differs between rigs (arms in a T or A pose).
	Rest map[string]vecmath.Vec3 `json:"rest"`
	// Root keys are [t, x, y, z]: time in seconds and the Hips offset in hip heights.
	Root [][4]float64 `json:"root"`
	// Joints maps a joint name to its keys [t, x, y, z]: time in seconds and the
	// Euler angles in degrees.
	Joints map[string][][4]float64 `json:"joints"`
}

//go:embed clips/*.json
var clipFiles embed.FS

// builtin holds the parsed embedded clips, sorted by kind then name.
var builtin = mustLoadBuiltin()

func mustLoadBuiltin() []*Clip {
	entries, err := clipFiles.ReadDir("clips")
	if err != nil {
		panic(err)
	}
	var out []*Clip
	for _, e := range entries {
		data, err := clipFiles.ReadFile(path.Join("clips", e.Name()))
		if err != nil {
			panic(err)
		}
		c, err := ParseClip(data)
		if err != nil {
			panic(fmt.Sprintf("animation: embedded clip %s: %v", e.Name(), err))
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Kind != out[j].Kind {
			return out[i].Kind < out[j].Kind
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Clips returns rigkit's built-in clips, sorted by kind then name.
func Clips() []*Clip { return append([]*Clip(nil), builtin...) }

// Lookup returns the built-in clip called name for a skeleton kind.
func Lookup(name, kind string) (*Clip, error) {
	var kinds []string
	for _, c := range builtin {
		if c.Name == name {
			if c.Kind == kind {
				return c, nil
			}
			kinds = append(kinds, c.Kind)
		}
	}
	if len(kinds) > 0 {
		return nil, fmt.Errorf("clip %q exists for %s skeletons, not %s", name, strings.Join(kinds, ", "), kind)
	}
	var names []string
	for _, c := range builtin {
		if c.Kind == kind {
			names = append(names, c.Name)
		}
	}
	return nil, fmt.Errorf("no clip %q for %s skeletons (have: %s)", name, kind, strings.Join(names, ", "))
}

// ParseClip decodes and checks a clip file.
func ParseClip(data []byte) (*Clip, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var c Clip
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("clip: %w", err)
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// Validate checks the fields a clip needs: a name, a known kind, a positive
// duration, and tracks of finite keys with increasing times inside the duration.
func (c *Clip) Validate() error {
	switch {
	case c.Name == "":
		return errors.New("clip: no name")
	case c.Kind != Humanoid && c.Kind != Quadruped:
		return fmt.Errorf("clip %q: kind %q is not %s or %s", c.Name, c.Kind, Humanoid, Quadruped)
	case !(c.Duration > 0) || math.IsInf(c.Duration, 0):
		return fmt.Errorf("clip %q: duration %v is not positive", c.Name, c.Duration)
	case len(c.Joints) == 0 && len(c.Root) == 0:
		return fmt.Errorf("clip %q: no tracks", c.Name)
	}
	if err := c.checkTrack("root", c.Root); err != nil {
		return err
	}
	for name, keys := range c.Joints {
		if len(keys) == 0 {
			return fmt.Errorf("clip %q: joint %q has no keys", c.Name, name)
		}
		if err := c.checkTrack(name, keys); err != nil {
			return err
		}
	}
	for name, d := range c.Rest {
		if !d.IsFinite() || d.Len() < 1e-9 {
			return fmt.Errorf("clip %q: rest direction of %q is %v", c.Name, name, d)
		}
	}
	return nil
}

func (c *Clip) checkTrack(name string, keys [][4]float64) error {
	for i, k := range keys {
		for _, v := range k {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("clip %q: %s key %d is not finite", c.Name, name, i)
			}
		}
		if k[0] < 0 || k[0] > c.Duration || (i > 0 && k[0] <= keys[i-1][0]) {
			return fmt.Errorf("clip %q: %s key %d: time %v is outside [0, %v] or not increasing", c.Name, name, i, k[0], c.Duration)
		}
	}
	return nil
}

// sample interpolates a track at time t: a Catmull-Rom spline through the keys,
// periodic when the clip loops, so a few key poses give smooth motion.
func (c *Clip) sample(keys [][4]float64, t float64) [3]float64 {
	n := len(keys)
	val := func(i int) [3]float64 { return [3]float64{keys[i][1], keys[i][2], keys[i][3]} }
	if n == 1 {
		return val(0)
	}
	// key returns the i-th key of the extended sequence (time and value).
	key := func(i int) (float64, [3]float64) {
		if !c.Loop {
			i = max(0, min(n-1, i))
			return keys[i][0], val(i)
		}
		q, r := floorDiv(i, n)
		return keys[r][0] + float64(q)*c.Duration, val(r)
	}
	if c.Loop {
		t = math.Mod(t, c.Duration)
		if t < 0 {
			t += c.Duration
		}
		if t < keys[0][0] {
			t += c.Duration
		}
	} else {
		t = math.Max(keys[0][0], math.Min(keys[n-1][0], t))
	}
	i := 0
	for {
		t1, _ := key(i + 1)
		if t1 >= t || (!c.Loop && i >= n-2) {
			break
		}
		i++
	}
	t0, p0 := key(i)
	t1, p1 := key(i + 1)
	tm, pm := key(i - 1)
	tp, pp := key(i + 2)
	dt := t1 - t0
	if dt <= 0 {
		return p1
	}
	u := (t - t0) / dt
	u2, u3 := u*u, u*u*u
	h00, h10, h01, h11 := 2*u3-3*u2+1, u3-2*u2+u, -2*u3+3*u2, u3-u2
	var out [3]float64
	for a := 0; a < 3; a++ {
		m0, m1 := 0.0, 0.0
		if t1 > tm {
			m0 = (p1[a] - pm[a]) / (t1 - tm) * dt
		}
		if tp > t0 {
			m1 = (pp[a] - p0[a]) / (tp - t0) * dt
		}
		out[a] = h00*p0[a] + h10*m0 + h01*p1[a] + h11*m1
	}
	return out
}

// floorDiv returns q, r with i = q·n + r and 0 ≤ r < n.
func floorDiv(i, n int) (int, int) {
	q := i / n
	r := i % n
	if r < 0 {
		q--
		r += n
	}
	return q, r
}
