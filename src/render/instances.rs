//! Grouping a frame's visible meshes into instanced draws. Each visible mesh is a
//! [`Placement`] drawing from some GPU buffers ([`Geometry`]); placements that draw from the
//! same buffers with the same winding sit side by side in the instance buffer, so each of
//! their opaque and cut-out submeshes is one instanced draw. Blended submeshes stay one draw
//! per placement, sorted back to front by their own centres (copies of a see-through item that
//! overlap must blend in order, which one instanced draw cannot promise).

use glam::{Mat4, Vec3};

use super::DrawPass;
use super::pipelines::PipelineKey;
use crate::scene::anim::Pose;

/// Which GPU buffers a placement draws from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) enum Geometry {
    /// The buffers uploaded with the scene for this mesh: its rest geometry, shared with every
    /// unmoved copy of it (or the mesh's only buffers, rewritten while it animates, when no
    /// other mesh shares them).
    Uploaded(u32),
    /// A shared mesh's own buffers, holding the vertices or UVs its pose moves.
    Moved(u32),
}

/// Whether the pose moves `mesh`'s vertices, normals or UVs (so it cannot draw from buffers
/// shared with other placements).
pub(super) fn pose_moves(pose: &Pose, mesh: usize) -> bool {
    fn some<T>(list: &[Option<T>], mesh: usize) -> bool {
        list.get(mesh).is_some_and(Option::is_some)
    }
    some(&pose.positions, mesh) || some(&pose.uvs, mesh) || some(&pose.normals, mesh)
}

/// The buffers `mesh` draws from this frame: its source's while its pose leaves its vertices
/// alone, its own otherwise. `sources` and `shared` are per scene mesh (see `GpuScene`).
pub(super) fn geometry_of(sources: &[u32], shared: &[bool], pose: &Pose, mesh: usize) -> Geometry {
    if !shared.get(mesh).copied().unwrap_or(false) {
        return Geometry::Uploaded(mesh as u32);
    }
    if pose_moves(pose, mesh) {
        Geometry::Moved(mesh as u32)
    } else {
        Geometry::Uploaded(sources.get(mesh).copied().unwrap_or(mesh as u32))
    }
}

/// One visible mesh this frame.
#[derive(Debug, Clone, Copy)]
pub(super) struct Placement {
    pub(super) mesh: u32,
    pub(super) geometry: Geometry,
    /// The world matrix mirrors (negative determinant): drawn with the other winding.
    pub(super) mirrored: bool,
    pub(super) world: Mat4,
}

/// Puts placements that can share a draw next to each other; a scene without copies keeps its
/// mesh order (and so its draw order).
pub(super) fn group(placements: &mut [Placement]) {
    placements.sort_unstable_by_key(|p| (p.geometry, p.mirrored, p.mesh));
}

/// One instanced draw of a submesh: instances `first..first + count` of the instance buffer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct DrawItem {
    pub(super) geometry: Geometry,
    pub(super) submesh: u32,
    pub(super) first: u32,
    pub(super) count: u32,
    pub(super) material: u32,
    pub(super) key: PipelineKey,
}

/// Where a blended surface falls in the back-to-front order: by priority plane (M2; 0
/// elsewhere), then by depth, then by material layer, so a layer drawn over its base on the
/// same triangles comes after it.
#[derive(Debug, Clone, Copy)]
pub(super) struct BlendOrder {
    plane: i32,
    /// View-space z of the surface's centre; view space looks down -Z, so the most negative is
    /// the farthest and draws first.
    depth: f32,
    order: i32,
}

impl BlendOrder {
    pub(super) fn new(draw_order: i32, depth: f32) -> Self {
        Self { plane: draw_order.div_euclid(1 << 16), depth, order: draw_order }
    }

    pub(super) fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.plane.cmp(&other.plane).then(self.depth.total_cmp(&other.depth)).then(self.order.cmp(&other.order))
    }
}

/// One submesh of a geometry as this frame draws it (material resolved, alpha-zero ones left
/// out), for [`plan_surfaces`].
#[derive(Debug, Clone, Copy)]
pub(super) struct SurfaceDraw {
    pub(super) submesh: u32,
    pub(super) material: u32,
    pub(super) pass: DrawPass,
    pub(super) key: PipelineKey,
    /// [`crate::scene::Material::draw_order`].
    pub(super) draw_order: i32,
    /// Centre of the submesh's rest vertices in mesh space.
    pub(super) center: Vec3,
}

