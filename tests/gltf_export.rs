//! glTF export: every exported file is read back with the `gltf` crate, each animation is
//! sampled with this file's own small sampler (TRS, morph weights, skins), and the world
//! positions of every vertex are compared with mdview's own `Pose` at the same times, within
//! 1e-4 of the model's size. Covers the demo models, fixtures of every format with a writer,
//! and the corpus files where present. Every export is also run through the Khronos
//! glTF-Validator (0 errors), which CI installs (see `.ci/run`).

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use glam::{Mat4, Quat, Vec3, Vec4};
use mdview::export::gltf as export;
use mdview::formats;
use mdview::scene::anim::Pose;
use mdview::scene::{FormatKind, Scene};

// ------------------------------------------------------------------------------- models

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus")
}

/// `rel` in the corpus, or `None` with a note saying the test skips where it is absent.
fn in_corpus(rel: &str) -> Option<PathBuf> {
    let path = corpus().join(rel);
    if path.exists() {
        Some(path)
    } else {
        eprintln!("SKIP: {} is absent", path.display());
        None
    }
}

/// Every model the tests export: demo models, fixtures of every format, corpus files.
fn models() -> Vec<(String, Scene)> {
    let mut out = Vec::new();
    let demo = mdview::demo::extract().expect("demo extracts");
    for name in ["island.MD2", "gate.MD2", "fountain.MD2"] {
        out.push((format!("demo_{name}"), formats::open(&demo.join(name)).expect("demo opens")));
    }
    out.push(("fixture_second_uv_set.md2".into(), second_uv_set(&demo)));
    let mdr = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/mdr/arm.mdr");
    out.push(("demo_arm.mdr".into(), formats::open(&mdr).expect("arm opens")));
    for compressed in [false, true] {
        let bytes = mdview::writers::mdr::arm(compressed).to_bytes();
        out.push((format!("fixture_arm_{compressed}.mdr"), formats::decode_bytes(&bytes).expect("arm decodes")));
    }
    out.push((
        "fixture_quake2.md2".into(),
        formats::decode_bytes(&common::quake2_fixture().to_bytes()).expect("md2 decodes"),
    ));
    // Every TPW channel kind at once (eased rotation, axis scale, position, path progress,
    // visibility, track-box morph, UV keys, raw frames), from the animation file beside it.
    // Each caller gets its own folder: tests run in parallel, and one must not read the rig
    // while another rewrites it.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let rig_dir = out_dir(&format!("gltf-rig-{call}"));
    let (rig, anim) = common::every_channel();
    std::fs::write(rig_dir.join("rig.MD2"), rig.to_bytes()).expect("rig written");
    std::fs::write(rig_dir.join("rigM1.MD2"), anim.to_bytes()).expect("rig animation written");
    out.push(("fixture_every_channel.md2".into(), formats::open(&rig_dir.join("rig.MD2")).expect("rig opens")));
    // Face anchors: a tree dummy holding two meshes rides the morphing Island.
    let anchored_dir = out_dir(&format!("gltf-anchored-{call}"));
    let (anchored, morph) = common::anchored_island();
    std::fs::write(anchored_dir.join("island.MD2"), anchored.to_bytes()).expect("island written");
    std::fs::write(anchored_dir.join("islandM1.MD2"), morph.to_bytes()).expect("island animation written");
    let scene = formats::open(&anchored_dir.join("island.MD2")).expect("anchored island opens");
    // Its textures are not beside it; nothing else is amiss.
    let textures_only = scene.warnings.iter().all(|w| w.starts_with("texture ") && w.contains("not found"));
    assert!(scene.nodes[5].anchor.is_some() && textures_only, "{:?}", scene.warnings);
    out.push(("fixture_anchored_island.md2".into(), scene));
    let island = common::island().to_bytes();
    out.push(("fixture_island.md2".into(), formats::decode_bytes(&island).expect("island decodes")));
    let root = corpus();
    if root.is_dir() {
        for path in mdview::scan::model_files(&root).unwrap_or_default() {
            if let Ok(scene) = formats::open(&path)
                && scene.kind == mdview::scene::SceneKind::Mesh
            {
                let rel = path.strip_prefix(&root).unwrap_or(&path).to_string_lossy().replace(['/', '\\'], "_");
                out.push((format!("corpus_{rel}"), scene));
            }
        }
    } else {
        eprintln!("SKIP: corpus folder {} is absent; corpus models not exported", root.display());
    }
    out
}

/// The demo Island with a second UV set on every mesh (u and v swapped) that its first
/// material samples, as an M2 texture unit whose coordinate lookup says 1.
fn second_uv_set(demo: &Path) -> Scene {
    let mut scene = formats::open(&demo.join("island.MD2")).expect("demo opens");
    for mesh in &mut scene.meshes {
        mesh.uvs1 = mesh.uvs.iter().map(|uv| glam::Vec2::new(uv.y, uv.x)).collect();
    }
    scene.materials[0].uv_set = 1;
    scene
}

/// A material on the second set names TEXCOORD_1, which every primitive drawing with it
/// carries, holding the mesh's second set; the others keep TEXCOORD_0 alone.
#[test]
fn a_material_on_the_second_uv_set_samples_texcoord_1() {
    let demo = mdview::demo::extract().expect("demo extracts");
    let scene = second_uv_set(&demo);
    let doc = export::build(&scene).expect("export builds");
    let json = &doc.json;
    let texture = &json["materials"][0]["pbrMetallicRoughness"]["baseColorTexture"];
    assert!(texture["index"].is_u64(), "the demo's first material is textured");
    assert_eq!(texture["texCoord"], 1);
    assert_eq!(json["materials"][1]["pbrMetallicRoughness"]["baseColorTexture"]["texCoord"].as_u64().unwrap_or(0), 0);
    let mut checked = 0;
    for (m, mesh) in scene.meshes.iter().enumerate() {
        let uses_first = mesh.submeshes.iter().any(|s| s.material == Some(0));
        // A mesh's primitives (one per submesh) share its attributes.
        let Some(primitive) = json["meshes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|j| j["name"].as_str() == Some(mesh.name.as_str()))
            .map(|j| &j["primitives"][0])
        else {
            continue;
        };
        let second = &primitive["attributes"]["TEXCOORD_1"];
        assert_eq!(
            second.is_u64(),
            uses_first,
            "mesh {m} ({}): TEXCOORD_1 only where the material needs it",
            mesh.name
        );
        if let Some(accessor) = second.as_u64() {
            let flat: Vec<f32> = mesh.uvs1.iter().flat_map(|uv| [uv.x, uv.y]).collect();
            assert_eq!(json_floats(json, &doc.bin, accessor), flat);
            checked += 1;
        }
    }
    assert!(checked > 0, "no mesh drew with the first material");
}

fn out_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/out").join(name);
    std::fs::create_dir_all(&dir).expect("output folder");
    dir
}

