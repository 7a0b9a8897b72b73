//! The viewer's side of an assembled scene (a park, a Quake 3 player): one scene clock in
//! seconds that play, pause and speed move for every layer at once ([`LayerClock`]), a
//! per-layer offset that scrubbing one selected item sets, and what the panel and the camera
//! need to know of a [`Part`](crate::scene::Part) (its layers, clips and bounds).

use crate::scene::{Aabb, LayerTime, Playback, Scene, anim::Pose};

use super::state::{MAX_SPEED, MIN_SPEED};

/// The clock every layer of a scene plays on, and what scrubbing one layer moved it by.
#[derive(Debug, Clone, PartialEq)]
pub struct LayerClock {
    /// Seconds on the scene clock (0 is the time the file recorded).
    pub seconds: f32,
    pub playing: bool,
    pub speed: f32,
    /// Per layer of [`Scene::layers`], in the layer's clip units: added to the time the
    /// scene clock gives it (scrubbing a selected item moves only its layers).
    pub offsets: Vec<f32>,
}

impl LayerClock {
    /// At the recorded time, playing, with no layer moved.
    pub fn new(scene: &Scene) -> LayerClock {
        LayerClock { seconds: 0.0, playing: true, speed: 1.0, offsets: vec![0.0; scene.layers.len()] }
    }

    /// Moves the clock on by `dt` seconds of wall time, when playing.
    pub fn advance(&mut self, dt: f32) {
        if self.playing && dt.is_finite() && dt > 0.0 {
            // Wrapped a day round so that float seconds keep their precision.
            self.seconds = (self.seconds + dt * self.speed).rem_euclid(86_400.0);
        }
    }

    pub fn toggle_play(&mut self) {
        self.playing = !self.playing;
    }

    pub fn set_speed(&mut self, speed: f32) {
        if speed.is_finite() {
            self.speed = speed.clamp(MIN_SPEED, MAX_SPEED);
        }
    }

    /// Back to the recorded time, every layer's offset cleared.
    pub fn reset(&mut self) {
        self.seconds = 0.0;
        self.offsets.iter_mut().for_each(|o| *o = 0.0);
    }

    /// Pauses and steps the scene clock by `seconds`.
    pub fn step(&mut self, seconds: f32) {
        self.playing = false;
        if seconds.is_finite() {
            self.seconds = (self.seconds + seconds).max(0.0);
        }
    }

    /// Layer `index`'s clip time now, with its offset, kept inside its clip (wrapped when it
    /// loops, held at the ends otherwise); `None` when it plays no clip.
    pub fn layer_time(&self, scene: &Scene, index: usize) -> Option<f32> {
        let layer = scene.layers.get(index)?;
        let clip = scene.clips.get(layer.clip?)?;
        let base = layer.time_at(scene, self.seconds)?;
        let offset = self.offsets.get(index).copied().filter(|o| o.is_finite()).unwrap_or(0.0);
        if offset == 0.0 {
            return Some(base);
        }
        let time = base + offset;
        Some(match layer.playback {
            Playback::Loop => layer.wrap(clip, time),
            _ => time.clamp(clip.start, clip.end.max(clip.start)),
        })
    }

    /// Scrubs layer `index` alone to clip time `time`: its offset becomes what takes the scene
    /// clock's time for it there. The scene clock pauses, so the item stays where it was put.
    pub fn scrub(&mut self, scene: &Scene, index: usize, time: f32) {
        let Some(base) = scene.layers.get(index).and_then(|l| l.time_at(scene, self.seconds)) else { return };
        if self.offsets.len() < scene.layers.len() {
            self.offsets.resize(scene.layers.len(), 0.0);
        }
        if let Some(offset) = self.offsets.get_mut(index)
            && time.is_finite()
        {
            *offset = time - base;
            self.playing = false;
        }
    }

    /// Every layer's clip and time now, for [`Pose::evaluate_layers`].
    pub fn layer_times(&self, scene: &Scene) -> Vec<LayerTime> {
        scene
            .layers
            .iter()
            .enumerate()
            .filter_map(|(index, layer)| {
                Some(LayerTime { clip: layer.clip?, time: self.layer_time(scene, index)?, looping: layer.is_looping() })
            })
            .collect()
    }

