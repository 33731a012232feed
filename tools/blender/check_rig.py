# Checks how Blender 3.4 sees a rigged, animated GLB: the armature, the direction of
# every single-child bone, and whether each animation (an action) moves bones.
#
#   blender -b --factory-startup -P tools/blender/check_rig.py -- FILE.glb... [--max-angle DEG]
#
# For each file it prints one JSON object on a line of its own, prefixed
# "RIGKIT_CHECK ", and exits 0 when every check of every file passes, 1 when one
# fails (2 on bad arguments; a file Blender cannot import gets "error"):
#   - the scene has exactly one armature, with bones;
#   - every bone with exactly one child points at it: the angle between the bone
#     (head → tail) and the child's head seen from the head is under --max-angle
#     degrees (default 3); Blender's importer puts a bone's tail along the joint's
#     local +Y, so this holds when the file's joint rotations aim at their children;
#   - there is at least one action, and each moves some bone's head or rotation
#     over its frame range (sampled at 12 frames);
#   - each action keeps the deformed meshes upright and sized at those frames:
#     their height along Z (Blender's up) within 0.6-1.4x the rest height, no
#     extent over twice the largest rest extent (rigkit's animation.CheckPosture),
#     and the rest's lowest and highest 5% of vertices in the lowest and highest
#     quarter of the posed height (lying down or standing on the head fails).
#
# Debian: apt-get install blender python3-numpy (the importer needs numpy).

import json
import math
import sys

import bpy
import numpy
from mathutils import Vector

# Blender 3.4's glTF importer still uses numpy aliases that numpy 1.24 (Debian 12)
# removed; put them back for this process.
for _name, _type in (("bool", bool), ("int", int), ("float", float), ("object", object)):
    if not hasattr(numpy, _name):
        setattr(numpy, _name, _type)


def parse_args(argv):
    args = argv[argv.index("--") + 1:] if "--" in argv else []
    max_angle = 3.0
    files = []
    i = 0
    while i < len(args):
        if args[i] == "--max-angle" and i + 1 < len(args):
            max_angle = float(args[i + 1])
            i += 2
            continue
        files.append(args[i])
        i += 1
    if not files:
        print("usage: blender -b --factory-startup -P check_rig.py -- FILE.glb... [--max-angle DEG]", file=sys.stderr)
        sys.exit(2)
    return files, max_angle


def bone_directions(arm, max_angle):
    """Angles between each single-child bone and the direction to its child."""
    out = {"single_child_bones": 0, "pointing": 0, "worst_angle_deg": 0.0, "bad_bones": []}
    for b in arm.data.bones:
        if len(b.children) != 1:
            continue
        child = b.children[0]
        to_child = child.head_local - b.head_local
        bone = b.tail_local - b.head_local
        if to_child.length < 1e-9 or bone.length < 1e-9:
            continue
        ang = math.degrees(bone.angle(to_child))
        out["single_child_bones"] += 1
        out["worst_angle_deg"] = max(out["worst_angle_deg"], ang)
        if ang < max_angle:
            out["pointing"] += 1
        else:
            out["bad_bones"].append({"bone": b.name, "child": child.name, "angle_deg": round(ang, 2)})
    return out


def pose_state(arm):
    return {pb.name: (pb.head.copy(), pb.matrix.to_quaternion()) for pb in arm.pose.bones}


MAX_POINTS = 3000  # vertices sampled per mesh


