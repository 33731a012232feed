package viewer

import (
	"fmt"
	"image"
	"strings"
	"unsafe"

	"github.com/go-gl/gl/v3.3-core/gl"
	"github.com/rigkit/rigkit/character"
	"github.com/rigkit/rigkit/vecmath"
)

// layout arranges the rigs of a view.
type layout int

// Layouts.
const (
	sideBySide layout = iota // every rig in its own column
	single                   // only view.Rigs[view.Show], full size
)

// view is everything one frame shows: the rigs, the camera and what to draw.
type view struct {
	Rigs         []*rig
	layout       layout
	Show         int // the rig drawn in the single layout
	Camera       Camera
	Mode         Mode
	HideSkeleton bool
	Overlay      []string // text lines drawn top-left; "!" prefix = error (red)
	// Background is the clear color (RGB, 0..1); zero means the default dark gray.
	Background [3]float32
}

// defaultBackground is the clear color when view.Background is zero.
var defaultBackground = [3]float32{0.16, 0.17, 0.19}

// viewports returns the rigs to draw and their pixel rectangles (x, y from the
// bottom-left as OpenGL counts, w, h).
func (v *view) viewports(w, h int) ([]*rig, [][4]int) {
	if len(v.Rigs) == 0 {
		return nil, nil
	}
	if v.layout == single || len(v.Rigs) == 1 {
		i := v.Show
		if i < 0 || i >= len(v.Rigs) {
			i = 0
		}
		return []*rig{v.Rigs[i]}, [][4]int{{0, 0, w, h}}
	}
	n := len(v.Rigs)
	rects := make([][4]int, n)
	for i := range rects {
		x0, x1 := i*w/n, (i+1)*w/n
		rects[i] = [4]int{x0, 0, x1 - x0, h}
	}
	return v.Rigs, rects
}

// viewportAspect returns the aspect ratio of one rig's viewport in a w×h frame.
func (v *view) viewportAspect(w, h int) float64 {
	_, r := v.viewports(w, h)
	if len(r) == 0 || r[0][3] == 0 {
		return 1
	}
	return float64(r[0][2]) / float64(r[0][3])
}

// frameAll points the camera at the union of the rigs' posed meshes (joints far
// from the mesh, such as prop attachment points, may fall outside).
func (v *view) frameAll(w, h int) {
	first := true
	var lo, hi vecmath.Vec3
	for _, r := range v.Rigs {
		l, u := boundsOf(r.deformedPositions())
		if first {
			lo, hi, first = l, u, false
			continue
		}
		for a := 0; a < 3; a++ {
			lo[a], hi[a] = min(lo[a], l[a]), max(hi[a], u[a])
		}
	}
	if !first {
		v.Camera.frame(lo, hi, v.viewportAspect(w, h))
	}
}

// gpuMesh is a character's vertex arrays on the GPU.
type gpuMesh struct {
	vao uint32
	meshBuffers
	count        int32
	nv           int
	colorKey     string // mode/selection the color buffer holds
	cpuPositions bool   // pos buffer holds CPU-skinned positions
	bindPos      []float32
	// surfs are the material runs the textured mode draws, with their textures
	// (0: none), made on the first textured frame.
	surfs    []surface
	surfTex  []uint32
	surfDone bool
}

// meshBuffers are the GL names of a mesh's vertex attributes, its triangle indices
// and its joint-matrix texture.
type meshBuffers struct {
	posBuf, nrmBuf, colBuf, jntBuf uint32
	wgtBuf, idxBuf, jointTex       uint32
	uvBuf, rgbaBuf                 uint32 // TEXCOORD_0 and COLOR_0, for the textured mode
}

// renderer holds the GL programs and per-character buffers of one context. Its
// methods run on the GL thread with the context current.
type renderer struct {
	meshProg, flatProg, textProg uint32
	meshes                       map[*character.Character]*gpuMesh
	boneVAO, boneBuf             uint32
	textLayer
}