    /// Poses every layer at the clock's time.
    pub fn evaluate(&self, scene: &Scene, pose: &mut Pose) {
        let times = self.layer_times(scene);
        pose.evaluate_layers(scene, &times);
    }
}

/// The layers that animate part `part`, by index into [`Scene::layers`].
pub fn part_layers(scene: &Scene, part: usize) -> Vec<usize> {
    scene.layers.iter().enumerate().filter(|(_, l)| l.part == Some(part)).map(|(i, _)| i).collect()
}

/// The clips part `part`'s layers play.
pub fn part_clips(scene: &Scene, part: usize) -> Vec<usize> {
    let mut clips: Vec<usize> = part_layers(scene, part).iter().filter_map(|&l| scene.layers.get(l)?.clip).collect();
    clips.dedup();
    clips
}

/// The part `node` belongs to, for the panel: the part whose nodes or root hold it.
pub fn selected_part(scene: &Scene, node: Option<usize>) -> Option<usize> {
    scene.part_of_node(node?)
}

/// Where part `part`'s visible meshes stand in `pose`; empty when it shows none.
pub fn part_bounds(scene: &Scene, pose: &Pose, part: usize) -> Aabb {
    let Some(part) = scene.parts.get(part) else { return Aabb::EMPTY };
    let mut out = Aabb::EMPTY;
    for mesh in part.meshes.clone() {
        let Some(m) = scene.meshes.get(mesh) else { continue };
        if m.node.is_some_and(|n| !pose.visible.get(n).copied().unwrap_or(true)) {
            continue;
        }
        let local = match pose.positions.get(mesh).and_then(Option::as_ref) {
            Some(points) => Aabb::from_points(points),
            None => m.bounds,
        };
        out = out.union(&local.transformed(&pose.mesh_world(scene, mesh)));
    }
    out
}

/// The part named `name` (exactly, else ignoring case, else the first whose name holds it).
pub fn find_part(scene: &Scene, name: &str) -> Option<usize> {
    let lower = name.to_lowercase();
    scene
        .parts
        .iter()
        .position(|p| p.name == name)
        .or_else(|| scene.parts.iter().position(|p| p.name.to_lowercase() == lower))
        .or_else(|| scene.parts.iter().position(|p| p.name.to_lowercase().contains(&lower)))
}

/// The panel's groups, in the order it lists them; any other group comes after, by name.
pub const GROUP_ORDER: [&str; 7] = ["rides", "shops", "sideshows", "features", "upgrades", "fixed", "ground"];

/// Parts by group, in [`GROUP_ORDER`] then other groups by name; each group's parts in scene
/// order.
pub fn grouped_parts(scene: &Scene) -> Vec<(String, Vec<usize>)> {
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    for (index, part) in scene.parts.iter().enumerate() {
        match groups.iter_mut().find(|(g, _)| *g == part.group) {
            Some((_, parts)) => parts.push(index),
            None => groups.push((part.group.clone(), vec![index])),
        }
    }
    let rank = |g: &str| GROUP_ORDER.iter().position(|o| *o == g).unwrap_or(GROUP_ORDER.len());
    groups.sort_by(|(a, _), (b, _)| rank(a).cmp(&rank(b)).then_with(|| a.cmp(b)));
    groups
}

