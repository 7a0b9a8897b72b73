//! Clips: one per sequence, named from the animation table, with the bones' TRS tracks and
//! the texture units' colour, alpha and texture-transform channels it plays (colour and
//! transparency falling back to sequence 0 as WoW Model Viewer does), the rest pose's
//! global-sequence channels, `id:N` aliases, and the key budget each entry spends.

use super::keys::{
    CLIP_KEYS_PER_INPUT_BYTE, SequenceKeys, clip_key_count, clip_keys, fallback_sequence, keys_in, spend_keys,
    value_at_start,
};
use super::materials::{rest_color, unit_color, unit_transparency};
use crate::formats::m2::model::M2Model;
use crate::formats::m2::names;
use crate::formats::m2::skin::Skin;
use crate::formats::m2::tracks::Track;
use crate::scene::{Channel, Clip, Curve, JointTracks, Key, Scene, TrackReport, TrackTime};

/// Clip names: the animation name, with `.variation` when non-zero (`Stand`, `Stand.1`).
pub fn sequence_name(id: u16, variation: u16) -> String {
    let base = names::animation_name(id);
    if variation == 0 { base } else { format!("{base}.{variation}") }
}

/// `<id:04>-<variation:02>.anim`, the suffix of a sequence's .anim file after the model name.
pub fn anim_file_suffix(id: u16, variation: u16) -> String {
    format!("{id:04}-{variation:02}.anim")
}

pub(super) fn build_clips(
    model: &M2Model,
    skin: Option<&Skin>,
    unit_materials: &[Option<usize>],
    input_len: u64,
    scene: &mut Scene,
) {
    let mut budget = input_len.saturating_mul(CLIP_KEYS_PER_INPUT_BYTE).max(1 << 20);
    let mut used_names: Vec<String> = Vec::new();
    // Shared by every clip's track reports: one allocation per bone, not per bone and clip.
    let joint_names: Vec<std::sync::Arc<str>> = scene
        .skeletons
        .first()
        .map(|sk| sk.joints.iter().map(|j| j.name.as_str().into()).collect())
        .unwrap_or_default();
    for (s, seq) in model.sequences.iter().enumerate() {
        let mut name = sequence_name(seq.id, seq.variation);
        if used_names.iter().any(|n| n.eq_ignore_ascii_case(&name)) {
            name = format!("{name} #{s}");
        }
        used_names.push(name.clone());
        let mut clip = Clip {
            name,
            source: None,
            start: 0.0,
            end: seq.duration_ms as f32,
            rate: 1000.0,
            channels: Vec::new(),
            tracks: Vec::new(),
            warnings: Vec::new(),
        };
        let keys_missing = model.anim_present.get(s).copied().flatten() == Some(false);
        let sequence = SequenceKeys { index: s, missing: keys_missing };
        if keys_missing {
            clip.warnings.push(format!(
                "keyframes live in <model>{}, which is missing: bind pose (global-sequence tracks still play)",
                anim_file_suffix(seq.id, seq.variation)
            ));
        }
        bone_channels(&model.bones, sequence, &mut budget, &joint_names, &mut clip);
        if let Some(skin) = skin {
            let keys = MaterialKeys { playing: sequence, fallback: Some(fallback_sequence(model)) };
            material_channels(model, skin, unit_materials, keys, &mut budget, &mut clip);
        }
        scene.clips.push(clip);
    }
    // The rest pose plays the global-sequence tracks alone: the same channels built as for a
    // sequence whose own keys are all missing.
    let mut globals = Clip {
        name: "global sequences".into(),
        source: None,
        start: 0.0,
        end: 0.0,
        rate: 1000.0,
        channels: Vec::new(),
        tracks: Vec::new(),
        warnings: Vec::new(),
    };
    let only_global = SequenceKeys { index: 0, missing: true };
    bone_channels(&model.bones, only_global, &mut budget, &joint_names, &mut globals);
    if let Some(skin) = skin {
        let keys = MaterialKeys { playing: only_global, fallback: None };
        material_channels(model, skin, unit_materials, keys, &mut budget, &mut globals);
    }
    let moves = |c: &Channel| !matches!(c, Channel::BoneTracks { joints, .. } if joints.is_empty());
    if globals.channels.iter().any(moves) {
        scene.global_channels = globals.channels;
    }
    // `id:N` names the first variation of each id.
    let mut ids_seen = std::collections::HashSet::new();
    for (i, seq) in model.sequences.iter().enumerate() {
        scene.clip_aliases.push((format!("id:{}.{}", seq.id, seq.variation), i));
        if ids_seen.insert(seq.id) {
            scene.clip_aliases.push((format!("id:{}", seq.id), i));
        }
    }
}

