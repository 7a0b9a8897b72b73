//! Evaluates a clip at a (fractional) time into a [`Pose`]: node matrices, visibility, and
//! per-mesh animated positions and UVs. It reads the scene and never mutates it, and reuses
//! the pose's buffers so that evaluating every frame allocates nothing in steady state.

use glam::{Mat4, Quat, Vec2, Vec3, Vec4};

use super::{Channel, Clip, Curve, Interpolation, Key, MorphBlock, Path, Scene, SkinWeights, UvSlotKeys};

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
    pub fn evaluate(&mut self, scene: &Scene, clip: Option<usize>, time: f32) {
        self.reset(scene);
        let clip: Option<&Clip> = clip.and_then(|c| scene.clips.get(c));
        let time = if time.is_finite() { time } else { 0.0 };
        let global = self.global_time.filter(|t| t.is_finite()).unwrap_or(time);
        let mut marks = Marks::new(scene);
        let channels = clip.map_or(scene.global_channels.as_slice(), |c| c.channels.as_slice());
        for channel in channels {
            self.apply_channel(scene, channel, [time, global], &mut marks);
        }
        self.finish(scene, &mut marks);
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
    }

    /// Applies one channel at the clip time, or the global time for tracks that read it: one
    /// match arm per channel kind, each a function.
    fn apply_channel(&mut self, scene: &Scene, channel: &Channel, [time, global]: [f32; 2], marks: &mut Marks) {
        match channel {
            Channel::NodeRotation { .. }
            | Channel::NodeRotationEased { .. }
            | Channel::NodePosition { .. }
            | Channel::NodeAxisScale { .. }
            | Channel::NodePathProgress { .. } => self.node_channel(scene, channel, time),
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
    /// bounds when nothing is visible).
    pub fn bounds(&self, scene: &Scene) -> super::Aabb {
        let mut out = super::Aabb::EMPTY;
        for (index, mesh) in scene.meshes.iter().enumerate() {
            if mesh.node.is_some_and(|n| !self.visible.get(n).copied().unwrap_or(true)) {
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

/// Index of the segment containing `time` and the blend factor within it; clamps outside.
fn segment<T>(keys: &[Key<T>], time: f32) -> Option<(usize, usize, f32)> {
    let last = keys.len().checked_sub(1)?;
    let first = keys.first()?;
    if time <= first.time {
        return Some((0, 0, 0.0));
    }
    if keys.get(last).is_some_and(|k| time >= k.time) {
        return Some((last, last, 0.0));
    }
    let upper = keys.partition_point(|k| k.time <= time).min(last);
    let lower = upper.saturating_sub(1);
    let (t0, t1) = (keys.get(lower)?.time, keys.get(upper)?.time);
    let f = if t1 > t0 { (time - t0) / (t1 - t0) } else { 0.0 };
    Some((lower, upper, f))
}

/// Spherical interpolation along the shortest path; clamped outside the keys.
pub fn sample_quat(keys: &[Key<Quat>], time: f32) -> Option<Quat> {
    let (a, b, f) = segment(keys, time)?;
    let qa = keys.get(a)?.value;
    let mut qb = keys.get(b)?.value;
    if qa.dot(qb) < 0.0 {
        qb = -qb;
    }
    Some(qa.slerp(qb, f).normalize())
}

pub fn sample_vec2(keys: &[Key<Vec2>], time: f32) -> Option<Vec2> {
    let (a, b, f) = segment(keys, time)?;
    Some(keys.get(a)?.value.lerp(keys.get(b)?.value, f))
}

pub fn sample_vec3(keys: &[Key<Vec3>], time: f32) -> Option<Vec3> {
    let (a, b, f) = segment(keys, time)?;
    Some(keys.get(a)?.value.lerp(keys.get(b)?.value, f))
}

pub fn sample_f32(keys: &[Key<f32>], time: f32) -> Option<f32> {
    let (a, b, f) = segment(keys, time)?;
    let (va, vb) = (keys.get(a)?.value, keys.get(b)?.value);
    Some(va + (vb - va) * f)
}

/// Values a [`Curve`] can hold: linear blending, plus the sums and scalings cubic curves need.
pub trait CurveValue: Copy + std::ops::Add<Output = Self> + std::ops::Mul<f32, Output = Self> {
    /// The value a fraction `f` of the way from `a` to `b` (the linear case).
    fn blend(a: Self, b: Self, f: f32) -> Self;
    /// Puts a cubic combination back into the value's space (unit quaternions); `None` when it
    /// cannot be (a degenerate quaternion), so the sampler falls back to linear.
    fn settle(self) -> Option<Self> {
        Some(self)
    }
}

impl CurveValue for f32 {
    fn blend(a: f32, b: f32, f: f32) -> f32 {
        a + (b - a) * f
    }
}

impl CurveValue for Vec3 {
    fn blend(a: Vec3, b: Vec3, f: f32) -> Vec3 {
        a.lerp(b, f)
    }
}

impl CurveValue for Quat {
    fn blend(a: Quat, b: Quat, f: f32) -> Quat {
        let b = if a.dot(b) < 0.0 { -b } else { b };
        a.slerp(b, f).normalize()
    }

    fn settle(self) -> Option<Quat> {
        (self.is_finite() && self.length_squared() > 1e-12).then(|| self.normalize())
    }
}

/// Samples a curve at `time` (clamped outside its keys). Hermite and Bezier segments use the
/// out-tangent of the earlier key and the in-tangent of the later one; a curve without one
/// tangent pair per key plays linearly.
pub fn sample_curve<T: CurveValue>(curve: &Curve<T>, time: f32) -> Option<T> {
    let (a, b, r) = segment(&curve.keys, time)?;
    let (va, vb) = (curve.keys.get(a)?.value, curve.keys.get(b)?.value);
    if a == b {
        return Some(va);
    }
    let linear = T::blend(va, vb, r);
    if curve.interpolation == Interpolation::Linear || curve.tangents.len() != curve.keys.len() {
        return Some(linear);
    }
    let (Some(&[_, out_a]), Some(&[in_b, _])) = (curve.tangents.get(a), curve.tangents.get(b)) else {
        return Some(linear);
    };
    let (r2, r3) = (r * r, r * r * r);
    let cubic = match curve.interpolation {
        Interpolation::Hermite => {
            va * (2.0 * r3 - 3.0 * r2 + 1.0)
                + vb * (3.0 * r2 - 2.0 * r3)
                + out_a * (r3 - 2.0 * r2 + r)
                + in_b * (r3 - r2)
        }
        Interpolation::Bezier | Interpolation::Linear => {
            let s = 1.0 - r;
            va * (s * s * s) + out_a * (3.0 * r * s * s) + in_b * (3.0 * r2 * s) + vb * r3
        }
    };
    Some(cubic.settle().unwrap_or(linear))
}

/// Where path progress puts a node at `time`: the position and direction of travel on `path`,
/// or `None` outside the values' window (see [`Channel::NodePathProgress`]).
pub fn sample_path_progress(path: &Path, start: f32, values: &[f32], time: f32) -> Option<(Vec3, Vec3)> {
    let offset = time - start;
    let last = values.len().checked_sub(1)?;
    if !(0.0..=last as f32).contains(&offset) {
        return None;
    }
    let lower = (offset.floor() as usize).min(last);
    let upper = (lower + 1).min(last);
    let f = offset - lower as f32;
    let (a, mut b) = (*values.get(lower)?, *values.get(upper)?);
    // More than 50 apart: blend the short way round the wrap at 100.
    if b - a > 50.0 {
        b -= 100.0;
    } else if a - b > 50.0 {
        b += 100.0;
    }
    let value = a + (b - a) * f;
    let percent = (value + 1000.0).rem_euclid(100.0);
    let segments = path.segments();
    if segments == 0 {
        return path.points.first().map(|&p| (p, Vec3::ZERO));
    }
    let x = percent * segments as f32 * 0.01;
    let segment = (x.trunc() as usize).min(segments - 1);
    path.sample(segment, (x - segment as f32).clamp(0.0, 1.0))
}

fn last_at_or_before<T>(keys: &[Key<T>], time: f32) -> Option<&Key<T>> {
    let n = keys.partition_point(|k| k.time <= time);
    n.checked_sub(1).and_then(|i| keys.get(i))
}

/// As [`frame_segment`]; where the frames `wrap`, the frame after the last is the first, one
/// unit on: a time within that unit blends the last frame into the first.
fn wrapped_frame_segment(times: &[f32], time: f32, wrap: bool) -> Option<(usize, usize, f32)> {
    let last = times.len().checked_sub(1)?;
    let last_time = *times.get(last)?;
    if wrap && last > 0 && time > last_time && time <= last_time + 1.0 {
        return Some((last, 0, time - last_time));
    }
    frame_segment(times, time)
}

fn frame_segment(times: &[f32], time: f32) -> Option<(usize, usize, f32)> {
    let last = times.len().checked_sub(1)?;
    if time <= *times.first()? {
        return Some((0, 0, 0.0));
    }
    if time >= *times.get(last)? {
        return Some((last, last, 0.0));
    }
    let upper = times.partition_point(|&t| t <= time).min(last);
    let lower = upper.saturating_sub(1);
    let (t0, t1) = (*times.get(lower)?, *times.get(upper)?);
    Some((lower, upper, if t1 > t0 { (time - t0) / (t1 - t0) } else { 0.0 }))
}

fn sample_morph_block(block: &MorphBlock, time: f32, out: &mut [Vec3]) {
    let Some((a, b, f)) = frame_segment(&block.times, time) else { return };
    let width = block.vertices.len();
    let (Some(from), Some(to)) =
        (block.positions.get(a * width..(a + 1) * width), block.positions.get(b * width..(b + 1) * width))
    else {
        return;
    };
    for ((&vertex, pa), pb) in block.vertices.iter().zip(from).zip(to) {
        if let Some(v) = out.get_mut(vertex as usize) {
            *v = pa.lerp(*pb, f);
        }
    }
}

/// `m` with each of its three axis columns scaled to unit length (a zero axis is kept).
fn unit_axes(m: Mat4) -> Mat4 {
    let unit = |axis: Vec4| axis.truncate().try_normalize().map_or(axis, |v| v.extend(axis.w));
    Mat4::from_cols(unit(m.x_axis), unit(m.y_axis), unit(m.z_axis), m.w_axis)
}

fn sample_matrix_frames(times: &[f32], frames: &[Vec<Mat4>], time: f32, out: &mut Vec<Mat4>) {
    let Some((a, b, f)) = frame_segment(times, time) else { return };
    let (Some(fa), Some(fb)) = (frames.get(a), frames.get(b)) else { return };
    out.clear();
    // Element-wise blend, as the Quake 3 engine does for MDR bones.
    out.extend(fa.iter().zip(fb).map(|(ma, mb)| *ma * (1.0 - f) + *mb * f));
}

fn evaluate_bone_tracks(
    skeleton: &super::Skeleton,
    tracks: &[super::JointTracks],
    [time, global]: [f32; 2],
    out: &mut Vec<Mat4>,
) {
    let count = skeleton.joints.len();
    let mut locals = vec![Mat4::IDENTITY; count];
    for track in tracks {
        let Some(joint) = skeleton.joints.get(track.joint) else { continue };
        let [tt, rt, st] = track.timing;
        let t = sample_curve(&track.translation, tt.apply(time, global)).unwrap_or(Vec3::ZERO);
        let r = sample_curve(&track.rotation, rt.apply(time, global)).unwrap_or(Quat::IDENTITY);
        let s = sample_curve(&track.scale, st.apply(time, global)).unwrap_or(Vec3::ONE);
        if let Some(local) = locals.get_mut(track.joint) {
            *local = Mat4::from_translation(joint.pivot + t)
                * Mat4::from_quat(r)
                * Mat4::from_scale(s)
                * Mat4::from_translation(-joint.pivot);
        }
    }
    out.clear();
    out.resize(count, Mat4::IDENTITY);
    for i in 0..count {
        let local = locals.get(i).copied().unwrap_or(Mat4::IDENTITY);
        // Parents precede children in M2 bone tables; a parent at or after the joint is ignored.
        let parent = skeleton.joints.get(i).and_then(|j| j.parent).filter(|&p| p < i);
        let parent_world = parent.and_then(|p| out.get(p)).copied().unwrap_or(Mat4::IDENTITY);
        if let Some(slot) = out.get_mut(i) {
            *slot = parent_world * local;
        }
    }
}

/// Turns each billboard joint of `skeleton` to face the camera: its matrix keeps where its pivot
/// lands and its scale, and its rotation becomes the camera-facing frame (+X towards the eye,
/// +Y along the screen's up, +Z = X × Y), whatever its track or parents say; descendants keep
/// their local transforms under the turned joint. Returns whether any joint changed.
pub fn face_camera(skeleton: &super::Skeleton, view_from_model: Mat4, joints: &mut [Mat4]) -> bool {
    if !skeleton.joints.iter().any(|j| j.billboard) || joints.len() != skeleton.joints.len() {
        return false;
    }
    let model_from_view = view_from_model.inverse();
    if !model_from_view.is_finite() {
        return false;
    }
    let eye = model_from_view.transform_point3(Vec3::ZERO);
    let screen_up = model_from_view.transform_vector3(Vec3::Y).normalize_or(Vec3::Y);
    let original = joints.to_vec();
    let mut moved = vec![false; joints.len()];
    for (i, joint) in skeleton.joints.iter().enumerate() {
        let parent = joint.parent.filter(|&p| p < i);
        if let Some(p) = parent
            && moved.get(p).copied().unwrap_or(false)
            && let (Some(&old_parent), Some(&new_parent), Some(&old)) =
                (original.get(p), joints.get(p), original.get(i))
            && old_parent.determinant().abs() > 1e-12
            && let Some(slot) = joints.get_mut(i)
        {
            // Same local transform under the turned parent.
            *slot = new_parent * old_parent.inverse() * old;
            if let Some(m) = moved.get_mut(i) {
                *m = true;
            }
        }
        if !joint.billboard {
            continue;
        }
        let Some(slot) = joints.get_mut(i) else { continue };
        let origin = slot.transform_point3(joint.pivot);
        let look = (eye - origin).normalize_or(Vec3::X);
        let right = screen_up.cross(look).normalize_or(Vec3::Z);
        let up = look.cross(right);
        let facing = glam::Mat3::from_cols(look, up, look.cross(up));
        let scale = Vec3::new(
            slot.x_axis.truncate().length(),
            slot.y_axis.truncate().length(),
            slot.z_axis.truncate().length(),
        );
        *slot = Mat4::from_translation(origin)
            * Mat4::from_mat3(facing)
            * Mat4::from_scale(scale)
            * Mat4::from_translation(-joint.pivot);
        if let Some(m) = moved.get_mut(i) {
            *m = true;
        }
    }
    moved.iter().any(|&m| m)
}

/// Linear blend skinning of positions and normals per source vertex, as the Quake 3 engine does
/// for MDR: `pos = Σ weight · (joint · offset)` and `normal = Σ weight · (joint₃ₓ₃ · normal)`.
/// Normals come out unnormalised; callers renormalise. Out-of-range joints add nothing.
pub fn skin_positions_and_normals(skin: &SkinWeights, joints: &[Mat4], positions: &mut [Vec3], normals: &mut [Vec3]) {
    for ((position, normal), &(start, count)) in positions.iter_mut().zip(normals.iter_mut()).zip(&skin.ranges) {
        let end = start.saturating_add(count) as usize;
        let Some(influences) = skin.influences.get(start as usize..end) else { continue };
        // Four-lane sums: `Mat4 * Vec4` is one SIMD multiply-add chain per influence.
        let (mut p, mut n) = (Vec4::ZERO, Vec4::ZERO);
        for inf in influences {
            if let Some(m) = joints.get(inf.joint as usize) {
                p += (*m * inf.offset.extend(1.0)) * inf.weight;
                n += (*m * inf.normal.extend(0.0)) * inf.weight;
            }
        }
        *position = p.truncate();
        *normal = n.truncate();
    }
}

/// `pos = Σ weight · (joint_matrix · offset)` per source vertex.
pub fn skin_positions(skin: &SkinWeights, joints: &[Mat4], out: &mut [Vec3]) {
    for (vertex, &(start, count)) in out.iter_mut().zip(&skin.ranges) {
        let end = start.saturating_add(count) as usize;
        let Some(influences) = skin.influences.get(start as usize..end) else { continue };
        let mut p = Vec3::ZERO;
        for inf in influences {
            if let Some(m) = joints.get(inf.joint as usize) {
                p += m.transform_point3(inf.offset) * inf.weight;
            }
        }
        *vertex = p;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::EaseRamp;

    fn keys(values: &[(f32, Quat)]) -> Vec<Key<Quat>> {
        values.iter().map(|&(time, value)| Key { time, value }).collect()
    }

    fn scalar_curve(interpolation: Interpolation, values: [f32; 2], tangents: [[f32; 2]; 2]) -> Curve<f32> {
        Curve {
            keys: vec![Key { time: 0.0, value: values[0] }, Key { time: 10.0, value: values[1] }].into(),
            interpolation,
            tangents: tangents.to_vec().into(),
        }
    }

    #[test]
    fn hermite_uses_the_out_tangent_of_the_first_key_and_the_in_tangent_of_the_second() {
        // r = 0.5: h00 = h01 = 0.5, h10 = 0.125, h11 = -0.125.
        let curve = scalar_curve(Interpolation::Hermite, [0.0, 1.0], [[99.0, 2.0], [0.0, 99.0]]);
        assert!((sample_curve(&curve, 5.0).unwrap() - 0.75).abs() < 1e-6);
        // r = 0.25: h00 = 0.84375, h01 = 0.15625, h10 = 0.140625, h11 = -0.046875.
        let curve = scalar_curve(Interpolation::Hermite, [2.0, 4.0], [[0.0, 1.0], [3.0, 0.0]]);
        let expected = 2.0 * 0.84375 + 4.0 * 0.15625 + 0.140625 - 3.0 * 0.046875;
        assert!((sample_curve(&curve, 2.5).unwrap() - expected).abs() < 1e-6);
        assert_eq!(sample_curve(&curve, -1.0), Some(2.0));
        assert_eq!(sample_curve(&curve, 11.0), Some(4.0));
    }

    #[test]
    fn bezier_uses_tangents_as_inner_control_points() {
        // Control points 0, 1, 1, 0 at r = 0.5: 3·0.5·0.25 + 3·0.25·0.5 = 0.75.
        let curve = scalar_curve(Interpolation::Bezier, [0.0, 0.0], [[99.0, 1.0], [1.0, 99.0]]);
        assert!((sample_curve(&curve, 5.0).unwrap() - 0.75).abs() < 1e-6);
        // Missing tangents play linearly.
        let mut curve = scalar_curve(Interpolation::Bezier, [0.0, 1.0], [[0.0; 2]; 2]);
        curve.tangents = Default::default();
        assert!((sample_curve(&curve, 2.5).unwrap() - 0.25).abs() < 1e-6);
    }

    #[test]
    fn cubic_quaternions_come_out_unit_length() {
        let (a, b) = (Quat::IDENTITY, Quat::from_rotation_z(1.0));
        let curve = Curve {
            keys: vec![Key { time: 0.0, value: a }, Key { time: 1.0, value: b }].into(),
            interpolation: Interpolation::Hermite,
            tangents: vec![[Quat::from_xyzw(0.0, 0.0, 0.0, 0.0); 2]; 2].into(),
        };
        let q = sample_curve(&curve, 0.3).unwrap();
        assert!((q.length() - 1.0).abs() < 1e-5);
        // Zero tangents: the value follows smoothstep between the keys, so it sits between them.
        assert!(q.angle_between(a) < 1.0 && q.angle_between(b) < 1.0);
    }

    #[test]
    fn billboard_joints_face_the_camera_and_carry_their_children() {
        let joint = |parent, pivot, billboard| super::super::Joint { name: String::new(), parent, pivot, billboard };
        let skeleton = super::super::Skeleton {
            name: "s".into(),
            joints: vec![joint(None, Vec3::X, true), joint(Some(0), Vec3::new(2.0, 0.0, 0.0), false)],
            rest_pose: vec![Mat4::IDENTITY; 2],
        };
        let eye = Vec3::new(1.0, 0.0, 10.0);
        let view = glam::camera::rh::view::look_at_mat4(eye, Vec3::X, Vec3::Y);
        let mut joints = vec![Mat4::IDENTITY; 2];
        assert!(face_camera(&skeleton, view, &mut joints));
        // The pivot stays; +X points at the eye; +Y stays the screen's up.
        assert!(joints[0].transform_point3(Vec3::X).abs_diff_eq(Vec3::X, 1e-5));
        assert!(joints[0].transform_vector3(Vec3::X).abs_diff_eq(Vec3::Z, 1e-5), "{:?}", joints[0]);
        assert!(joints[0].transform_vector3(Vec3::Y).abs_diff_eq(Vec3::Y, 1e-5));
        assert!((glam::Mat3::from_mat4(joints[0]).determinant() - 1.0).abs() < 1e-5, "a rotation, not a mirror");
        // The child, one unit along the parent's +X, now sits one unit towards the eye.
        let child = joints[1].transform_point3(Vec3::new(2.0, 0.0, 0.0));
        assert!(child.abs_diff_eq(Vec3::new(1.0, 0.0, 1.0), 1e-5), "{child:?}");
        // Without billboard joints nothing changes.
        let plain = super::super::Skeleton { joints: vec![joint(None, Vec3::X, false)], ..skeleton.clone() };
        let mut joints = vec![Mat4::IDENTITY];
        assert!(!face_camera(&plain, view, &mut joints));
        assert_eq!(joints[0], Mat4::IDENTITY);
    }

    #[test]
    fn quat_sampling_clamps_and_slerps() {
        let k = keys(&[(0.0, Quat::IDENTITY), (10.0, Quat::from_rotation_y(std::f32::consts::FRAC_PI_2))]);
        assert!(sample_quat(&k, -5.0).unwrap().abs_diff_eq(Quat::IDENTITY, 1e-6));
        assert!(sample_quat(&k, 50.0).unwrap().abs_diff_eq(Quat::from_rotation_y(std::f32::consts::FRAC_PI_2), 1e-6));
        let mid = sample_quat(&k, 5.0).unwrap();
        assert!(mid.abs_diff_eq(Quat::from_rotation_y(std::f32::consts::FRAC_PI_4), 1e-5));
    }

    #[test]
    fn quat_sampling_takes_the_shortest_path() {
        let a = Quat::from_rotation_y(0.1);
        let b = -Quat::from_rotation_y(0.3);
        let k = keys(&[(0.0, a), (1.0, b)]);
        let mid = sample_quat(&k, 0.5).unwrap();
        let expected = Quat::from_rotation_y(0.2);
        assert!(mid.abs_diff_eq(expected, 1e-5) || mid.abs_diff_eq(-expected, 1e-5));
    }

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

    #[test]
    fn ease_ramps_keep_the_last_frame_and_their_dips() {
        let ramp = EaseRamp([32, 66, 105, 141, 176, 208, 233, 249]);
        assert_eq!(ramp.apply(0.0), 0.0);
        // Just under 9 steps keeps t = 1 in the last segment (c7 -> 1), ending at 1 (within its
        // f32 remainder), not falling back to c7 = 249/255.
        assert!((ramp.apply(1.0) - 1.0).abs() < 1e-5, "{}", ramp.apply(1.0));
        // t = 0.5: x = 4.4999976, s = 4, segment (141, 176).
        let expected = (141.0 + 35.0 * (0.5f32 * EaseRamp::STEPS - 4.0)) / 255.0;
        assert!((ramp.apply(0.5) - expected).abs() < 1e-6);
        // A dipping curve is played as stored: t = 2/9 + a little lands in (200, 120), going down.
        let dip = EaseRamp([200, 120, 60, 20, 40, 90, 180, 240]);
        assert!(dip.apply(0.25) < dip.apply(0.12));
    }

    #[test]
    fn path_progress_wraps_and_takes_the_short_way() {
        let path = Path {
            kind: super::super::PathKind::Straight,
            closed: false,
            points: vec![Vec3::ZERO, Vec3::X * 10.0, Vec3::new(10.0, 0.0, 10.0)],
        };
        assert_eq!(path.segments(), 2);
        let at = |values: &[f32], time: f32| sample_path_progress(&path, 0.0, values, time).map(|(p, _)| p);
        // 25 % of 2 segments: segment 0 at 0.5.
        assert!(at(&[25.0], 0.0).unwrap().abs_diff_eq(Vec3::new(5.0, 0.0, 0.0), 1e-5));
        // -10 wraps to 90 %: segment 1 at 0.8.
        assert!(at(&[-10.0], 0.0).unwrap().abs_diff_eq(Vec3::new(10.0, 0.0, 8.0), 1e-4));
        // 95 -> 5 is 90 apart: halfway is 100, which wraps to 0.
        assert!(at(&[95.0, 5.0], 0.5).unwrap().abs_diff_eq(Vec3::ZERO, 1e-4));
        // Outside the window nothing applies.
        assert!(at(&[95.0, 5.0], 1.5).is_none() && at(&[95.0, 5.0], -0.5).is_none());
    }

    #[test]
    fn visibility_uses_last_key_at_or_before() {
        let k = vec![Key { time: 2.0, value: false }, Key { time: 5.0, value: true }];
        assert!(last_at_or_before(&k, 1.0).is_none());
        assert!(!last_at_or_before(&k, 2.0).unwrap().value);
        assert!(last_at_or_before(&k, 7.0).unwrap().value);
    }
}