// ------------------------------------------------------------------------------- reading back

/// A glTF read back with the `gltf` crate, in plain arrays for sampling.
struct Loaded {
    nodes: Vec<LoadedNode>,
    parents: Vec<Option<usize>>,
    meshes: Vec<LoadedMesh>,
    skins: Vec<(Vec<usize>, Vec<Mat4>)>,
    animations: Vec<LoadedAnimation>,
    /// Per material: base colour factor.
    base_colors: Vec<Vec4>,
    /// `KHR_animation_pointer` channels, read from the JSON: (animation, pointer, times, values).
    pointers: Vec<(usize, String, Vec<f32>, Vec<f32>)>,
}

struct LoadedNode {
    translation: Vec3,
    rotation: Quat,
    scale: Vec3,
    mesh: Option<usize>,
    skin: Option<usize>,
}

struct LoadedMesh {
    scene_mesh: usize,
    positions: Vec<Vec3>,
    targets: Vec<Vec<Vec3>>,
    weights: Vec<f32>,
    joints: Vec<[u16; 4]>,
    joint_weights: Vec<[f32; 4]>,
    uvs: Vec<glam::Vec2>,
    /// The first primitive's material.
    material: Option<usize>,
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Path3 {
    Translation,
    Rotation,
    Scale,
    Weights,
}

struct LoadedChannel {
    node: usize,
    path: Path3,
    step: bool,
    times: Vec<f32>,
    /// Flat values, `width` per key.
    values: Vec<f32>,
    width: usize,
}

struct LoadedAnimation {
    name: String,
    channels: Vec<LoadedChannel>,
}

/// Splits a GLB into its JSON and BIN chunks.
fn glb_chunks(bytes: &[u8]) -> (serde_json::Value, Vec<u8>) {
    assert_eq!(&bytes[0..4], b"glTF");
    assert_eq!(u32::from_le_bytes(bytes[4..8].try_into().unwrap()), 2);
    assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize, bytes.len());
    let json_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    assert_eq!(&bytes[16..20], b"JSON");
    let json: serde_json::Value = serde_json::from_slice(&bytes[20..20 + json_len]).expect("JSON chunk parses");
    let rest = &bytes[20 + json_len..];
    let bin = if rest.len() >= 8 {
        let len = u32::from_le_bytes(rest[0..4].try_into().unwrap()) as usize;
        assert_eq!(&rest[4..8], b"BIN\0");
        rest[8..8 + len].to_vec()
    } else {
        Vec::new()
    };
    (json, bin)
}

/// Plain float values of accessor `index` (dense only; pointer outputs are never sparse).
fn json_floats(json: &serde_json::Value, bin: &[u8], index: u64) -> Vec<f32> {
    let accessor = &json["accessors"][index as usize];
    let view = &json["bufferViews"][accessor["bufferView"].as_u64().unwrap() as usize];
    let offset =
        view["byteOffset"].as_u64().unwrap_or(0) as usize + accessor["byteOffset"].as_u64().unwrap_or(0) as usize;
    let width = match accessor["type"].as_str().unwrap() {
        "SCALAR" => 1,
        "VEC2" => 2,
        "VEC3" => 3,
        "VEC4" => 4,
        other => panic!("unexpected type {other}"),
    };
    let count = accessor["count"].as_u64().unwrap() as usize * width;
    bin[offset..offset + count * 4].chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
}

