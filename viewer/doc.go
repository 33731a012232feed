// Package viewer is rigkit's OpenGL 3.3 viewer for artists: it draws a rigged
// character skinned on the GPU with its skeleton, weight heatmaps and influence counts,
// and lets an artist orbit, pick bones, pose them and compare two rigs of one mesh.
// It also renders the same views offscreen to PNG for docs, tests and batch previews.
//
// The camera, picking, colormaps, text and animation sampling are pure Go and work
// without a display; everything that touches OpenGL runs on one dedicated OS thread
// and reports ErrNoDisplay when no GL context can be made (run under `xvfb-run -a`).
package viewer
