//! Quake 3 MDR: the encoder's two-bone arm (plain and compressed) through the decoder, the scene
//! mapping and CPU skinning. Expected positions are worked out by hand from the engine's formula
//! `pos = Σ w · (M · offset)` in Quake axes, then mapped to scene axes `(x, z, -y)`.

use glam::Vec3;
use mdview::formats::mdr::decode::{MdrModel, parse};
use mdview::formats::mdr::layout::*;
use mdview::formats::mdr::mapping::bone_to_scene;
use mdview::formats::{self, quake_axes};
use mdview::scene::anim::Pose;
use mdview::scene::{Channel, FormatKind, NodeKind, Scene};
use mdview::writers::mdr::{arm, arm_bones};

fn decode(bytes: &[u8]) -> Scene {
    formats::decode_bytes(bytes).expect("fixture decodes")
}

fn model(compressed: bool) -> MdrModel {
    parse(&arm(compressed).to_bytes()).expect("fixture parses")
}

/// A Quake-axes point as the scene holds it.
fn q(x: f32, y: f32, z: f32) -> Vec3 {
    quake_axes::to_scene(Vec3::new(x, y, z))
}

fn assert_near(got: Vec3, expected: Vec3, tolerance: f32, what: &str) {
    assert!(got.abs_diff_eq(expected, tolerance), "{what}: got {got}, expected {expected}");
}

fn mesh_named(scene: &Scene, name: &str) -> usize {
    scene.meshes.iter().position(|m| m.name == name).unwrap_or_else(|| panic!("no mesh {name}"))
}

#[test]
fn header_lods_surfaces_and_tags_are_read() {
    let m = model(false);
    assert_eq!(m.name, "models/mdview/arm.mdr");
    assert!(!m.compressed);
    assert_eq!(m.bone_count, 2);
    assert_eq!(m.frames.len(), 10);
    let names: Vec<&str> = m.frames.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names.first(), Some(&"bend01"));
    assert_eq!(names.last(), Some(&"bend10"));
    assert_eq!(m.lods.len(), 2);
    let lod0 = &m.lods[0].surfaces[0];
    let lod1 = &m.lods[1].surfaces[0];
    assert_eq!((lod0.name.as_str(), lod0.vertices.len(), lod0.triangles.len()), ("arm", 20, 36));
    assert_eq!((lod1.name.as_str(), lod1.vertices.len(), lod1.triangles.len()), ("arm_lod1", 12, 20));
    assert_eq!(lod0.shader, "models/mdview/arm");
    // Rings of four vertices with 1, 2, 3, 4 and 1 weights.
    let counts: Vec<u32> = lod0.vertices.iter().map(|v| v.weight_count).collect();
    assert_eq!(counts, [[1; 4], [2; 4], [3; 4], [4; 4], [1; 4]].concat());
    assert_eq!(lod0.weights.len(), 4 * (1 + 2 + 3 + 4 + 1));
    assert_eq!(m.tags.len(), 1);
    assert_eq!((m.tags[0].name.as_str(), m.tags[0].bone), ("tag_forearm", 1));
    assert!(m.warnings.is_empty(), "{:?}", m.warnings);
}

#[test]
fn plain_frames_hold_the_written_matrices() {
    let m = model(false);
    for (f, frame) in m.frames.iter().enumerate() {
        assert_eq!(frame.bones, arm_bones(f), "frame {f}");
    }
}

#[test]
fn compressed_frames_match_plain_within_the_quantisation_step() {
    let (plain, packed) = (model(false), model(true));
    assert!(packed.compressed);
    assert!(packed.frames.iter().all(|f| f.name.is_empty()), "compressed frames have no names");
    for (f, (a, b)) in plain.frames.iter().zip(&packed.frames).enumerate() {
        for (bone, (ma, mb)) in a.bones.iter().zip(&b.bones).enumerate() {
            for (row, (ra, rb)) in ma.iter().zip(mb).enumerate() {
                for (col, (va, vb)) in ra.iter().zip(rb).enumerate() {
                    let step = if col == 3 { COMP_TRANSLATION_STEP } else { COMP_ROTATION_STEP };
                    assert!((va - vb).abs() <= step, "frame {f} bone {bone} [{row}][{col}]: {va} vs {vb}");
                }
            }
        }
    }
    // Skinned positions then differ by at most one step per term: Σ w (|offset|₁·rot + trans).
    let (scene_plain, scene_packed) = (decode(&arm(false).to_bytes()), decode(&arm(true).to_bytes()));
    let skin = scene_plain.meshes[0].skin.as_ref().unwrap();
    for frame in 0..10 {
        let pa = Pose::at(&scene_plain, Some(0), frame as f32).mesh_positions(&scene_plain, 0);
        let pb = Pose::at(&scene_packed, Some(0), frame as f32).mesh_positions(&scene_packed, 0);
        for (v, (a, b)) in pa.iter().zip(&pb).enumerate() {
            let (start, count) = skin.ranges[v];
            let bound: f32 = skin.influences[start as usize..(start + count) as usize]
                .iter()
                .map(|i| i.weight * (i.offset.abs().element_sum() * COMP_ROTATION_STEP + COMP_TRANSLATION_STEP))
                .sum();
            assert!((*a - *b).abs().max_element() <= bound + 1e-5, "frame {frame} vertex {v}: {a} vs {b}");
        }
    }
}