fn load(glb: &[u8]) -> Loaded {
    let (mut json, bin) = glb_chunks(glb);
    // A scene's `nodes` is optional in glTF (a model with nothing in it leaves it out), but
    // the gltf crate requires the field.
    for scene in json.get_mut("scenes").and_then(|s| s.as_array_mut()).into_iter().flatten() {
        if scene.get("nodes").is_none() {
            scene["nodes"] = serde_json::json!([]);
        }
    }
    // The gltf crate cannot read KHR_animation_pointer channels (no target node), so they are
    // read here from the JSON and removed before the crate reads the rest.
    let mut pointers = Vec::new();
    if let Some(animations) = json.get_mut("animations").and_then(|a| a.as_array_mut()) {
        for (a, animation) in animations.iter_mut().enumerate() {
            let samplers = animation["samplers"].clone();
            let channels = animation["channels"].as_array_mut().unwrap();
            channels.retain(|channel| {
                if channel["target"]["path"] != "pointer" {
                    return true;
                }
                let pointer = channel["target"]["extensions"]["KHR_animation_pointer"]["pointer"]
                    .as_str()
                    .expect("pointer channels name their pointer")
                    .to_string();
                let sampler = &samplers[channel["sampler"].as_u64().unwrap() as usize];
                pointers.push((a, pointer, sampler["input"].as_u64().unwrap(), sampler["output"].as_u64().unwrap()));
                false
            });
        }
    }
    let pointers = pointers
        .into_iter()
        .map(|(a, p, input, output)| (a, p, json_floats(&json, &bin, input), json_floats(&json, &bin, output)))
        .collect();
    let document =
        gltf::Document::from_json(gltf::json::deserialize::from_value(json).expect("the gltf crate reads the JSON"))
            .expect("the gltf crate validates the document");
    let buffer = |_: gltf::Buffer<'_>| Some(bin.as_slice());

    let mut parents = vec![None; document.nodes().len()];
    let mut nodes = Vec::new();
    for node in document.nodes() {
        for child in node.children() {
            assert!(parents[child.index()].is_none(), "node {} has two parents", child.index());
            parents[child.index()] = Some(node.index());
        }
        let (t, r, s) = node.transform().decomposed();
        assert!(matches!(node.transform(), gltf::scene::Transform::Decomposed { .. }), "nodes are written as TRS");
        nodes.push(LoadedNode {
            translation: Vec3::from(t),
            rotation: Quat::from_array(r),
            scale: Vec3::from(s),
            mesh: node.mesh().map(|m| m.index()),
            skin: node.skin().map(|s| s.index()),
        });
    }
    let mut meshes = Vec::new();
    for mesh in document.meshes() {
        let extras: serde_json::Value =
            serde_json::from_str(mesh.extras().as_ref().expect("mesh extras").get()).unwrap();
        let primitive = mesh.primitives().next().expect("a primitive");
        let reader = primitive.reader(buffer);
        let positions: Vec<Vec3> = reader.read_positions().expect("positions").map(Vec3::from).collect();
        let targets: Vec<Vec<Vec3>> = reader
            .read_morph_targets()
            .map(|(p, _, _)| p.expect("target positions").map(Vec3::from).collect())
            .collect();
        let joints = reader.read_joints(0).map(|j| j.into_u16().collect()).unwrap_or_default();
        let joint_weights = reader.read_weights(0).map(|w| w.into_f32().collect()).unwrap_or_default();
        let uvs = reader.read_tex_coords(0).map(|uv| uv.into_f32().map(glam::Vec2::from).collect()).unwrap_or_default();
        for p in mesh.primitives() {
            assert_eq!(
                p.reader(buffer).read_positions().map(|i| i.len()),
                Some(positions.len()),
                "primitives share vertices"
            );
        }
        meshes.push(LoadedMesh {
            scene_mesh: extras["scene_mesh"].as_u64().expect("scene_mesh") as usize,
            positions,
            weights: mesh.weights().map(<[f32]>::to_vec).unwrap_or_else(|| vec![0.0; targets.len()]),
            targets,
            joints,
            joint_weights,
            uvs,
            material: primitive.material().index(),
        });
    }
    let skins = document
        .skins()
        .map(|skin| {
            let joints = skin.joints().map(|j| j.index()).collect();
            let ibm = skin
                .reader(buffer)
                .read_inverse_bind_matrices()
                .map(|m| m.map(|c| Mat4::from_cols_array_2d(&c)).collect())
                .unwrap_or_default();
            (joints, ibm)
        })
        .collect();
    let mut animations = Vec::new();
    for animation in document.animations() {
        let mut channels = Vec::new();
        for channel in animation.channels() {
            let reader = channel.reader(buffer);
            let times: Vec<f32> = reader.read_inputs().expect("inputs").collect();
            let (path, values, width): (Path3, Vec<f32>, usize) = match reader.read_outputs().expect("outputs") {
                gltf::animation::util::ReadOutputs::Translations(t) => (Path3::Translation, t.flatten().collect(), 3),
                gltf::animation::util::ReadOutputs::Scales(s) => (Path3::Scale, s.flatten().collect(), 3),
                gltf::animation::util::ReadOutputs::Rotations(r) => {
                    (Path3::Rotation, r.into_f32().flatten().collect(), 4)
                }
                gltf::animation::util::ReadOutputs::MorphTargetWeights(w) => {
                    let values: Vec<f32> = w.into_f32().collect();
                    let width = values.len() / times.len();
                    (Path3::Weights, values, width)
                }
            };
            let interpolation = channel.sampler().interpolation();
            assert_ne!(interpolation, gltf::animation::Interpolation::CubicSpline, "the sampler here is linear/step");
            assert!(times.windows(2).all(|w| w[0] < w[1]), "times strictly increase");
            assert!(times.first().is_some_and(|&t| t >= 0.0));
            channels.push(LoadedChannel {
                node: channel.target().node().index(),
                path,
                step: interpolation == gltf::animation::Interpolation::Step,
                times,
                values,
                width,
            });
        }
        animations.push(LoadedAnimation { name: animation.name().unwrap_or_default().to_string(), channels });
    }
    let base_colors =
        document.materials().map(|m| Vec4::from_array(m.pbr_metallic_roughness().base_color_factor())).collect();
    Loaded { nodes, parents, meshes, skins, animations, base_colors, pointers }
}

// ------------------------------------------------------------------------------- sampling

/// The keyed value at `time`: clamped outside, the earlier key for STEP, else linear (slerp
/// along the shorter arc for rotations).
fn sample(channel: &LoadedChannel, time: f32) -> Vec<f32> {
    let w = channel.width;
    let key = |k: usize| channel.values[k * w..(k + 1) * w].to_vec();
    let last = channel.times.len() - 1;
    if time <= channel.times[0] {
        return key(0);
    }
    if time >= channel.times[last] {
        return key(last);
    }
    let upper = channel.times.partition_point(|&t| t <= time);
    let lower = upper - 1;
    if channel.step {
        return key(lower);
    }
    let f = (time - channel.times[lower]) / (channel.times[upper] - channel.times[lower]);
    let (a, b) = (key(lower), key(upper));
    if channel.path == Path3::Rotation {
        let qa = Quat::from_slice(&a);
        let mut qb = Quat::from_slice(&b);
        if qa.dot(qb) < 0.0 {
            qb = -qb;
        }
        return qa.slerp(qb, f).to_array().to_vec();
    }
    a.iter().zip(&b).map(|(x, y)| x + (y - x) * f).collect()
}