/// A fact of a part by its label (`id`, `cell`, `clip`), case-insensitively.
pub fn fact<'a>(part: &'a crate::scene::Part, label: &str) -> Option<&'a str> {
    part.facts.iter().find(|(l, _)| l.eq_ignore_ascii_case(label)).map(|(_, v)| v.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{Clip, FormatKind, Layer, Part, SceneKind};

    fn two_item_scene() -> Scene {
        let mut scene = Scene::new(FormatKind::TpwPark, SceneKind::Mesh);
        for name in ["a: M1", "b: M1"] {
            scene.clips.push(Clip {
                name: name.into(),
                source: None,
                start: 0.0,
                end: 30.0,
                rate: 30.0,
                channels: Vec::new(),
                tracks: Vec::new(),
                warnings: Vec::new(),
            });
        }
        for (index, group) in ["shops", "rides"].into_iter().enumerate() {
            scene.parts.push(Part {
                name: format!("item #{index}"),
                group: group.into(),
                root: index,
                nodes: index..index + 1,
                meshes: 0..0,
                materials: 0..0,
                facts: vec![("id".into(), format!("{}", 1200 + index)), ("cell".into(), "3, 4".into())],
                stand_in: None,
            });
            let mut layer = Layer::looping(format!("layer {index}"), index, 10.0);
            layer.part = Some(index);
            scene.layers.push(layer);
        }
        scene
    }

    #[test]
    fn one_clock_moves_every_layer_and_a_scrub_moves_one() {
        let scene = two_item_scene();
        let mut clock = LayerClock::new(&scene);
        clock.advance(0.5);
        // 10 frames in, half a second at 30 frames a second more.
        assert_eq!(clock.layer_time(&scene, 0), Some(25.0));
        assert_eq!(clock.layer_time(&scene, 1), Some(25.0));
        clock.scrub(&scene, 1, 3.0);
        assert!(!clock.playing);
        assert_eq!(clock.layer_time(&scene, 0), Some(25.0));
        assert_eq!(clock.layer_time(&scene, 1), Some(3.0));
        // Playing on, the scrubbed layer keeps its lead: both move by the same time, and the
        // looping one wraps within its clip.
        clock.playing = true;
        clock.advance(0.5);
        assert_eq!(clock.layer_time(&scene, 0), Some(10.0));
        assert_eq!(clock.layer_time(&scene, 1), Some(18.0));
        let times = clock.layer_times(&scene);
        assert_eq!(times.iter().map(|t| (t.clip, t.time)).collect::<Vec<_>>(), [(0, 10.0), (1, 18.0)]);
        clock.reset();
        assert_eq!(clock.layer_time(&scene, 1), Some(10.0));
    }

    #[test]
    fn a_document_with_layers_plays_them_on_its_clock_until_a_clip_is_chosen() {
        let scene = two_item_scene();
        let summary = crate::info::Summary::of(&scene);
        let mut doc = super::super::state::Document::new("park.TPWS".into(), scene, summary);
        assert_eq!(doc.clip, None, "a park has no single clip");
        assert!(doc.layered().is_some() && doc.is_playing());
        doc.advance(0.5);
        assert_eq!(doc.layers.as_ref().map(|c| c.seconds), Some(0.5));
        doc.play_clip(Some(1));
        assert!(doc.layered().is_none());
        doc.advance(0.5);
        assert_eq!(doc.layers.as_ref().map(|c| c.seconds), Some(0.5), "the chosen clip's timeline moves instead");
        doc.play_clip(None);
        assert!(doc.layered().is_some());
    }

    #[test]
    fn a_held_layer_scrubs_within_its_clip() {
        let mut scene = two_item_scene();
        scene.layers[0].playback = Playback::HoldLast;
        let mut clock = LayerClock::new(&scene);
        clock.scrub(&scene, 0, 12.0);
        assert_eq!(clock.layer_time(&scene, 0), Some(12.0));
        clock.scrub(&scene, 0, 99.0);
        assert_eq!(clock.layer_time(&scene, 0), Some(30.0));
    }

    #[test]
    fn parts_group_in_the_panel_order_and_are_found_by_name() {
        let scene = two_item_scene();
        let groups = grouped_parts(&scene);
        assert_eq!(groups, [("rides".to_string(), vec![1]), ("shops".to_string(), vec![0])]);
        assert_eq!(find_part(&scene, "ITEM #1"), Some(1));
        assert_eq!(find_part(&scene, "#0"), Some(0));
        assert_eq!(find_part(&scene, "nothing"), None);
        assert_eq!(part_layers(&scene, 1), [1]);
        assert_eq!(part_clips(&scene, 1), [1]);
        assert_eq!(fact(&scene.parts[0], "ID"), Some("1200"));
        assert_eq!(selected_part(&scene, Some(1)), Some(1));
    }
}
