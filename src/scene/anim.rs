//! Evaluates a clip at a (fractional) time into a [`Pose`]: node matrices, visibility, and
//! per-mesh animated positions and UVs. It reads the scene and never mutates it, and reuses
//! the pose's buffers so that evaluating every frame allocates nothing in steady state.
//! Sampling keys and frames lives in `sample`; joint matrices and skinning in `skinning`.

use glam::{Mat4, Quat, Vec2, Vec3, Vec4};

use super::{Channel, Clip, Curve, Key, MorphBlock, Scene, UvSlotKeys};

mod sample;
mod skinning;

pub use sample::{CurveValue, sample_curve, sample_f32, sample_path_progress, sample_quat, sample_vec2, sample_vec3};
pub use skinning::{face_camera, skin_positions, skin_positions_and_normals};

use sample::{frame_segment, last_at_or_before, sample_morph_block, segment, wrapped_frame_segment};
use skinning::{evaluate_bone_tracks, sample_matrix_frames};

/// The scene's state at one time.
#[derive(Debug, Clone, Default)]
pub struct Pose {
    /// Per node.
    pub locals: Vec<Mat4>,
    /// Per node, `parent_world * local`.
    pub world: Vec<Mat4>,
    /// Per node: whether the node's own mesh is drawn. It does not cascade: a hidden node's
    /// children keep their own flags (TPW's rule; every other format hides nodes explicitly).
    pub visible: Vec<bool>,
    /// Per mesh: render-vertex positions when the clip moves its vertices, else `None`.
    pub positions: Vec<Option<Vec<Vec3>>>,
    /// Per mesh: render-vertex UVs when the clip animates them, else `None`.
    pub uvs: Vec<Option<Vec<Vec2>>>,
    /// Per mesh: render-vertex normals when the clip supplies them (Quake II's normal table) or
    /// skinning moved them (unit length), else `None` (moved meshes then get recomputed normals
    /// from [`Pose::mesh_normals`]).
    pub normals: Vec<Option<Vec<Vec3>>>,
    /// Per skeleton: joint matrices in model space (the skeleton's rest pose when no channel
    /// drives it).
    pub joints: Vec<Vec<Mat4>>,
    /// Per material: RGBA colour, `base_color` with the clip's colour and alpha channels applied.
    pub material_colors: Vec<Vec4>,
    /// Per material: the transform applied to `(u, v, 0, 1)` before sampling (identity unless a
    /// [`Channel::UvTransform`] animates it).
    pub uv_transforms: Vec<Mat4>,
    /// Per material: the image drawn now, [`super::Material::image`] unless an
    /// [`super::ImageCycle`] shows another at the global clock ([`Pose::global_time`], 0 when
    /// unset).
    pub material_images: Vec<Option<usize>>,
    /// The level of detail to show, an index into [`Scene::lods`] (clamped to the coarsest);
    /// the nodes of every other level are hidden and their meshes not skinned. Set it before
    /// [`Pose::evaluate`]; 0 is the finest.
    pub lod: usize,
    /// The camera's view matrix in the skeletons' space (the viewer's view matrix times the
    /// placement of the skinned meshes, identity for M2), for billboard joints; `None` leaves
    /// them as their tracks pose them. Set it before [`Pose::evaluate`].
    pub view_from_model: Option<Mat4>,
    /// The global clock, in clip units (milliseconds for M2), that tracks tied to a global
    /// sequence read whatever clip plays ([`super::TrackTime::Loop`]); `None` lets the clip
    /// time stand in. The viewer runs it from when the model opens; `export` and `render` set
    /// it to `--frame`. Set it before [`Pose::evaluate`].
    pub global_time: Option<f32>,
    /// The clip is looping (the viewer's loop mode): time past its end runs through the blend
    /// of a wrapping channel ([`super::PackedFrames::wraps`]) back into its first frame.
    /// Otherwise a clip past its end holds its last frame. Set it before [`Pose::evaluate`].
    pub looping: bool,
    /// Scratch: per mesh, animated source positions.
    source_scratch: Vec<Vec<Vec3>>,
    /// Scratch: per mesh, skinned source normals.
    normal_scratch: Vec<Vec<Vec3>>,
}

