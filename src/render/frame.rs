//! The per-frame half of the renderer: sizing the targets, writing the frame uniforms and one
//! placement per visible mesh (grouped into instanced draws by [`super::instances`]), keeping
//! animated vertex data and material uniforms in step with the pose, building the overlay
//! lines, sorting the draw lists, and recording the one render pass that draws them.

use glam::{Mat4, Vec3};

use super::gpu::{self, DrawUniforms, FrameUniforms, LineVertex, MaterialUniforms};
use super::instances::{self, Geometry, Placement, SurfaceDraw, SurfaceLists};
use super::pipelines::PipelineKey;
use super::resources::{self, GpuMaterial, GpuScene, create_draw_slots, create_targets, upload_edges, upload_mesh};
use super::{Renderer, ViewParams, overlays};
use crate::scene::anim::Pose;
use crate::scene::{Mesh, Scene};

/// Per-frame lists, kept between frames so steady-state frames allocate nothing.
#[derive(Default)]
pub(super) struct FrameLists {
    /// The visible meshes, grouped so that placement `i` is instance `i`.
    placements: Vec<Placement>,
    surfaces: SurfaceLists,
    /// (geometry, first instance, instance count) to draw as wireframe, and to highlight.
    wire: Vec<(Geometry, u32, u32)>,
    highlight: Vec<(Geometry, u32, u32)>,
    lines: Vec<LineVertex>,
    /// `lines[..grid_vertices]` is the ground grid.
    grid_vertices: u32,
    /// `lines[top_start..]` is drawn over everything (the skeleton, which sits inside meshes).
    top_start: u32,
    animation: resources::AnimationScratch,
    /// Per node: the selected node or one of its descendants.
    selected: Vec<bool>,
}

impl FrameLists {
    pub(super) fn stats(&self) -> super::DrawStats {
        let mut stats = super::DrawStats { placements: self.placements.len(), ..super::DrawStats::default() };
        for draw in self.surfaces.in_order() {
            stats.draws += 1;
            stats.instances += draw.count as usize;
            stats.instanced_draws += usize::from(draw.count > 1);
        }
        stats
    }
}

