//! Queue pieces (map tile set 2): the models `quedead`, `questra`, `quebnd2`, `quebnd1`,
//! `queend`, `quebin1`, `quebin2` of the theme's `queue.wad`, each opened once (with its
//! textures) and copied under one node per queue cell. A piece is placed as an item is
//! (`placement::world_from_item`: the footprint corner at the model origin, the root's own
//! translation replaced) at the cell's ground height, turned by 360 − the stored angle (tct.md:
//! the queue's call site places a piece at `0x168 - angle`, 360 folded to 0).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use glam::{Mat4, Vec4};

use super::Heights;
use crate::formats::park::QueueCell;
use crate::formats::park::placement::world_from_item;
use crate::scene::{Node, NodeKind, Scene};

/// A queue piece as decoded, once.
#[derive(Clone)]
pub struct QueuePiece {
    pub name: &'static str,
    pub scene: Arc<Scene>,
    /// Offset of the piece's materials and images among the ground scene's (copied in once).
    material_base: usize,
}

/// One queue cell's piece as placed.
#[derive(Debug, Clone, PartialEq)]
pub struct QueuePlacement {
    pub cell: [u8; 2],
    /// Index into [`super::Ground::queue_pieces`].
    pub piece: usize,
    /// The turn applied: 360 − the stored angle, 360 folded to 0.
    pub turn_degrees: u32,
    pub world: Mat4,
    /// The node in the ground scene that places the piece's copy.
    pub node: usize,
}

/// The turn a queue piece is drawn at for a stored angle.
pub fn queue_turn(angle_degrees: u32) -> u32 {
    (360 - angle_degrees % 360) % 360
}

/// The world matrix of a queue piece on `cell` at `height`, for a stored angle.
pub fn queue_world(cell: [u8; 2], angle_degrees: u32, height: f32) -> Mat4 {
    world_from_item(cell, queue_turn(angle_degrees), height)
}

/// Opens every piece the queue cells name from `queue_wad` (once each) and places a copy on each
/// cell. Returns the pieces and placements; a missing piece is one warning and its cells stay bare.
pub(super) fn add_queues(
    scene: &mut Scene,
    queues: &[QueueCell],
    queue_wad: &Path,
    heights: &Heights,
    warnings: &mut Vec<String>,
) -> (Vec<QueuePiece>, Vec<QueuePlacement>) {
    let mut pieces: Vec<QueuePiece> = Vec::new();
    let mut by_name: BTreeMap<&'static str, Option<usize>> = BTreeMap::new();
    let mut placements = Vec::new();
    for queue in queues {
        let Some(name) = queue.piece else {
            warnings.push(format!("queue cell {:?}: tile index {} names no piece (0 to 7)", queue.cell, queue.index));
            continue;
        };
        let piece = *by_name.entry(name).or_insert_with(|| {
            let opened = open_piece(queue_wad, name, warnings)?;
            let material_base = scene.materials.len();
            copy_materials(scene, &opened);
            pieces.push(QueuePiece { name, scene: Arc::new(opened), material_base });
            Some(pieces.len() - 1)
        });
        let Some(piece) = piece.and_then(|p| pieces.get(p).map(|piece| (p, piece))) else { continue };
        let world = queue_world(queue.cell, queue.angle, heights.middle(queue.cell));
        let node = place(scene, piece.1, queue.cell, world);
        placements.push(QueuePlacement {
            cell: queue.cell,
            piece: piece.0,
            turn_degrees: queue_turn(queue.angle),
            world,
            node,
        });
    }
    (pieces, placements)
}

fn open_piece(queue_wad: &Path, name: &str, warnings: &mut Vec<String>) -> Option<Scene> {
    let path = crate::formats::vfs::join_member(queue_wad, &format!("{name}.md2"));
    if !crate::formats::vfs::is_file(&path) {
        warnings.push(format!("queue piece {name}.md2 is not in {}: its cells are left bare", queue_wad.display()));
        return None;
    }
    match crate::formats::open(&path) {
        Ok(scene) => {
            warnings.extend(scene.warnings.iter().map(|w| format!("queue piece {name}: {w}")));
            Some(scene)
        }
        Err(e) => {
            warnings.push(format!("queue piece {name}.md2 did not open ({}): its cells are left bare", e.reason()));
            None
        }
    }
}