/// What the channels of one evaluation touched, per mesh, skeleton or material.
struct Marks {
    /// Source positions moved (`Pose::source_scratch` holds them).
    moved: Vec<bool>,
    uv_moved: Vec<bool>,
    normals_set: Vec<bool>,
    /// Skeletons a channel (or a billboard) posed.
    driven: Vec<bool>,
    /// Skeletons posed by element-wise blended frames (MDR), whose tags get unit axes.
    frames_blended: Vec<bool>,
    alpha_set: Vec<bool>,
}

impl Marks {
    fn new(scene: &Scene) -> Marks {
        let meshes = scene.meshes.len();
        Marks {
            moved: vec![false; meshes],
            uv_moved: vec![false; meshes],
            normals_set: vec![false; meshes],
            driven: vec![false; scene.skeletons.len()],
            frames_blended: vec![false; scene.skeletons.len()],
            alpha_set: vec![false; scene.materials.len()],
        }
    }
}

impl Pose {
    /// The rest pose.
    pub fn rest(scene: &Scene) -> Pose {
        let mut pose = Pose::default();
        pose.evaluate(scene, None, 0.0);
        pose
    }

    /// A pose of `clip` at `time` (clip units); `None` gives the rest pose.
    pub fn at(scene: &Scene, clip: Option<usize>, time: f32) -> Pose {
        let mut pose = Pose::default();
        pose.evaluate(scene, clip, time);
        pose
    }

    /// Re-evaluates in place, reusing buffers: resets to the rest state, applies each of the
    /// clip's channels (one function per channel kind), then skins and places the meshes.
    /// Without a clip, the scene's [`Scene::global_channels`] play on the global clock.
    ///
    /// A scene with [`Scene::layers`] and no clip given plays every layer, reading `time` as
    /// seconds on the scene clock ([`Pose::evaluate_layers`]).
    pub fn evaluate(&mut self, scene: &Scene, clip: Option<usize>, time: f32) {
        if clip.is_none() && !scene.layers.is_empty() {
            let layers = scene.layer_times(time);
            self.evaluate_layers(scene, &layers);
            return;
        }
        self.reset(scene);
        let clip: Option<&Clip> = clip.and_then(|c| scene.clips.get(c));
        let time = if time.is_finite() { time } else { 0.0 };
        // Unless looping, a clip past its end holds its last frame, not the return frame that
        // some carry there (`Clip::carries_return_frame`).
        let past_end = clip.filter(|c| !self.looping && time > c.end);
        let holds = past_end.is_some_and(|c| c.channels.iter().any(|ch| c.carries_return_frame(ch)));
        let time = match past_end {
            Some(c) if holds => c.end,
            _ => time,
        };
        let global = self.global_time.filter(|t| t.is_finite()).unwrap_or(time);
        let mut marks = Marks::new(scene);
        let channels = clip.map_or(scene.global_channels.as_slice(), |c| c.channels.as_slice());
        for channel in channels {
            self.apply_channel(scene, channel, [time, global], &mut marks);
        }
        self.hide_fixed_nodes(scene);
        self.finish(scene, &mut marks);
    }

    /// Applies several clips at once, each at its own time, in order (a later layer's channel
    /// wins where two move one thing): a park's items, a player's torso and legs. The global
    /// clock defaults to 0.
    pub fn evaluate_layers(&mut self, scene: &Scene, layers: &[super::LayerTime]) {
        self.reset(scene);
        let global = self.global_time.filter(|t| t.is_finite()).unwrap_or(0.0);
        let mut marks = Marks::new(scene);
        let looping = self.looping;
        for layer in layers {
            let Some(clip) = scene.clips.get(layer.clip) else { continue };
            let time = if layer.time.is_finite() { layer.time } else { 0.0 };
            self.looping = layer.looping;
            for channel in &clip.channels {
                self.apply_channel(scene, channel, [time, global], &mut marks);
            }
        }
        self.looping = looping;
        self.hide_fixed_nodes(scene);
        self.finish(scene, &mut marks);
    }

    /// Hides [`Scene::hidden_nodes`] whatever the channels said.
    fn hide_fixed_nodes(&mut self, scene: &Scene) {
        for &node in &scene.hidden_nodes {
            if let Some(v) = self.visible.get_mut(node) {
                *v = false;
            }
        }
    }

