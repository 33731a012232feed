// Package khronos runs the Khronos glTF validator (tools/validator, installed by
// `make validator`) on written files, so that every package that writes glTF checks
// its output against the specification with one helper.
package khronos