/// World positions of every vertex of every glTF mesh, keyed by scene mesh, with the world
/// matrix of the node that holds it; `animation` at `seconds`, or the rest state.
fn gltf_world_positions(doc: &Loaded, animation: Option<usize>, seconds: f32) -> HashMap<usize, (Vec<Vec3>, Mat4)> {
    let mut t: Vec<Vec3> = doc.nodes.iter().map(|n| n.translation).collect();
    let mut r: Vec<Quat> = doc.nodes.iter().map(|n| n.rotation).collect();
    let mut s: Vec<Vec3> = doc.nodes.iter().map(|n| n.scale).collect();
    let mut weights: HashMap<usize, Vec<f32>> = HashMap::new();
    if let Some(a) = animation {
        for channel in &doc.animations[a].channels {
            let v = sample(channel, seconds);
            match channel.path {
                Path3::Translation => t[channel.node] = Vec3::from_slice(&v),
                Path3::Rotation => r[channel.node] = Quat::from_slice(&v).normalize(),
                Path3::Scale => s[channel.node] = Vec3::from_slice(&v),
                Path3::Weights => {
                    weights.insert(channel.node, v);
                }
            }
        }
    }
    let locals: Vec<Mat4> =
        (0..doc.nodes.len()).map(|i| Mat4::from_scale_rotation_translation(s[i], r[i], t[i])).collect();
    let world: Vec<Mat4> = (0..doc.nodes.len())
        .map(|i| {
            let mut m = locals[i];
            let mut cursor = doc.parents[i];
            while let Some(p) = cursor {
                m = locals[p] * m;
                cursor = doc.parents[p];
            }
            m
        })
        .collect();
    let mut out = HashMap::new();
    for (i, node) in doc.nodes.iter().enumerate() {
        let Some(m) = node.mesh else { continue };
        let mesh = &doc.meshes[m];
        let w = weights.get(&i).cloned().unwrap_or_else(|| mesh.weights.clone());
        let morphed: Vec<Vec3> = mesh
            .positions
            .iter()
            .enumerate()
            .map(|(v, p)| *p + mesh.targets.iter().zip(&w).map(|(target, wk)| target[v] * *wk).sum::<Vec3>())
            .collect();
        let placed = match node.skin {
            Some(skin) => {
                let (joints, ibm) = &doc.skins[skin];
                let joint_matrices: Vec<Mat4> = joints.iter().zip(ibm).map(|(&j, inv)| world[j] * *inv).collect();
                morphed
                    .iter()
                    .enumerate()
                    .map(|(v, p)| {
                        let mut sum = Vec3::ZERO;
                        for k in 0..4 {
                            let wk = mesh.joint_weights[v][k];
                            if wk > 0.0 {
                                sum += joint_matrices[mesh.joints[v][k] as usize].transform_point3(*p) * wk;
                            }
                        }
                        sum
                    })
                    .collect()
            }
            None => morphed.iter().map(|p| world[i].transform_point3(*p)).collect(),
        };
        out.insert(mesh.scene_mesh, (placed, world[i]));
    }
    out
}