def mesh_points():
    """World positions of sampled vertices of every mesh, as deformed at the current frame."""
    depsgraph = bpy.context.evaluated_depsgraph_get()
    pts = []
    for o in bpy.context.scene.objects:
        if o.type != "MESH":
            continue
        e = o.evaluated_get(depsgraph)
        m = e.to_mesh()
        step = max(1, len(m.vertices) // MAX_POINTS)
        pts.extend(e.matrix_world @ m.vertices[i].co for i in range(0, len(m.vertices), step))
        e.to_mesh_clear()
    return pts


def extents(pts):
    return [max(p[a] for p in pts) - min(p[a] for p in pts) for a in range(3)]


def level(pts, idx):
    """Mean height of points idx within the points' Z range: 0 bottom, 1 top."""
    lo, hi = min(p[2] for p in pts), max(p[2] for p in pts)
    if hi <= lo:
        return 0.5
    return (sum(pts[i][2] for i in idx) / len(idx) - lo) / (hi - lo)


class Posture:
    """Measures how far sampled poses leave the rest pose's height, size and ends."""

    def __init__(self, rest):
        self.rest = extents(rest)
        order = sorted(range(len(rest)), key=lambda i: rest[i][2])
        n = max(1, len(order) // 20)
        self.low, self.high = order[:n], order[-n:]
        self.min_h, self.max_h, self.growth, self.rise, self.drop = math.inf, 0.0, 0.0, 0.0, 1.0

    def add(self, pts):
        e = extents(pts)
        h = e[2] / self.rest[2] if self.rest[2] > 0 else 0
        self.min_h, self.max_h = min(self.min_h, h), max(self.max_h, h)
        self.growth = max(self.growth, max(e) / max(self.rest))
        self.rise = max(self.rise, level(pts, self.low))
        self.drop = min(self.drop, level(pts, self.high))

    def report(self):
        upright = (self.min_h >= 0.6 and self.max_h <= 1.4 and self.growth <= 2 and
                   self.rise <= 0.25 and self.drop >= 0.75)
        return {"min_height_ratio": self.min_h, "max_height_ratio": self.max_h, "max_growth": self.growth,
                "lowest_rise": self.rise, "highest_drop": self.drop, "upright": upright}


def rest_points(arm):
    arm.data.pose_position = "REST"
    bpy.context.view_layer.update()
    pts = mesh_points()
    arm.data.pose_position = "POSE"
    bpy.context.view_layer.update()
    return pts


def action_motion(arm, action, samples=12):
    """Plays action on the armature and measures how far bones move from its first frame."""
    ad = arm.animation_data or arm.animation_data_create()
    for track in ad.nla_tracks:
        track.mute = True
    # A bone the action does not key keeps the previous action's pose: start
    # every action from the rest pose.
    for pb in arm.pose.bones:
        pb.location = (0, 0, 0)
        pb.rotation_quaternion = (1, 0, 0, 0)
        pb.rotation_euler = (0, 0, 0)
        pb.scale = (1, 1, 1)
    ad.action = action
    start, end = action.frame_range
    scene = bpy.context.scene
    scene.frame_set(int(round(start)))
    first = pose_state(arm)
    rest = rest_points(arm)
    posture = Posture(rest) if rest else None
    moved, max_move, max_turn = set(), 0.0, 0.0
    for k in range(1, samples + 1):
        f = start + (end - start) * k / samples
        scene.frame_set(int(math.floor(f)), subframe=f - math.floor(f))
        if posture:
            posture.add(mesh_points())
        for name, (head, rot) in pose_state(arm).items():
            d = (head - first[name][0]).length
            a = math.degrees(rot.rotation_difference(first[name][1]).angle)
            if a > 180:
                a = 360 - a
            if d > 1e-5 or a > 0.05:
                moved.add(name)
            max_move, max_turn = max(max_move, d), max(max_turn, a)
    out = {"name": action.name, "frame_range": [start, end], "fcurves": len(action.fcurves),
           "moved_bones": len(moved), "max_head_motion": max_move, "max_turn_deg": max_turn}
    if posture:
        out.update(posture.report())
    return out


def check(path, max_angle):
    """Imports one file into an empty scene and returns its report."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    try:
        bpy.ops.import_scene.gltf(filepath=path)
    except Exception as e:  # the importer raises on files it cannot read
        return {"file": path, "ok": False, "error": str(e), "problems": ["import failed"]}
    arms = [o for o in bpy.context.scene.objects if o.type == "ARMATURE"]
    report = {"file": path, "blender": bpy.app.version_string, "armatures": len(arms)}
    problems = []
    if len(arms) != 1:
        problems.append("%d armatures, want 1" % len(arms))
    else:
        arm = arms[0]
        report["bones"] = len(arm.data.bones)
        report.update(bone_directions(arm, max_angle))
        if report["bad_bones"]:
            problems.append("%d of %d single-child bones do not point at their child" %
                            (len(report["bad_bones"]), report["single_child_bones"]))
        report["actions"] = [action_motion(arm, a) for a in bpy.data.actions]
        if not report["actions"]:
            problems.append("no action")
        for a in report["actions"]:
            if a["moved_bones"] == 0:
                problems.append("action %s moves no bone" % a["name"])
            if a.get("upright") is False:
                problems.append("action %s leaves the character not upright or not sized" % a["name"])
    report["problems"] = problems
    report["ok"] = not problems
    return report


def main():
    files, max_angle = parse_args(sys.argv)
    ok = True
    for path in files:
        report = check(path, max_angle)
        ok = ok and report["ok"]
        print("RIGKIT_CHECK " + json.dumps(report))
        sys.stdout.flush()
    sys.exit(0 if ok else 1)


main()
