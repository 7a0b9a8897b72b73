//! WoW M2 tests on the real corpus files (read in place from `../shared/corpus/m2`; each test
//! skips with a message when the corpus is absent): every file opens with the counts its
//! source states, geometry faces the right way, animation poses, and sibling handling.

use std::path::{Path, PathBuf};

use glam::Vec3;
use mdview::formats;
use mdview::scene::anim::Pose;
use mdview::scene::{AlphaMode, BlendMode, Channel, Scene, resolve_clip};

fn corpus(rel: &str) -> Option<PathBuf> {
    let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus/m2")).join(rel);
    if path.exists() {
        Some(path)
    } else {
        eprintln!("SKIP: corpus file {} is absent", path.display());
        None
    }
}

fn open(rel: &str) -> Option<Scene> {
    let path = corpus(rel)?;
    Some(formats::open(&path).unwrap_or_else(|e| panic!("{e}")))
}

fn detail<'a>(scene: &'a Scene, title: &str) -> &'a mdview::scene::DetailSection {
    scene.details.iter().find(|d| d.title == title).unwrap_or_else(|| panic!("no {title} section"))
}

#[test]
fn rabbit_opens_with_its_skin_bones_and_sequences() {
    let Some(scene) = open("rabbit/Rabbit.m2") else { return };
    assert_eq!(scene.version, 264);
    assert_eq!(scene.meshes.len(), 1);
    let mesh = &scene.meshes[0];
    assert_eq!(mesh.triangles.len(), 107);
    assert_eq!(mesh.source_positions.len(), 154);
    assert_eq!(scene.skeletons[0].joints.len(), 40);
    assert_eq!(scene.clips.len(), 7);
    assert_eq!(scene.clips[0].name, "Walk");
    assert_eq!(scene.clips[0].end, 600.0);
    assert_eq!(scene.clips[0].rate, 1000.0);
    assert_eq!(scene.clips[5].name, "Stand.1");
    // The creature skin has no name in the file: the .blp beside the model stands in.
    assert_eq!(scene.materials[0].texture.as_deref(), Some("RabbitSkin.blp"));
    assert_eq!(scene.materials[0].alpha, AlphaMode::Blend(BlendMode::AlphaKey));
    assert!(scene.warnings.iter().any(|w| w.contains("RabbitSkin.blp")), "{:?}", scene.warnings);
    let files = detail(&scene, "Texture files");
    assert!(files.rows[0].cells().any(|(_, v)| v == "128x128 DXT3"), "{files:?}");
    // Every vertex is skinned to valid joints with weights summing to one.
    let skin = mesh.skin.as_ref().unwrap();
    for &(start, count) in &skin.ranges {
        let infl = &skin.influences[start as usize..(start + count) as usize];
        assert!(!infl.is_empty());
        let sum: f32 = infl.iter().map(|i| i.weight).sum();
        assert!((sum - 1.0).abs() < 1e-5);
        assert!(infl.iter().all(|i| (i.joint as usize) < 40));
    }
}

#[test]
fn tank_has_three_submeshes_and_six_texture_units() {
    let Some(scene) = open("tank/tank.m2") else { return };
    assert_eq!(scene.meshes.len(), 3);
    assert_eq!(scene.materials.len(), 6);
    let triangles: usize = scene.meshes.iter().map(|m| m.triangles.len()).sum();
    assert_eq!(triangles, 4407 / 3);
    for mesh in &scene.meshes {
        // Layer 0 opaque base, then layer 1 additive environment pass without depth write.
        assert_eq!(mesh.submeshes.len(), 2);
        let base = &scene.materials[mesh.submeshes[0].material.unwrap()];
        let over = &scene.materials[mesh.submeshes[1].material.unwrap()];
        assert_eq!(base.alpha, AlphaMode::Blend(BlendMode::Opaque));
        assert_eq!(over.alpha, AlphaMode::Blend(BlendMode::Add));
        assert!(!over.depth_write && base.depth_write);
        assert!(over.draw_order > base.draw_order);
    }
    assert!(scene.materials[0].texture.as_deref().unwrap().ends_with("IRONFORGESTEAMTANK01.BLP"));
}

