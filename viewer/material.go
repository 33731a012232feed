package viewer

import (
	"bytes"
	"encoding/json"
	"image"
	"image/draw"
	_ "image/jpeg" // base colour textures are PNG or JPEG
	_ "image/png"
	"math"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
	"github.com/rigkit/rigkit/assets/gltfio"
	"github.com/rigkit/rigkit/character"
)

// This file reads what the textured mode draws, in plain Go: per triangle group the
// material's base colour (factor and texture, with KHR_texture_transform), its alpha
// mode, and the vertices' colours (COLOR_0), from the character and, when it was
// loaded with its scene, the glTF document.

// alphaMode is a material's glTF alpha mode.
type alphaMode int32

const (
	alphaOpaque alphaMode = iota
	alphaMask
	alphaBlend
)

// surface is one run of triangles drawn with one material.
type surface struct {
	start, count int        // triangles [start, start+count)
	base         [4]float32 // base colour factor, linear RGBA
	texture      *image.RGBA
	// uv is the 2×3 texture transform, row-major: u' = uv[0]u + uv[1]v + uv[2],
	// v' = uv[3]u + uv[4]v + uv[5] (identity without KHR_texture_transform).
	uv          [6]float32
	alpha       alphaMode
	cutoff      float32
	doubleSided bool
}

var identityUV = [6]float32{1, 0, 0, 0, 1, 0}

// surfaces returns the triangle runs of c with their materials. Textures that do
// not decode draw untextured (the loader reported them).
func surfaces(c *character.Character) []surface {
	groups := c.Mesh.Groups
	if len(groups) == 0 {
		groups = []character.TriangleGroup{{Start: 0, Count: len(c.Mesh.Triangles), Material: -1}}
	}
	doc := sourceDoc(c)
	decoded := map[int]*image.RGBA{}
	out := make([]surface, 0, len(groups))
	for _, g := range groups {
		s := surface{start: g.Start, count: g.Count, base: [4]float32{1, 1, 1, 1}, uv: identityUV, cutoff: 0.5}
		if m := g.Material; m >= 0 && m < len(c.Materials) {
			mat := c.Materials[m]
			for i := range s.base {
				s.base[i] = float32(mat.BaseColor[i])
			}
			s.doubleSided = mat.DoubleSided
			if _, ok := decoded[m]; !ok {
				decoded[m] = decodeTexture(mat.BaseColorTexture)
			}
			s.texture = decoded[m]
			if doc != nil && m < len(doc.Materials) && doc.Materials[m] != nil {
				s.readDocMaterial(doc.Materials[m])
			}
		}
		out = append(out, s)
	}
	return out
}

// readDocMaterial takes what the character model does not hold from the glTF
// material: alpha mode and cutoff, and the base colour texture's transform.
func (s *surface) readDocMaterial(gm *gltf.Material) {
	switch gm.AlphaMode {
	case gltf.AlphaMask:
		s.alpha = alphaMask
	case gltf.AlphaBlend:
		s.alpha = alphaBlend
	}
	s.cutoff = float32(gm.AlphaCutoffOrDefault())
	if pbr := gm.PBRMetallicRoughness; pbr != nil && pbr.BaseColorTexture != nil {
		s.uv = textureTransform(pbr.BaseColorTexture.Extensions["KHR_texture_transform"])
	}
}

// textureTransform reads a KHR_texture_transform extension (as the decoder left
// it: raw JSON or the extension package's type) into the 2×3 matrix
// translation · rotation · scale of the extension's definition.
func textureTransform(ext any) [6]float32 {
	if ext == nil {
		return identityUV
	}
	raw, err := json.Marshal(ext)
	if err != nil {
		return identityUV
	}
	t := struct {
		Offset   [2]float64  `json:"offset"`
		Rotation float64     `json:"rotation"`
		Scale    *[2]float64 `json:"scale"`
	}{}
	if json.Unmarshal(raw, &t) != nil {
		return identityUV
	}
	sx, sy := 1.0, 1.0
	if t.Scale != nil {
		sx, sy = t.Scale[0], t.Scale[1]
	}
	c, s := math.Cos(t.Rotation), math.Sin(t.Rotation)
	return [6]float32{float32(c * sx), float32(s * sy), float32(t.Offset[0]),
		float32(-s * sx), float32(c * sy), float32(t.Offset[1])}
}

// applyUV maps a texture coordinate through a surface's transform.
func applyUV(m [6]float32, u, v float32) (float32, float32) {
	return m[0]*u + m[1]*v + m[2], m[3]*u + m[4]*v + m[5]
}

// decodeTexture decodes an embedded PNG or JPEG into RGBA (nil when absent or
// broken: the surface draws with its factor alone).
func decodeTexture(img *character.Image) *image.RGBA {
	if img == nil || len(img.Data) == 0 {
		return nil
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(img.Data))
	if err != nil || cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width > 8192 || cfg.Height > 8192 {
		return nil
	}
	src, _, err := image.Decode(bytes.NewReader(img.Data))
	if err != nil {
		return nil
	}
	dst := image.NewRGBA(src.Bounds())
	draw.Draw(dst, dst.Bounds(), src, src.Bounds().Min, draw.Src)
	return dst
}

// sourceDoc returns the glTF document c was loaded from, or nil.
func sourceDoc(c *character.Character) *gltf.Document {
	if s, ok := c.Source.(*gltfio.Scene); ok && s != nil {
		return s.Doc
	}
	return nil
}

// vertexRGBA returns each vertex's COLOR_0 as linear RGBA (white where the file
// has none), 4 floats per vertex.
func vertexRGBA(c *character.Character) []float32 {
	nv := len(c.Mesh.Positions)
	out := make([]float32, 4*nv)
	for i := range out {
		out[i] = 1
	}
	s, ok := c.Source.(*gltfio.Scene)
	if !ok || s == nil || s.Doc == nil || s.NumVertices != nv {
		return out
	}
	for _, ref := range s.Primitives {
		readColors(s.Doc, ref, out)
	}
	return out
}

// readColors copies one primitive's COLOR_0 into out; a malformed accessor leaves
// the run white (the loader has already checked the file's accessors it uses).
func readColors(doc *gltf.Document, ref gltfio.PrimitiveRef, out []float32) {
	defer func() { _ = recover() }() // modeler trusts the document; never let a bad one crash the viewer
	if ref.Mesh < 0 || ref.Mesh >= len(doc.Meshes) || ref.Primitive < 0 || ref.Primitive >= len(doc.Meshes[ref.Mesh].Primitives) {
		return
	}
	idx, ok := doc.Meshes[ref.Mesh].Primitives[ref.Primitive].Attributes[gltf.COLOR_0]
	if !ok || idx < 0 || idx >= len(doc.Accessors) || ref.First < 0 || ref.First+ref.Count > len(out)/4 {
		return
	}
	cols, err := modeler.ReadColor(doc, doc.Accessors[idx], nil)
	if err != nil || len(cols) != ref.Count {
		return
	}
	for i, col := range cols {
		for k := range 4 {
			out[4*(ref.First+i)+k] = float32(col[k]) / 255
		}
	}
}