/// How many posed meshes had their scrolled UVs compared.
static UV_CHECKS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Compares every exported mesh's world positions, and scrolled UVs, with the viewer's pose.
fn compare(label: &str, scene: &Scene, doc: &Loaded, clip: Option<usize>, time: f32, seconds: f32) -> f32 {
    let animation = clip.and_then(|c| doc.animations.iter().position(|a| a.name == scene.clips[c].name));
    let pose = Pose::at(scene, clip, time);
    let size = scene.bounds().size().max_element().max(pose.bounds(scene).size().max_element()).max(1e-6);
    let tolerance = 1e-4 * size;
    let gltf = gltf_world_positions(doc, animation, seconds);
    let mut worst = 0f32;
    for (m, mesh) in scene.meshes.iter().enumerate() {
        if let Some(animated) = pose.uvs[m].as_ref()
            && let Some(loaded) = doc.meshes.iter().find(|l| l.scene_mesh == m)
            && let Some(material) = loaded.material
        {
            // A scroll is a KHR_texture_transform offset on the mesh's material.
            let pointer = format!(
                "/materials/{material}/pbrMetallicRoughness/baseColorTexture/extensions/KHR_texture_transform/offset"
            );
            let channel = doc.pointers.iter().find(|(a, p, _, _)| Some(*a) == animation && *p == pointer);
            if let Some((_, _, times, values)) = channel {
                let keyed = LoadedChannel {
                    node: 0,
                    path: Path3::Translation,
                    step: false,
                    times: times.clone(),
                    values: values.clone(),
                    width: 2,
                };
                let offset = glam::Vec2::from_slice(&sample(&keyed, seconds));
                for (v, (e, base)) in animated.iter().zip(&loaded.uvs).enumerate() {
                    let g = *base + offset;
                    assert!(e.abs_diff_eq(g, 1e-5), "{label}: mesh {m} uv {v} at {time}: viewer {e}, glTF {g}");
                }
                UV_CHECKS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
        }
        let Some((positions, holder)) = gltf.get(&m) else { continue };
        let hidden = mesh.node.is_some_and(|n| !pose.visible[n]);
        if hidden {
            assert!(holder.determinant().abs() < 1e-9, "{label}: mesh {m} is hidden in the pose but shown in glTF");
            continue;
        }
        let world = pose.mesh_world(scene, m);
        let expected = pose.mesh_positions(scene, m);
        assert_eq!(expected.len(), positions.len(), "{label}: mesh {m} vertex count");
        for (v, (e, g)) in expected.iter().zip(positions).enumerate() {
            let e = world.transform_point3(*e);
            let error = (e - *g).length();
            worst = worst.max(error / size);
            assert!(
                error <= tolerance,
                "{label}: mesh {m} ({}) vertex {v} at clip time {time}: viewer {e}, glTF {g} (error {error}, size {size})",
                mesh.name
            );
        }
    }
    worst
}

/// Exports, reads back and compares at the rest pose and at nine times across every clip.
fn round_trip(label: &str, scene: &Scene) -> f32 {
    let doc = export::build(scene).expect("export builds");
    let glb = export::to_glb(&doc).expect("glb");
    std::fs::write(out_dir("gltf").join(format!("{label}.glb")), &glb).expect("write glb");
    let loaded = load(&glb);
    let exported_meshes = loaded.meshes.len();
    // A model of tags alone (a Quake 3 hand model) has no mesh to export.
    assert!(exported_meshes > 0 || scene.meshes.is_empty(), "{label}: no mesh exported");
    let mut worst = compare(label, scene, &loaded, None, 0.0, 0.0);
    for (c, clip) in scene.clips.iter().enumerate() {
        // Both ends, and seven times that fall off any regular grid of keys or samples.
        let fractions = [0.0, 0.0713, 0.1937, 0.3519, 0.5, 0.6173, 0.7741, 0.9289, 1.0];
        for f in fractions {
            let time = clip.start + clip.length() * f;
            let seconds = export::clip_seconds(clip, time);
            worst = worst.max(compare(&format!("{label} clip {}", clip.name), scene, &loaded, Some(c), time, seconds));
        }
    }
    for (a, pointer, times, values) in &loaded.pointers {
        assert!(pointer.starts_with("/materials/"), "{label}: pointer {pointer}");
        assert!(times.windows(2).all(|w| w[0] < w[1]), "{label}: pointer times increase");
        let width = values.len() / times.len();
        assert!(width >= 1 && width * times.len() == values.len(), "{label}: {pointer} in animation {a}");
    }
    worst
}

// ------------------------------------------------------------------------------- tests

#[test]
fn every_model_round_trips_through_gltf_within_1e4_of_its_size() {
    let mut lines = Vec::new();
    for (label, scene) in models() {
        let worst = round_trip(&label, &scene);
        lines.push(format!("{label}: {} clips, worst error {worst:.2e} of the size", scene.clips.len()));
    }
    eprintln!("{}", lines.join("\n"));
    // The demo's water and fountain scroll their textures.
    assert!(UV_CHECKS.load(std::sync::atomic::Ordering::Relaxed) > 0, "no UV scroll was compared");
}

#[test]
fn material_colour_pointers_match_the_viewer() {
    // Colour and alpha tracks become baseColorFactor through KHR_animation_pointer: a fade
    // made here, and the corpus M2s' tracks where they move.
    let root = corpus().join("m2");
    let corpus_models = if root.is_dir() {
        mdview::scan::model_files(&root).unwrap()
    } else {
        eprintln!("SKIP (part): {} is absent", root.display());
        Vec::new()
    };
    let scenes = corpus_models
        .iter()
        .map(|path| (path.display().to_string(), formats::open(path).unwrap()))
        .chain([("island with a fade".to_string(), island_with_colour_fade())]);
    let mut checked = 0;
    for (path, scene) in scenes {
        let glb = export::to_glb(&export::build(&scene).unwrap()).unwrap();
        let doc = load(&glb);
        for (a, pointer, times, values) in &doc.pointers {
            let Some(material) = pointer
                .strip_prefix("/materials/")
                .and_then(|p| p.strip_suffix("/pbrMetallicRoughness/baseColorFactor"))
                .map(|m| m.parse::<usize>().unwrap())
            else {
                continue;
            };
            let clip = scene.clips.iter().position(|c| c.name == doc.animations[*a].name).unwrap();
            let clip_ref = &scene.clips[clip];
            for (k, &seconds) in times.iter().enumerate() {
                let time = clip_ref.start + seconds * clip_ref.rate;
                let pose = Pose::at(&scene, Some(clip), time);
                let expected = pose.material_colors[material].clamp(Vec4::ZERO, Vec4::ONE);
                let got = Vec4::from_slice(&values[k * 4..k * 4 + 4]);
                assert!(got.abs_diff_eq(expected, 1e-4), "{path}: {pointer} at {time}: {got} vs {expected}");
                checked += 1;
            }
            assert!(doc.base_colors.len() > material);
        }
    }
    assert!(checked >= 2, "the fade's keys were checked ({checked})");
}

/// The island with a clip that fades material 0's colour and alpha: a material animation
/// that needs `KHR_animation_pointer` (the corpus M2 tracks hold still, and export none).
fn island_with_colour_fade() -> Scene {
    use mdview::scene::{Channel, Clip, Curve, Key, TrackTime};
    let mut scene = formats::decode_bytes(&common::island().to_bytes()).unwrap();
    let keys = |a: Vec3, b: Vec3| Curve::linear(vec![Key { time: 0.0, value: a }, Key { time: 10.0, value: b }]);
    let alpha = Curve::linear(vec![Key { time: 0.0, value: 0.75 }, Key { time: 10.0, value: 0.25 }]);
    scene.clips.push(Clip {
        name: "fade".into(),
        source: None,
        start: 0.0,
        end: 10.0,
        rate: 10.0,
        channels: vec![
            Channel::MaterialColor {
                material: 0,
                keys: keys(Vec3::ONE, Vec3::new(1.0, 0.2, 0.1)),
                time: TrackTime::Clip,
            },
            Channel::MaterialAlpha { material: 0, keys: alpha, time: TrackTime::Clip },
        ],
        tracks: Vec::new(),
        warnings: Vec::new(),
    });
    scene
}

fn uses_pointers(json: &serde_json::Value) -> bool {
    let used = json["extensionsUsed"].as_array().is_some_and(|e| e.iter().any(|x| x == "KHR_animation_pointer"));
    let channels = json["animations"].as_array().into_iter().flatten().flat_map(|a| a["channels"].as_array());
    used || channels.flatten().any(|c| !c["target"]["extensions"]["KHR_animation_pointer"].is_null())
}

/// A material track that holds the material's own colour all clip long (the corpus M2s'
/// constant transparency weights) writes no pointer channel, so assimp 5.2, which refuses a
/// colour pointer ("elemSize 16 > targetElemSize 12"), loads every corpus M2 as exported.
#[test]
fn constant_material_tracks_write_no_pointer_and_assimp_loads_the_corpus_m2s() {
    let Some(root) = in_corpus("m2") else { return };
    let dir = out_dir("gltf-validate/corpus-m2");
    let assimp = std::process::Command::new("assimp").arg("version").output().is_ok();
    for path in mdview::scan::model_files(&root).unwrap() {
        let scene = formats::open(&path).unwrap();
        let doc = export::build(&scene).unwrap();
        assert!(!uses_pointers(&doc.json), "{}: its material tracks hold still", path.display());
        let glb = dir.join(format!("{}.glb", path.file_stem().unwrap().to_string_lossy()));
        export::write(&scene, &glb).unwrap();
        if assimp {
            let run = std::process::Command::new("assimp").arg("info").arg(&glb).output().unwrap();
            assert!(run.status.success(), "assimp refuses {}: {}", glb.display(), String::from_utf8_lossy(&run.stdout));
        }
    }
    if !assimp {
        eprintln!("SKIP (part): assimp is not installed; the files were checked without it");
    }
}

/// `export --no-material-animation` writes a glTF without `KHR_animation_pointer`: material
/// colour, alpha and texture animation are left out, with a note, and each animated
/// material keeps the colour it shows at the start of the first clip.
#[test]
fn material_animation_can_be_left_out_for_readers_without_pointers() {
    let dir = out_dir("gltf-validate/no-pointers");
    let scene = island_with_colour_fade();
    let full = export::build(&scene).unwrap();
    assert!(uses_pointers(&full.json), "the fade is a colour pointer");
    let plain = export::build_with(&scene, export::PointerAnimation::Leave).unwrap();
    assert!(!uses_pointers(&plain.json), "{}", plain.json["extensionsUsed"]);
    assert!(
        plain.notes.iter().any(|n| n.contains("left out (no KHR_animation_pointer, as asked)")),
        "{:?}",
        plain.notes
    );
    let animations = |json: &serde_json::Value| json["animations"].as_array().map_or(0, Vec::len);
    assert_eq!(animations(&plain.json), animations(&full.json) - 1, "only the clip with nothing else left goes");
    let clip = scene.first_clip();
    let posed = Pose::at(&scene, clip, clip.map_or(0.0, |c| scene.clips[c].start));
    for m in scene.animated_materials() {
        let factor: Vec<f32> = plain.json["materials"][m]["pbrMetallicRoughness"]["baseColorFactor"]
            .as_array()
            .map(|a| a.iter().filter_map(|v| v.as_f64()).map(|v| v as f32).collect())
            .unwrap_or_else(|| vec![1.0; 4]);
        let expected = posed.material_colors[m].clamp(Vec4::ZERO, Vec4::ONE);
        assert!(Vec4::from_slice(&factor).abs_diff_eq(expected, 1e-5), "material {m}: {factor:?} vs {expected}");
    }
    // From the command line, for a file: the same, said on stderr.
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_mdview"))
        .arg("export")
        .arg(mdview::demo::extract().unwrap().join("island.MD2"))
        .arg("-o")
        .arg(dir.join("island.glb"))
        .arg("--no-material-animation")
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("UV scroll of mesh") && stderr.contains("as asked"), "{stderr}");
    let (json, _) = glb_chunks(&std::fs::read(dir.join("island.glb")).unwrap());
    assert!(!uses_pointers(&json));
    // The demo island's sea scroll is a texture-transform pointer by default.
    let demo = formats::open(&mdview::demo::extract().unwrap().join("island.MD2")).unwrap();
    assert!(uses_pointers(&export::build(&demo).unwrap().json), "the demo island's sea scrolls");
    // Written out, both pass the validator (CI runs it over gltf-validate).
    export::write_with(&scene, &dir.join("fade-plain.glb"), export::PointerAnimation::Leave).unwrap();
    export::write(&scene, &dir.join("fade.glb")).unwrap();
}