#[test]
fn skinned_positions_match_hand_computation_at_frames_0_5_and_9() {
    // Bone 0 lifts L = 0.25·f along Quake +Z; bone 1 sits at (10, 0, L) bent up by θ = 10°·f:
    // rows [c 0 -s 10], [0 1 0 0], [s 0 c L]. Corner (y, z) = (1, 1) of each ring:
    // - vertex 0  (x=0,  1 weight):  (0, 1, 1+L)
    // - vertex 4  (x=5,  .75 bone 0 at (5,1,1), .25 bone 1 at (-5,1,1))
    // - vertex 8  (x=10, .5 bone 0 at (10,1,1), .25+.25 bone 1 at (0,1,1))
    // - vertex 12 (x=15, .1+.2 bone 0 at (15,1,1), .4+.3 bone 1 at (5,1,1))
    // - vertex 16 (x=20, bone 1 at (10,1,1)): (10 + 10c - s, 1, L + 10s + c)
    // Frame 5: L = 1.25, c = cos 50° = 0.642788, s = sin 50° = 0.766044.
    // Frame 9: L = 2.25, c = 0, s = 1.
    let expected: [(usize, [(usize, Vec3); 5]); 3] = [
        (
            0,
            [
                (0, q(0.0, 1.0, 1.0)),
                (4, q(5.0, 1.0, 1.0)),
                (8, q(10.0, 1.0, 1.0)),
                (12, q(15.0, 1.0, 1.0)),
                (16, q(20.0, 1.0, 1.0)),
            ],
        ),
        (
            5,
            [
                // (0, 1, 1 + 1.25)
                (0, q(0.0, 1.0, 2.25)),
                // .75·(5, 1, 2.25) + .25·(10 - 3.213938 - 0.766044, 1, 1.25 - 3.830222 + 0.642788)
                (4, q(5.255005, 1.0, 1.203141)),
                // .5·(10, 1, 2.25) + .5·(10 - 0.766044, 1, 1.25 + 0.642788)
                (8, q(9.616978, 1.0, 2.071394)),
                // .3·(15, 1, 2.25) + .7·(10 + 3.213938 - 0.766044, 1, 1.25 + 3.830222 + 0.642788)
                (12, q(13.213526, 1.0, 4.681107)),
                // (10 + 6.427876 - 0.766044, 1, 1.25 + 7.660444 + 0.642788)
                (16, q(15.661832, 1.0, 9.553232)),
            ],
        ),
        (
            9,
            [
                (0, q(0.0, 1.0, 3.25)),
                // .75·(5, 1, 3.25) + .25·(10 - 1, 1, 2.25 - 5)
                (4, q(6.0, 1.0, 1.75)),
                // .5·(10, 1, 3.25) + .5·(9, 1, 2.25)
                (8, q(9.5, 1.0, 2.75)),
                // .3·(15, 1, 3.25) + .7·(9, 1, 7.25)
                (12, q(10.8, 1.0, 6.05)),
                (16, q(9.0, 1.0, 12.25)),
            ],
        ),
    ];
    for compressed in [false, true] {
        let scene = decode(&arm(compressed).to_bytes());
        let mesh = mesh_named(&scene, "arm");
        // Compressed translations are exact here (multiples of 1/64); rotations within 1/32766.
        let tolerance = if compressed { 2e-3 } else { 2e-5 };
        for (frame, vertices) in &expected {
            let pose = Pose::at(&scene, Some(0), *frame as f32);
            let positions = pose.mesh_positions(&scene, mesh);
            for (v, want) in vertices {
                assert_near(
                    positions[*v],
                    *want,
                    tolerance,
                    &format!("compressed {compressed} frame {frame} vertex {v}"),
                );
            }
        }
    }
}