    /// The rest state: authored locals, everything visible but other LODs, joints at rest,
    /// base material colours and identity texture transforms.
    fn reset(&mut self, scene: &Scene) {
        let mesh_count = scene.meshes.len();
        self.locals.clear();
        self.locals.extend(scene.nodes.iter().map(|n| n.local));
        self.visible.clear();
        self.visible.resize(scene.nodes.len(), true);
        self.positions.resize(mesh_count, None);
        self.uvs.resize(mesh_count, None);
        self.source_scratch.resize(mesh_count, Vec::new());
        self.normals.resize(mesh_count, None);
        self.normal_scratch.resize(mesh_count, Vec::new());
        self.joints.resize(scene.skeletons.len(), Vec::new());
        // Joints start at the rest pose; skinning runs only for skeletons a channel drives.
        for (out, skeleton) in self.joints.iter_mut().zip(&scene.skeletons) {
            out.clear();
            out.extend_from_slice(&skeleton.rest_pose);
        }
        self.hide_other_lods(scene);
        self.material_colors.clear();
        self.material_colors.extend(scene.materials.iter().map(|m| m.base_color));
        self.uv_transforms.clear();
        self.uv_transforms.resize(scene.materials.len(), Mat4::IDENTITY);
        let clock = self.global_time.filter(|t| t.is_finite()).unwrap_or(0.0);
        self.material_images.clear();
        self.material_images.extend(scene.materials.iter().map(|m| match &m.image_cycle {
            Some(cycle) => cycle.image_at(clock),
            None => m.image,
        }));
    }

    /// Applies one channel at the clip time, or the global time for tracks that read it: one
    /// match arm per channel kind, each a function.
    fn apply_channel(&mut self, scene: &Scene, channel: &Channel, [time, global]: [f32; 2], marks: &mut Marks) {
        match channel {
            Channel::NodeRotation { .. }
            | Channel::NodeRotationEased { .. }
            | Channel::NodePosition { .. }
            | Channel::NodeAxisScale { .. }
            | Channel::NodePathProgress { .. }
            | Channel::NodeFrames { .. } => self.node_channel(scene, channel, time),
            Channel::NodeVisibility { node, keys } => self.node_visibility(*node, keys, time),
            Channel::VertexMorph { mesh, blocks } => self.vertex_morph(scene, *mesh, blocks, time, marks),
            Channel::VertexFrames { mesh, times, vertex_count, positions, additive } => {
                self.vertex_frames(scene, *mesh, times, (*vertex_count, positions), *additive, time, marks)
            }
            Channel::PackedFrames(packed) => self.packed_frames(scene, packed, time, marks),
            Channel::UvKeys { mesh, slots } => self.uv_keys(scene, *mesh, slots, time, marks),
            Channel::BoneFrames { skeleton, times, frames } => {
                self.bone_frames(*skeleton, times, frames, time, marks);
                if let Some(flag) = marks.frames_blended.get_mut(*skeleton) {
                    *flag = true;
                }
            }
            Channel::BoneTracks { skeleton, joints } => {
                self.bone_tracks(scene, *skeleton, joints, [time, global], marks)
            }
            Channel::MaterialColor { material, keys, time: timing } => {
                self.material_color(*material, keys, timing.apply(time, global))
            }
            Channel::MaterialAlpha { material, keys, time: timing } => {
                self.material_alpha(*material, keys, timing.apply(time, global), marks)
            }
            Channel::UvTransform { material, translation, rotation, scale, time: timing } => {
                self.uv_transform(*material, [translation, scale], rotation, timing, [time, global])
            }
        }
    }

    fn node_channel(&mut self, scene: &Scene, channel: &Channel, time: f32) {
        if let Some(node) = channel.moved_node()
            && let Some(local) = self.locals.get_mut(node)
        {
            move_node(scene, channel, local, time);
        }
    }

    fn node_visibility(&mut self, node: usize, keys: &[Key<bool>], time: f32) {
        if let (Some(v), Some(k)) = (self.visible.get_mut(node), last_at_or_before(keys, time)) {
            *v = k.value;
        }
    }