#[test]
fn a_sheared_node_becomes_a_three_node_chain_and_trs_nodes_stay_single() {
    let scene = formats::decode_bytes(&common::island().to_bytes()).unwrap();
    let doc = export::build(&scene).unwrap();
    let nodes = doc.json["nodes"].as_array().unwrap();
    let named = |name: &str| nodes.iter().filter(|n| n["name"] == name).count();
    // l_tree2 leans its Y axis: written as itself, its stretch and its orientation.
    assert_eq!(named("l_tree2"), 1);
    assert_eq!(named("l_tree2 (stretch)"), 1);
    assert_eq!(named("l_tree2 (orientation)"), 1);
    // l_tree1 is a plain translation: one node, translation only.
    assert_eq!(named("l_tree1 (stretch)"), 0);
    let tree1 = nodes.iter().find(|n| n["name"] == "l_tree1").unwrap();
    assert!(tree1.get("matrix").is_none() && tree1.get("rotation").is_none() && tree1.get("scale").is_none());
    let t: Vec<f64> = tree1["translation"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    assert!((t[0] + 11.92).abs() < 1e-5 && (t[1] - 8.99).abs() < 1e-5 && (t[2] - 8.40).abs() < 1e-5);
    assert!(nodes.iter().all(|n| n.get("matrix").is_none()), "no node carries a matrix");
    // The shear's product is the authored matrix: checked for every vertex by the round trip.
    round_trip("sheared_island", &scene);
}

#[test]
fn quake2_frames_are_one_hot_morph_weights_and_sparse_when_smaller() {
    let scene = formats::decode_bytes(&common::quake2_fixture().to_bytes()).unwrap();
    let doc = export::build(&scene).unwrap();
    // Three frames, three targets (deltas from the rest positions).
    let mesh = &doc.json["meshes"][0];
    assert_eq!(mesh["primitives"][0]["targets"].as_array().unwrap().len(), 3);
    assert_eq!(mesh["weights"].as_array().unwrap().len(), 3);
    // Clip "stand" has two frames (times 0 and 1 at 10 fps): two keys of three weights; dense
    // (24 bytes) is smaller than sparse (16 bytes)? No: sparse is 2 × 8 = 16 < 24.
    let names: Vec<&str> =
        doc.json["animations"].as_array().unwrap().iter().map(|a| a["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["stand", "run"]);
    let stand = &doc.json["animations"][0];
    let output = stand["samplers"][0]["output"].as_u64().unwrap() as usize;
    let accessor = &doc.json["accessors"][output];
    assert_eq!(accessor["count"], 6);
    assert_eq!(accessor["sparse"]["count"], 2, "one non-zero weight per key");
    let input = stand["samplers"][0]["input"].as_u64().unwrap() as usize;
    let max = doc.json["accessors"][input]["max"][0].as_f64().unwrap();
    assert!((max - 0.1).abs() < 1e-6, "frame 1 at 10 fps is 0.1 s, not {max}");
}

#[test]
fn mdr_skins_have_four_unique_joints_summing_to_one() {
    let scene = formats::decode_bytes(&mdview::writers::mdr::arm(false).to_bytes()).unwrap();
    let glb = export::to_glb(&export::build(&scene).unwrap()).unwrap();
    let doc = load(&glb);
    assert!(!doc.skins.is_empty());
    for mesh in &doc.meshes {
        assert_eq!(mesh.joints.len(), mesh.positions.len());
        for (j, w) in mesh.joints.iter().zip(&mesh.joint_weights) {
            assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-5);
            for a in 0..4 {
                if w[a] == 0.0 {
                    assert_eq!(j[a], 0, "unused slots are zeroed");
                }
                for b in a + 1..4 {
                    assert!(w[a] == 0.0 || w[b] == 0.0 || j[a] != j[b], "joint repeated in one vertex");
                }
            }
        }
    }
}

#[test]
fn the_hunter_exports_under_3_mb() {
    let Some(path) = in_corpus("md2/hunter/tris.md2") else { return };
    let scene = formats::open(&path).unwrap();
    assert_eq!(scene.format, FormatKind::Quake2Md2);
    let glb = export::to_glb(&export::build(&scene).unwrap()).unwrap();
    assert!(glb.len() < 3_000_000, "hunter.glb is {} bytes", glb.len());
}

/// Runs the Khronos validator over every export of this suite (`.glb`, and one `.gltf` with
/// its `.bin`). Skips without Node or the package, except in CI, where it must run.
#[test]
fn every_export_passes_the_khronos_validator() {
    let dir = out_dir("gltf-validate");
    for (label, scene) in models() {
        export::write(&scene, &dir.join(format!("{label}.glb"))).expect("glb written");
    }
    let island = formats::decode_bytes(&common::island().to_bytes()).unwrap();
    // A name with a space and a `#`: the buffer's URI must encode both (RFC 3986), or the
    // validator and web loaders read a fragment instead of the file.
    export::write(&island, &dir.join("island json#1.gltf")).expect("gltf written");
    assert!(dir.join("island json#1.bin").is_file());
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("island json#1.gltf")).unwrap()).unwrap();
    assert_eq!(json["buffers"][0]["uri"], "island%20json%231.bin");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let script = root.join(".ci/validate-gltf.mjs");
    let installed = root.join(".validator/node_modules/gltf-validator").is_dir();
    let node = std::process::Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success());
    if !installed || !node {
        assert!(std::env::var_os("CI").is_none(), "CI must install Node and gltf-validator (.ci/run)");
        eprintln!("SKIP: node or .validator/node_modules/gltf-validator missing; run .ci/run to install");
        return;
    }
    let out = std::process::Command::new("node").arg(&script).arg(&dir).output().expect("node runs");
    let text = String::from_utf8_lossy(&out.stdout);
    eprintln!("{text}");
    assert!(out.status.success(), "validator reported errors:\n{text}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.lines().filter(|l| l.contains("\"errors\":0")).count() >= 10);
    let named = text.lines().find(|l| l.contains("island json#1.gltf")).expect("the .gltf was validated");
    assert!(!named.contains("NON_RELATIVE_URI"), "{named}");
}