// textLayer is the overlay text's quad, its texture and the text it holds, and the
// cached textures of joint labels.
type textLayer struct {
	textVAO, textBuf, textTex uint32
	textKey                   string
	textW, textH              int
	labelTex                  map[string]labelImg
}

type labelImg struct {
	tex  uint32
	w, h int
}

func newRenderer() (*renderer, error) {
	if err := gl.Init(); err != nil {
		return nil, fmt.Errorf("opengl: load functions: %w", err)
	}
	r := &renderer{meshes: map[*character.Character]*gpuMesh{}, textLayer: textLayer{labelTex: map[string]labelImg{}}}
	var err error
	if r.meshProg, err = program(meshVS, meshFS); err != nil {
		return nil, fmt.Errorf("mesh shader: %w", err)
	}
	if r.flatProg, err = program(flatVS, flatFS); err != nil {
		return nil, fmt.Errorf("bone shader: %w", err)
	}
	if r.textProg, err = program(textVS, textFS); err != nil {
		return nil, fmt.Errorf("text shader: %w", err)
	}
	gl.GenVertexArrays(1, &r.boneVAO)
	gl.GenBuffers(1, &r.boneBuf)
	gl.BindVertexArray(r.boneVAO)
	gl.BindBuffer(gl.ARRAY_BUFFER, r.boneBuf)
	for i := uint32(0); i < 3; i++ {
		gl.EnableVertexAttribArray(i)
		gl.VertexAttribPointerWithOffset(i, 3, gl.FLOAT, false, 36, uintptr(12*i))
	}
	gl.GenVertexArrays(1, &r.textVAO)
	gl.GenBuffers(1, &r.textBuf)
	gl.BindVertexArray(r.textVAO)
	gl.BindBuffer(gl.ARRAY_BUFFER, r.textBuf)
	gl.EnableVertexAttribArray(0)
	gl.VertexAttribPointerWithOffset(0, 4, gl.FLOAT, false, 16, 0)
	gl.BindVertexArray(0)
	return r, nil
}

// release frees what the renderer made (the context must be current).
func (r *renderer) release() {
	for c := range r.meshes {
		r.dropMesh(c)
	}
	for _, l := range r.labelTex {
		gl.DeleteTextures(1, &l.tex)
	}
	gl.DeleteTextures(1, &r.textTex)
	gl.DeleteBuffers(1, &r.boneBuf)
	gl.DeleteBuffers(1, &r.textBuf)
	gl.DeleteVertexArrays(1, &r.boneVAO)
	gl.DeleteVertexArrays(1, &r.textVAO)
	gl.DeleteProgram(r.meshProg)
	gl.DeleteProgram(r.flatProg)
	gl.DeleteProgram(r.textProg)
}

func (r *renderer) dropMesh(c *character.Character) {
	m, ok := r.meshes[c]
	if !ok {
		return
	}
	bufs := []uint32{m.posBuf, m.nrmBuf, m.colBuf, m.jntBuf, m.wgtBuf, m.idxBuf, m.uvBuf, m.rgbaBuf}
	gl.DeleteBuffers(int32(len(bufs)), &bufs[0])
	for _, t := range m.surfTex {
		if t != 0 {
			gl.DeleteTextures(1, &t)
		}
	}
	gl.DeleteTextures(1, &m.jointTex)
	gl.DeleteVertexArrays(1, &m.vao)
	delete(r.meshes, c)
}

// keepOnly drops the GPU meshes of characters no longer shown.
func (r *renderer) keepOnly(rigs []*rig) {
	for c := range r.meshes {
		used := false
		for _, rg := range rigs {
			used = used || rg.Char == c
		}
		if !used {
			r.dropMesh(c)
		}
	}
}

func upload(buf uint32, target uint32, data unsafe.Pointer, bytes int, usage uint32) {
	gl.BindBuffer(target, buf)
	gl.BufferData(target, bytes, data, usage)
}