impl Renderer {
    /// The CPU half of a frame: writes the frame uniforms, one placement per visible mesh,
    /// animated vertex data, and overlay lines, and sorts the draw lists. Public so its cost
    /// can be measured apart from the GPU's.
    pub fn prepare(&mut self, scene: &Scene, pose: &Pose, view: &ViewParams) {
        let max_side = self.device.limits().max_texture_dimension_2d.max(1);
        let size = [view.size[0].clamp(1, max_side), view.size[1].clamp(1, max_side)];
        if self.targets.size != size {
            self.targets = create_targets(&self.device, size, self.sample_count);
        }
        let lists = &mut self.lists;
        lists.placements.clear();
        lists.surfaces.clear();
        lists.wire.clear();
        lists.highlight.clear();
        lists.lines.clear();

        let [r, g, b, a] = gpu::linear_rgba(view.background);
        self.background = wgpu::Color { r: f64::from(r), g: f64::from(g), b: f64::from(b), a: f64::from(a) };

        let (bounds, radius) = match &self.scene {
            Some(s) => (s.bounds, s.radius),
            None => (crate::scene::Aabb::EMPTY, 1.0),
        };
        let aspect = size[0] as f32 / size[1] as f32;
        let view_from_world = view.camera.view_from_world();
        let clip_from_world = view.camera.clip_from_view(aspect, radius) * view_from_world;
        self.queue.write_buffer(
            &self.frame_buffer,
            0,
            bytemuck::bytes_of(&frame_uniforms(view, clip_from_world, view_from_world)),
        );

        let Some(gpu_scene) = self.scene.as_mut().filter(|s| s.mesh_count == scene.meshes.len()) else {
            return;
        };
        let GpuScene { meshes, materials, image_variants, sources, shared, own, .. } = gpu_scene;
        mark_subtree(scene, view.selected_node, &mut lists.selected);
        update_material_uniforms(&self.queue, scene, pose, materials);

        // One placement per visible mesh, grouped by the buffers it draws from.
        for (mesh_index, mesh) in scene.meshes.iter().enumerate() {
            if !mesh_visible(scene, pose, mesh) {
                continue;
            }
            let geometry = instances::geometry_of(sources, shared, pose, mesh_index);
            let ready = match geometry {
                Geometry::Uploaded(m) => meshes.get(m as usize).is_some_and(Option::is_some),
                // Made the first time this mesh moves; rewritten below while it moves.
                Geometry::Moved(m) => match own.entry(m) {
                    std::collections::hash_map::Entry::Occupied(_) => true,
                    std::collections::hash_map::Entry::Vacant(slot) => {
                        let default_material = materials.len().saturating_sub(1);
                        upload_mesh(&self.device, mesh, default_material).map(|gpu| slot.insert(gpu)).is_some()
                    }
                },
            };
            if !ready {
                continue;
            }
            let world = pose.mesh_world(scene, mesh_index);
            let mirrored = glam::Mat3::from_mat4(world).determinant() < 0.0;
            lists.placements.push(Placement { mesh: mesh_index as u32, geometry, mirrored, world });
        }
        instances::group(&mut lists.placements);

        self.draws.staging.clear();
        for (instance, placement) in (0u32..).zip(&lists.placements) {
            self.draws.staging.push(DrawUniforms::new(placement.world));
            let mesh_index = placement.mesh as usize;
            let Some(mesh) = scene.meshes.get(mesh_index) else { continue };
            // Shared rest buffers are never rewritten; a mesh's own buffers follow its pose.
            let animated = match placement.geometry {
                Geometry::Uploaded(m) if m == placement.mesh && !shared.get(mesh_index).copied().unwrap_or(false) => {
                    meshes.get_mut(mesh_index).and_then(Option::as_mut)
                }
                Geometry::Uploaded(_) => None,
                Geometry::Moved(m) => own.get_mut(&m),
            };
            if let Some(gpu_mesh) = animated {
                resources::update_animated_buffers(&self.queue, mesh, pose, mesh_index, gpu_mesh, &mut lists.animation);
            }
            if mesh.node.is_some_and(|n| lists.selected.get(n).copied().unwrap_or(false)) {
                lists.highlight.push((placement.geometry, instance, 1));
            }
        }
        let lookup = |geometry: Geometry| match geometry {
            Geometry::Uploaded(m) => meshes.get(m as usize).and_then(Option::as_ref),
            Geometry::Moved(m) => own.get(&m),
        };
        lists.surfaces.plan(&lists.placements, view_from_world, |geometry, mirrored, out| {
            let Some(gpu_mesh) = lookup(geometry) else { return };
            for (sub_index, sub) in (0u32..).zip(&gpu_mesh.submeshes) {
                // The copy showing the image the material's cycle is at, if it cycles.
                let shown = pose.material_images.get(sub.material).copied().flatten();
                let drawn = shown.and_then(|image| image_variants.get(&(sub.material, image)).copied());
                let drawn = drawn.unwrap_or(sub.material);
                let Some(material) = materials.get(drawn) else { continue };
                // A surface whose final alpha (colour alpha × transparency) is 0 is not drawn,
                // whatever its blend mode: WoW Model Viewer leaves the pass when alpha <= 0,
                // wow.export skips the batch (`if (alpha <= 0) continue`).
                if material.uniforms.base_color[3] <= 0.0 {
                    continue;
                }
                out.push(SurfaceDraw {
                    submesh: sub_index,
                    material: drawn as u32,
                    pass: material.pass,
                    key: material.pipeline_key(mirrored),
                    draw_order: material.draw_order,
                    center: sub.center,
                });
            }
        });
        if view.overlays.wireframe {
            let runs = lists.placements.chunk_by(|a, b| a.geometry == b.geometry);
            let mut first = 0u32;
            for run in runs {
                if let Some(head) = run.first() {
                    lists.wire.push((head.geometry, first, run.len() as u32));
                }
                first += run.len() as u32;
            }
        }

        let count = self.draws.staging.len() as u32;
        if count > self.draws.capacity {
            let staging = std::mem::take(&mut self.draws.staging);
            self.draws = create_draw_slots(&self.device, count.next_power_of_two());
            self.draws.staging = staging;
        }
        if !self.draws.staging.is_empty() {
            self.queue.write_buffer(&self.draws.buffer, 0, bytemuck::cast_slice(&self.draws.staging));
        }

        // Wireframe edges are built on first use and kept.
        for &(geometry, _, _) in lists.wire.iter().chain(&lists.highlight) {
            let (index, gpu_mesh) = match geometry {
                Geometry::Uploaded(m) => (m, meshes.get_mut(m as usize).and_then(Option::as_mut)),
                Geometry::Moved(m) => (m, own.get_mut(&m)),
            };
            if let (Some(gpu_mesh), Some(mesh)) = (gpu_mesh, scene.meshes.get(index as usize))
                && gpu_mesh.edges.is_none()
            {
                gpu_mesh.edges = Some(upload_edges(&self.device, mesh));
            }
        }
        if view.overlays.grid {
            overlays::grid(&bounds, radius, &mut lists.lines);
        }
        lists.grid_vertices = lists.lines.len() as u32;
        build_overlay_lines(scene, pose, view, &lists.selected, &mut lists.lines);
        lists.top_start = lists.lines.len() as u32;
        if view.overlays.skeleton {
            build_skeleton_lines(scene, pose, view, &mut lists.lines);
        }
        if view.overlays.markers {
            let size = view.camera.distance.abs().max(1e-6) * 0.012;
            for (node, world) in scene.nodes.iter().zip(&pose.world) {
                if node.kind == crate::scene::NodeKind::Tag {
                    overlays::marker(world, size, overlays::colors::MARKER, &mut lists.lines);
                }
            }
        }

        // Pipelines used this frame that load_scene did not already compile.
        let mut keys: Vec<PipelineKey> = Vec::new();
        // Mirrored meshes' pipelines are compiled when one first appears.
        for item in lists.surfaces.in_order() {
            if matches!(item.key, PipelineKey::Surface { mirrored: true, .. }) && !keys.contains(&item.key) {
                keys.push(item.key);
            }
        }
        if !lists.wire.is_empty() {
            keys.push(PipelineKey::Wire);
        }
        if !lists.highlight.is_empty() {
            keys.push(PipelineKey::Highlight);
        }
        // The grid and the on-top lines share the depth-ignoring line pipeline.
        if lists.grid_vertices > 0 || lists.lines.len() as u32 > lists.top_start {
            keys.push(PipelineKey::GridLines);
        }
        if lists.top_start > lists.grid_vertices {
            keys.push(PipelineKey::Lines);
        }
        if !lists.lines.is_empty() {
            let bytes: &[u8] = bytemuck::cast_slice(&lists.lines);
            let needed = bytes.len() as u64;
            if self.line_buffer.as_ref().is_none_or(|(_, capacity)| *capacity < needed) {
                let capacity = needed.next_power_of_two();
                let buffer = self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("mdview overlay lines"),
                    size: capacity,
                    usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                });
                self.line_buffer = Some((buffer, capacity));
            }
            if let Some((buffer, _)) = &self.line_buffer {
                self.queue.write_buffer(buffer, 0, bytes);
            }
        }
        for key in keys {
            self.ensure_pipeline(key);
        }
    }

    pub(super) fn encode_and_submit(&mut self) {
        let mut encoder =
            self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("mdview frame") });
        {
            let (attachment, resolve_target, store) = match &self.targets.msaa_view {
                Some(msaa) => (msaa, Some(&self.targets.color_view), wgpu::StoreOp::Discard),
                None => (&self.targets.color_view, None, wgpu::StoreOp::Store),
            };
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("mdview scene"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: attachment,
                    depth_slice: None,
                    resolve_target,
                    ops: wgpu::Operations { load: wgpu::LoadOp::Clear(self.background), store },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &self.targets.depth_view,
                    // Reversed depth: the far plane is 0.
                    depth_ops: Some(wgpu::Operations { load: wgpu::LoadOp::Clear(0.0), store: wgpu::StoreOp::Discard }),
                    stencil_ops: None,
                }),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_bind_group(0, &self.frame_bind_group, &[]);
            let line_count = self.lists.lines.len() as u32;
            let grid_count = self.lists.grid_vertices.min(line_count);
            if let (Some(pipeline), Some((buffer, _))) =
                (self.pipelines.get(&PipelineKey::GridLines), &self.line_buffer)
                && grid_count > 0
            {
                pass.set_pipeline(pipeline);
                pass.set_vertex_buffer(0, buffer.slice(..));
                pass.draw(0..grid_count, 0..1);
            }
            if let Some(gpu_scene) = &self.scene {
                let lists = &self.lists;
                let placements = &self.draws.buffer;
                let instances = |first: u32, count: u32| {
                    let size = size_of::<DrawUniforms>() as u64;
                    placements.slice(u64::from(first) * size..u64::from(first + count) * size)
                };
                let mut bound: Option<PipelineKey> = None;
                for item in lists.surfaces.in_order() {
                    let (Some(mesh), Some(material)) =
                        (gpu_scene.geometry(item.geometry), gpu_scene.materials.get(item.material as usize))
                    else {
                        continue;
                    };
                    let Some(sub) = mesh.submeshes.get(item.submesh as usize) else { continue };
                    if bound != Some(item.key) {
                        let Some(pipeline) = self.pipelines.get(&item.key) else { continue };
                        pass.set_pipeline(pipeline);
                        bound = Some(item.key);
                    }
                    pass.set_bind_group(1, &material.bind_group, &[]);
                    pass.set_vertex_buffer(0, mesh.vertices.slice(..));
                    pass.set_vertex_buffer(1, mesh.uvs.slice(..));
                    pass.set_vertex_buffer(2, instances(item.first, item.count));
                    pass.set_index_buffer(mesh.indices.slice(..), wgpu::IndexFormat::Uint32);
                    pass.draw_indexed(sub.indices.clone(), 0, 0..item.count);
                }
                for (key, list) in [(PipelineKey::Wire, &lists.wire), (PipelineKey::Highlight, &lists.highlight)] {
                    let Some(pipeline) = self.pipelines.get(&key).filter(|_| !list.is_empty()) else { continue };
                    pass.set_pipeline(pipeline);
                    for &(geometry, first, count) in list {
                        let Some(mesh) = gpu_scene.geometry(geometry) else { continue };
                        let Some((edges, edge_count)) = &mesh.edges else { continue };
                        if *edge_count == 0 {
                            continue;
                        }
                        pass.set_vertex_buffer(0, mesh.vertices.slice(..));
                        pass.set_vertex_buffer(1, instances(first, count));
                        pass.set_index_buffer(edges.slice(..), wgpu::IndexFormat::Uint32);
                        pass.draw_indexed(0..*edge_count, 0, 0..count);
                    }
                }
            }
            let top_start = self.lists.top_start.clamp(grid_count, line_count);
            if let (Some(pipeline), Some((buffer, _))) = (self.pipelines.get(&PipelineKey::Lines), &self.line_buffer)
                && top_start > grid_count
            {
                pass.set_pipeline(pipeline);
                pass.set_vertex_buffer(0, buffer.slice(..));
                pass.draw(grid_count..top_start, 0..1);
            }
            if let (Some(pipeline), Some((buffer, _))) =
                (self.pipelines.get(&PipelineKey::GridLines), &self.line_buffer)
                && line_count > top_start
            {
                pass.set_pipeline(pipeline);
                pass.set_vertex_buffer(0, buffer.slice(..));
                pass.draw(top_start..line_count, 0..1);
            }
        }
        self.queue.submit([encoder.finish()]);
    }
}