#[test]
fn cataclysm_axe_loads_with_a_warning() {
    let Some(scene) = open("cata_v272_axe/axe_1h_blacksmithing_d_01.m2") else { return };
    assert_eq!(scene.version, 272);
    assert!(scene.warnings.iter().any(|w| w.contains("272")), "{:?}", scene.warnings);
    assert_eq!(scene.meshes[0].triangles.len(), 1404 / 3);
    assert_eq!(scene.meshes[0].source_positions.len(), 510);
}

/// Triangles wind counter-clockwise in the scene: their face normals agree with the normals
/// the file stores, for nearly every triangle of every model.
#[test]
fn faces_agree_with_stored_normals() {
    for rel in ["rabbit/Rabbit.m2", "tank/tank.m2", "cata_v272_axe/axe_1h_blacksmithing_d_01.m2"] {
        let Some(scene) = open(rel) else { return };
        let (mut agree, mut total) = (0, 0);
        for mesh in &scene.meshes {
            for t in &mesh.triangles {
                let [a, b, c] = t.map(|i| mesh.source_positions[i as usize]);
                let Some(face) = (b - a).cross(c - a).try_normalize() else { continue };
                let stored: Vec3 = t.iter().map(|&i| mesh.normals[i as usize]).sum();
                total += 1;
                if face.dot(stored) > 0.0 {
                    agree += 1;
                }
            }
        }
        assert!(agree as f32 > 0.9 * total as f32, "{rel}: {agree} of {total} faces agree");
    }
}

#[test]
fn the_model_stands_upright() {
    let Some(scene) = open("rabbit/Rabbit.m2") else { return };
    let b = scene.bounds();
    // Y is up: the rabbit sits on the ground, longer than it is tall.
    assert!(b.min.y > -0.01 && b.max.y > 0.3, "{b:?}");
    assert!(b.size().x > b.size().y);
}

/// Each sequence stores the bounds of its motion (Z-up, at 0x20 of its record). Sampling the
/// skinned mesh over the clip must land within them: a wrong rotation convention or pivot
/// order lands far outside (a conjugated quaternion puts Stand 0.26 off and Run 0.2 off). Run
/// matches within 0.05; other clips reach up to 0.22 past their stored boxes at the tail end.
#[test]
fn posed_bounds_match_each_sequences_stored_bounds() {
    let Some(path) = corpus("rabbit/Rabbit.m2") else { return };
    let bytes = std::fs::read(&path).unwrap();
    let scene = formats::open(&path).unwrap();
    let f = |at: usize| f32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    for (c, clip) in scene.clips.iter().enumerate() {
        let rec = 0x150 + 64 * c + 0x20;
        let (lo, hi) = (Vec3::new(f(rec), f(rec + 4), f(rec + 8)), Vec3::new(f(rec + 12), f(rec + 16), f(rec + 20)));
        // Stored Z-up bounds in scene axes: (x, z, -y).
        let (lo, hi) = (Vec3::new(lo.x, lo.z, -hi.y), Vec3::new(hi.x, hi.z, -lo.y));
        let mut b = mdview::scene::Aabb::EMPTY;
        let mut pose = Pose::default();
        let mut t = 0.0;
        while t <= clip.end {
            pose.evaluate(&scene, Some(c), t);
            for p in pose.mesh_positions(&scene, 0) {
                b.include(p);
            }
            t += 20.0;
        }
        let off = (b.min - lo).abs().max((b.max - hi).abs()).max_element();
        let tolerance = if clip.name == "Run" { 0.05 } else { 0.25 };
        assert!(off < tolerance, "{}: posed {b:?} vs stored {lo}..{hi} ({off})", clip.name);
    }
}