/// The skeleton channel of one sequence (or of the global tracks alone) and its track reports.
fn bone_channels(
    bones: &[crate::formats::m2::model::Bone],
    sequence: SequenceKeys,
    budget: &mut u64,
    joint_names: &[std::sync::Arc<str>],
    clip: &mut Clip,
) {
    // Which bones play, and what they cost, first: whether a track plays is read from its
    // table of runs alone, so this pass is cheap. Then the entries are made in lists sized
    // exactly: reports (about 290 bytes each) are not moved as a list grows, and a clip
    // reserves nothing for bones that do not play in it (sized by the bone count, a crafted
    // file could ask sequences × bones of them).
    let plays = |track_keys: Option<(usize, usize, TrackTime)>| track_keys.map_or(0, |(_, keys, _)| keys);
    let mut playing = 0;
    let mut out_of_budget = false;
    for bone in bones {
        let t = plays(clip_key_count(&bone.translation, sequence));
        let r = plays(clip_key_count(&bone.rotation, sequence));
        let sc = plays(clip_key_count(&bone.scale, sequence));
        if t == 0 && r == 0 && sc == 0 {
            continue;
        }
        if !spend_keys(budget, t + r + sc) {
            out_of_budget = true;
            break;
        }
        playing += 1;
    }
    if out_of_budget {
        clip.warnings.push("too many keys for the size of the input; remaining bones hold still".into());
    }
    let mut joints = Vec::with_capacity(playing);
    clip.tracks.reserve(playing);
    for (b, bone) in bones.iter().enumerate() {
        if joints.len() == playing {
            break;
        }
        let t = clip_keys(&bone.translation, sequence);
        let r = clip_keys(&bone.rotation, sequence);
        let sc = clip_keys(&bone.scale, sequence);
        if t.is_none() && r.is_none() && sc.is_none() {
            continue;
        }
        // Both lists hold at most three entries inline: no allocation per report.
        let mut channels = smallvec::SmallVec::new();
        let mut key_counts = smallvec::SmallVec::new();
        let mut track = JointTracks { joint: b, ..Default::default() };
        if let Some((keys, time)) = t {
            channels.push("translation".into());
            key_counts.push(("translation".into(), keys.len() as u32));
            track.translation = keys;
            track.timing[0] = time;
        }
        if let Some((keys, time)) = r {
            channels.push("rotation".into());
            key_counts.push(("rotation".into(), keys.len() as u32));
            track.rotation = keys;
            track.timing[1] = time;
        }
        if let Some((keys, time)) = sc {
            channels.push("scale".into());
            key_counts.push(("scale".into(), keys.len() as u32));
            track.scale = keys;
            track.timing[2] = time;
        }
        joints.push(track);
        clip.tracks.push(TrackReport {
            index: b as u32,
            target: b as u32,
            target_name: joint_names.get(b).cloned(),
            channels,
            flags: bone.flags,
            slots: Vec::new(),
            key_counts,
            reasons: Vec::new(),
            skipped: None,
        });
    }
    if !bones.is_empty() {
        clip.channels.push(Channel::BoneTracks { skeleton: 0, joints });
    }
}

/// Which keys a clip's material channels take: the playing sequence's, and for a sequence
/// clip (not the rest pose's global tracks) [`fallback_sequence`]'s colour and transparency
/// where the playing one has none.
#[derive(Clone, Copy)]
struct MaterialKeys {
    playing: SequenceKeys,
    fallback: Option<SequenceKeys>,
}

impl MaterialKeys {
    /// The playing sequence's keys of `track`, else the fallback sequence's.
    fn take<T: Copy>(self, track: &Track<T>) -> Option<(Curve<T>, TrackTime)> {
        clip_keys(track, self.playing).or_else(|| self.fallback.and_then(|f| clip_keys(track, f)))
    }
}