/// Rewrites the uniforms of materials whose colour, alpha or texture transform the pose
/// changed since the last frame (and only those).
fn update_material_uniforms(queue: &wgpu::Queue, scene: &Scene, pose: &Pose, materials: &mut [GpuMaterial]) {
    for (index, gpu) in materials.iter_mut().enumerate().take(scene.materials.len()) {
        let color =
            pose.material_colors.get(index).copied().or_else(|| scene.materials.get(index).map(|m| m.base_color));
        let uv_rows =
            pose.uv_transforms.get(index).map_or(MaterialUniforms::IDENTITY_UV, |m| MaterialUniforms::uv_rows_of(*m));
        let mut wanted = gpu.uniforms;
        if let Some(color) = color {
            wanted.base_color = color.to_array();
        }
        wanted.uv_rows = uv_rows;
        if wanted != gpu.uniforms {
            queue.write_buffer(&gpu.buffer, 0, bytemuck::bytes_of(&wanted));
            gpu.uniforms = wanted;
        }
    }
}

fn frame_uniforms(view: &ViewParams, clip_from_world: Mat4, view_from_world: Mat4) -> FrameUniforms {
    let eye = view.camera.eye();
    let towards_eye = view.camera.eye_direction();
    let right = Vec3::Y.cross(towards_eye).try_normalize().unwrap_or(Vec3::X);
    // A key light above and a little left of the camera, so silhouettes read at any angle.
    let light = (towards_eye * 0.6 + Vec3::Y * 0.75 - right * 0.35).normalize_or(Vec3::Y);
    const AMBIENT: f32 = 0.38;
    FrameUniforms {
        clip_from_world: clip_from_world.to_cols_array_2d(),
        eye_world: eye.extend(1.0).to_array(),
        light_dir_world: light.extend(AMBIENT).to_array(),
        light_color: [0.72, 0.70, 0.66, 1.0],
        wire_color: overlays::colors::WIRE,
        highlight_color: overlays::colors::HIGHLIGHT,
        flag_tint: [1.0, 0.25, 0.02, 0.7],
        options: [u32::from(view.textures), u32::from(view.lit), view.flag_bits.unwrap_or(0), 0],
        // Lines are pulled about 0.3% of their distance towards the eye.
        line_params: [0.003, 0.0, 0.0, 0.0],
        view_from_world: view_from_world.to_cols_array_2d(),
    }
}