#[test]
fn animation_moves_vertices_and_attachments() {
    let Some(scene) = open("rabbit/Rabbit.m2") else { return };
    let rest = Pose::rest(&scene).mesh_positions(&scene, 0);
    let run = resolve_clip(&scene, "id:5").unwrap();
    assert_eq!(scene.clips[run].name, "Run");
    let pose = Pose::at(&scene, Some(run), 300.0);
    let moved = pose.mesh_positions(&scene, 0);
    assert!(rest.iter().zip(&moved).any(|(a, b)| a.distance(*b) > 0.01));
    assert!(moved.iter().all(|p| p.is_finite()));
    assert_eq!(resolve_clip(&scene, "id:0.2").map(|i| scene.clips[i].name.clone()), Ok("Stand.2".into()));
    assert_eq!(resolve_clip(&scene, "1"), Ok(1), "a bare number is the sequence index");
    // Attachments follow their bone in the pose.
    let tag = scene.nodes.iter().position(|n| n.name.starts_with("attachment 5")).unwrap();
    let rest_world = scene.rest_world_matrices()[tag];
    assert!(pose.world[tag].w_axis.truncate().is_finite());
    assert_ne!(pose.world[tag], rest_world);
}

#[test]
fn skin_profiles_that_are_missing_are_warned_about() {
    let Some(m2) = corpus("rabbit/Rabbit.m2") else { return };
    let dir = std::env::temp_dir().join(format!("mdview-m2-{}-skins", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // Claim two profiles, ship only the second (as `01`, upper-case), like a real fixture.
    let mut bytes = std::fs::read(&m2).unwrap();
    bytes[0x44..0x48].copy_from_slice(&2u32.to_le_bytes());
    std::fs::write(dir.join("rabbit.m2"), &bytes).unwrap();
    std::fs::copy(m2.with_file_name("Rabbit00.skin"), dir.join("RABBIT01.SKIN")).unwrap();
    let scene = formats::open(&dir.join("rabbit.m2")).unwrap();
    assert_eq!(scene.meshes.len(), 1);
    assert!(
        scene.warnings.iter().any(|w| w.contains("rabbit00.skin") && w.contains("missing")),
        "{:?}",
        scene.warnings
    );
    let profiles = detail(&scene, "Skin profiles");
    assert_eq!(profiles.rows.len(), 2);
    // No texture beside it: the run-time texture is left empty, with a warning.
    assert!(scene.materials[0].texture.is_none());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_lone_skin_points_at_its_model() {
    let Some(skin) = corpus("rabbit/Rabbit00.skin") else { return };
    let err = formats::open(&skin).unwrap_err().to_string();
    assert!(err.contains("Rabbit.m2"), "{err}");
}

#[test]
fn other_versions_are_refused_clearly() {
    let Some(m2) = corpus("rabbit/Rabbit.m2") else { return };
    let bytes = std::fs::read(m2).unwrap();
    for (version, expect) in [(256u32, "pre-WotLK"), (263, "pre-WotLK"), (300, "unsupported version 300")] {
        let mut d = bytes.clone();
        d[4..8].copy_from_slice(&version.to_le_bytes());
        let err = formats::decode_bytes(&d).unwrap_err();
        assert!(err.to_string().contains(expect), "{err}");
        assert_eq!(err.field, "version");
    }
    let mut d = bytes.clone();
    d[..4].copy_from_slice(b"MD21");
    let err = formats::decode_bytes(&d).unwrap_err().to_string();
    assert!(err.contains("MD21") && err.contains("unsupported"), "{err}");
}

#[test]
fn bind_pose_export_writes_one_object_per_submesh() {
    let Some(scene) = open("tank/tank.m2") else { return };
    let (obj, mtl) = mdview::export::obj::to_obj(&scene, &Pose::rest(&scene), "tank.mtl");
    assert_eq!(obj.lines().filter(|l| l.starts_with("o ")).count(), 3);
    assert_eq!(obj.lines().filter(|l| l.starts_with("f ")).count(), 4407 / 3);
    assert!(mtl.contains("IRONFORGESTEAMTANK01.BLP"));
}

#[test]
fn blp_textures_decode() {
    for rel in ["rabbit/RabbitSkin.blp", "cata_v272_axe/axe_1h_blacksmithing_d_01.blp"] {
        let Some(path) = corpus(rel) else { return };
        let img = formats::m2::blp::decode(&std::fs::read(path).unwrap()).unwrap();
        assert_eq!(img.rgba.len() as u32, img.width * img.height * 4);
        // Real art: not one flat colour, and mostly opaque.
        let first = &img.rgba[..4];
        assert!(img.rgba.chunks(4).any(|p| p != first));
        let opaque = img.rgba.chunks(4).filter(|p| p[3] > 128).count();
        assert!(opaque * 2 > (img.width * img.height) as usize, "{rel}");
    }
}

#[test]
fn clips_carry_bone_tracks_in_milliseconds() {
    let Some(scene) = open("rabbit/Rabbit.m2") else { return };
    for clip in &scene.clips {
        let Some(Channel::BoneTracks { joints, .. }) = clip.channels.first() else { panic!("no bone tracks") };
        assert!(!joints.is_empty());
        for j in joints {
            assert!(j.rotation.keys.iter().all(|k| k.time >= 0.0 && k.time <= clip.end + 1.0));
        }
    }
}

/// A temporary copy of the rabbit that declares two skin profiles (the second a copy of the
/// first) and has two .blp files beside it, for the viewer's choices.
fn rabbit_with_two_profiles(tag: &str) -> Option<PathBuf> {
    let source = corpus("rabbit")?;
    let dir = std::env::temp_dir().join(format!("mdview-m2-choices-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut m2 = std::fs::read(source.join("Rabbit.m2")).unwrap();
    m2[0x44..0x48].copy_from_slice(&2u32.to_le_bytes());
    std::fs::write(dir.join("Rabbit.m2"), m2).unwrap();
    let skin = std::fs::read(source.join("Rabbit00.skin")).unwrap();
    std::fs::write(dir.join("Rabbit00.skin"), &skin).unwrap();
    std::fs::write(dir.join("rabbit01.SKIN"), &skin).unwrap();
    let blp = std::fs::read(source.join("RabbitSkin.blp")).unwrap();
    std::fs::write(dir.join("RabbitSkin.blp"), &blp).unwrap();
    std::fs::write(dir.join("RabbitSkinGrey.blp"), &blp).unwrap();
    Some(dir)
}

#[test]
fn skin_profile_and_runtime_texture_are_choices_that_reopen() {
    use mdview::formats::{Pick, m2};
    let Some(dir) = rabbit_with_two_profiles("open") else { return };
    let path = dir.join("Rabbit.m2");
    let scene = formats::open(&path).unwrap();
    let skin = scene.choices.iter().find(|c| c.key == m2::CHOICE_SKIN_PROFILE).expect("skin choice");
    assert_eq!(skin.options, ["Rabbit00.skin", "Rabbit01.skin"]);
    assert_eq!(skin.available, [true, true]);
    assert_eq!(skin.selected, Some(0));
    let texture = scene.choices.iter().find(|c| c.key == m2::CHOICE_RUNTIME_TEXTURE).expect("texture choice");
    assert_eq!(texture.options, ["RabbitSkin.blp", "RabbitSkinGrey.blp"]);
    assert_eq!(texture.selected, Some(0));

    let picks = [
        Pick { key: m2::CHOICE_SKIN_PROFILE.into(), option: 1 },
        Pick { key: m2::CHOICE_RUNTIME_TEXTURE.into(), option: 1 },
    ];
    let reopened = formats::open_with(&path, &picks).unwrap();
    let selected = |key: &str| reopened.choices.iter().find(|c| c.key == key).and_then(|c| c.selected);
    assert_eq!(selected(m2::CHOICE_SKIN_PROFILE), Some(1));
    assert_eq!(selected(m2::CHOICE_RUNTIME_TEXTURE), Some(1));
    assert_eq!(reopened.materials[0].texture.as_deref(), Some("RabbitSkinGrey.blp"));
    assert_eq!(reopened.meshes[0].triangles.len(), 107, "profile 1 is a copy of profile 0");
    let profiles = detail(&reopened, "Skin profiles");
    assert!(format!("{profiles:?}").contains("found, in use"), "{profiles:?}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_missing_profile_is_offered_but_not_available() {
    let Some(dir) = rabbit_with_two_profiles("missing") else { return };
    std::fs::remove_file(dir.join("Rabbit00.skin")).unwrap();
    let scene = formats::open(&dir.join("Rabbit.m2")).unwrap();
    let skin = &scene.choices[0];
    assert_eq!(skin.options, ["Rabbit00.skin (missing)", "Rabbit01.skin"]);
    assert_eq!(skin.available, [false, true]);
    assert_eq!(skin.selected, Some(1), "the profile that exists is used");
    assert!(scene.warnings.iter().any(|w| w.contains("Rabbit00.skin")), "{:?}", scene.warnings);
    std::fs::remove_dir_all(&dir).ok();
}

/// The viewer's reopen with another pick keeps the clip, time and selection.
#[cfg(feature = "viewer")]
#[test]
fn reopening_with_another_pick_keeps_the_clip_and_time() {
    use mdview::app::loader::{self, Request};
    use mdview::app::state::{Applied, Session};
    use mdview::formats::{Pick, m2};
    let Some(dir) = rabbit_with_two_profiles("session") else { return };
    let path = dir.join("Rabbit.m2");
    let mut session = Session::default();
    session.begin(1, path.clone());
    assert_eq!(session.apply(loader::load(Request::new(1, path.clone(), std::time::Instant::now()))), Applied::Opened);
    let doc = session.doc.as_mut().unwrap();
    let run = doc.scene.clips.iter().position(|c| c.name == "Run").unwrap();
    doc.play_clip(Some(run));
    doc.timeline.seek(400.0);
    doc.timeline.playing = false;
    doc.selected = Some(3);

    let mut request = Request::new(2, path.clone(), std::time::Instant::now());
    request.picks = vec![Pick { key: m2::CHOICE_RUNTIME_TEXTURE.into(), option: 1 }];
    request.reopen = true;
    session.begin(2, path.clone());
    assert_eq!(session.apply(loader::load(request)), Applied::Reopened);
    let doc = session.doc.as_ref().unwrap();
    assert_eq!(doc.clip, Some(run));
    assert_eq!(doc.timeline.time, 400.0);
    assert!(!doc.timeline.playing);
    assert_eq!(doc.selected, Some(3));
    assert_eq!(doc.scene.materials[0].texture.as_deref(), Some("RabbitSkinGrey.blp"));
    std::fs::remove_dir_all(&dir).ok();
}

/// The rabbit in a temporary folder with its Run sequence (index 1, id 5) moved out to
/// `Rabbit0005-00.anim`: flag 0x20 cleared, and the .anim a copy of the .m2, so the track
/// offsets land on the same keys. Returns the folder.
fn rabbit_with_run_in_an_anim_file(tag: &str, write_anim: bool) -> Option<PathBuf> {
    let source = corpus("rabbit")?;
    let dir = std::env::temp_dir().join(format!("mdview-m2-anim-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let original = std::fs::read(source.join("Rabbit.m2")).unwrap();
    let mut m2 = original.clone();
    let flags_at = u32::from_le_bytes(m2[0x20..0x24].try_into().unwrap()) as usize + 64 + 0x0C;
    m2[flags_at] &= !0x20;
    std::fs::write(dir.join("Rabbit.m2"), m2).unwrap();
    std::fs::copy(source.join("Rabbit00.skin"), dir.join("Rabbit00.skin")).unwrap();
    if write_anim {
        std::fs::write(dir.join("rabbit0005-00.ANIM"), original).unwrap();
    }
    Some(dir)
}

#[test]
fn keyframes_in_an_anim_file_play_like_keyframes_in_the_model() {
    let (Some(reference), Some(dir)) = (open("rabbit/Rabbit.m2"), rabbit_with_run_in_an_anim_file("present", true))
    else {
        return;
    };
    let scene = formats::open(&dir.join("Rabbit.m2")).unwrap();
    let run = resolve_clip(&scene, "Run").unwrap();
    assert!(scene.clips[run].warnings.is_empty(), "{:?}", scene.clips[run].warnings);
    assert!(scene.clips[run].source.as_ref().is_some_and(|p| p.ends_with("rabbit0005-00.ANIM")));
    let sequences = format!("{:?}", detail(&scene, "Sequences"));
    assert!(sequences.contains("0005-00.anim present"), "{sequences}");
    let posed = Pose::at(&scene, Some(run), 300.0);
    let expected = Pose::at(&reference, Some(run), 300.0);
    let rest = Pose::rest(&scene);
    let (got, want) = (posed.mesh_positions(&scene, 0), expected.mesh_positions(&reference, 0));
    assert_eq!(got, want, "the .anim keys are the .m2's keys");
    assert_ne!(got, rest.mesh_positions(&scene, 0), "and they move the rabbit");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_missing_anim_file_leaves_its_sequence_in_the_bind_pose_and_says_why() {
    let Some(dir) = rabbit_with_run_in_an_anim_file("missing", false) else { return };
    let scene = formats::open(&dir.join("Rabbit.m2")).unwrap();
    let run = resolve_clip(&scene, "Run").unwrap();
    let warning = scene.clips[run].warnings.join(" ");
    assert!(warning.contains("0005-00.anim") && warning.contains("bind pose"), "{warning}");
    let sequences = format!("{:?}", detail(&scene, "Sequences"));
    assert!(sequences.contains("0005-00.anim MISSING"), "{sequences}");
    let rest = Pose::rest(&scene).mesh_positions(&scene, 0);
    for ms in [0.0, 300.0, 900.0] {
        // Global-sequence tracks still run the skinning, so equal up to rounding.
        let posed = Pose::at(&scene, Some(run), ms).mesh_positions(&scene, 0);
        assert!(posed.iter().zip(&rest).all(|(a, b)| a.abs_diff_eq(*b, 1e-5)), "Run at {ms} ms");
    }
    // The other sequences still play from the .m2.
    let walk = resolve_clip(&scene, "Walk").unwrap();
    assert_ne!(Pose::at(&scene, Some(walk), 300.0).mesh_positions(&scene, 0), rest);
    std::fs::remove_dir_all(&dir).ok();
}

/// A key list sampled by hand: linear between keys (step for type 0, which the decoder expands
/// into linear pairs), clamped outside them; quaternions slerp the short way.
fn sample_by_hand<T: Copy>(curve: &mdview::scene::Curve<T>, time: f32, lerp: impl Fn(T, T, f32) -> T) -> Option<T> {
    let keys = &curve.keys;
    let first = keys.first()?;
    if time <= first.time {
        return Some(first.value);
    }
    for pair in keys.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        if time <= b.time {
            let f = if b.time > a.time { (time - a.time) / (b.time - a.time) } else { 1.0 };
            return Some(lerp(a.value, b.value, f));
        }
    }
    keys.last().map(|k| k.value)
}

/// Issue 12: a bone track without keys in the playing sequence leaves that component at rest
/// (WoW Model Viewer, wow.export). Rabbit's bone 0 has no rotation keys in Walk; Run's first
/// key (17.9° about Y) used to stand in. The expected pose is computed here from the decoded
/// records: Walk's own keys (decoded in scene axes), pivots mapped from WoW axes, parents
/// first, then the scene's vertex weights.
#[test]
fn rabbit_walk_poses_from_its_own_keys_with_keyless_tracks_at_rest() {
    use glam::{Mat4, Quat};
    let Some(path) = corpus("rabbit/Rabbit.m2") else { return };
    let bytes = std::fs::read(&path).unwrap();
    let model = formats::m2::model::decode(&bytes, &[]).unwrap();
    let scene = formats::open(&path).unwrap();
    let walk = resolve_clip(&scene, "Walk").unwrap();
    assert_eq!(walk, 0);
    let bone0 = &model.bones[0];
    assert_eq!(bone0.rotation.keys_in(walk), 0, "the case the test is about: no rotation keys in Walk");
    assert!(bone0.rotation.is_animated(), "…but keys in other sequences");
    let time = 186.0;
    let keys_at = |global: Option<usize>, period: u32, t: f32| match global {
        Some(_) if period > 0 => t % period as f32,
        Some(_) => 0.0,
        None => t,
    };
    // WoW (x, y, z) → scene (x, z, −y).
    let scene_from_wow = Mat4::from_cols(
        glam::Vec4::new(1.0, 0.0, 0.0, 0.0),
        glam::Vec4::new(0.0, 0.0, -1.0, 0.0),
        glam::Vec4::new(0.0, 1.0, 0.0, 0.0),
        glam::Vec4::W,
    );
    let mut world: Vec<Mat4> = Vec::new();
    for bone in &model.bones {
        for interpolation in [bone.translation.interpolation, bone.rotation.interpolation, bone.scale.interpolation] {
            assert!(interpolation <= 1, "the hand evaluator does step and linear only");
        }
        let tr = &bone.translation;
        let t = tr
            .curves()
            .nth(if tr.global_sequence.is_some() { 0 } else { walk })
            .and_then(|c| {
                sample_by_hand(&c, keys_at(tr.global_sequence, tr.global_period, time), |a, b, f| a.lerp(b, f))
            })
            .unwrap_or(Vec3::ZERO);
        let rt = &bone.rotation;
        let r = rt
            .curves()
            .nth(if rt.global_sequence.is_some() { 0 } else { walk })
            .and_then(|c| {
                sample_by_hand(&c, keys_at(rt.global_sequence, rt.global_period, time), |a: Quat, b: Quat, f| {
                    let b = if a.dot(b) < 0.0 { -b } else { b };
                    a.slerp(b, f).normalize()
                })
            })
            .unwrap_or(Quat::IDENTITY);
        let st = &bone.scale;
        let s = st
            .curves()
            .nth(if st.global_sequence.is_some() { 0 } else { walk })
            .and_then(|c| {
                sample_by_hand(&c, keys_at(st.global_sequence, st.global_period, time), |a, b, f| a.lerp(b, f))
            })
            .unwrap_or(Vec3::ONE);
        // Track keys are decoded in scene axes; the pivot is stored in WoW axes.
        let pivot = scene_from_wow.transform_point3(bone.pivot);
        let local = Mat4::from_translation(pivot + t)
            * Mat4::from_quat(r)
            * Mat4::from_scale(s)
            * Mat4::from_translation(-pivot);
        let parent = usize::try_from(bone.parent).ok().and_then(|p| world.get(p)).copied().unwrap_or(Mat4::IDENTITY);
        world.push(parent * local);
    }
    let pose = Pose::at(&scene, Some(walk), time);
    let mesh = &scene.meshes[0];
    let skin = mesh.skin.as_ref().unwrap();
    let posed = pose.positions[0].as_ref().expect("Walk moves the rabbit");
    let mut worst = 0.0f32;
    for (v, &(start, count)) in skin.ranges.iter().enumerate() {
        let mut expected = Vec3::ZERO;
        for inf in &skin.influences[start as usize..(start + count) as usize] {
            expected += world[inf.joint as usize].transform_point3(inf.offset) * inf.weight;
        }
        let render = mesh.vertex_source.iter().position(|&s| s as usize == v).unwrap();
        worst = worst.max((posed[render] - expected).length());
    }
    assert!(worst < 1e-4, "Walk at {time} ms is {worst} units from its own keys");
}

/// Issue 12: texture flags 0x1 / 0x2 choose repeat along u / v; an axis without its flag clamps
/// (WoW Model Viewer, wow.export). Every corpus texture has flags 0, so every unit clamps.
#[test]
fn texture_wrap_follows_the_texture_flags() {
    use mdview::formats::m2::build::texture_wrap;
    use mdview::scene::TextureWrap::{Clamp, Repeat};
    assert_eq!(texture_wrap(0), [Clamp, Clamp]);
    assert_eq!(texture_wrap(0x1), [Repeat, Clamp]);
    assert_eq!(texture_wrap(0x2), [Clamp, Repeat]);
    assert_eq!(texture_wrap(0x3), [Repeat, Repeat]);
    let Some(scene) = open("tank/tank.m2") else { return };
    assert!(scene.materials.iter().all(|m| m.wrap == [Clamp, Clamp]));
}

/// The tank's environment-mapped additive layers cannot be drawn in glTF (no additive blend, no
/// sphere map), and untextured they would paint the base white: each mesh keeps its base
/// primitive only, and the file's notes say which layer went.
#[test]
fn gltf_leaves_out_layers_it_cannot_draw() {
    let Some(scene) = open("tank/tank.m2") else { return };
    let doc = mdview::export::gltf::build(&scene).unwrap();
    for mesh in doc.json["meshes"].as_array().unwrap() {
        assert_eq!(mesh["primitives"].as_array().unwrap().len(), 1, "{mesh}");
    }
    let left_out = doc.notes.iter().filter(|n| n.contains("left out") && n.contains("environment map")).count();
    assert_eq!(left_out, 3, "{:?}", doc.notes);
}

/// An importer's armature has its bones where the model's are: each joint node rests at its
/// pivot (its parent's node plus the difference of the pivots, no turn), and its inverse bind
/// matrix moves the pivot back to the origin. Folding pivots into identity joints instead put
/// every bone at the origin and tied each translation key to the rotation.
#[test]
fn gltf_joints_rest_at_their_pivots() {
    let Some(scene) = open("rabbit/Rabbit.m2") else { return };
    let doc = mdview::export::gltf::build(&scene).unwrap();
    let json = &doc.json;
    let skin = &json["skins"][0];
    let joints: Vec<usize> = skin["joints"].as_array().unwrap().iter().map(|j| j.as_u64().unwrap() as usize).collect();
    let skeleton = &scene.skeletons[0];
    assert_eq!(joints.len(), skeleton.joints.len());
    let accessor = &json["accessors"][skin["inverseBindMatrices"].as_u64().unwrap() as usize];
    let view = &json["bufferViews"][accessor["bufferView"].as_u64().unwrap() as usize];
    let start =
        view["byteOffset"].as_u64().unwrap_or(0) as usize + accessor["byteOffset"].as_u64().unwrap_or(0) as usize;
    let floats: Vec<f32> = bytemuck::pod_collect_to_vec(&doc.bin[start..start + 64 * joints.len()]);
    for (j, joint) in skeleton.joints.iter().enumerate() {
        let node = &json["nodes"][joints[j]];
        let translation = node["translation"].as_array().map_or(Vec3::ZERO, |t| {
            Vec3::new(t[0].as_f64().unwrap() as f32, t[1].as_f64().unwrap() as f32, t[2].as_f64().unwrap() as f32)
        });
        let parent_pivot = joint.parent.map_or(Vec3::ZERO, |p| skeleton.joints[p].pivot);
        assert!((translation - (joint.pivot - parent_pivot)).length() < 1e-5, "joint {j}: {translation}");
        assert!(node.get("rotation").is_none() && node.get("scale").is_none(), "joint {j} turns at rest: {node}");
        let ibm = glam::Mat4::from_cols_slice(&floats[16 * j..16 * j + 16]);
        assert!(ibm.abs_diff_eq(glam::Mat4::from_translation(-joint.pivot), 1e-5), "joint {j}: {ibm}");
    }
    // The pivots are not all at the origin, or this proves nothing.
    assert!(skeleton.joints.iter().filter(|j| j.pivot.length() > 0.01).count() > 10);
}
