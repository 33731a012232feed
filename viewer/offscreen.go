package viewer

import (
	"errors"
	"fmt"
	"image"

	"github.com/go-gl/gl/v3.3-core/gl"
	"github.com/go-gl/glfw/v3.3/glfw"
)

// offscreen renders views into images without showing a window (a hidden GLFW
// window supplies the context; drawing goes to a multisampled framebuffer object).
// It is safe to use from any goroutine; calls are serialized on the GL thread.
type offscreen struct {
	win              *glfw.Window
	r                *renderer
	w, h             int
	msFBO, msColor   uint32
	msDepth          uint32
	outFBO, outColor uint32
	samples          int32
	closed           bool
}

// newOffscreen makes a w×h offscreen target. It returns an error wrapping
// ErrNoDisplay when no OpenGL 3.3 context can be made.
func newOffscreen(w, h int) (*offscreen, error) {
	if w <= 0 || h <= 0 || w > 16384 || h > 16384 {
		return nil, fmt.Errorf("offscreen: bad size %dx%d", w, h)
	}
	o := &offscreen{w: w, h: h}
	err := onGL(func() error {
		win, err := newWindow(16, 16, "rigkit offscreen", false)
		if err != nil {
			return err
		}
		o.win = win
		if o.r, err = newRenderer(); err != nil {
			win.Destroy()
			return err
		}
		var maxSamples int32
		gl.GetIntegerv(gl.MAX_SAMPLES, &maxSamples)
		o.samples = min(int32(offscreenSamples), maxSamples)
		// Multisampled draw target.
		gl.GenFramebuffers(1, &o.msFBO)
		gl.BindFramebuffer(gl.FRAMEBUFFER, o.msFBO)
		gl.GenRenderbuffers(1, &o.msColor)
		gl.BindRenderbuffer(gl.RENDERBUFFER, o.msColor)
		gl.RenderbufferStorageMultisample(gl.RENDERBUFFER, o.samples, gl.RGBA8, int32(w), int32(h))
		gl.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.RENDERBUFFER, o.msColor)
		gl.GenRenderbuffers(1, &o.msDepth)
		gl.BindRenderbuffer(gl.RENDERBUFFER, o.msDepth)
		gl.RenderbufferStorageMultisample(gl.RENDERBUFFER, o.samples, gl.DEPTH_COMPONENT24, int32(w), int32(h))
		gl.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.DEPTH_ATTACHMENT, gl.RENDERBUFFER, o.msDepth)
		if s := gl.CheckFramebufferStatus(gl.FRAMEBUFFER); s != gl.FRAMEBUFFER_COMPLETE {
			o.free()
			return fmt.Errorf("offscreen: multisampled framebuffer incomplete (0x%x)", s)
		}
		// Resolved single-sample target that glReadPixels reads.
		gl.GenFramebuffers(1, &o.outFBO)
		gl.BindFramebuffer(gl.FRAMEBUFFER, o.outFBO)
		gl.GenRenderbuffers(1, &o.outColor)
		gl.BindRenderbuffer(gl.RENDERBUFFER, o.outColor)
		gl.RenderbufferStorage(gl.RENDERBUFFER, gl.RGBA8, int32(w), int32(h))
		gl.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.RENDERBUFFER, o.outColor)
		if s := gl.CheckFramebufferStatus(gl.FRAMEBUFFER); s != gl.FRAMEBUFFER_COMPLETE {
			o.free()
			return fmt.Errorf("offscreen: framebuffer incomplete (0x%x)", s)
		}
		gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return o, nil
}

// render draws v and returns the image (top row first).
func (o *offscreen) render(v *view) (*image.RGBA, error) {
	if o.closed {
		return nil, errors.New("offscreen: render after Close")
	}
	var img *image.RGBA
	err := onGL(func() error {
		o.win.MakeContextCurrent()
		gl.BindFramebuffer(gl.FRAMEBUFFER, o.msFBO)
		o.r.draw(v, o.w, o.h)
		gl.BindFramebuffer(gl.READ_FRAMEBUFFER, o.msFBO)
		gl.BindFramebuffer(gl.DRAW_FRAMEBUFFER, o.outFBO)
		gl.BlitFramebuffer(0, 0, int32(o.w), int32(o.h), 0, 0, int32(o.w), int32(o.h), gl.COLOR_BUFFER_BIT, gl.NEAREST)
		gl.BindFramebuffer(gl.READ_FRAMEBUFFER, o.outFBO)
		if e := gl.GetError(); e != gl.NO_ERROR {
			return fmt.Errorf("offscreen: OpenGL error 0x%x", e)
		}
		img = readFramebuffer(o.w, o.h)
		gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return img, nil
}

// renderer returns an identification of the OpenGL implementation (vendor, renderer,
// version), e.g. to note software rendering next to a measured frame time.
func (o *offscreen) renderer() string {
	var s string
	_ = onGL(func() error {
		o.win.MakeContextCurrent()
		s = gl.GoStr(gl.GetString(gl.VENDOR)) + " / " + gl.GoStr(gl.GetString(gl.RENDERER)) +
			" / " + gl.GoStr(gl.GetString(gl.VERSION))
		return nil
	})
	return s
}

// finish waits until the GPU has finished all drawing (for timing).
func (o *offscreen) finish() {
	_ = onGL(func() error { o.win.MakeContextCurrent(); gl.Finish(); return nil })
}

// renderNoRead draws v without reading the pixels back (for timing frames).
func (o *offscreen) renderNoRead(v *view) error {
	return onGL(func() error {
		o.win.MakeContextCurrent()
		gl.BindFramebuffer(gl.FRAMEBUFFER, o.msFBO)
		o.r.draw(v, o.w, o.h)
		gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
		return nil
	})
}

func (o *offscreen) free() {
	o.r.release()
	fbs := []uint32{o.msFBO, o.outFBO}
	gl.DeleteFramebuffers(2, &fbs[0])
	rbs := []uint32{o.msColor, o.msDepth, o.outColor}
	gl.DeleteRenderbuffers(3, &rbs[0])
	o.win.Destroy()
}

// close frees the context and its resources.
func (o *offscreen) close() {
	if o.closed {
		return
	}
	o.closed = true
	_ = onGL(func() error { o.win.MakeContextCurrent(); o.free(); return nil })
}

// offscreenSamples is the multisampling of offscreen images (antialiased edges).
var offscreenSamples = 4

// readFramebuffer reads the bound read framebuffer into an opaque image, flipping
// OpenGL's bottom-up rows to top-down.
func readFramebuffer(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	gl.PixelStorei(gl.PACK_ALIGNMENT, 1)
	buf := make([]byte, 4*w*h)
	gl.ReadPixels(0, 0, int32(w), int32(h), gl.RGBA, gl.UNSIGNED_BYTE, gl.Ptr(buf))
	stride := 4 * w
	for y := 0; y < h; y++ {
		copy(img.Pix[y*img.Stride:y*img.Stride+stride], buf[(h-1-y)*stride:(h-y)*stride])
	}
	for i := 3; i < len(img.Pix); i += 4 {
		img.Pix[i] = 255
	}
	return img
}
