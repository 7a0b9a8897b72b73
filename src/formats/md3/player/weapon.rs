//! A weapon held by an assembled player: any model hung on upper's `tag_weapon` as the game
//! holds it (`CG_AddPlayerWeapon` places the gun with `CG_PositionEntityOnTag`: the gun's
//! axes are the tag's times the torso's, its own ignored), so it follows the tag through the
//! torso's clip.

use glam::Mat4;

use super::{PART_NAMES, append_part_nodes};
use crate::scene::{Node, NodeKind, Part, Scene};

/// The group the weapon's part is listed under.
pub const WEAPON_GROUP: &str = "weapon";

/// Hangs `weapon` on upper's `tag_weapon` in `player` (a scene from [`super::open`]) as one
/// more part; returns its index in [`Scene::parts`]. The weapon stands in its rest pose (its
/// own clips are dropped: the player's layers play). An earlier weapon is not removed.
pub fn attach_weapon(player: &mut Scene, weapon: Scene) -> Result<usize, String> {
    let upper_name = PART_NAMES.get(1).copied().unwrap_or("upper");
    let upper = player.parts.iter().find(|p| p.name == upper_name).ok_or("not a Quake 3 player: no upper part")?;
    let tag = upper
        .nodes
        .clone()
        .find(|&n| {
            player.nodes.get(n).is_some_and(|n| n.kind == NodeKind::Tag && n.name.eq_ignore_ascii_case("tag_weapon"))
        })
        .ok_or("upper.md3 has no tag_weapon")?;
    let root = player.nodes.len();
    let name = weapon
        .path
        .as_deref()
        .and_then(|p| p.file_name())
        .map_or("weapon".into(), |n| n.to_string_lossy().into_owned());
    let mut root_node = Node::new(name.clone(), NodeKind::Transform, Mat4::IDENTITY);
    root_node.parent = Some(tag);
    player.nodes.push(root_node);
    if let Some(t) = player.nodes.get_mut(tag) {
        t.children.push(root);
    }
    let at = append_part_nodes(player, &weapon, root);
    player.warnings.extend(weapon.warnings.iter().map(|w| format!("{name}: {w}")));
    player.parts.push(Part {
        name,
        group: WEAPON_GROUP.into(),
        root,
        nodes: at.nodes..player.nodes.len(),
        meshes: at.meshes..player.meshes.len(),
        materials: at.materials..player.materials.len(),
        facts: vec![("on".into(), "upper tag_weapon".into())],
        stand_in: None,
    });
    Ok(player.parts.len() - 1)
}
