# Bone-heat baseline for `rig eval --task skin --external NAME=DIR`.
#
# Runs Blender's "Automatic Weights" (bone heat) on each rigged GLB with the file's
# own armature, and writes the resulting per-vertex weights as JSON (the format
# `rig eval --external` reads, see docs/skinning.md). Run it with Blender 3.4
# (Debian: apt-get install blender python3-numpy; the importer needs numpy):
#
#   blender -b --factory-startup -P tools/blender/heat.py -- \
#       [--weld] --root ../shared/data --out /tmp/heat_weld FILE.glb...
#
# --weld merges vertices closer than 1e-4 (Blender's "Merge by Distance" default)
# before the weights are computed, as a careful user does. Each input
# ROOT/sub/name.glb gives OUT/sub/name.json; a file that exists is skipped, so a run
# can be resumed. A file Blender cannot import or weight gets OUT/sub/name.json with
# an "error" field.
#
# Positions are written in glTF's frame (+Y up), in the file's units, in the
# armature's space: that is the skinned vertices' bind space, the frame rigkit reads
# (glTF ignores a skinned mesh's node transform; the importer puts the armature
# object at the joints' non-joint parent, whose transform the inverse bind matrices
# already hold). Blender's importer turns glTF (x, y, z) into (x, -z, y), and this
# script turns it back. Only the skin's joints deform: the importer also makes bones
# of non-joint nodes between them, which the file never weights.

import json
import os
import sys
import time

import bpy
import numpy

# Blender 3.4's glTF importer still uses numpy aliases that numpy 1.24 (Debian 12)
# removed; put them back for this process.
for _name, _type in (("bool", bool), ("int", int), ("float", float), ("object", object)):
    if not hasattr(numpy, _name):
        setattr(numpy, _name, _type)


def parse_args(argv):
    args = {"weld": False, "root": ".", "out": None, "files": []}
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--weld":
            args["weld"] = True
        elif a in ("--root", "--out"):
            i += 1
            if i == len(argv):
                raise SystemExit("heat.py: %s needs a folder" % a)
            args[a[2:]] = argv[i]
        else:
            args["files"].append(a)
        i += 1
    if not args["out"] or not args["files"]:
        raise SystemExit("usage: heat.py [--weld] [--root DIR] --out DIR FILE.glb...")
    return args


def to_gltf(v):
    return [v[0], v[2], -v[1]]


def weight_file(path, weld):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.import_scene.gltf(filepath=path)
    objs = list(bpy.context.scene.objects)
    arms = [o for o in objs if o.type == "ARMATURE"]
    if not arms:
        raise RuntimeError("no armature after import")
    meshes = []
    for o in objs:
        if o.type != "MESH":
            continue
        mods = [m for m in o.modifiers if m.type == "ARMATURE" and m.object is not None]
        if mods:
            meshes.append((o, mods[0].object))
    if not meshes:
        raise RuntimeError("no skinned mesh after import")
    arm = meshes[0][1]
    # The importer makes a bone of every node between the joints (a non-joint parent
    # too) and a vertex group of every joint of the skin. Only the skin's joints may
    # get weights, as in the file.
    joints = {g.name for o, _ in meshes for g in o.vertex_groups}
    if joints:
        for b in arm.data.bones:
            b.use_deform = b.name in joints
    to_arm = arm.matrix_world.inverted()
    bpy.ops.object.select_all(action="DESELECT")
    for o, _ in meshes:
        # Forget the artist's skin: modifier, vertex groups and parenting.
        for m in list(o.modifiers):
            if m.type == "ARMATURE":
                o.modifiers.remove(m)
        o.vertex_groups.clear()
        mw = o.matrix_world.copy()
        o.parent = None
        o.matrix_world = mw
        if weld:
            bpy.context.view_layer.objects.active = o
            o.select_set(True)
            bpy.ops.object.mode_set(mode="EDIT")
            bpy.ops.mesh.select_all(action="SELECT")
            bpy.ops.mesh.remove_doubles(threshold=0.0001)
            bpy.ops.object.mode_set(mode="OBJECT")
            o.select_set(False)
    bpy.ops.object.select_all(action="DESELECT")
    for o, _ in meshes:
        o.select_set(True)
    arm.select_set(True)
    bpy.context.view_layer.objects.active = arm
    t0 = time.time()
    bpy.ops.object.parent_set(type="ARMATURE_AUTO")
    secs = time.time() - t0
    bones = [b.name for b in arm.data.bones]
    heads = [to_gltf(b.head_local) for b in arm.data.bones]
    verts, weights = [], []
    for o, _ in meshes:
        names = {g.index: g.name for g in o.vertex_groups}
        index = {n: i for i, n in enumerate(bones)}
        for v in o.data.vertices:
            verts.append([round(c, 7) for c in to_gltf(to_arm @ o.matrix_world @ v.co)])
            inf = []
            for g in v.groups:
                n = names.get(g.group)
                if n in index and g.weight > 0:
                    inf.append([index[n], round(g.weight, 6)])
            weights.append(inf)
    return {"method": "blender bone heat" + (" (welded)" if weld else ""),
            "blender": bpy.app.version_string, "seconds": round(secs, 3),
            "joints": bones, "joint_heads": heads, "vertices": verts, "weights": weights}


def main():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    args = parse_args(argv)
    for f in args["files"]:
        rel = os.path.relpath(f, args["root"])
        out = os.path.join(args["out"], os.path.splitext(rel)[0] + ".json")
        if os.path.exists(out):
            continue
        os.makedirs(os.path.dirname(out), exist_ok=True)
        try:
            doc = weight_file(f, args["weld"])
        except Exception as e:  # reported in the file, the run goes on
            doc = {"error": "%s: %s" % (type(e).__name__, e)}
        tmp = out + ".tmp"
        with open(tmp, "w") as fh:
            json.dump(doc, fh, separators=(",", ":"))
        os.replace(tmp, out)
        print("heat:", rel, doc.get("error", "%d vertices" % len(doc.get("vertices", []))), flush=True)


main()