#[test]
fn skinned_normals_are_rotated_and_renormalised() {
    let scene = decode(&arm(false).to_bytes());
    let mesh = mesh_named(&scene, "arm");
    // Vertex 16's normal (0, 1, 1)/√2 turns with the forearm: at 90° it is (-1, 1, 0)/√2.
    let pose = Pose::at(&scene, Some(0), 9.0);
    let normals = pose.mesh_normals(&scene, mesh);
    assert_near(normals[16], q(-1.0, 1.0, 0.0) / 2f32.sqrt(), 1e-5, "normal at frame 9");
    // Vertex 8 blends both bones: Σ w·(R·n) has length below 1 and is renormalised.
    let n8 = normals[8];
    assert!((n8.length() - 1.0).abs() < 1e-5, "{n8}");
    let unnormalised = (q(0.0, 1.0, 1.0) + q(-1.0, 1.0, 0.0)) * 0.5 / 2f32.sqrt();
    assert_near(n8, unnormalised.normalize(), 1e-5, "blended normal");
    // Rest normals are frame 0's.
    assert_near(scene.meshes[mesh].normals[0], q(0.0, 1.0, 1.0).normalize(), 1e-6, "rest normal");
}

#[test]
fn bones_blend_linearly_between_frames() {
    let scene = decode(&arm(false).to_bytes());
    let pose = Pose::at(&scene, Some(0), 4.5);
    let (a, b) = (bone_to_scene(&arm_bones(4)[1]), bone_to_scene(&arm_bones(5)[1]));
    let expected = a * 0.5 + b * 0.5;
    assert!(pose.joints[0][1].abs_diff_eq(expected, 1e-6), "element-wise blend, no slerp");
    // The tip vertex follows the blended matrix (not a rotation by 45°).
    let tip = pose.mesh_positions(&scene, 0)[16];
    assert_near(tip, expected.transform_point3(q(10.0, 1.0, 1.0)), 1e-5, "tip between frames");
}

#[test]
fn tag_follows_the_forearm() {
    let scene = decode(&arm(false).to_bytes());
    let tag = scene.nodes.iter().position(|n| n.kind == NodeKind::Tag).expect("a tag node");
    assert_eq!(scene.nodes[tag].name, "tag_forearm");
    assert_eq!(scene.nodes[tag].joint, Some((0, 1)));
    // Rest pose: frame 0, the elbow at (10, 0, 0).
    let rest = Pose::rest(&scene);
    assert_near(rest.world[tag].transform_point3(Vec3::ZERO), q(10.0, 0.0, 0.0), 1e-6, "rest tag");
    // Frame 9: at (10, 0, 2.25), its axes the forearm's (the engine's axis[j] = column j).
    let pose = Pose::at(&scene, Some(0), 9.0);
    let world = pose.world[tag];
    assert_near(world.transform_point3(Vec3::ZERO), q(10.0, 0.0, 2.25), 1e-6, "tag origin");
    assert!(world.abs_diff_eq(bone_to_scene(&arm_bones(9)[1]), 1e-6));
    // The forearm points up (Quake +Z) at 90°.
    assert_near(world.transform_vector3(q(1.0, 0.0, 0.0)), q(0.0, 0.0, 1.0), 1e-6, "tag forward");
}