    fn vertex_morph(&mut self, scene: &Scene, mesh: usize, blocks: &[MorphBlock], time: f32, marks: &mut Marks) {
        if let Some(source) = self.begin_source(scene, mesh, &mut marks.moved) {
            for block in blocks {
                sample_morph_block(block, time, source);
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn vertex_frames(
        &mut self,
        scene: &Scene,
        mesh: usize,
        times: &[f32],
        (vertex_count, positions): (usize, &[Vec3]),
        additive: bool,
        time: f32,
        marks: &mut Marks,
    ) {
        let Some((a, b, f)) = frame_segment(times, time) else { return };
        let frame =
            |i: usize| positions.get(i.checked_mul(vertex_count)?..i.checked_add(1)?.checked_mul(vertex_count)?);
        let (Some(fa), Some(fb)) = (frame(a), frame(b)) else { return };
        let Some(rest) = scene.meshes.get(mesh).map(|m| m.source_positions.as_slice()) else { return };
        if let Some(source) = self.begin_source(scene, mesh, &mut marks.moved) {
            for (((slot, pa), pb), base) in source.iter_mut().zip(fa).zip(fb).zip(rest) {
                let sample = pa.lerp(*pb, f);
                *slot = if additive { *base + sample } else { sample };
            }
        }
    }

    fn packed_frames(&mut self, scene: &Scene, packed: &super::PackedFrames, time: f32, marks: &mut Marks) {
        let wrap = packed.wraps && self.looping;
        let Some((a, b, f)) = wrapped_frame_segment(packed.times(), time, wrap) else { return };
        let (Some((sa, ta, fa)), Some((sb, tb, fb))) = (packed.frame(a), packed.frame(b)) else { return };
        if let Some(source) = self.begin_source(scene, packed.mesh, &mut marks.moved) {
            for ((slot, &pa), &pb) in source.iter_mut().zip(fa).zip(fb) {
                *slot = packed.position(sa, ta, pa).lerp(packed.position(sb, tb, pb), f);
            }
        }
        if let (Some(base), Some(slot)) = (scene.meshes.get(packed.mesh), self.normals.get_mut(packed.mesh)) {
            let out = slot.get_or_insert_with(Vec::new);
            out.clear();
            out.extend(base.vertex_source.iter().map(|&s| match (fa.get(s as usize), fb.get(s as usize)) {
                (Some(&pa), Some(&pb)) => {
                    packed.normal(pa).lerp(packed.normal(pb), f).try_normalize().unwrap_or(Vec3::Y)
                }
                _ => Vec3::Y,
            }));
            if let Some(flag) = marks.normals_set.get_mut(packed.mesh) {
                *flag = true;
            }
        }
    }

    fn uv_keys(&mut self, scene: &Scene, mesh: usize, slots: &[UvSlotKeys], time: f32, marks: &mut Marks) {
        let Some(base) = scene.meshes.get(mesh) else { return };
        let Some(slot) = self.uvs.get_mut(mesh) else { return };
        let uvs = slot.get_or_insert_with(Vec::new);
        if !marks.uv_moved.get(mesh).copied().unwrap_or(true) {
            uvs.clear();
            uvs.extend_from_slice(&base.uvs);
            if let Some(m) = marks.uv_moved.get_mut(mesh) {
                *m = true;
            }
        }
        for entry in slots {
            if let (Some(uv), Some(value)) = (uvs.get_mut(entry.slot as usize), sample_vec2(&entry.keys, time)) {
                *uv = value;
            }
        }
    }

    fn bone_frames(&mut self, skeleton: usize, times: &[f32], frames: &[Vec<Mat4>], time: f32, marks: &mut Marks) {
        if let (Some(out), Some(flag)) = (self.joints.get_mut(skeleton), marks.driven.get_mut(skeleton)) {
            sample_matrix_frames(times, frames, time, out);
            *flag = true;
        }
    }

    fn bone_tracks(
        &mut self,
        scene: &Scene,
        skeleton: usize,
        joints: &[super::JointTracks],
        clock: [f32; 2],
        marks: &mut Marks,
    ) {
        let Some(skel) = scene.skeletons.get(skeleton) else { return };
        if let (Some(out), Some(flag)) = (self.joints.get_mut(skeleton), marks.driven.get_mut(skeleton)) {
            evaluate_bone_tracks(skel, joints, clock, out);
            *flag = true;
        }
    }

    fn material_color(&mut self, material: usize, keys: &Curve<Vec3>, time: f32) {
        if let (Some(c), Some(rgb)) = (self.material_colors.get_mut(material), sample_curve(keys, time)) {
            *c = rgb.extend(c.w);
        }
    }

    fn material_alpha(&mut self, material: usize, keys: &Curve<f32>, time: f32, marks: &mut Marks) {
        if let (Some(c), Some(a)) = (self.material_colors.get_mut(material), sample_curve(keys, time)) {
            // The product of the clip's alpha channels replaces the base alpha.
            let first = marks.alpha_set.get(material).is_some_and(|set| !set);
            c.w = if first { a } else { c.w * a };
            if let Some(set) = marks.alpha_set.get_mut(material) {
                *set = true;
            }
        }
    }

    fn uv_transform(
        &mut self,
        material: usize,
        [translation, scale]: [&Curve<Vec3>; 2],
        rotation: &Curve<Quat>,
        timing: &[super::TrackTime; 3],
        [time, global]: [f32; 2],
    ) {
        if let Some(m) = self.uv_transforms.get_mut(material) {
            let t = sample_curve(translation, timing[0].apply(time, global)).unwrap_or(Vec3::ZERO);
            let r = sample_curve(rotation, timing[1].apply(time, global)).unwrap_or(Quat::IDENTITY);
            let s = sample_curve(scale, timing[2].apply(time, global)).unwrap_or(Vec3::ONE);
            let centre = Vec3::new(0.5, 0.5, 0.0);
            *m = Mat4::from_translation(t + centre)
                * Mat4::from_quat(r)
                * Mat4::from_scale(s)
                * Mat4::from_translation(-centre);
        }
    }

    /// After the channels: billboards, skinning, render-vertex expansion and world matrices.
    fn finish(&mut self, scene: &Scene, marks: &mut Marks) {
        let Marks { moved, uv_moved, normals_set, driven, frames_blended, .. } = marks;
        // Billboard joints turn to the camera, and their descendants follow.
        if let Some(view) = self.view_from_model {
            for ((skeleton, joints), flag) in scene.skeletons.iter().zip(self.joints.iter_mut()).zip(driven.iter_mut())
            {
                if face_camera(skeleton, view, joints) {
                    *flag = true;
                }
            }
        }

        // Skinned meshes pose from their skeleton's joints (hidden LODs are skipped).
        for (index, mesh) in scene.meshes.iter().enumerate() {
            if let Some(skin) = &mesh.skin
                && driven.get(skin.skeleton).copied().unwrap_or(false)
                && mesh.node.is_none_or(|n| self.visible.get(n).copied().unwrap_or(true))
                && self.joints.get(skin.skeleton).is_some_and(|j| !j.is_empty())
                && let Some(slot) = self.joints.get_mut(skin.skeleton)
            {
                let joints = std::mem::take(slot);
                // Influences without normals (all zero) leave normals to be recomputed.
                let has_normals = skin.influences.iter().any(|i| i.normal != Vec3::ZERO);
                let mut source_normals = self.normal_scratch.get_mut(index).map(std::mem::take).unwrap_or_default();
                if let Some(source) = self.begin_source(scene, index, moved) {
                    if has_normals {
                        source_normals.clear();
                        source_normals.resize(source.len(), Vec3::ZERO);
                        skin_positions_and_normals(skin, &joints, source, &mut source_normals);
                    } else {
                        skin_positions(skin, &joints, source);
                    }
                }
                if has_normals
                    && let (Some(slot), Some(flag)) = (self.normals.get_mut(index), normals_set.get_mut(index))
                {
                    let out = slot.get_or_insert_with(Vec::new);
                    out.clear();
                    out.extend(
                        mesh.vertex_source.iter().map(|&s| {
                            source_normals.get(s as usize).and_then(|n| n.try_normalize()).unwrap_or(Vec3::Y)
                        }),
                    );
                    *flag = true;
                }
                if let Some(scratch) = self.normal_scratch.get_mut(index) {
                    *scratch = source_normals;
                }
                if let Some(slot) = self.joints.get_mut(skin.skeleton) {
                    *slot = joints;
                }
            }
        }

        for (index, mesh) in scene.meshes.iter().enumerate() {
            let slot = self.positions.get_mut(index);
            let Some(slot) = slot else { continue };
            if moved.get(index).copied().unwrap_or(false) {
                let source = self.source_scratch.get(index).map(Vec::as_slice).unwrap_or(&[]);
                let out = slot.get_or_insert_with(Vec::new);
                out.clear();
                out.extend(mesh.vertex_source.iter().map(|&s| source.get(s as usize).copied().unwrap_or(Vec3::ZERO)));
            } else {
                *slot = None;
            }
            if !uv_moved.get(index).copied().unwrap_or(false)
                && let Some(uv) = self.uvs.get_mut(index)
            {
                *uv = None;
            }
            if !normals_set.get(index).copied().unwrap_or(false)
                && let Some(n) = self.normals.get_mut(index)
            {
                *n = None;
            }
        }

        self.ride_face_anchors(scene, moved);
        self.world = scene.world_matrices(&self.locals);
        // Tags and attachments follow their joint: world = joint matrix · offset from the joint.
        for (index, node) in scene.nodes.iter().enumerate() {
            if let Some((skeleton, joint)) = node.joint
                && let Some(&m) = self.joints.get(skeleton).and_then(|j| j.get(joint))
                && let (Some(world), Some(local)) = (self.world.get_mut(index), self.locals.get(index))
            {
                // A tag on blended frames gets unit axes again, as ioquake3's R_LerpTag does
                // (VectorNormalize of each lerped axis); skinning keeps the blended matrix.
                let renormalise =
                    node.kind == super::NodeKind::Tag && frames_blended.get(skeleton).copied().unwrap_or(false);
                let m = if renormalise { unit_axes(m) } else { m };
                *world = m * *local;
            }
        }
    }

    /// Nodes anchored to a face of a mesh whose vertices this pose moved take the anchored
    /// point as their translation (their axes stay as they are). The engine notes say a
    /// vertex-morph clip turns anchors on; raw vertex frames count too, as an inference: their
    /// tracks always carry the morph bit (notes §9, §11).
    fn ride_face_anchors(&mut self, scene: &Scene, moved: &[bool]) {
        for (index, node) in scene.nodes.iter().enumerate() {
            let Some(anchor) = &node.anchor else { continue };
            if !moved.get(anchor.mesh).copied().unwrap_or(false) {
                continue;
            }
            let Some(point) = self.source_scratch.get(anchor.mesh).and_then(|source| anchor.point_on(source)) else {
                continue;
            };
            if let Some(local) = self.locals.get_mut(index) {
                local.w_axis = point.extend(1.0);
            }
        }
    }

    /// Hides the nodes of every level of detail but the one [`Pose::lod`] picks.
    fn hide_other_lods(&mut self, scene: &Scene) {
        let shown = self.lod.min(scene.lods.len().saturating_sub(1));
        for (_, lod) in scene.lods.iter().enumerate().filter(|&(level, _)| level != shown) {
            let mesh_nodes = lod.meshes.iter().filter_map(|&m| scene.meshes.get(m).and_then(|m| m.node));
            for node in lod.node.into_iter().chain(mesh_nodes) {
                if let Some(v) = self.visible.get_mut(node) {
                    *v = false;
                }
            }
        }
    }

    /// The mesh's animated source positions, initialised from the rest pose on first use.
    fn begin_source(&mut self, scene: &Scene, mesh: usize, moved: &mut [bool]) -> Option<&mut Vec<Vec3>> {
        let base = scene.meshes.get(mesh)?;
        let flag = moved.get_mut(mesh)?;
        let source = self.source_scratch.get_mut(mesh)?;
        if !*flag {
            source.clear();
            source.extend_from_slice(&base.source_positions);
            *flag = true;
        }
        Some(source)
    }

    /// Render-vertex positions of `mesh` in this pose (animated or rest).
    pub fn mesh_positions(&self, scene: &Scene, mesh: usize) -> Vec<Vec3> {
        match self.positions.get(mesh).and_then(Option::as_ref) {
            Some(p) => p.clone(),
            None => scene.meshes.get(mesh).map(|m| m.render_positions()).unwrap_or_default(),
        }
    }

    /// Render-vertex UVs of `mesh` in this pose.
    pub fn mesh_uvs<'a>(&'a self, scene: &'a Scene, mesh: usize) -> &'a [Vec2] {
        match self.uvs.get(mesh).and_then(Option::as_ref) {
            Some(uv) => uv,
            None => scene.meshes.get(mesh).map(|m| m.uvs.as_slice()).unwrap_or(&[]),
        }
    }

    /// Normals of `mesh` in this pose: the clip's own (Quake II), else recomputed when its
    /// vertices move (unless the mesh keeps its rest normals, [`super::Mesh::keep_rest_normals`]),
    /// else the rest normals.
    pub fn mesh_normals(&self, scene: &Scene, mesh: usize) -> Vec<Vec3> {
        let Some(m) = scene.meshes.get(mesh) else { return Vec::new() };
        if let Some(n) = self.normals.get(mesh).and_then(Option::as_ref) {
            return n.clone();
        }
        match self.positions.get(mesh).and_then(Option::as_ref) {
            Some(p) if !m.keep_rest_normals => super::compute_normals(p, &m.triangles),
            _ => m.normals.clone(),
        }
    }

    /// Bounds of the visible meshes as this pose places and moves them (the scene's rest
    /// bounds when nothing is visible). In an assembled scene the parts a camera frames
    /// ([`Scene::framing_meshes`]: a park's items, not its whole ground) decide.
    pub fn bounds(&self, scene: &Scene) -> super::Aabb {
        let mut out = super::Aabb::EMPTY;
        let framed = scene.framing_meshes();
        for (index, mesh) in scene.meshes.iter().enumerate() {
            if mesh.node.is_some_and(|n| !self.visible.get(n).copied().unwrap_or(true))
                || framed.as_ref().is_some_and(|f| !f.get(index).copied().unwrap_or(false))
            {
                continue;
            }
            let local = match self.positions.get(index).and_then(Option::as_ref) {
                Some(positions) => super::Aabb::from_points(positions),
                None => mesh.bounds,
            };
            out = out.union(&local.transformed(&self.mesh_world(scene, index)));
        }
        if out.is_empty() { scene.bounds() } else { out }
    }

    /// World matrix of the node that places `mesh`.
    pub fn mesh_world(&self, scene: &Scene, mesh: usize) -> Mat4 {
        scene.meshes.get(mesh).and_then(|m| m.node).and_then(|n| self.world.get(n)).copied().unwrap_or(Mat4::IDENTITY)
    }

    /// Turns the whole posed model by `radians` about the scene's up axis through its origin
    /// ([`Scene::spin_degrees_per_sec`]): every node's world matrix, which places its mesh,
    /// marker and bones.
    pub fn turn_about_up(&mut self, radians: f32) {
        let turn = Mat4::from_rotation_y(if radians.is_finite() { radians } else { 0.0 });
        for world in &mut self.world {
            *world = turn * *world;
        }
    }
}

/// A node's local matrix under the channels of `channels` that move it, at `time`: the
/// authored local with each applied in order, exactly as [`Pose::evaluate`] does. Exporters
/// sample one node with it without posing the whole scene.
pub fn animated_node_local<'a>(
    scene: &Scene,
    channels: impl IntoIterator<Item = &'a Channel>,
    node: usize,
    time: f32,
) -> Mat4 {
    let mut local = scene.nodes.get(node).map_or(Mat4::IDENTITY, |n| n.local);
    let time = if time.is_finite() { time } else { 0.0 };
    for channel in channels.into_iter().filter(|c| c.moved_node() == Some(node)) {
        move_node(scene, channel, &mut local, time);
    }
    local
}

/// Applies one node channel ([`Channel::moved_node`]) to the node's `local`; other channels
/// leave it alone.
fn move_node(scene: &Scene, channel: &Channel, local: &mut Mat4, time: f32) {
    match channel {
        Channel::NodeRotation { authored_inverse, keys, .. } => {
            if let Some(q) = sample_quat(keys, time) {
                // Column-vector form of the row-vector rule R(q)·U⁻¹·local (U a proper rotation).
                *local = *local * *authored_inverse * Mat4::from_quat(q);
            }
        }
        Channel::NodeRotationEased { authored_inverse, keys, ease, .. } => {
            let Some((a, b, f)) = segment(keys, time) else { return };
            let f = match ease.get(a) {
                Some(Some(ramp)) if a != b => ramp.apply(f),
                _ => f,
            };
            let (Some(ka), Some(kb)) = (keys.get(a), keys.get(b)) else { return };
            // A dipping curve may give f outside 0..1: slerp extrapolates, as a blend would.
            let q = Quat::blend(ka.value, kb.value, f);
            *local = *local * *authored_inverse * Mat4::from_quat(q);
        }
        Channel::NodeFrames { keys, .. } => {
            let Some((a, b, f)) = segment(keys, time) else { return };
            let (Some(ka), Some(kb)) = (keys.get(a), keys.get(b)) else { return };
            *local = unit_axes(ka.value * (1.0 - f) + kb.value * f);
        }
        Channel::NodePosition { node, curve, additive } => {
            if curve.keys.first().is_none_or(|k| time < k.time) {
                return;
            }
            let Some(p) = sample_curve(curve, time) else { return };
            let authored = scene.nodes.get(*node).map(|n| n.local.w_axis.truncate()).unwrap_or(Vec3::ZERO);
            local.w_axis = if *additive { authored + p } else { p }.extend(1.0);
        }
        Channel::NodeAxisScale { keys, .. } => {
            let Some(lengths) = sample_vec3(keys, time) else { return };
            for (axis, length) in
                [&mut local.x_axis, &mut local.y_axis, &mut local.z_axis].into_iter().zip(lengths.to_array())
            {
                let direction = axis.truncate().normalize_or_zero();
                *axis = (direction * length).extend(0.0);
            }
        }
        Channel::NodePathProgress { node, path, start, values, face_along, additive } => {
            let Some((position, direction)) = sample_path_progress(path, *start, values, time) else { return };
            let authored = scene.nodes.get(*node).map(|n| n.local.w_axis.truncate()).unwrap_or(Vec3::ZERO);
            local.w_axis = if *additive { authored + position } else { position }.extend(1.0);
            if *face_along && let Some(forward) = direction.try_normalize() {
                let right = Vec3::Y.cross(forward).try_normalize().unwrap_or(Vec3::X);
                let up = forward.cross(right);
                let lengths = [local.x_axis, local.y_axis, local.z_axis].map(|a| a.truncate().length());
                local.x_axis = (right * lengths[0]).extend(0.0);
                local.y_axis = (up * lengths[1]).extend(0.0);
                local.z_axis = (forward * lengths[2]).extend(0.0);
            }
        }
        _ => {}
    }
}

/// `m` with each of its three axis columns scaled to unit length (a zero axis is kept).
fn unit_axes(m: Mat4) -> Mat4 {
    let unit = |axis: Vec4| axis.truncate().try_normalize().map_or(axis, |v| v.extend(axis.w));
    Mat4::from_cols(unit(m.x_axis), unit(m.y_axis), unit(m.z_axis), m.w_axis)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scene with one joint whose translation is a two-key track on a 200 ms global sequence
    /// (x from 0 at 0 ms to 20 at 200 ms), inside a 100 ms clip, and in the global channels.
    fn global_sequence_scene() -> Scene {
        let mut scene = Scene::new(super::super::FormatKind::WowM2, super::super::SceneKind::Mesh);
        let joint = super::super::Joint { name: "b".into(), parent: None, pivot: Vec3::ZERO, billboard: false };
        scene.skeletons.push(super::super::Skeleton { name: "s".into(), joints: vec![joint], rest_pose: Vec::new() });
        let translation = Curve::linear(vec![
            Key { time: 0.0, value: Vec3::ZERO },
            Key { time: 200.0, value: Vec3::new(20.0, 0.0, 0.0) },
        ]);
        let loop_200 = super::super::TrackTime::Loop { period: 200.0 };
        let joints = vec![super::super::JointTracks {
            joint: 0,
            translation,
            timing: [loop_200, super::super::TrackTime::Clip, super::super::TrackTime::Clip],
            ..Default::default()
        }];
        let channel = Channel::BoneTracks { skeleton: 0, joints };
        scene.clips.push(Clip {
            name: "Stand".into(),
            source: None,
            start: 0.0,
            end: 100.0,
            rate: 1000.0,
            channels: vec![channel.clone()],
            tracks: Vec::new(),
            warnings: Vec::new(),
        });
        scene.global_channels = vec![channel];
        scene
    }

    /// Issue 12: a global-sequence track runs on the global clock (`globalTime % period`), not
    /// the clip's time, so it does not restart when the clip loops, and it plays in the rest pose.
    #[test]
    fn a_global_sequence_track_keeps_its_own_clock_across_a_clip_loop() {
        let scene = global_sequence_scene();
        let x_at = |clip: Option<usize>, clip_time: f32, global: Option<f32>| {
            let mut pose = Pose { global_time: global, ..Pose::default() };
            pose.evaluate(&scene, clip, clip_time);
            pose.joints[0][0].w_axis.x
        };
        // 150 ms after opening, the 100 ms clip has looped once and sits at 50 ms; the global
        // track is 150 ms into its 200 ms period: x = 15, not 5.
        assert!((x_at(Some(0), 50.0, Some(150.0)) - 15.0).abs() < 1e-5);
        // 250 ms: the clip is at 50 ms again; the global track wrapped to 50 ms: x = 5.
        assert!((x_at(Some(0), 50.0, Some(250.0)) - 5.0).abs() < 1e-5);
        // Without a global clock the clip time stands in.
        assert!((x_at(Some(0), 50.0, None) - 5.0).abs() < 1e-5);
        // The rest pose plays the global channels on the same clock.
        assert!((x_at(None, 0.0, Some(150.0)) - 15.0).abs() < 1e-5);
    }
}