func (r *renderer) mesh(c *character.Character) *gpuMesh {
	if m, ok := r.meshes[c]; ok {
		return m
	}
	d := buildMeshData(c)
	m := &gpuMesh{count: int32(len(d.idx)), nv: len(c.Mesh.Positions), bindPos: d.pos}
	gl.GenVertexArrays(1, &m.vao)
	gl.BindVertexArray(m.vao)
	bufs := make([]uint32, 6)
	gl.GenBuffers(6, &bufs[0])
	m.posBuf, m.nrmBuf, m.colBuf, m.jntBuf, m.wgtBuf, m.idxBuf = bufs[0], bufs[1], bufs[2], bufs[3], bufs[4], bufs[5]
	nv := m.nv
	if nv == 0 {
		nv = 1 // keep buffers valid
		d.pos, d.nrm, d.joints, d.weights = make([]float32, 3), make([]float32, 3), make([]int32, 4), make([]float32, 4)
	}
	upload(m.posBuf, gl.ARRAY_BUFFER, gl.Ptr(d.pos), 4*len(d.pos), gl.DYNAMIC_DRAW)
	gl.EnableVertexAttribArray(0)
	gl.VertexAttribPointerWithOffset(0, 3, gl.FLOAT, false, 0, 0)
	upload(m.nrmBuf, gl.ARRAY_BUFFER, gl.Ptr(d.nrm), 4*len(d.nrm), gl.STATIC_DRAW)
	gl.EnableVertexAttribArray(1)
	gl.VertexAttribPointerWithOffset(1, 3, gl.FLOAT, false, 0, 0)
	upload(m.colBuf, gl.ARRAY_BUFFER, nil, 12*nv, gl.DYNAMIC_DRAW)
	gl.EnableVertexAttribArray(2)
	gl.VertexAttribPointerWithOffset(2, 3, gl.FLOAT, false, 0, 0)
	upload(m.jntBuf, gl.ARRAY_BUFFER, gl.Ptr(d.joints), 4*len(d.joints), gl.STATIC_DRAW)
	gl.EnableVertexAttribArray(3)
	gl.VertexAttribIPointerWithOffset(3, 4, gl.INT, 0, 0)
	upload(m.wgtBuf, gl.ARRAY_BUFFER, gl.Ptr(d.weights), 4*len(d.weights), gl.STATIC_DRAW)
	gl.EnableVertexAttribArray(4)
	gl.VertexAttribPointerWithOffset(4, 4, gl.FLOAT, false, 0, 0)
	if len(d.idx) > 0 {
		upload(m.idxBuf, gl.ELEMENT_ARRAY_BUFFER, gl.Ptr(d.idx), 4*len(d.idx), gl.STATIC_DRAW)
	} else {
		gl.BindBuffer(gl.ELEMENT_ARRAY_BUFFER, m.idxBuf)
	}
	m.uploadSurfaceAttributes(c)
	gl.BindVertexArray(0)
	gl.GenTextures(1, &m.jointTex)
	gl.BindTexture(gl.TEXTURE_2D, m.jointTex)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST)
	r.meshes[c] = m
	return m
}

// draw renders the view into the bound framebuffer of size w×h.
func (r *renderer) draw(v *view, w, h int) {
	bg := v.Background
	if bg == ([3]float32{}) {
		bg = defaultBackground
	}
	gl.Viewport(0, 0, int32(w), int32(h))
	gl.ClearColor(bg[0], bg[1], bg[2], 1)
	gl.Clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT)
	rigs, rects := v.viewports(w, h)
	r.keepOnly(v.Rigs)
	for i, rg := range rigs {
		rc := rects[i]
		gl.Viewport(int32(rc[0]), int32(rc[1]), int32(rc[2]), int32(rc[3]))
		aspect := float64(rc[2]) / float64(max(rc[3], 1))
		r.drawRig(v, rg, v.Camera.viewProj(aspect), v.Camera.view())
	}
	gl.Viewport(0, 0, int32(w), int32(h))
	for i, rg := range rigs {
		if rg.Label != "" {
			r.drawLabel(rg.Label, rects[i], w, h)
		}
	}
	if len(v.Overlay) > 0 {
		r.drawText(v.Overlay, w, h)
	}
}