fn material_channels(
    model: &M2Model,
    skin: &Skin,
    unit_materials: &[Option<usize>],
    keys: MaterialKeys,
    budget: &mut u64,
    clip: &mut Clip,
) {
    let s = keys.playing;
    // Material tracks play in every clip that uses them (several units may share one), so
    // each channel counts against the key budget as a bone's entry does.
    // `false` once the budget is spent: the channel is dropped and the clip warned.
    let mut add = |keys: usize, channel: Channel| {
        let fits = spend_keys(budget, keys);
        if fits {
            clip.channels.push(channel);
        } else {
            clip.warnings.push("too many keys for the size of the input; remaining texture units hold still".into());
        }
        fits
    };
    for (unit, material) in skin.units.iter().zip(unit_materials) {
        let Some(material) = *material else { continue };
        let color = unit_color(model, unit);
        let transparency = unit_transparency(model, unit);
        let rgb = color.and_then(|c| keys.take(&c.rgb));
        let color_alpha = color.and_then(|c| clip_keys(&c.alpha, s));
        let weight = transparency.and_then(|t| keys.take(t));
        // The clip's alpha channels replace the rest alpha (colour alpha × transparency at the
        // start of sequence 0) with their product; a factor without a channel counts as 1.
        let rest = rest_color(model, unit);
        let held = match keys.fallback {
            // A sequence clip keying neither factor shows WMV's answer, opaque, where the rest
            // is not.
            Some(_) => (color_alpha.is_none() && weight.is_none()).then_some(1.0).filter(|_| rest.w != 1.0),
            // The rest pose's global tracks: a factor they do not key holds its rest value.
            None => {
                let first = fallback_sequence(model);
                match (color_alpha.is_some(), weight.is_some()) {
                    (true, false) => transparency.map(|t| value_at_start(t, first, 1.0)),
                    (false, true) => color.map(|c| value_at_start(&c.alpha, first, 1.0)),
                    _ => None,
                }
                .filter(|&v| v != 1.0)
            }
        };
        if let Some(value) = held {
            let keys = Curve::linear(vec![Key { time: 0.0, value }]);
            if !add(1, Channel::MaterialAlpha { material, keys, time: TrackTime::Clip }) {
                return;
            }
        }
        if let Some((keys, time)) = rgb
            && !add(keys.len(), Channel::MaterialColor { material, keys, time })
        {
            return;
        }
        for (keys, time) in color_alpha.into_iter().chain(weight) {
            if !add(keys.len(), Channel::MaterialAlpha { material, keys, time }) {
                return;
            }
        }
        // Flag 0x10 marks a static unit: no texture animation.
        let anim = model
            .texture_anim_lookup
            .get(usize::from(unit.transform_combo))
            .and_then(|&a| usize::try_from(a).ok())
            .and_then(|a| model.texture_anims.get(a))
            .filter(|_| unit.flags & 0x10 == 0);
        if let Some(anim) = anim {
            let t = clip_keys(&anim.translation, s);
            let r = clip_keys(&anim.rotation, s);
            let sc = clip_keys(&anim.scale, s);
            if t.is_some() || r.is_some() || sc.is_some() {
                let keys = keys_in(&t) + keys_in(&r) + keys_in(&sc);
                let time = [
                    t.as_ref().map(|k| k.1).unwrap_or_default(),
                    r.as_ref().map(|k| k.1).unwrap_or_default(),
                    sc.as_ref().map(|k| k.1).unwrap_or_default(),
                ];
                let channel = Channel::UvTransform {
                    material,
                    translation: t.map(|k| k.0).unwrap_or_default(),
                    rotation: r.map(|k| k.0).unwrap_or_default(),
                    scale: sc.map(|k| k.0).unwrap_or_default(),
                    time,
                };
                if !add(keys, channel) {
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::keys::KEYS_PER_CLIP_ENTRY;
    use super::super::test_models::{model_with_a_global_track, one_triangle_skin, sequence_100ms};
    use super::super::{BuildOptions, build};
    use super::*;
    use crate::formats::m2::model::{Bone, ColorAnim, Vertex};
    use crate::formats::m2::skin::TextureUnit;
    use crate::scene::anim::Pose;
    use glam::{Vec3, Vec4};

    /// Issue 12: a global-sequence track sampled across a clip loop. The 100 ms clip has looped
    /// once at 150 ms after opening (clip time 50); the track reads 150 % 200 = 150: x = 15.
    /// The rest pose plays it too.
    #[test]
    fn global_tracks_read_the_global_clock_in_clips_and_the_rest_pose() {
        let scene = build(&model_with_a_global_track(), None, &BuildOptions::default(), 1 << 16);
        let x_at = |clip: Option<usize>, clip_time: f32, global: f32| {
            let mut pose = Pose::default();
            pose.global_time = Some(global);
            pose.evaluate(&scene, clip, clip_time);
            pose.joints[0][0].w_axis.x
        };
        assert!((x_at(Some(0), 50.0, 150.0) - 15.0).abs() < 1e-4);
        assert!((x_at(Some(0), 50.0, 250.0) - 5.0).abs() < 1e-4, "wrapped at the global period");
        assert!((x_at(None, 0.0, 150.0) - 15.0).abs() < 1e-4, "the rest pose plays global tracks");
    }

    /// Issue 12: a track with keys in other sequences but none in the playing one contributes
    /// nothing: no channel, so the component stays at rest.
    #[test]
    fn a_track_without_keys_in_the_sequence_makes_no_channel() {
        let mut model = model_with_a_global_track();
        model.sequences.push(model.sequences[0].clone());
        model.anim_present.push(None);
        let bone = &mut model.bones[0];
        // Keys in sequence 1 only.
        let keys = bone.translation.curve(0);
        bone.translation =
            Track::from_curves(bone.translation.interpolation, None, 0, vec![Curve::default(), keys]).unwrap();
        let scene = build(&model, None, &BuildOptions::default(), 1 << 16);
        let joints = |clip: usize| match &scene.clips[clip].channels[0] {
            Channel::BoneTracks { joints, .. } => joints.len(),
            _ => panic!("bone tracks first"),
        };
        assert_eq!((joints(0), joints(1)), (0, 1));
        assert!(scene.global_channels.is_empty());
    }

    /// A file may hold many sequences and bones with no keys at all (tables can even overlap):
    /// clips must not reserve room for bones that do not play in them.
    #[test]
    fn clips_reserve_nothing_for_bones_without_keys() {
        let mut model = model_with_a_global_track();
        let bone = model.bones[0].clone();
        let sequence = model.sequences[0].clone();
        model.bones = vec![Bone { translation: Track::default(), ..bone }; 300];
        model.sequences = vec![sequence; 300];
        model.anim_present = vec![None; 300];
        let scene = build(&model, None, &BuildOptions::default(), 1000);
        assert_eq!(scene.clips.len(), 300);
        for clip in &scene.clips {
            assert_eq!(clip.tracks.capacity(), 0, "{}", clip.name);
            for channel in &clip.channels {
                if let Channel::BoneTracks { joints, .. } = channel {
                    assert_eq!(joints.capacity(), 0, "{}", clip.name);
                }
            }
        }
    }

    #[test]
    fn global_tracks_copied_into_every_clip_count_against_the_key_budget() {
        let mut model = model_with_a_global_track();
        let bone = model.bones[0].clone();
        let sequence = model.sequences[0].clone();
        model.bones = vec![bone; 400];
        model.sequences = vec![sequence; 400];
        model.anim_present = vec![None; 400];
        // A tiny input gets the minimum budget of 2^20 keys: 160,000 entries of two keys each
        // would fit it by keys alone, but not with each entry's own cost.
        let scene = build(&model, None, &BuildOptions::default(), 1000);
        let entries: u64 = scene.clips.iter().map(|c| c.tracks.len() as u64).sum();
        assert_eq!(entries, (1 << 20) / (2 + KEYS_PER_CLIP_ENTRY));
        assert!(scene.clips.iter().any(|c| c.warnings.iter().any(|w| w.starts_with("too many keys"))));
        assert!(scene.clips.first().is_some_and(|c| c.tracks.len() == 400), "early clips play every bone");
    }

    #[test]
    fn material_tracks_copied_into_every_clip_count_against_the_key_budget() {
        let mut model = model_with_a_global_track();
        let global_rgb = Track::from_curves(
            crate::formats::m2::tracks::INTERP_LINEAR,
            Some(0),
            200,
            vec![Curve::linear(vec![Key { time: 0.0, value: Vec3::ONE }])],
        )
        .unwrap();
        model.colors = vec![ColorAnim { rgb: global_rgb, alpha: Track::default() }];
        let unit = TextureUnit { flags: 0x10, color: 0, texture_count: 1, ..TextureUnit::default() };
        // A thousand units share one global colour track of one key: ten fit the budget.
        let skin = Skin { units: vec![unit; 1000], ..Skin::default() };
        let materials = vec![Some(0); 1000];
        let mut budget = 10 * (1 + KEYS_PER_CLIP_ENTRY) + 3;
        let mut clip = Clip {
            name: "c".into(),
            source: None,
            start: 0.0,
            end: 1.0,
            rate: 1000.0,
            channels: Vec::new(),
            tracks: Vec::new(),
            warnings: Vec::new(),
        };
        let sequence = SequenceKeys { index: 0, missing: false };
        let keys = MaterialKeys { playing: sequence, fallback: Some(sequence) };
        material_channels(&model, &skin, &materials, keys, &mut budget, &mut clip);
        assert_eq!(clip.channels.len(), 10);
        assert_eq!(budget, 3);
        assert_eq!(clip.warnings.len(), 1);
    }

    /// A model of one triangle drawn by one unit with colour 0 and transparency 0, and three
    /// 100 ms sequences.
    fn model_with_a_coloured_unit(color: ColorAnim, transparency: Track<f32>) -> (M2Model, Skin) {
        use crate::formats::m2::model::Texture;
        let vertex = |x: f32| Vertex {
            position: Vec3::new(x, 0.0, x * x),
            weights: [255, 0, 0, 0],
            bones: [0; 4],
            normal: Vec3::Z,
            uv: [0.0; 2],
            uv1: [0.0; 2],
        };
        let model = M2Model {
            version: 264,
            sequences: vec![sequence_100ms(0), sequence_100ms(1), sequence_100ms(4)],
            anim_present: vec![None; 3],
            vertices: vec![vertex(0.0), vertex(1.0), vertex(2.0)],
            textures: vec![Texture { kind: 0, flags: 0, name: "a.blp".into() }],
            texture_lookup: vec![0],
            render_flags: vec![(0, 2)],
            colors: vec![color],
            transparencies: vec![transparency],
            transparency_lookup: vec![0],
            ..M2Model::default()
        };
        let skin = one_triangle_skin(vec![TextureUnit { color: 0, texture_count: 1, ..TextureUnit::default() }]);
        (model, skin)
    }

    /// One linear track with a curve per sequence (`None`: no keys in that sequence).
    fn per_sequence<T: Copy>(curves: [Option<Vec<(f32, T)>>; 3]) -> Track<T> {
        let curves = curves
            .into_iter()
            .map(|keys| {
                Curve::linear(keys.unwrap_or_default().into_iter().map(|(time, value)| Key { time, value }).collect())
            })
            .collect();
        Track::from_curves(crate::formats::m2::tracks::INTERP_LINEAR, None, 0, curves).unwrap()
    }

    /// The colour a pose gives the unit: clip `clip` (`None`: the rest pose) at `time` ms.
    fn unit_color_at(scene: &Scene, clip: Option<usize>, time: f32) -> Vec4 {
        Pose::at(scene, clip, time).material_colors[0]
    }

    /// Clip A (sequence 0) keys the colour, red to blue, and its alpha at 0.5; clip B
    /// (sequence 1) keys nothing; clip C (sequence 2) keys green. WoW Model Viewer shows clip B
    /// sequence 0's colour at B's own time (it reads `color.getValue(0, animtime)`), and alpha
    /// 1 (a colour's alpha comes from the playing sequence only); the old rule held B at the
    /// first key of any sequence (red, 0.5). The rest pose is sequence 0 at its start.
    #[test]
    fn a_clip_without_colour_keys_shows_wmvs_fallback() {
        let rgb = per_sequence([Some(vec![(0.0, Vec3::X), (100.0, Vec3::Z)]), None, Some(vec![(0.0, Vec3::Y)])]);
        let alpha = per_sequence([Some(vec![(0.0, 0.5)]), None, None]);
        let (model, skin) = model_with_a_coloured_unit(ColorAnim { rgb, alpha }, Track::default());
        let mut scene = build(&model, Some(&skin), &BuildOptions::default(), 1 << 16);
        assert_eq!(scene.materials[0].base_color, Vec4::new(1.0, 0.0, 0.0, 0.5), "rest: sequence 0 at 0 ms");
        let close = |got: Vec4, want: Vec4| assert!(got.abs_diff_eq(want, 1e-5), "{got} != {want}");
        close(unit_color_at(&scene, None, 0.0), Vec4::new(1.0, 0.0, 0.0, 0.5));
        close(unit_color_at(&scene, Some(0), 25.0), Vec4::new(0.75, 0.0, 0.25, 0.5));
        close(unit_color_at(&scene, Some(1), 25.0), Vec4::new(0.75, 0.0, 0.25, 1.0));
        close(unit_color_at(&scene, Some(1), 100.0), Vec4::new(0.0, 0.0, 1.0, 1.0));
        close(unit_color_at(&scene, Some(2), 25.0), Vec4::new(0.0, 1.0, 0.0, 1.0));
        assert_eq!(scene.validate(), Ok(()));
    }

    /// Keys in sequence 1 alone: sequence 0 has none, so the rest pose and clip 0 show white
    /// and opaque (the old rule took sequence 1's first key for them), clip 1 its own keys.
    #[test]
    fn keys_outside_sequence_0_colour_only_their_own_clip() {
        let rgb = per_sequence([None, Some(vec![(0.0, Vec3::Y)]), None]);
        let weight = per_sequence([None, Some(vec![(0.0, 0.25)]), None]);
        let (model, skin) = model_with_a_coloured_unit(ColorAnim { rgb, alpha: Track::default() }, weight);
        let scene = build(&model, Some(&skin), &BuildOptions::default(), 1 << 16);
        assert_eq!(scene.materials[0].base_color, Vec4::ONE);
        assert_eq!(unit_color_at(&scene, Some(0), 50.0), Vec4::ONE);
        assert_eq!(unit_color_at(&scene, Some(1), 50.0), Vec4::new(0.0, 1.0, 0.0, 0.25));
        assert_eq!(unit_color_at(&scene, Some(2), 50.0), Vec4::ONE);
    }

    /// The two alpha factors fall back apart: transparency keyed in sequence 0 alone (1 to
    /// 0.2) plays in every clip without keys of its own, while the colour alpha (0.5, keyed in
    /// sequence 1 alone) counts only in sequence 1: there the alpha runs 0.5 × (1 → 0.2).
    #[test]
    fn alpha_factors_fall_back_as_wmv_reads_them() {
        let alpha = per_sequence([None, Some(vec![(0.0, 0.5)]), None]);
        let weight = per_sequence([Some(vec![(0.0, 1.0), (100.0, 0.2)]), None, None]);
        let (model, skin) = model_with_a_coloured_unit(ColorAnim { rgb: Track::default(), alpha }, weight);
        let scene = build(&model, Some(&skin), &BuildOptions::default(), 1 << 16);
        assert_eq!(scene.materials[0].base_color.w, 1.0, "rest: 1 × 1");
        let alpha = |clip: usize, time: f32| unit_color_at(&scene, Some(clip), time).w;
        for (time, weight) in [(0.0, 1.0), (50.0, 0.6), (100.0, 0.2)] {
            assert!((alpha(0, time) - weight).abs() < 1e-5, "clip 0 at {time}: {}", alpha(0, time));
            assert!((alpha(1, time) - 0.5 * weight).abs() < 1e-5, "clip 1 at {time}: {}", alpha(1, time));
            assert!((alpha(2, time) - weight).abs() < 1e-5, "clip 2 at {time}: {}", alpha(2, time));
        }
    }

    /// A rest alpha below 1 that a clip keys nothing of gives way to WMV's opaque answer: the
    /// clip carries a one-key alpha of 1 (the product of a clip's alpha channels replaces the
    /// rest alpha).
    #[test]
    fn a_clip_keying_no_alpha_is_opaque_even_where_the_rest_is_not() {
        let alpha = per_sequence([Some(vec![(0.0, 0.4)]), None, None]);
        let (model, skin) = model_with_a_coloured_unit(ColorAnim { rgb: Track::default(), alpha }, Track::default());
        let scene = build(&model, Some(&skin), &BuildOptions::default(), 1 << 16);
        assert_eq!(scene.materials[0].base_color.w, 0.4);
        assert_eq!(unit_color_at(&scene, Some(0), 50.0).w, 0.4);
        assert_eq!(unit_color_at(&scene, Some(1), 50.0).w, 1.0);
        assert_eq!(unit_color_at(&scene, None, 50.0).w, 0.4, "the rest pose keeps its own");
    }
}
