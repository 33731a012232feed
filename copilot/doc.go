// Package copilot completes a skeleton a user starts: the given joints are kept
// exactly, the TokenRig model continues the token stream after them, and the
// anatomical template fills what the model leaves out, at the density asked for.
// It is `rig auto --skeleton` and `rig eval --task complete`.
package copilot