func (r *renderer) drawRig(v *view, rg *rig, viewProj, view vecmath.Mat4) {
	c := rg.Char
	m := r.mesh(c)
	world := rg.posedWorld()
	// Joint matrices: one texture row per joint, four RGBA32F texels = four columns.
	skinned := int32(0)
	if c.Rigged() && len(world) > 0 && !rg.CPUSkin {
		skin := c.Skeleton.SkinningMatrices(world)
		tex := make([]float32, 16*len(skin))
		for j, s := range skin {
			f := f32(s)
			copy(tex[16*j:], f[:])
		}
		gl.BindTexture(gl.TEXTURE_2D, m.jointTex)
		gl.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA32F, 4, int32(len(skin)), 0, gl.RGBA, gl.FLOAT, gl.Ptr(tex))
		skinned = 1
	}
	// Positions: bind pose for GPU skinning, or CPU-skinned.
	if rg.CPUSkin && c.Rigged() {
		def := rg.deformedPositions()
		p := make([]float32, 3*len(def))
		for i, q := range def {
			p[3*i], p[3*i+1], p[3*i+2] = float32(q[0]), float32(q[1]), float32(q[2])
		}
		upload(m.posBuf, gl.ARRAY_BUFFER, gl.Ptr(p), 4*len(p), gl.DYNAMIC_DRAW)
		m.cpuPositions = true
	} else if m.cpuPositions {
		upload(m.posBuf, gl.ARRAY_BUFFER, gl.Ptr(m.bindPos), 4*len(m.bindPos), gl.DYNAMIC_DRAW)
		m.cpuPositions = false
	}
	key := fmt.Sprintf("%d/%d/%p/%d", v.Mode, rg.Selected, rg.Highlight, len(rg.Highlight))
	if key != m.colorKey && m.nv > 0 {
		col := vertexColors(c, v.Mode, rg.Selected)
		paintHighlight(col, rg.Highlight)
		upload(m.colBuf, gl.ARRAY_BUFFER, gl.Ptr(col), 4*len(col), gl.DYNAMIC_DRAW)
		m.colorKey = key
	}

	vp, vw := f32(viewProj), f32(view)
	gl.Enable(gl.DEPTH_TEST)
	gl.DepthFunc(gl.LESS)
	gl.Disable(gl.CULL_FACE)
	gl.UseProgram(r.meshProg)
	gl.UniformMatrix4fv(uniform(r.meshProg, "uViewProj"), 1, false, &vp[0])
	gl.UniformMatrix4fv(uniform(r.meshProg, "uView"), 1, false, &vw[0])
	gl.Uniform1i(uniform(r.meshProg, "uSkinned"), skinned)
	gl.Uniform1i(uniform(r.meshProg, "uJoints"), 0)
	lit := int32(1)
	if v.Mode == ModeHeatmap || v.Mode == ModeInfluences {
		lit = 2 // mostly flat colors so weights read true, a little shading for shape
	}
	gl.Uniform1i(uniform(r.meshProg, "uLit"), lit)
	gl.Uniform1i(uniform(r.meshProg, "uTextured"), 0)
	gl.ActiveTexture(gl.TEXTURE0)
	gl.BindTexture(gl.TEXTURE_2D, m.jointTex)
	gl.BindVertexArray(m.vao)
	if v.Mode == ModeWireframe {
		gl.PolygonMode(gl.FRONT_AND_BACK, gl.LINE)
	}
	switch {
	case v.Mode == ModeTextured:
		r.drawSurfaces(c, m)
	case m.count > 0:
		gl.DrawElementsWithOffset(gl.TRIANGLES, m.count, gl.UNSIGNED_INT, 0)
	}
	gl.PolygonMode(gl.FRONT_AND_BACK, gl.FILL)
	gl.BindVertexArray(0)

	if v.HideSkeleton || len(world) == 0 {
		return
	}
	// Skeleton on top of the mesh: clear depth so bones hide only each other.
	gl.Clear(gl.DEPTH_BUFFER_BIT)
	bones := boneGeometry(world, c.Skeleton.Parents, rg.Selected)
	points := jointPoints(world, rg.Selected)
	all := append(bones, points...)
	gl.UseProgram(r.flatProg)
	gl.UniformMatrix4fv(uniform(r.flatProg, "uViewProj"), 1, false, &vp[0])
	gl.UniformMatrix4fv(uniform(r.flatProg, "uView"), 1, false, &vw[0])
	gl.BindVertexArray(r.boneVAO)
	upload(r.boneBuf, gl.ARRAY_BUFFER, gl.Ptr(all), 4*len(all), gl.STREAM_DRAW)
	gl.Uniform1i(uniform(r.flatProg, "uPoint"), 0)
	if nb := int32(len(bones) / 9); nb > 0 {
		gl.DrawArrays(gl.TRIANGLES, 0, nb)
	}
	gl.Disable(gl.DEPTH_TEST)
	gl.Enable(gl.PROGRAM_POINT_SIZE)
	gl.Uniform1i(uniform(r.flatProg, "uPoint"), 1)
	gl.DrawArrays(gl.POINTS, int32(len(bones)/9), int32(len(points)/9))
	gl.BindVertexArray(0)
}

