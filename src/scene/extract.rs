//! One part of an assembled scene taken out as a scene of its own (a park's item for a contact
//! sheet cell): its placement node and nodes, meshes, materials, the images those draw with,
//! and the layers that play on it with their clips. The inverse of `merge` for one part.

use std::collections::BTreeMap;

use super::merge::IndexKind;
use super::{Layer, Part, Scene};

impl Scene {
    /// Part `part` alone, placed as it stands in the whole; `None` for a part that is not
    /// there or whose ranges do not hold together (its root just before its nodes, as
    /// [`Scene::append_model`]'s callers lay them out).
    pub fn part_alone(&self, part: usize) -> Option<Scene> {
        let p = self.parts.get(part)?;
        let first_node = p.root.min(p.nodes.start);
        let nodes = self.nodes.get(first_node..p.nodes.end.max(p.root + 1))?;
        let meshes = self.meshes.get(p.meshes.clone())?;
        let materials = self.materials.get(p.materials.clone())?;
        let in_nodes = |n: usize| (first_node..first_node + nodes.len()).contains(&n);

        let mut images: BTreeMap<usize, usize> = BTreeMap::new();
        let mut image_index = |i: usize| {
            let next = images.len();
            *images.entry(i).or_insert(next)
        };
        let mut out = Scene::new(self.format, self.kind);
        out.path = self.path.clone();
        out.version = self.version;
        out.materials = materials
            .iter()
            .map(|m| {
                let mut m = m.clone();
                m.image = m.image.map(&mut image_index);
                if let Some(layer) = &mut m.layer2 {
                    layer.image = layer.image.map(&mut image_index);
                }
                if let Some(cycle) = &mut m.image_cycle {
                    cycle.images.iter_mut().for_each(|i| *i = image_index(*i));
                }
                m
            })
            .collect();
        let mut by_new: Vec<(usize, usize)> = images.iter().map(|(&old, &new)| (new, old)).collect();
        by_new.sort_unstable();
        out.images = by_new.iter().filter_map(|&(_, old)| self.images.get(old).cloned()).collect();
        out.skeletons = self.skeletons.clone();

        let node = |n: usize| n - first_node;
        let mesh = |m: usize| m - p.meshes.start;
        let material = |m: usize| m.saturating_sub(p.materials.start);
        out.nodes = nodes
            .iter()
            .map(|n| {
                let mut n = n.clone();
                n.parent = n.parent.filter(|&q| in_nodes(q)).map(node);
                n.children = n.children.iter().copied().filter(|&c| in_nodes(c)).map(node).collect();
                n.mesh = n.mesh.filter(|m| p.meshes.contains(m)).map(mesh);
                if let Some(anchor) = &n.anchor
                    && !p.meshes.contains(&anchor.mesh)
                {
                    n.anchor = None;
                }
                if let Some(anchor) = &mut n.anchor {
                    anchor.mesh = mesh(anchor.mesh);
                }
                n
            })
            .collect();
        out.meshes = meshes
            .iter()
            .map(|m| {
                let mut m = m.clone();
                m.node = m.node.filter(|&n| in_nodes(n)).map(node);
                m.submeshes.iter_mut().for_each(|s| s.material = s.material.map(material));
                m
            })
            .collect();
        out.hidden_nodes = self.hidden_nodes.iter().copied().filter(|&n| in_nodes(n)).map(node).collect();

        let reindex = |kind: IndexKind, i: usize| match kind {
            IndexKind::Node => node(i),
            IndexKind::Mesh => mesh(i),
            IndexKind::Material => material(i),
            IndexKind::Skeleton => i,
        };
        for layer in self.layers.iter().filter(|l| l.part == Some(part)) {
            let Some(clip) = layer.clip.and_then(|c| self.clips.get(c)) else { continue };
            let mut copy = clip.clone();
            copy.channels = clip.channels.iter().map(|c| c.reindexed(&reindex)).collect();
            out.layers.push(Layer { clip: Some(out.clips.len()), choices: Vec::new(), part: Some(0), ..layer.clone() });
            out.clips.push(copy);
        }
        out.parts.push(Part {
            nodes: node(p.nodes.start)..node(p.nodes.end),
            meshes: 0..meshes.len(),
            materials: 0..materials.len(),
            root: node(p.root),
            ..p.clone()
        });
        out.warnings = self.warnings.iter().filter(|w| w.starts_with(p.name.as_str())).cloned().collect();
        Some(out)
    }
}
