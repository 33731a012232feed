package obj

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rigkit/rigkit/character"
)

// maxMTL bounds one MTL library read for an OBJ.
const maxMTL = 64 << 20

// mtllib reads the libraries of an mtllib statement. File names may contain
// spaces: fields are joined until one ends in ".mtl". A library that cannot be
// read is a warning (its materials become defaults), not an error.
func (p *objParser) mtllib(f []string) {
	var names []string
	cur := ""
	for _, s := range f {
		if cur != "" {
			cur += " "
		}
		cur += s
		if strings.HasSuffix(strings.ToLower(cur), ".mtl") {
			names = append(names, cur)
			cur = ""
		}
	}
	if cur != "" {
		names = append(names, cur)
	}
	for _, n := range names {
		if p.libsRead[n] {
			continue
		}
		if p.libsRead == nil {
			p.libsRead, p.libs = map[string]bool{}, map[string]character.Material{}
		}
		p.libsRead[n] = true
		data, err := p.readLocal(n, maxMTL)
		if err != nil {
			p.rep.Warnf("material library %s not read: %v", n, err)
			continue
		}
		if err := p.parseMTL(data, n); err != nil {
			p.rep.Warnf("material library %s: %v", n, err)
		}
	}
}

// mtlDropped are MTL statements with no place in rigkit's material, reported once.
var mtlDropped = map[string]string{
	"Ke": "emissive colour", "map_Ke": "emissive map", "bump": "bump map", "map_Bump": "bump map", "map_bump": "bump map",
	"norm": "normal map", "map_Ks": "specular map", "map_Ns": "shininess map", "map_Pr": "roughness map",
	"map_Pm": "metallic map", "map_d": "alpha map", "disp": "displacement map", "map_Ka": "ambient map",
	"Pc": "clearcoat", "Pcr": "clearcoat roughness", "Ps": "sheen", "aniso": "anisotropy",
}

// mtlState is the material being defined and which of its fields were given.
type mtlState struct {
	m            character.Material
	alphaSet     bool
	roughnessSet bool
}

// parseMTL adds the materials of one library to p.libs.
func (p *objParser) parseMTL(data []byte, lib string) error {
	var cur *mtlState
	flush := func() {
		if cur != nil {
			p.libs[cur.m.Name] = cur.m
		}
	}
	err := logicalLines(data, func(n int, text string) error {
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		f := strings.Fields(text)
		if len(f) == 0 {
			return nil
		}
		if f[0] == "newmtl" {
			flush()
			name := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(text), "newmtl"))
			cur = &mtlState{m: defaultOBJMaterial(name)}
			return nil
		}
		if cur == nil {
			return nil // statements before the first newmtl belong to no material
		}
		if err := p.mtlStatement(cur, f, lib); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		return nil
	})
	flush()
	return err
}

// mtlStatement applies one MTL statement to the material being defined.
func (p *objParser) mtlStatement(cur *mtlState, f []string, lib string) error {
	m := &cur.m
	one := func() (float64, error) {
		v, err := parseFloats(f[len(f)-1:], 1, 1, f[0])
		if err != nil {
			return 0, err
		}
		return v[0], nil
	}
	switch f[0] {
	case "Kd":
		v, err := parseFloats(f[1:], 1, 3, "Kd")
		if err != nil {
			return err
		}
		if len(f) == 2 { // "Kd r" means grey
			v[1], v[2] = v[0], v[0]
		}
		m.BaseColor[0], m.BaseColor[1], m.BaseColor[2] = clamp01(v[0]), clamp01(v[1]), clamp01(v[2])
	case "d":
		v, err := one()
		if err != nil {
			return err
		}
		m.BaseColor[3], cur.alphaSet = clamp01(v), true
	case "Tr":
		v, err := one()
		if err != nil {
			return err
		}
		if !cur.alphaSet {
			m.BaseColor[3] = clamp01(1 - v)
		}
	case "Pm":
		v, err := one()
		if err != nil {
			return err
		}
		m.Metallic = clamp01(v)
	case "Pr":
		v, err := one()
		if err != nil {
			return err
		}
		m.Roughness, cur.roughnessSet = clamp01(v), true
	case "Ns":
		v, err := one()
		if err != nil {
			return err
		}
		if !cur.roughnessSet {
			m.Roughness = 1 - math.Sqrt(clamp01(v/1000))
		}
	case "map_Kd":
		p.baseColorMap(m, f[1:], lib)
	default:
		if what, ok := mtlDropped[f[0]]; ok {
			p.warnOnce("mtl:"+f[0], "MTL %s (%s) dropped: rigkit's material keeps base colour, alpha, metallic and roughness", f[0], what)
		}
	}
	return nil
}

func clamp01(x float64) float64 { return math.Max(0, math.Min(1, x)) }

// textureOptionArgs is how many numbers each MTL texture option takes (at most;
// -o, -s and -t take one to three).
var textureOptionArgs = map[string]int{
	"-blendu": 1, "-blendv": 1, "-bm": 1, "-boost": 1, "-cc": 1, "-clamp": 1, "-imfchan": 1,
	"-mm": 2, "-o": 3, "-s": 3, "-t": 3, "-texres": 1, "-type": 1,
}

// textureFile returns the file name of a texture statement's fields, after its
// options.
func textureFile(f []string) string {
	i := 0
	for i < len(f) {
		n, ok := textureOptionArgs[f[i]]
		if !ok {
			break
		}
		i++
		for k := 0; k < n && i < len(f)-1; k++ {
			if _, err := strconv.ParseFloat(f[i], 64); err != nil && k > 0 {
				break
			}
			i++
		}
	}
	return strings.Join(f[i:], " ")
}

// baseColorMap reads a map_Kd texture; problems are warnings (the material keeps
// its colour).
func (p *objParser) baseColorMap(m *character.Material, f []string, lib string) {
	name := textureFile(f)
	data, err := p.readLocal(name, maxOBJTexture)
	if err != nil {
		p.rep.Warnf("material %q (%s): base colour texture dropped: %v", m.Name, lib, err)
		return
	}
	mime := ""
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		mime = "image/png"
	case bytes.HasPrefix(data, []byte{0xFF, 0xD8, 0xFF}):
		mime = "image/jpeg"
	default:
		p.rep.Warnf("material %q (%s): base colour texture %s dropped: not PNG or JPEG (the images glTF carries)", m.Name, lib, name)
		return
	}
	m.BaseColorTexture = &character.Image{MIMEType: mime, Data: data}
}
