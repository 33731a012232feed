package viewer

import (
	"github.com/go-gl/gl/v3.3-core/gl"
	"github.com/rigkit/rigkit/character"
)

// uploadSurfaceAttributes fills the UV (location 5) and vertex colour (location 6)
// buffers of the mesh's bound vertex array.
func (m *gpuMesh) uploadSurfaceAttributes(c *character.Character) {
	nv := max(m.nv, 1)
	uv := make([]float32, 2*nv)
	for i, t := range c.Mesh.UVs {
		if i < m.nv {
			uv[2*i], uv[2*i+1] = float32(t[0]), float32(t[1])
		}
	}
	rgba := vertexRGBA(c)
	if len(rgba) < 4*nv {
		rgba = append(rgba, 1, 1, 1, 1)
	}
	bufs := make([]uint32, 2)
	gl.GenBuffers(2, &bufs[0])
	m.uvBuf, m.rgbaBuf = bufs[0], bufs[1]
	upload(m.uvBuf, gl.ARRAY_BUFFER, gl.Ptr(uv), 4*len(uv), gl.STATIC_DRAW)
	gl.EnableVertexAttribArray(5)
	gl.VertexAttribPointerWithOffset(5, 2, gl.FLOAT, false, 0, 0)
	upload(m.rgbaBuf, gl.ARRAY_BUFFER, gl.Ptr(rgba), 4*len(rgba), gl.STATIC_DRAW)
	gl.EnableVertexAttribArray(6)
	gl.VertexAttribPointerWithOffset(6, 4, gl.FLOAT, false, 0, 0)
}

// loadSurfaces reads the mesh's materials and uploads their textures, once.
func (m *gpuMesh) loadSurfaces(c *character.Character) {
	if m.surfDone {
		return
	}
	m.surfDone = true
	m.surfs = surfaces(c)
	m.surfTex = make([]uint32, len(m.surfs))
	uploaded := map[any]uint32{}
	gl.ActiveTexture(gl.TEXTURE1) // unit 0 holds the joint matrices of this draw
	defer gl.ActiveTexture(gl.TEXTURE0)
	for i, s := range m.surfs {
		if s.texture == nil {
			continue
		}
		if t, ok := uploaded[s.texture]; ok {
			m.surfTex[i] = t
			continue
		}
		var t uint32
		gl.GenTextures(1, &t)
		gl.BindTexture(gl.TEXTURE_2D, t)
		b := s.texture.Bounds()
		gl.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA8, int32(b.Dx()), int32(b.Dy()), 0, gl.RGBA, gl.UNSIGNED_BYTE, gl.Ptr(s.texture.Pix))
		gl.GenerateMipmap(gl.TEXTURE_2D)
		gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR_MIPMAP_LINEAR)
		gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.LINEAR)
		gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.REPEAT)
		gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.REPEAT)
		uploaded[s.texture] = t
		m.surfTex[i] = t
	}
}

// drawSurfaces draws the mesh material by material: opaque and masked runs first,
// then blended ones over them without writing depth, as glTF's alpha modes ask.
func (r *renderer) drawSurfaces(c *character.Character, m *gpuMesh) {
	m.loadSurfaces(c)
	gl.Uniform1i(uniform(r.meshProg, "uTextured"), 1)
	gl.Uniform1i(uniform(r.meshProg, "uBaseTex"), 1)
	for _, blended := range []bool{false, true} {
		if blended {
			gl.Enable(gl.BLEND)
			gl.BlendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA)
			gl.DepthMask(false)
		}
		for i, s := range m.surfs {
			if (s.alpha == alphaBlend) == blended {
				r.drawSurface(m, s, m.surfTex[i])
			}
		}
	}
	gl.DepthMask(true)
	gl.Disable(gl.BLEND)
	gl.ActiveTexture(gl.TEXTURE0)
}

// drawSurface draws one material run.
func (r *renderer) drawSurface(m *gpuMesh, s surface, tex uint32) {
	first, count := s.start, s.count
	if total := int(m.count) / 3; first+count > total {
		count = total - first
	}
	if first < 0 || count <= 0 {
		return
	}
	p := r.meshProg
	gl.Uniform4f(uniform(p, "uBase"), s.base[0], s.base[1], s.base[2], s.base[3])
	gl.Uniform3f(uniform(p, "uUV0"), s.uv[0], s.uv[1], s.uv[2])
	gl.Uniform3f(uniform(p, "uUV1"), s.uv[3], s.uv[4], s.uv[5])
	gl.Uniform1i(uniform(p, "uAlphaMode"), int32(s.alpha))
	gl.Uniform1f(uniform(p, "uCutoff"), s.cutoff)
	hasTex := int32(0)
	if tex != 0 {
		hasTex = 1
		gl.ActiveTexture(gl.TEXTURE1)
		gl.BindTexture(gl.TEXTURE_2D, tex)
	}
	gl.Uniform1i(uniform(p, "uHasTex"), hasTex)
	gl.DrawElementsWithOffset(gl.TRIANGLES, int32(3*count), gl.UNSIGNED_INT, uintptr(12*first))
}