// drawText draws the overlay lines in the top-left corner.
func (r *renderer) drawText(lines []string, w, h int) {
	key := strings.Join(lines, "\n")
	if key != r.textKey || r.textTex == 0 {
		img := renderText(lines)
		if r.textTex == 0 {
			gl.GenTextures(1, &r.textTex)
		}
		uploadImage(r.textTex, img)
		r.textKey, r.textW, r.textH = key, img.Rect.Dx(), img.Rect.Dy()
	}
	r.blit(r.textTex, 6, 6, r.textW, r.textH, w, h)
}

// drawLabel draws a rig's label at the bottom center of its viewport rc.
func (r *renderer) drawLabel(label string, rc [4]int, w, h int) {
	l, ok := r.labelTex[label]
	if !ok {
		img := renderText([]string{label})
		gl.GenTextures(1, &l.tex)
		uploadImage(l.tex, img)
		l.w, l.h = img.Rect.Dx(), img.Rect.Dy()
		r.labelTex[label] = l
	}
	x := rc[0] + (rc[2]-l.w)/2
	y := h - rc[1] - l.h - 6 // bottom of the viewport, in top-left pixel coordinates
	r.blit(l.tex, x, y, l.w, l.h, w, h)
}

func uploadImage(tex uint32, img *image.RGBA) {
	gl.BindTexture(gl.TEXTURE_2D, tex)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST)
	gl.PixelStorei(gl.UNPACK_ALIGNMENT, 1)
	gl.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA8, int32(img.Rect.Dx()), int32(img.Rect.Dy()), 0,
		gl.RGBA, gl.UNSIGNED_BYTE, gl.Ptr(img.Pix))
}