/// A mesh is drawn when the node placing it is visible. Hiding does not reach a node's children
/// ([`crate::scene::anim::Pose::visible`]; TPW: "a hidden node does not hide what hangs off it").
fn mesh_visible(_scene: &Scene, pose: &Pose, mesh: &Mesh) -> bool {
    mesh.node.is_none_or(|node| pose.visible.get(node).copied().unwrap_or(true))
}

/// Marks `selected` and its descendants (all false when nothing is selected).
fn mark_subtree(scene: &Scene, selected: Option<usize>, out: &mut Vec<bool>) {
    out.clear();
    out.resize(scene.nodes.len(), false);
    let Some(root) = selected else { return };
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        match out.get_mut(node) {
            // Already marked: a malformed tree with a cycle stops here.
            Some(true) | None => continue,
            Some(mark) => *mark = true,
        }
        if let Some(n) = scene.nodes.get(node) {
            stack.extend(n.children.iter().copied());
        }
    }
}

/// Each skeleton's bones as lines between joint origins, placed by the first mesh it skins.
fn build_skeleton_lines(scene: &Scene, pose: &Pose, view: &ViewParams, out: &mut Vec<LineVertex>) {
    let mark = view.camera.distance.abs().max(1e-6) * 0.01;
    for (index, skeleton) in scene.skeletons.iter().enumerate() {
        let joints = pose.joints.get(index).map(Vec::as_slice).unwrap_or(&[]);
        let world = scene
            .meshes
            .iter()
            .position(|m| m.skin.as_ref().is_some_and(|s| s.skeleton == index))
            .map_or(Mat4::IDENTITY, |m| pose.mesh_world(scene, m));
        let parents: Vec<Option<usize>> = skeleton.joints.iter().map(|j| j.parent).collect();
        let pivots: Vec<Vec3> = skeleton.joints.iter().map(|j| j.pivot).collect();
        overlays::skeleton(&world, joints, &pivots, &parents, mark, out);
    }
}