/// Issue 12: between frames the tag's axes are renormalised, as ioquake3's `R_LerpTag` does
/// (lerp, then `VectorNormalize` each axis). Frame 4.5 blends 40° and 50°: the blended forearm
/// axis is ((cos 40° + cos 50°) / 2, 0, (sin 40° + sin 50°) / 2), length cos 5° ≈ 0.9962; the
/// tag's forward axis is that direction at unit length, (cos 45°, 0, sin 45°), and its origin
/// the lerped one, (10, 0, 1.125). The skin still follows the blended matrix.
#[test]
fn tag_axes_are_unit_length_between_frames() {
    let scene = decode(&arm(false).to_bytes());
    let tag = scene.nodes.iter().position(|n| n.kind == NodeKind::Tag).expect("a tag node");
    let pose = Pose::at(&scene, Some(0), 4.5);
    let world = pose.world[tag];
    let h = std::f32::consts::FRAC_1_SQRT_2;
    assert_near(world.transform_point3(Vec3::ZERO), q(10.0, 0.0, 1.125), 1e-5, "tag origin");
    assert_near(world.transform_vector3(q(1.0, 0.0, 0.0)), q(h, 0.0, h), 1e-5, "tag forward");
    assert_near(world.transform_vector3(q(0.0, 1.0, 0.0)), q(0.0, 1.0, 0.0), 1e-5, "tag left");
    assert_near(world.transform_vector3(q(0.0, 0.0, 1.0)), q(-h, 0.0, h), 1e-5, "tag up");
    let blended = pose.joints[0][1];
    assert!((blended.transform_vector3(q(1.0, 0.0, 0.0)).length() - 5f32.to_radians().cos()).abs() < 1e-5);
}

#[test]
fn lods_are_levels_and_the_pose_shows_one() {
    let scene = decode(&arm(false).to_bytes());
    assert_eq!(scene.lods.len(), 2);
    assert_eq!(scene.lods[0].meshes, vec![mesh_named(&scene, "arm")]);
    assert_eq!(scene.lods[1].meshes, vec![mesh_named(&scene, "arm_lod1")]);
    let node_of = |mesh: usize| scene.meshes[mesh].node.unwrap();
    let (fine, coarse) = (scene.lods[0].meshes[0], scene.lods[1].meshes[0]);

    let mut pose = Pose::default();
    pose.evaluate(&scene, Some(0), 3.0);
    assert!(pose.visible[node_of(fine)] && !pose.visible[node_of(coarse)]);
    assert!(!pose.visible[scene.lods[1].node.unwrap()]);
    assert!(pose.positions[fine].is_some());
    assert!(pose.positions[coarse].is_none(), "a hidden level is not skinned");

    pose.lod = 1;
    pose.evaluate(&scene, Some(0), 3.0);
    assert!(!pose.visible[node_of(fine)] && pose.visible[node_of(coarse)]);
    assert!(pose.positions[coarse].is_some());
    // LOD 1's elbow ring (vertex 4, weights .5/.5 at (10,1,1) and (0,1,1)) at frame 3.
    let (s, c) = 30f32.to_radians().sin_cos();
    let expected = q(10.0 - 0.5 * s, 1.0, 0.75 + 0.5 * (1.0 + c));
    assert_near(pose.positions[coarse].as_ref().unwrap()[4], expected, 1e-5, "LOD 1 elbow");

    // Past the coarsest level, the coarsest shows.
    pose.lod = 7;
    pose.evaluate(&scene, None, 0.0);
    assert!(pose.visible[node_of(coarse)] && !pose.visible[node_of(fine)]);
}

#[test]
fn triangles_face_outwards_after_the_winding_is_reversed() {
    let scene = decode(&arm(false).to_bytes());
    for mesh in &scene.meshes {
        let p = &mesh.source_positions;
        let centre = q(10.0, 0.0, 0.0);
        for &[a, b, c] in &mesh.triangles {
            let (pa, pb, pc) = (p[a as usize], p[b as usize], p[c as usize]);
            let outward = (pa + pb + pc) / 3.0 - centre;
            assert!((pb - pa).cross(pc - pa).dot(outward) > 0.0, "{}: {a} {b} {c} faces inwards", mesh.name);
        }
    }
}

#[test]
fn scene_holds_skins_materials_and_uvs() {
    let scene = decode(&arm(false).to_bytes());
    assert_eq!(scene.format, FormatKind::Quake3Mdr);
    assert_eq!(scene.skeletons.len(), 1);
    assert_eq!(scene.skeletons[0].joints.len(), 2);
    assert_eq!(scene.skeletons[0].rest_pose, vec![bone_to_scene(&arm_bones(0)[0]), bone_to_scene(&arm_bones(0)[1])]);
    // One material for the shader both LODs name, its path kept for the renderer to resolve.
    assert_eq!(scene.materials.len(), 1);
    assert_eq!(scene.materials[0].texture.as_deref(), Some("models/mdview/arm"));
    let mesh = &scene.meshes[0];
    assert_eq!(mesh.submeshes.len(), 1);
    assert_eq!(mesh.submeshes[0].material, Some(0));
    assert_eq!(mesh.submeshes[0].triangle_count, 36);
    let skin = mesh.skin.as_ref().unwrap();
    let counts: Vec<u32> = skin.ranges.iter().map(|r| r.1).collect();
    assert_eq!(counts, [[1; 4], [2; 4], [3; 4], [4; 4], [1; 4]].concat());
    // Offsets are in scene axes: vertex 16's forearm offset is (10, 1, 1) in Quake axes.
    assert_eq!(skin.influences[skin.ranges[16].0 as usize].offset, q(10.0, 1.0, 1.0));
    // s, t as stored (the scene's UV origin is the top left, like the format's).
    assert_eq!(mesh.uvs[13].to_array(), [0.75, 0.25]);
    // Rest positions are frame 0, skinned.
    assert_eq!(mesh.source_positions[16], q(20.0, 1.0, 1.0));
}