// blit draws texture tex as a tw×th rectangle at (x, y) pixels from the top-left of
// a w×h framebuffer, alpha blended.
func (r *renderer) blit(tex uint32, x, y, tw, th, w, h int) {
	x0 := 2*float32(x)/float32(w) - 1
	x1 := 2*float32(x+tw)/float32(w) - 1
	y0 := 1 - 2*float32(y)/float32(h)
	y1 := 1 - 2*float32(y+th)/float32(h)
	quad := []float32{
		x0, y0, 0, 0, x1, y0, 1, 0, x1, y1, 1, 1,
		x0, y0, 0, 0, x1, y1, 1, 1, x0, y1, 0, 1,
	}
	gl.Disable(gl.DEPTH_TEST)
	gl.Enable(gl.BLEND)
	gl.BlendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA)
	gl.UseProgram(r.textProg)
	gl.ActiveTexture(gl.TEXTURE0)
	gl.BindTexture(gl.TEXTURE_2D, tex)
	gl.Uniform1i(uniform(r.textProg, "uTex"), 0)
	gl.BindVertexArray(r.textVAO)
	upload(r.textBuf, gl.ARRAY_BUFFER, gl.Ptr(quad), 4*len(quad), gl.STREAM_DRAW)
	gl.DrawArrays(gl.TRIANGLES, 0, 6)
	gl.BindVertexArray(0)
	gl.Disable(gl.BLEND)
}

func uniform(prog uint32, name string) int32 {
	return gl.GetUniformLocation(prog, gl.Str(name+"\x00"))
}

func program(vs, fs string) (uint32, error) {
	v, err := compile(vs, gl.VERTEX_SHADER)
	if err != nil {
		return 0, err
	}
	f, err := compile(fs, gl.FRAGMENT_SHADER)
	if err != nil {
		return 0, err
	}
	p := gl.CreateProgram()
	gl.AttachShader(p, v)
	gl.AttachShader(p, f)
	gl.LinkProgram(p)
	gl.DeleteShader(v)
	gl.DeleteShader(f)
	var ok int32
	gl.GetProgramiv(p, gl.LINK_STATUS, &ok)
	if ok == gl.FALSE {
		var n int32
		gl.GetProgramiv(p, gl.INFO_LOG_LENGTH, &n)
		log := strings.Repeat("\x00", int(n+1))
		gl.GetProgramInfoLog(p, n, nil, gl.Str(log))
		return 0, fmt.Errorf("link: %s", strings.TrimRight(log, "\x00"))
	}
	return p, nil
}

func compile(src string, kind uint32) (uint32, error) {
	s := gl.CreateShader(kind)
	cs, free := gl.Strs(src + "\x00")
	gl.ShaderSource(s, 1, cs, nil)
	free()
	gl.CompileShader(s)
	var ok int32
	gl.GetShaderiv(s, gl.COMPILE_STATUS, &ok)
	if ok == gl.FALSE {
		var n int32
		gl.GetShaderiv(s, gl.INFO_LOG_LENGTH, &n)
		log := strings.Repeat("\x00", int(n+1))
		gl.GetShaderInfoLog(s, n, nil, gl.Str(log))
		gl.DeleteShader(s)
		return 0, fmt.Errorf("compile: %s", strings.TrimRight(log, "\x00"))
	}
	return s, nil
}

const meshVS = `#version 330 core
layout(location = 0) in vec3 aPos;
layout(location = 1) in vec3 aNormal;
layout(location = 2) in vec3 aColor;
layout(location = 3) in ivec4 aJoints;
layout(location = 4) in vec4 aWeights;
layout(location = 5) in vec2 aUV;
layout(location = 6) in vec4 aRGBA;
uniform mat4 uViewProj;
uniform mat4 uView;
uniform int uSkinned;
uniform sampler2D uJoints; // row j holds joint j's skinning matrix, one column per texel
uniform vec3 uUV0;         // KHR_texture_transform, rows of the 2×3 matrix
uniform vec3 uUV1;
out vec3 vNormal;
out vec3 vColor;
out vec2 vUV;
out vec4 vRGBA;

mat4 joint(int j) {
	return mat4(texelFetch(uJoints, ivec2(0, j), 0), texelFetch(uJoints, ivec2(1, j), 0),
	            texelFetch(uJoints, ivec2(2, j), 0), texelFetch(uJoints, ivec2(3, j), 0));
}

void main() {
	mat4 skin = mat4(1.0);
	float wsum = aWeights.x + aWeights.y + aWeights.z + aWeights.w;
	if (uSkinned == 1 && wsum > 0.0) {
		skin = aWeights.x * joint(aJoints.x) + aWeights.y * joint(aJoints.y)
		     + aWeights.z * joint(aJoints.z) + aWeights.w * joint(aJoints.w);
	}
	vec4 p = skin * vec4(aPos, 1.0);
	vNormal = mat3(uView) * (mat3(skin) * aNormal);
	vColor = aColor;
	vUV = vec2(dot(uUV0, vec3(aUV, 1.0)), dot(uUV1, vec3(aUV, 1.0)));
	vRGBA = aRGBA;
	gl_Position = uViewProj * p;
}
`

