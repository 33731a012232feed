package viewer

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"

	"github.com/go-gl/glfw/v3.3/glfw"
)

// ErrNoDisplay reports that no OpenGL context could be made: there is no display,
// or the display offers no OpenGL 3.3 core context.
var ErrNoDisplay = errors.New("no display for OpenGL: set DISPLAY, or run under `xvfb-run -a` " +
	"(Mesa's software renderer: LIBGL_ALWAYS_SOFTWARE=1)")

// All GLFW and OpenGL calls run on one goroutine locked to its OS thread, so that
// callers on any goroutine (tests, commands) share one thread-affine context.
var (
	glOnce   sync.Once
	glCalls  chan func()
	glfwUp   bool  // glfw.Init succeeded (touched only on the GL thread)
	glfwErr  error // why it did not
	glfwDone bool
)

// onGL runs f on the GL thread and returns its error; a panic inside (go-gl/glfw
// panics on some errors) comes back as an error.
func onGL(f func() error) (err error) {
	glOnce.Do(func() {
		glCalls = make(chan func())
		go func() {
			runtime.LockOSThread()
			for call := range glCalls {
				call()
			}
		}()
	})
	done := make(chan struct{})
	glCalls <- func() {
		defer close(done)
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("opengl: %v", r)
			}
		}()
		err = f()
	}
	<-done
	return err
}

// initGLFW initializes GLFW once; it runs on the GL thread.
func initGLFW() error {
	if glfwDone {
		return glfwErr
	}
	glfwDone = true
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		glfwErr = ErrNoDisplay
		return glfwErr
	}
	if err := glfw.Init(); err != nil {
		glfwErr = fmt.Errorf("%w: glfw: %v", ErrNoDisplay, err)
		return glfwErr
	}
	glfwUp = true
	return nil
}

// newWindow makes a window with a 3.3 core context and makes it current; it runs on
// the GL thread. A panic from GLFW (e.g. the display could not be opened) is
// reported as ErrNoDisplay.
func newWindow(w, h int, title string, visible bool) (win *glfw.Window, err error) {
	if err := initGLFW(); err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			win, err = nil, fmt.Errorf("%w: %v", ErrNoDisplay, r)
		}
	}()
	glfw.DefaultWindowHints()
	glfw.WindowHint(glfw.ContextVersionMajor, 3)
	glfw.WindowHint(glfw.ContextVersionMinor, 3)
	glfw.WindowHint(glfw.OpenGLProfile, glfw.OpenGLCoreProfile)
	glfw.WindowHint(glfw.OpenGLForwardCompatible, glfw.True)
	glfw.WindowHint(glfw.Samples, 4)
	if !visible {
		glfw.WindowHint(glfw.Visible, glfw.False)
	}
	win, err = glfw.CreateWindow(w, h, title, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: create window: %v", ErrNoDisplay, err)
	}
	win.MakeContextCurrent()
	return win, nil
}
