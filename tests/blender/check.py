"""Blender side of tests/blender.rs: imports glTF files and writes the world-space vertices
Blender's own evaluation gives at the asked times, in glTF's Y-up axes.

Run as: blender -b --factory-startup --python check.py -- JOB.json
JOB.json: [{"gltf": PATH, "samples": [{"animation": NAME, "seconds": S, "out": PATH}]}]
Each out file gets one "x y z" line per vertex of every shown mesh object (an object whose
world matrix is singular is hidden by a zero scale, as the exporter writes visibility).
"""
import json
import sys

import bpy

FPS = 24


def reset():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.context.scene.render.fps = FPS
    bpy.context.scene.render.fps_base = 1.0


def animated_ids():
    """Every datablock the importer gave NLA tracks: objects and shape-key sets."""
    out = []
    for obj in bpy.context.scene.objects:
        if obj.animation_data:
            out.append(obj)
        keys = getattr(obj.data, "shape_keys", None)
        if keys is not None and keys.animation_data:
            out.append(keys)
    return out


def play(name):
    """Assigns each datablock the action its track for animation `name` holds (the tracks
    stay muted: their strips start at frame 1, the actions' keys at seconds x fps)."""
    found = False
    for owner in animated_ids():
        data = owner.animation_data
        action = None
        for track in data.nla_tracks:
            track.mute = True
            if track.name == name and track.strips:
                action = track.strips[0].action
        data.action = action
        found |= action is not None
    return found


def vertices():
    depsgraph = bpy.context.evaluated_depsgraph_get()
    lines = []
    for obj in bpy.context.scene.objects:
        if obj.type != "MESH":
            continue
        evaluated = obj.evaluated_get(depsgraph)
        world = evaluated.matrix_world
        if abs(world.determinant()) < 1e-18:
            continue
        mesh = evaluated.to_mesh()
        for v in mesh.vertices:
            p = world @ v.co
            # Blender is Z-up: glTF (x, y, z) was imported as (x, -z, y).
            lines.append("%.9g %.9g %.9g" % (p.x, p.z, -p.y))
        evaluated.to_mesh_clear()
    return lines


def main():
    job_path = sys.argv[sys.argv.index("--") + 1]
    with open(job_path) as f:
        job = json.load(f)
    for entry in job:
        reset()
        bpy.ops.import_scene.gltf(filepath=entry["gltf"])
        for sample in entry["samples"]:
            if not play(sample["animation"]):
                print("CHECK: no action for animation %r in %s" % (sample["animation"], entry["gltf"]))
            frame = sample["seconds"] * FPS
            whole = int(frame // 1)
            bpy.context.scene.frame_set(whole, subframe=frame - whole)
            with open(sample["out"], "w") as out:
                out.write("\n".join(vertices()))
                out.write("\n")
    print("CHECK: done")


main()
