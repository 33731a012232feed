package format

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Which files rigkit reads, and what it says about the ones it does not. glTF 2.0
// (.glb, .gltf) and Wavefront OBJ (.obj, with its .mtl and textures) are read
// natively. FBX, COLLADA and .blend files are common in artists' folders but have
// no well-kept Go reader; rather than guess at them, the loader refuses them with
// the Blender and assimp commands that convert them to GLB.

// MeshExtensions are the extensions Load reads, lower case.
var MeshExtensions = []string{".glb", ".gltf", ".obj"}

// IsMeshFile reports whether Load reads path's format (by extension).
func IsMeshFile(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	for _, e := range MeshExtensions {
		if ext == e {
			return true
		}
	}
	return false
}

// convertible describes a format rigkit does not read but Blender and assimp convert.
type convertible struct {
	name string // what the format is called
	// blenderImport is the Python that loads IN into an empty Blender scene; empty
	// for .blend, which Blender opens itself.
	blenderImport string
}

var convertibles = map[string]convertible{
	".fbx":   {name: "FBX", blenderImport: "bpy.ops.import_scene.fbx(filepath=%s)"},
	".dae":   {name: "COLLADA (.dae)", blenderImport: "bpy.ops.wm.collada_import(filepath=%s)"},
	".blend": {name: "Blender (.blend)"},
}

// UnsupportedFormat returns an error naming path's format and the commands that
// convert it to GLB when path is an FBX, COLLADA or .blend file, and nil otherwise.
func UnsupportedFormat(path string) error {
	ext := strings.ToLower(filepath.Ext(path))
	cv, ok := convertibles[ext]
	if !ok {
		return nil
	}
	in, out := pyQuote(path, "IN"+ext), pyQuote(strings.TrimSuffix(path, filepath.Ext(path))+".glb", "OUT.glb")
	export := fmt.Sprintf("bpy.ops.export_scene.gltf(filepath=%s, export_format='GLB')", out)
	var blender string
	if cv.blenderImport == "" {
		blender = fmt.Sprintf(`blender -b %s --python-expr "import bpy; %s"`, shellArg(path, "IN.blend"), export)
	} else {
		blender = fmt.Sprintf(`blender -b --factory-startup --python-expr "import bpy; bpy.ops.wm.read_factory_settings(use_empty=True); %s; %s"`,
			fmt.Sprintf(cv.blenderImport, in), export)
	}
	msg := fmt.Sprintf("%s files are not read by rigkit (it reads .glb, .gltf and .obj); convert it to GLB first, with Blender: %s", cv.name, blender)
	if ext != ".blend" { // assimp has no .blend 2.8+ importer
		msg += fmt.Sprintf(" or with assimp: assimp export %s %s", shellArg(path, "IN"+ext), shellArg(strings.TrimSuffix(path, filepath.Ext(path))+".glb", "OUT.glb"))
	}
	return fmt.Errorf("load %s: %s", path, msg)
}

// pyQuote returns path as a single-quoted Python string inside a double-quoted
// shell argument, or placeholder when path has characters that would need escaping.
func pyQuote(path, placeholder string) string {
	if strings.ContainsAny(path, "'\"\\$`!\n") {
		path = placeholder
	}
	return "'" + path + "'"
}

// shellArg returns path as one shell word, or placeholder when quoting it would
// take escapes.
func shellArg(path, placeholder string) string {
	if strings.ContainsAny(path, "'\"\\$`!\n") {
		return placeholder
	}
	if strings.ContainsAny(path, " \t&;|<>()*?[]#~{}") {
		return "'" + path + "'"
	}
	return path
}