/// The surface draw lists of one frame, kept between frames.
#[derive(Default)]
pub(super) struct SurfaceLists {
    pub(super) opaque: Vec<DrawItem>,
    pub(super) cutout: Vec<DrawItem>,
    pub(super) blended: Vec<(BlendOrder, DrawItem)>,
    scratch: Vec<SurfaceDraw>,
}

impl SurfaceLists {
    pub(super) fn clear(&mut self) {
        self.opaque.clear();
        self.cutout.clear();
        self.blended.clear();
    }

    /// Fills the lists from grouped placements (placement `i` is instance `i`).
    /// `surfaces_of(geometry, mirrored, out)` lists a geometry's drawn submeshes.
    pub(super) fn plan(
        &mut self,
        placements: &[Placement],
        view_from_world: Mat4,
        mut surfaces_of: impl FnMut(Geometry, bool, &mut Vec<SurfaceDraw>),
    ) {
        let mut first = 0u32;
        for run in placements.chunk_by(|a, b| a.geometry == b.geometry && a.mirrored == b.mirrored) {
            let Some(head) = run.first() else { continue };
            let count = run.len() as u32;
            self.scratch.clear();
            surfaces_of(head.geometry, head.mirrored, &mut self.scratch);
            for surface in &self.scratch {
                let item = DrawItem {
                    geometry: head.geometry,
                    submesh: surface.submesh,
                    first,
                    count,
                    material: surface.material,
                    key: surface.key,
                };
                match surface.pass {
                    DrawPass::Opaque => self.opaque.push(item),
                    DrawPass::CutOut => self.cutout.push(item),
                    DrawPass::Blend(_) => {
                        for (offset, placement) in (0u32..).zip(run) {
                            let center =
                                view_from_world.transform_point3(placement.world.transform_point3(surface.center));
                            let single = DrawItem { first: first + offset, count: 1, ..item };
                            self.blended.push((BlendOrder::new(surface.draw_order, center.z), single));
                        }
                    }
                }
            }
            first += count;
        }
        self.blended.sort_by(|a, b| a.0.cmp(&b.0));
        // Group opaque and cut-out draws by pipeline to save state changes.
        let plain = PipelineKey::Surface { pass: DrawPass::Opaque, cull: true, mirrored: false, depth_write: true };
        self.opaque.sort_by_key(|i| (i.key == plain, i.material));
        self.cutout.sort_by_key(|i| i.material);
    }