#[test]
fn the_cli_writes_glb_gltf_and_converts_a_folder_keeping_its_structure() {
    let export = |args: &[&std::ffi::OsStr]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_mdview")).arg("export").args(args).output().unwrap()
    };
    let dir = out_dir("gltf-cli");
    let input = dir.join("in");
    let _ = std::fs::remove_dir_all(&input);
    std::fs::create_dir_all(input.join("nested")).unwrap();
    std::fs::write(input.join("nested/quake.md2"), common::quake2_fixture().to_bytes()).unwrap();
    std::fs::write(input.join("island.md2"), common::island().to_bytes()).unwrap();
    std::fs::write(input.join("broken.md2"), b"IDP2 not really").unwrap();

    let glb = dir.join("one.glb");
    let run = export(&[input.join("nested/quake.md2").as_ref(), "-o".as_ref(), glb.as_ref()]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    assert_eq!(&std::fs::read(&glb).unwrap()[0..4], b"glTF");

    // `--anim` keeps that clip alone.
    let quake = formats::decode_bytes(&common::quake2_fixture().to_bytes()).unwrap();
    assert!(quake.clips.len() >= 2);
    let wanted = &quake.clips[1].name;
    let single = dir.join("single.gltf");
    let run = export(&[
        input.join("nested/quake.md2").as_ref(),
        "-o".as_ref(),
        single.as_ref(),
        "--anim".as_ref(),
        wanted.as_ref(),
    ]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&single).unwrap()).unwrap();
    let names: Vec<&str> = json["animations"].as_array().unwrap().iter().map(|a| a["name"].as_str().unwrap()).collect();
    assert_eq!(names, [wanted.as_str()]);

    let gltf = dir.join("one.gltf");
    let run = export(&[input.join("island.md2").as_ref(), "-o".as_ref(), gltf.as_ref()]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&gltf).unwrap()).unwrap();
    assert_eq!(json["buffers"][0]["uri"], "one.bin");
    assert_eq!(
        json["buffers"][0]["byteLength"].as_u64().unwrap(),
        std::fs::metadata(dir.join("one.bin")).unwrap().len()
    );
    assert_eq!(json["asset"]["version"], "2.0");
    assert!(json["asset"]["extras"]["axes"].as_str().unwrap().contains("Y up"));

    let out = dir.join("batch");
    let _ = std::fs::remove_dir_all(&out);
    let run = export(&[input.as_ref(), "-o".as_ref(), out.as_ref()]);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(!run.status.success(), "a failed file makes the batch exit non-zero");
    // Neither the Quake II fixture's skin nor the island's textures are beside them: warned.
    assert!(stdout.contains("converted 2, warned 2, failed 1"), "{stdout}");
    assert!(stdout.contains("failed: ") && stdout.contains("broken.md2"), "{stdout}");
    assert!(out.join("nested/quake.md2.glb").is_file());
    assert!(out.join("island.md2.glb").is_file());

    let obj_out = dir.join("batch-obj");
    let run =
        export(&[input.join("nested").as_ref(), "-o".as_ref(), obj_out.as_ref(), "--format".as_ref(), "obj".as_ref()]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    assert!(obj_out.join("quake.md2.obj").is_file() && obj_out.join("quake.md2.mtl").is_file());

    // An archive converts like a folder: its members' paths inside it are kept, textures come
    // from the archive's own WCT files, and the animation files ride along with their models.
    let wad = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo/park.wad");
    let members = mdview::scan::model_files(&wad).unwrap();
    let wad_out = dir.join("batch-wad");
    let _ = std::fs::remove_dir_all(&wad_out);
    let run = export(&[wad.as_ref(), "-o".as_ref(), wad_out.as_ref()]);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{stdout}{}", String::from_utf8_lossy(&run.stderr));
    let models: Vec<&PathBuf> =
        members.iter().filter(|m| formats::open(m).is_ok_and(|s| s.kind == mdview::scene::SceneKind::Mesh)).collect();
    assert!(models.len() >= 3, "the demo archive holds the island, the gate and the fountain: {members:?}");
    assert!(stdout.contains(&format!("converted {}, ", models.len())), "{stdout}");
    for member in models {
        let relative = member.strip_prefix(&wad).unwrap();
        let output = wad_out.join(format!("{}.glb", relative.display()));
        let bytes = std::fs::read(&output).unwrap_or_else(|e| panic!("{}: {e}", output.display()));
        let (json, _) = glb_chunks(&bytes);
        assert!(json["images"].as_array().is_some_and(|i| !i.is_empty()), "{}: textures embedded", output.display());
    }
}