const meshFS = `#version 330 core
in vec3 vNormal;
in vec3 vColor;
in vec2 vUV;
in vec4 vRGBA;
uniform int uLit;
uniform int uTextured;   // 1: base colour factor × COLOR_0 × texture
uniform int uHasTex;
uniform sampler2D uBaseTex;
uniform vec4 uBase;      // linear base colour factor
uniform int uAlphaMode;  // 0 opaque, 1 mask, 2 blend
uniform float uCutoff;
out vec4 fragColor;
void main() {
	vec3 n = normalize(vNormal);
	float d = abs(n.z); // headlight, two-sided
	vec3 key = normalize(vec3(0.4, 0.7, 0.6));
	float k = max(dot(n, key), 0.0);
	vec3 base = vColor;
	float alpha = 1.0;
	if (uTextured == 1) {
		vec4 lin = uBase * vRGBA;
		vec4 t = uHasTex == 1 ? texture(uBaseTex, vUV) : vec4(1.0);
		base = pow(lin.rgb, vec3(1.0 / 2.2)) * t.rgb; // the texture is sRGB already
		alpha = lin.a * t.a;
		if (uAlphaMode == 1 && alpha < uCutoff) discard;
		if (uAlphaMode != 2) alpha = 1.0;
	}
	vec3 c;
	if (uLit == 2) {
		c = base * (0.75 + 0.25 * d);
	} else {
		c = base * (0.25 + 0.55 * d + 0.25 * k);
	}
	fragColor = vec4(c, alpha);
}
`

const flatVS = `#version 330 core
layout(location = 0) in vec3 aPos;
layout(location = 1) in vec3 aNormal;
layout(location = 2) in vec3 aColor;
uniform mat4 uViewProj;
uniform mat4 uView;
uniform int uPoint;
out vec3 vNormal;
out vec3 vColor;
void main() {
	vNormal = mat3(uView) * aNormal;
	vColor = aColor;
	gl_Position = uViewProj * vec4(aPos, 1.0);
	gl_PointSize = 9.0;
}
`

const flatFS = `#version 330 core
in vec3 vNormal;
in vec3 vColor;
uniform int uPoint;
out vec4 fragColor;
void main() {
	if (uPoint == 1) {
		vec2 q = gl_PointCoord * 2.0 - 1.0;
		float r = dot(q, q);
		if (r > 1.0) discard;
		fragColor = vec4(r > 0.55 ? vec3(0.05) : vColor, 1.0);
		return;
	}
	float d = abs(normalize(vNormal).z);
	fragColor = vec4(vColor * (0.45 + 0.55 * d), 1.0);
}
`

const textVS = `#version 330 core
layout(location = 0) in vec4 aPosUV;
out vec2 vUV;
void main() {
	vUV = aPosUV.zw;
	gl_Position = vec4(aPosUV.xy, 0.0, 1.0);
}
`

const textFS = `#version 330 core
in vec2 vUV;
uniform sampler2D uTex;
out vec4 fragColor;
void main() { fragColor = texture(uTex, vUV); }
`
