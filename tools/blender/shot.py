# Renders one frame of a GLB's animation as Blender 3.4 imports and plays it.
#
#   blender -b --factory-startup -P tools/blender/shot.py -- FILE.glb ACTION SECONDS OUT.png [WxH]
#
# ACTION is the clip's name (Blender's importer calls the action "<clip>_<armature>";
# either is accepted). The camera frames the meshes at rest from the front-left
# (Blender's -Y is the glTF front); Cycles renders on the CPU with few samples, so
# no GPU or display is needed. Exits 0 when written, 1 when the file, action or
# render fails, 2 on bad arguments.

import math
import sys

import bpy
import numpy
from mathutils import Vector

# Blender 3.4's glTF importer still uses numpy aliases that numpy 1.24 removed.
for _name, _type in (("bool", bool), ("int", int), ("float", float), ("object", object)):
    if not hasattr(numpy, _name):
        setattr(numpy, _name, _type)


def parse_args(argv):
    args = argv[argv.index("--") + 1:] if "--" in argv else []
    if len(args) not in (4, 5):
        print("usage: blender -b --factory-startup -P shot.py -- FILE.glb ACTION SECONDS OUT.png [WxH]", file=sys.stderr)
        sys.exit(2)
    w, h = (int(x) for x in (args[4] if len(args) == 5 else "320x360").split("x"))
    return args[0], args[1], float(args[2]), args[3], w, h


def mesh_bounds():
    lo, hi = Vector((math.inf,) * 3), Vector((-math.inf,) * 3)
    for o in bpy.context.scene.objects:
        if o.type != "MESH":
            continue
        for c in o.bound_box:
            p = o.matrix_world @ Vector(c)
            lo, hi = Vector(map(min, lo, p)), Vector(map(max, hi, p))
    return lo, hi


def pose(action_name, seconds):
    """Plays the action on the armature at the time, from the rest pose."""
    arms = [o for o in bpy.context.scene.objects if o.type == "ARMATURE"]
    actions = [a for a in bpy.data.actions if a.name == action_name or a.name.startswith(action_name + "_")]
    if len(arms) != 1 or not actions:
        names = ", ".join(a.name for a in bpy.data.actions)
        raise SystemExit("shot: %d armatures; no action %s (have %s)" % (len(arms), action_name, names))
    arm = arms[0]
    ad = arm.animation_data or arm.animation_data_create()
    for track in ad.nla_tracks:
        track.mute = True
    ad.action = actions[0]
    scene = bpy.context.scene
    f = seconds * scene.render.fps / scene.render.fps_base
    scene.frame_set(int(math.floor(f)), subframe=f - math.floor(f))


def stage(lo, hi, w, h):
    scene = bpy.context.scene
    centre, size = (lo + hi) / 2, (hi - lo).length
    cam = bpy.data.objects.new("ShotCamera", bpy.data.cameras.new("ShotCamera"))
    scene.collection.objects.link(cam)
    yaw = math.radians(60)
    cam.location = centre + Vector((1.6 * size * math.sin(yaw), -1.6 * size * math.cos(yaw), 0.2 * size))
    cam.rotation_euler = (centre - cam.location).to_track_quat("-Z", "Y").to_euler()
    cam.data.angle = math.radians(35)
    scene.camera = cam
    sun = bpy.data.objects.new("ShotSun", bpy.data.lights.new("ShotSun", "SUN"))
    sun.data.energy = 4
    sun.rotation_euler = (math.radians(40), 0, math.radians(30))
    scene.collection.objects.link(sun)
    world = bpy.data.worlds.new("ShotWorld")
    world.color = (0.8, 0.8, 0.8)
    scene.world = world
    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = 16
    scene.cycles.use_denoising = False
    scene.render.resolution_x, scene.render.resolution_y = w, h
    scene.render.resolution_percentage = 100
    scene.render.film_transparent = False


def main():
    path, action, seconds, out, w, h = parse_args(sys.argv)
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.import_scene.gltf(filepath=path)
    lo, hi = mesh_bounds()
    pose(action, seconds)
    stage(lo, hi, w, h)
    bpy.context.scene.render.filepath = out
    bpy.ops.render.render(write_still=True)
    print("RIGKIT_SHOT %s" % out)


main()