#[test]
fn texture_samplers_wrap_as_the_materials_do() {
    use mdview::scene::TextureWrap;
    let mut clamped = 0;
    let mut checked = 0;
    for (label, scene) in models() {
        let doc = export::build(&scene).expect("export builds");
        let json = &doc.json;
        for (m, material) in scene.materials.iter().enumerate() {
            let Some(texture) = json["materials"][m]["pbrMetallicRoughness"]["baseColorTexture"]["index"].as_u64()
            else {
                continue;
            };
            let sampler = &json["samplers"][json["textures"][texture as usize]["sampler"].as_u64().unwrap() as usize];
            // glTF's default is REPEAT (10497); CLAMP_TO_EDGE is 33071.
            let mode = |key: &str| sampler[key].as_u64().unwrap_or(10497);
            let expected = |w: TextureWrap| if w == TextureWrap::Clamp { 33071 } else { 10497 };
            assert_eq!(mode("wrapS"), expected(material.wrap[0]), "{label}: material {m} wrapS");
            assert_eq!(mode("wrapT"), expected(material.wrap[1]), "{label}: material {m} wrapT");
            checked += 1;
            clamped += usize::from(material.wrap.contains(&TextureWrap::Clamp));
        }
    }
    assert!(checked > 0, "no textured material exported");
    if corpus().join("m2").is_dir() {
        assert!(clamped > 0, "the M2 corpus has clamped texture axes");
    }
}

/// Every animation of a file keys the same targets: one that another animation moves and this
/// one leaves alone holds its rest value, so a player switching animations does not keep what
/// the last one left (the Quake II bug's weapon has no frames in its death clips).
#[test]
fn every_animation_keys_every_animated_target() {
    for (label, scene) in models() {
        let doc = export::build(&scene).unwrap();
        let Some(animations) = doc.json["animations"].as_array().filter(|a| a.len() >= 2) else { continue };
        let targets = |a: &serde_json::Value| {
            let mut t: Vec<String> = a["channels"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| {
                    let target = &c["target"];
                    match target["extensions"]["KHR_animation_pointer"]["pointer"].as_str() {
                        Some(pointer) => pointer.to_string(),
                        None => format!("{} {}", target["node"], target["path"]),
                    }
                })
                .collect();
            t.sort();
            t.dedup();
            t
        };
        let first = targets(&animations[0]);
        for a in animations {
            assert_eq!(targets(a), first, "{label}: animation {}", a["name"]);
        }
    }
}

/// A TPW model whose texture is not found still scrolls (#43): the viewer draws the fallback
/// tile and moves it, so the glTF embeds that tile as the material's image and keeps the clip's
/// texture-transform pointer.
#[test]
fn a_uv_scroll_survives_a_missing_texture() {
    let demo = mdview::demo::extract().unwrap();
    let bare = out_dir("missing-texture-src");
    for name in ["island.MD2", "islandM1.MD2"] {
        std::fs::copy(demo.join(name), bare.join(name)).unwrap();
    }
    let scene = formats::open(&bare.join("island.MD2")).unwrap();
    assert!(scene.warnings.iter().any(|w| w.contains("not found")), "the textures are missing: {:?}", scene.warnings);
    let doc = export::build(&scene).unwrap();
    let json = &doc.json;
    assert!(doc.notes.iter().any(|n| n.contains("fallback tile embedded")), "{:?}", doc.notes);
    assert!(!doc.notes.iter().any(|n| n.contains("dropped") || n.contains("left out")), "{:?}", doc.notes);
    let pointers: Vec<String> = json["animations"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|a| a["channels"].as_array().into_iter().flatten())
        .filter_map(|c| c["target"]["extensions"]["KHR_animation_pointer"]["pointer"].as_str().map(String::from))
        .filter(|p| p.ends_with("KHR_texture_transform/offset"))
        .collect();
    assert!(!pointers.is_empty(), "the scroll is a texture-transform pointer channel");
    for pointer in &pointers {
        let material: usize = pointer.split('/').nth(2).and_then(|m| m.parse().ok()).expect("a material index");
        let texture = &json["materials"][material]["pbrMetallicRoughness"]["baseColorTexture"];
        assert!(!texture["extensions"]["KHR_texture_transform"].is_null(), "{pointer}: the texture transforms");
        let texture = texture["index"].as_u64().expect("a texture") as usize;
        let image = &json["images"][json["textures"][texture]["source"].as_u64().unwrap() as usize];
        assert_eq!(image["name"], "fallback tile", "{pointer}");
        assert_eq!(image["mimeType"], "image/png");
        assert!(image["bufferView"].is_u64(), "the tile is embedded");
    }
    // The tile is embedded once, however many materials use it.
    let tiles = json["images"].as_array().unwrap().iter().filter(|i| i["name"] == "fallback tile").count();
    assert_eq!(tiles, 1);
    // CI's validator run reads gltf-validate.
    export::write(&scene, &out_dir("gltf-validate").join("island-missing-textures.glb")).unwrap();
}