/// Per-node boxes and axes, vertex normals, and the selected subtree's boxes and axes, in
/// world space. Axes and normals are sized by the camera distance, so they read the same
/// at any zoom and on models of any scale.
fn build_overlay_lines(scene: &Scene, pose: &Pose, view: &ViewParams, selected: &[bool], out: &mut Vec<LineVertex>) {
    let o = view.overlays;
    let any_selected = selected.iter().any(|&s| s);
    let is_selected = |node: Option<usize>| node.is_some_and(|n| selected.get(n).copied().unwrap_or(false));
    let gizmo = view.camera.distance.abs().max(1e-6);
    if o.bounds || o.normals || any_selected {
        for (mesh_index, mesh) in scene.meshes.iter().enumerate() {
            if !mesh_visible(scene, pose, mesh) {
                continue;
            }
            let world = pose.mesh_world(scene, mesh_index);
            let animated = pose.positions.get(mesh_index).and_then(Option::as_ref);
            let highlighted = is_selected(mesh.node);
            if o.bounds || highlighted {
                let mesh_bounds = match animated {
                    Some(positions) => crate::scene::Aabb::from_points(positions),
                    None => mesh.bounds,
                };
                let color = if highlighted { overlays::colors::HIGHLIGHT } else { overlays::colors::BOUNDS };
                overlays::oriented_box(&world, &mesh_bounds, color, out);
            }
            if o.normals {
                let positions = pose.mesh_positions(scene, mesh_index);
                let normals = pose.mesh_normals(scene, mesh_index);
                overlays::normals(&world, &positions, &normals, gizmo * 0.02, out);
            }
        }
    }
    if o.axes || any_selected {
        for (node, world) in pose.world.iter().enumerate() {
            // The selected node itself gets larger axes; its descendants their usual ones.
            let length = if view.selected_node == Some(node) {
                gizmo * 0.12
            } else if o.axes {
                gizmo * 0.05
            } else {
                continue;
            };
            overlays::axes(world, length, out);
        }
    }
}