/// Appends the piece's images and materials to the ground scene, image indices moved along.
fn copy_materials(scene: &mut Scene, piece: &Scene) {
    let image_base = scene.images.len();
    scene.images.extend(piece.images.iter().cloned());
    for material in &piece.materials {
        let mut material = material.clone();
        material.image = material.image.map(|i| i + image_base);
        if let Some(layer) = material.layer2.as_mut() {
            layer.image = layer.image.map(|i| i + image_base);
        }
        if let Some(cycle) = material.image_cycle.as_mut() {
            cycle.images.iter_mut().for_each(|i| *i += image_base);
        }
        scene.materials.push(material);
    }
}

/// Copies the piece's nodes and meshes under a new node placed at `world`; the piece's roots lose
/// their own translation (the placement rule replaces it). Returns the new node.
fn place(scene: &mut Scene, piece: &QueuePiece, cell: [u8; 2], world: Mat4) -> usize {
    let holder = scene.nodes.len();
    scene.nodes.push(Node::new(format!("queue {} ({}, {})", piece.name, cell[0], cell[1]), NodeKind::Transform, world));
    let (node_base, mesh_base) = (scene.nodes.len(), scene.meshes.len());
    for node in &piece.scene.nodes {
        let mut node = node.clone();
        node.children.iter_mut().for_each(|c| *c += node_base);
        node.mesh = node.mesh.map(|m| m + mesh_base);
        node.joint = None;
        if let Some(anchor) = node.anchor.as_mut() {
            anchor.mesh += mesh_base;
        }
        match node.parent {
            Some(p) => node.parent = Some(p + node_base),
            None => {
                node.parent = Some(holder);
                node.local.w_axis = Vec4::W;
            }
        }
        scene.nodes.push(node);
    }
    let roots: Vec<usize> =
        piece.scene.nodes.iter().enumerate().filter(|(_, n)| n.parent.is_none()).map(|(i, _)| i + node_base).collect();
    if let Some(holder) = scene.nodes.get_mut(holder) {
        holder.children = roots;
    }
    for mesh in &piece.scene.meshes {
        let mut mesh = mesh.clone();
        mesh.node = mesh.node.map(|n| n + node_base);
        mesh.skin = None;
        for submesh in &mut mesh.submeshes {
            submesh.material = submesh.material.map(|m| m + piece.material_base);
        }
        scene.meshes.push(mesh);
    }
    holder
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    #[test]
    fn pieces_turn_by_360_less_the_angle() {
        assert_eq!([0, 90, 180, 270, 360].map(queue_turn), [0, 270, 180, 90, 0]);
        // Cell (10, 20) at height 2: its middle is (105, 2, 205); the model's corner (0, 0, 0)
        // goes to the middle plus R·(−5, 0, −5), and the model's +X edge end (10, 0, 0) follows.
        // R for turn t takes (x, y, z) to (x·cos t + z·sin t, y, z·cos t − x·sin t).
        let cases = [
            // stored 0 → turn 0: corner (100, 2, 200), +X end (110, 2, 200).
            (0, Vec3::new(100.0, 2.0, 200.0), Vec3::new(110.0, 2.0, 200.0)),
            // stored 90 → turn 270 (sin −1): R(−5,0,−5) = (5, 0, −5) → corner (110, 2, 200);
            // R(10,0,0) = (0, 0, 10) → (110, 2, 210).
            (90, Vec3::new(110.0, 2.0, 200.0), Vec3::new(110.0, 2.0, 210.0)),
            // stored 180 → turn 180: corner (110, 2, 210), +X end (100, 2, 210).
            (180, Vec3::new(110.0, 2.0, 210.0), Vec3::new(100.0, 2.0, 210.0)),
            // stored 270 → turn 90 (sin 1): R(−5,0,−5) = (−5, 0, 5) → corner (100, 2, 210);
            // R(10,0,0) = (0, 0, −10) → (100, 2, 200).
            (270, Vec3::new(100.0, 2.0, 210.0), Vec3::new(100.0, 2.0, 200.0)),
        ];
        for (angle, corner, x_end) in cases {
            let world = queue_world([10, 20], angle, 2.0);
            assert!(world.transform_point3(Vec3::ZERO).abs_diff_eq(corner, 1e-5), "{angle}: {world:?}");
            assert!(world.transform_point3(Vec3::new(10.0, 0.0, 0.0)).abs_diff_eq(x_end, 1e-5), "{angle}");
        }
    }
}