    /// Every surface draw in the order they are recorded.
    pub(super) fn in_order(&self) -> impl Iterator<Item = &DrawItem> {
        self.opaque.iter().chain(&self.cutout).chain(self.blended.iter().map(|(_, item)| item))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::compute_normals;
    use crate::scene::{FormatKind, Material, Mesh, Node, NodeKind, Scene, SceneKind, Submesh};

    /// A model of one triangle on one node, placed three times in one scene (the second and
    /// third placements copies of the first), each placement moved along x.
    fn three_copies() -> Scene {
        let mut model = Scene::new(FormatKind::TpwMd2, SceneKind::Mesh);
        let mut node = Node::new("item", NodeKind::Mesh, Mat4::IDENTITY);
        node.mesh = Some(0);
        model.nodes.push(node);
        let mut mesh = Mesh::default();
        mesh.name = "tri".into();
        mesh.node = Some(0);
        mesh.source_positions = vec![Vec3::ZERO, Vec3::X, Vec3::Y];
        mesh.vertex_source = vec![0, 1, 2];
        mesh.uvs = vec![glam::Vec2::ZERO; 3];
        mesh.triangles = vec![[0, 1, 2]];
        mesh.normals = compute_normals(&mesh.source_positions, &mesh.triangles);
        mesh.submeshes.push(Submesh {
            material: Some(0),
            first_triangle: 0,
            triangle_count: 1,
            vertex_start: 0,
            vertex_end: 3,
        });
        mesh.bounds = crate::scene::Aabb::from_points(&mesh.source_positions);
        model.meshes.push(mesh);
        model.materials.push(Material::new("m"));
        let mut scene = Scene::new(FormatKind::TpwMd2, SceneKind::Mesh);
        let first = scene.append_model(&model, None);
        for k in 1..3 {
            let at = scene.append_model(&model, Some(&first));
            scene.nodes[at.nodes].local = Mat4::from_translation(Vec3::X * 5.0 * k as f32);
        }
        scene
    }

    fn placements(scene: &Scene, pose: &Pose) -> Vec<Placement> {
        let sources: Vec<u32> = (0..scene.meshes.len()).map(|m| scene.geometry_source(m) as u32).collect();
        let mut shared = vec![false; sources.len()];
        for (m, &s) in sources.iter().enumerate() {
            if s as usize != m {
                shared[m] = true;
                shared[s as usize] = true;
            }
        }
        let mut out: Vec<Placement> = (0..scene.meshes.len())
            .map(|m| Placement {
                mesh: m as u32,
                geometry: geometry_of(&sources, &shared, pose, m),
                mirrored: false,
                world: pose.mesh_world(scene, m),
            })
            .collect();
        group(&mut out);
        out
    }

    fn one_surface(pass: DrawPass) -> impl FnMut(Geometry, bool, &mut Vec<SurfaceDraw>) {
        move |_, mirrored, out: &mut Vec<SurfaceDraw>| {
            out.push(SurfaceDraw {
                submesh: 0,
                material: 0,
                pass,
                key: PipelineKey::Surface { pass, cull: true, mirrored, depth_write: true },
                draw_order: 0,
                center: Vec3::ZERO,
            })
        }
    }

    #[test]
    fn three_unmoved_copies_are_one_instanced_draw_of_three() {
        let scene = three_copies();
        assert_eq!(scene.mesh_copies, vec![None, Some(0), Some(0)]);
        let pose = Pose::at(&scene, None, 0.0);
        let placed = placements(&scene, &pose);
        assert!(placed.iter().all(|p| p.geometry == Geometry::Uploaded(0)), "{placed:?}");
        let mut lists = SurfaceLists::default();
        lists.plan(&placed, Mat4::IDENTITY, one_surface(DrawPass::Opaque));
        assert_eq!(lists.opaque.len(), 1, "{:?}", lists.opaque);
        let draw = lists.opaque[0];
        assert_eq!((draw.geometry, draw.first, draw.count), (Geometry::Uploaded(0), 0, 3));
        // The instances are the three placements, each with its own matrix.
        let xs: Vec<f32> = placed.iter().map(|p| p.world.w_axis.x).collect();
        assert_eq!(xs, vec![0.0, 5.0, 10.0]);
    }

    #[test]
    fn a_copy_whose_pose_moves_its_vertices_draws_from_its_own_buffers() {
        let scene = three_copies();
        let mut pose = Pose::at(&scene, None, 0.0);
        pose.positions[2] = Some(vec![Vec3::ZERO, Vec3::Z, Vec3::Y]);
        let placed = placements(&scene, &pose);
        let mut lists = SurfaceLists::default();
        lists.plan(&placed, Mat4::IDENTITY, one_surface(DrawPass::CutOut));
        let draws: Vec<(Geometry, u32, u32)> = lists.cutout.iter().map(|d| (d.geometry, d.first, d.count)).collect();
        assert_eq!(draws, vec![(Geometry::Uploaded(0), 0, 2), (Geometry::Moved(2), 2, 1)]);
    }

    #[test]
    fn blended_copies_are_drawn_one_by_one_back_to_front() {
        let scene = three_copies();
        let pose = Pose::at(&scene, None, 0.0);
        let placed = placements(&scene, &pose);
        let mut lists = SurfaceLists::default();
        // Looking down -X from beyond the copies: the copy at x = 10 is nearest, drawn last.
        let turn = |angle: f32, eye: Vec3| Mat4::from_rotation_y(angle) * Mat4::from_translation(-eye);
        let view = turn(-std::f32::consts::FRAC_PI_2, Vec3::new(20.0, 0.0, 0.0));
        lists.plan(&placed, view, one_surface(DrawPass::Blend(super::super::BlendKind::Alpha)));
        let order: Vec<(u32, u32)> = lists.blended.iter().map(|(_, d)| (d.first, d.count)).collect();
        assert_eq!(order, vec![(0, 1), (1, 1), (2, 1)]);
        let view_back = turn(std::f32::consts::FRAC_PI_2, Vec3::new(-20.0, 0.0, 0.0));
        lists.clear();
        lists.plan(&placed, view_back, one_surface(DrawPass::Blend(super::super::BlendKind::Alpha)));
        let order: Vec<u32> = lists.blended.iter().map(|(_, d)| d.first).collect();
        assert_eq!(order, vec![2, 1, 0]);
    }
}
