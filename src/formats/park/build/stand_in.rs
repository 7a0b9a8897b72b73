//! Labelled boxes for placed items a park view cannot show (a missing WAD, a track ride or
//! coaster whose track is not in the public record): a box over the item's footprint, authored
//! from the footprint's corner like an item model and placed by the same rule, named with the
//! reason so the panel, `info` and exports say what stands there.

use glam::{Mat4, Vec2, Vec3, Vec4};

use super::{item_facts, item_label};
use crate::formats::park::assemble::PlacedItem;
use crate::formats::park::ground::Ground;
use crate::formats::park::placement::CELL_SIZE;
use crate::scene::{Aabb, Material, Mesh, Node, NodeKind, Part, Scene, Submesh};

/// How tall a stand-in box is, in world units (half a cell: it reads as a marker, not a
/// building).
pub const BOX_HEIGHT: f32 = 5.0;
/// The stand-ins' colour: a warning orange nothing in a park is painted.
const BOX_COLOUR: Vec4 = Vec4::new(1.0, 0.45, 0.05, 1.0);

/// Adds a box for `item` with `reason` as its label; items not on the map get a part with no
/// box (listed, not drawn).
pub fn place_box(scene: &mut Scene, item: &PlacedItem, reason: &str, ground: &Ground) {
    let label = item_label(item);
    let root = scene.nodes.len();
    let world = super::on_ground(item, ground);
    scene.nodes.push(Node::new(format!("{label} (stand-in)"), NodeKind::Transform, world));
    let first_mesh = scene.meshes.len();
    let first_material = scene.materials.len();
    if item.cell.is_some() {
        let [across, down] = item.footprint.unwrap_or([1, 1]).map(|n| n.clamp(1, 128) as f32);
        let size = Vec3::new(across * CELL_SIZE, BOX_HEIGHT, down * CELL_SIZE);
        let node = scene.nodes.len();
        let mut box_node = Node::new(format!("{label}: {reason}"), NodeKind::Mesh, Mat4::IDENTITY);
        box_node.parent = Some(root);
        box_node.mesh = Some(first_mesh);
        scene.nodes.push(box_node);
        if let Some(r) = scene.nodes.get_mut(root) {
            r.children.push(node);
        }
        let mut material = Material::new(format!("stand-in: {reason}"));
        material.base_color = BOX_COLOUR;
        material.unlit = false;
        scene.materials.push(material);
        scene.meshes.push(box_mesh(format!("{label}: {reason}"), node, size, first_material));
    }
    let mut facts = item_facts(item);
    facts.push(("shown as".into(), "a box".into()));
    scene.parts.push(Part {
        name: label,
        group: super::group_of(item.item).into(),
        root,
        nodes: root + 1..scene.nodes.len(),
        meshes: first_mesh..scene.meshes.len(),
        materials: first_material..scene.materials.len(),
        facts,
        stand_in: Some(reason.to_string()),
    });
}

/// A box from the origin to `size` with a face per side (flat normals, outward, counter-
/// clockwise from outside).
fn box_mesh(name: String, node: usize, size: Vec3, material: usize) -> Mesh {
    // Each face: its normal and two edge directions (u × v = normal) from its first corner.
    let faces: [(Vec3, Vec3, Vec3, Vec3); 6] = [
        (Vec3::X, Vec3::new(size.x, 0.0, size.z), Vec3::new(0.0, 0.0, -size.z), Vec3::new(0.0, size.y, 0.0)),
        (Vec3::NEG_X, Vec3::ZERO, Vec3::new(0.0, 0.0, size.z), Vec3::new(0.0, size.y, 0.0)),
        (Vec3::Y, Vec3::new(0.0, size.y, size.z), Vec3::new(size.x, 0.0, 0.0), Vec3::new(0.0, 0.0, -size.z)),
        (Vec3::NEG_Y, Vec3::ZERO, Vec3::new(size.x, 0.0, 0.0), Vec3::new(0.0, 0.0, size.z)),
        (Vec3::Z, Vec3::new(0.0, 0.0, size.z), Vec3::new(size.x, 0.0, 0.0), Vec3::new(0.0, size.y, 0.0)),
        (Vec3::NEG_Z, Vec3::new(size.x, 0.0, 0.0), Vec3::new(-size.x, 0.0, 0.0), Vec3::new(0.0, size.y, 0.0)),
    ];
    let mut mesh = Mesh { name, node: Some(node), ..Mesh::default() };
    for (normal, corner, u, v) in faces {
        let base = mesh.source_positions.len() as u32;
        for (a, b) in [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)] {
            mesh.source_positions.push(corner + u * a + v * b);
            mesh.uvs.push(Vec2::new(a, b));
            mesh.normals.push(normal);
        }
        mesh.triangles.push([base, base + 1, base + 2]);
        mesh.triangles.push([base, base + 2, base + 3]);
    }
    let count = mesh.source_positions.len() as u32;
    mesh.vertex_source = (0..count).collect();
    mesh.bounds = Aabb { min: Vec3::ZERO, max: size };
    mesh.submeshes.push(Submesh {
        material: Some(material),
        first_triangle: 0,
        triangle_count: mesh.triangles.len() as u32,
        vertex_start: 0,
        vertex_end: count.saturating_sub(1),
    });
    mesh
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::compute_normals;

    #[test]
    fn the_box_faces_outward() {
        let mesh = box_mesh("b".into(), 0, Vec3::new(20.0, 5.0, 10.0), 0);
        let positions = mesh.render_positions();
        let computed = compute_normals(&positions, &mesh.triangles);
        for (stored, computed) in mesh.normals.iter().zip(&computed) {
            assert!(stored.dot(*computed) > 0.99, "{stored} against {computed}");
        }
        assert_eq!(mesh.bounds.max, Vec3::new(20.0, 5.0, 10.0));
        let min = positions.iter().fold(Vec3::splat(f32::MAX), |m, p| m.min(*p));
        let max = positions.iter().fold(Vec3::splat(f32::MIN), |m, p| m.max(*p));
        assert_eq!((min, max), (Vec3::ZERO, Vec3::new(20.0, 5.0, 10.0)));
    }
}