#[test]
fn named_frames_make_clips_and_compressed_frames_one() {
    let plain = decode(&arm(false).to_bytes());
    assert_eq!(plain.clips.len(), 1);
    let clip = &plain.clips[0];
    assert_eq!((clip.name.as_str(), clip.start, clip.end, clip.rate), ("bend", 0.0, 9.0, 15.0));
    let Channel::BoneFrames { skeleton, times, frames } = &clip.channels[0] else { panic!("bone frames") };
    assert_eq!((*skeleton, times.len(), frames.len()), (0, 10, 10));

    let packed = decode(&arm(true).to_bytes());
    let names: Vec<&str> = packed.clips.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["all"]);
    assert_eq!(packed.clips[0].end, 9.0);
}

#[test]
fn frames_with_two_names_make_two_clips() {
    let mut file = arm(false);
    for (f, frame) in file.frames.iter_mut().enumerate() {
        frame.name = if f < 4 { format!("idle{}", f + 1) } else { format!("wave{:02}", f - 3) };
    }
    let scene = decode(&file.to_bytes());
    let clips: Vec<(&str, f32, f32)> = scene.clips.iter().map(|c| (c.name.as_str(), c.start, c.end)).collect();
    assert_eq!(clips, [("idle", 0.0, 3.0), ("wave", 4.0, 9.0)]);
    // The second clip's time is the file's frame number: frame 9 is the 90° pose.
    let pose = Pose::at(&scene, Some(1), 9.0);
    assert!(pose.joints[0][1].abs_diff_eq(bone_to_scene(&arm_bones(9)[1]), 1e-6));
}

#[test]
fn opens_from_a_path_and_reports_in_info() {
    let dir = std::env::temp_dir().join(format!("mdview-mdr-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("arm.mdr");
    std::fs::write(&path, arm(false).to_bytes()).unwrap();
    let scene = formats::open(&path).unwrap();
    let summary = mdview::info::Summary::of(&scene);
    let json = serde_json::to_value(&summary).unwrap();
    assert_eq!(json["format"], "quake3-mdr");
    assert_eq!(json["lods"][0]["vertices"], 20);
    assert_eq!(json["lods"][1]["triangles"], 20);
    assert_eq!(json["skeletons"][0]["joints"], 2);
    assert_eq!(json["tags"][0]["name"], "tag_forearm");
    let text = summary.to_text();
    for needle in ["LOD 0: 1 surfaces, 20 vertices, 36 triangles", "tag_forearm", "models/mdview/arm", "bend"] {
        assert!(text.contains(needle), "info text lacks {needle:?}:\n{text}");
    }
    // Export works on a posed MDR like on any other format.
    let pose = Pose::at(&scene, Some(0), 5.0);
    let (obj, _mtl) = mdview::export::obj::to_obj(&scene, &pose, "arm.mtl");
    assert!(obj.matches("\nf ").count() >= 36, "LOD 0's triangles are exported");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_rest_pose_after_a_clip_is_frame_0_again() {
    let scene = decode(&arm(false).to_bytes());
    let mut pose = Pose::default();
    pose.evaluate(&scene, Some(0), 9.0);
    assert!(pose.positions[0].is_some() && pose.normals[0].is_some());
    pose.evaluate(&scene, None, 0.0);
    assert_eq!(pose.joints[0], scene.skeletons[0].rest_pose, "joints go back to the rest pose");
    assert!(pose.positions[0].is_none() && pose.normals[0].is_none(), "the stored rest mesh is drawn");
    assert_eq!(pose.mesh_positions(&scene, 0)[16], q(20.0, 1.0, 1.0));
}
