//! Line geometry for the overlays: ground grid, per-node bounding boxes and axes, vertex
//! normals, and the unique edges a wireframe draws. All of it is in world space except the
//! edges, which index a mesh's own vertex buffer so the wireframe follows morphs for free.

use std::collections::HashSet;

use glam::{Mat3, Mat4, Vec3};

use super::gpu::LineVertex;
use crate::scene::Aabb;

/// Linear colours of the overlays.
pub mod colors {
    pub const GRID: [f32; 4] = [0.16, 0.16, 0.17, 1.0];
    pub const GRID_MAJOR: [f32; 4] = [0.32, 0.32, 0.34, 1.0];
    pub const BOUNDS: [f32; 4] = [0.10, 0.60, 0.95, 1.0];
    pub const NORMALS: [f32; 4] = [0.95, 0.85, 0.10, 1.0];
    pub const AXIS_X: [f32; 4] = [0.90, 0.10, 0.10, 1.0];
    pub const AXIS_Y: [f32; 4] = [0.10, 0.80, 0.10, 1.0];
    pub const AXIS_Z: [f32; 4] = [0.15, 0.25, 0.95, 1.0];
    pub const WIRE: [f32; 4] = [0.02, 0.02, 0.02, 1.0];
    pub const HIGHLIGHT: [f32; 4] = [1.0, 0.55, 0.0, 1.0];
    pub const SKELETON: [f32; 4] = [0.95, 0.30, 0.85, 1.0];
    pub const MARKER: [f32; 4] = [0.10, 0.90, 0.95, 1.0];
}

fn push_line(out: &mut Vec<LineVertex>, a: Vec3, b: Vec3, color: [f32; 4]) {
    out.push(LineVertex { position: a.to_array(), color });
    out.push(LineVertex { position: b.to_array(), color });
}

/// The 1-2-5 step nearest above `x` (for grid spacing).
fn nice_step(x: f32) -> f32 {
    if !x.is_finite() || x <= 0.0 {
        return 1.0;
    }
    let magnitude = 10f32.powf(x.log10().floor());
    let fraction = x / magnitude;
    let nice = if fraction <= 1.0 {
        1.0
    } else if fraction <= 2.0 {
        2.0
    } else if fraction <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * magnitude
}

/// A square grid on the plane under the scene (at its lowest point), centred below it and
/// reaching about twice the scene's radius, with every fifth line brighter.
pub fn grid(bounds: &Aabb, radius: f32, out: &mut Vec<LineVertex>) {
    let (center, floor) = if bounds.is_empty() { (Vec3::ZERO, 0.0) } else { (bounds.center(), bounds.min.y) };
    let step = nice_step(radius * 2.0 / 10.0);
    let half_lines = 10i32;
    let half_extent = step * half_lines as f32;
    // Snap the centre to the grid so lines do not swim as the bounds change.
    let (cx, cz) = ((center.x / step).round() * step, (center.z / step).round() * step);
    for i in -half_lines..=half_lines {
        let offset = i as f32 * step;
        let color = if i % 5 == 0 { colors::GRID_MAJOR } else { colors::GRID };
        push_line(
            out,
            Vec3::new(cx + offset, floor, cz - half_extent),
            Vec3::new(cx + offset, floor, cz + half_extent),
            color,
        );
        push_line(
            out,
            Vec3::new(cx - half_extent, floor, cz + offset),
            Vec3::new(cx + half_extent, floor, cz + offset),
            color,
        );
    }
}

/// The twelve edges of `bounds` (in a node's space) placed by `world_from_local`; sheared
/// nodes give sheared boxes, drawn exactly.
pub fn oriented_box(world_from_local: &Mat4, bounds: &Aabb, color: [f32; 4], out: &mut Vec<LineVertex>) {
    if bounds.is_empty() {
        return;
    }
    let corner = |i: usize| {
        world_from_local.transform_point3(Vec3::new(
            if i & 1 == 0 { bounds.min.x } else { bounds.max.x },
            if i & 2 == 0 { bounds.min.y } else { bounds.max.y },
            if i & 4 == 0 { bounds.min.z } else { bounds.max.z },
        ))
    };
    for (a, b) in [(0, 1), (2, 3), (4, 5), (6, 7), (0, 2), (1, 3), (4, 6), (5, 7), (0, 4), (1, 5), (2, 6), (3, 7)] {
        push_line(out, corner(a), corner(b), color);
    }
}

/// A node's local X, Y and Z axes (red, green, blue) from its origin, `length` long each.
/// Directions come straight from the matrix columns, so shear shows.
pub fn axes(world_from_local: &Mat4, length: f32, out: &mut Vec<LineVertex>) {
    let origin = world_from_local.transform_point3(Vec3::ZERO);
    for (axis, color) in [
        (world_from_local.x_axis.truncate(), colors::AXIS_X),
        (world_from_local.y_axis.truncate(), colors::AXIS_Y),
        (world_from_local.z_axis.truncate(), colors::AXIS_Z),
    ] {
        if let Some(direction) = axis.try_normalize() {
            push_line(out, origin, origin + direction * length, color);
        }
    }
}

/// Bones as lines from each joint's origin to its parent's. A joint sits at its matrix times
/// its pivot (MDR pivots are zero; M2 bones turn about theirs); a missing matrix is the bind
/// pose. A joint without a parent (MDR bones are a flat list) joins the nearest joint before
/// it, so a chain still reads as one; every origin gets a small cross, `mark` long.
pub fn skeleton(
    world_from_model: &Mat4,
    joints: &[Mat4],
    pivots: &[Vec3],
    parents: &[Option<usize>],
    mark: f32,
    out: &mut Vec<LineVertex>,
) {
    let origins: Vec<Vec3> = pivots
        .iter()
        .enumerate()
        .map(|(i, &pivot)| {
            let joint = joints.get(i).copied().unwrap_or(Mat4::IDENTITY);
            world_from_model.transform_point3(joint.transform_point3(pivot))
        })
        .collect();
    for (i, &origin) in origins.iter().enumerate() {
        let parent = parents.get(i).copied().flatten().filter(|&p| p != i && p < origins.len()).or_else(|| {
            origins
                .iter()
                .take(i)
                .enumerate()
                .min_by(|a, b| a.1.distance(origin).total_cmp(&b.1.distance(origin)))
                .map(|(j, _)| j)
        });
        if let Some(target) = parent.and_then(|p| origins.get(p)) {
            push_line(out, *target, origin, colors::SKELETON);
        }
        for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
            push_line(out, origin - axis * mark, origin + axis * mark, colors::SKELETON);
        }
    }
}

/// A marker (attachment point, emitter, tag): a small diamond around the node's origin, with
/// `size` as its half-width in world units, upright in world space so it reads at any angle.
pub fn marker(world_from_local: &Mat4, size: f32, color: [f32; 4], out: &mut Vec<LineVertex>) {
    let origin = world_from_local.transform_point3(Vec3::ZERO);
    let tips = [Vec3::X, Vec3::Z, -Vec3::X, -Vec3::Z].map(|d| origin + d * size);
    let (top, bottom) = (origin + Vec3::Y * size, origin - Vec3::Y * size);
    for (i, &tip) in tips.iter().enumerate() {
        let next = tips.get((i + 1) % tips.len()).copied().unwrap_or(tip);
        push_line(out, tip, next, color);
        push_line(out, tip, top, color);
        push_line(out, tip, bottom, color);
    }
}

/// One line per vertex along its normal, `length` long in world units.
pub fn normals(world_from_local: &Mat4, positions: &[Vec3], normals: &[Vec3], length: f32, out: &mut Vec<LineVertex>) {
    let linear = Mat3::from_mat4(*world_from_local);
    let normal_matrix = if linear.determinant().abs() > 1e-12 { linear.inverse().transpose() } else { linear };
    out.reserve(positions.len() * 2);
    for (p, n) in positions.iter().zip(normals) {
        let start = world_from_local.transform_point3(*p);
        let direction = (normal_matrix * *n).try_normalize().unwrap_or(Vec3::ZERO);
        push_line(out, start, start + direction * length, colors::NORMALS);
    }
}

/// Each undirected edge of the triangles once, as index pairs for a line list.
pub fn unique_edges(triangles: &[[u32; 3]]) -> Vec<u32> {
    let mut seen = HashSet::with_capacity(triangles.len() * 2);
    let mut out = Vec::with_capacity(triangles.len() * 4);
    for &[a, b, c] in triangles {
        for (p, q) in [(a, b), (b, c), (c, a)] {
            if p != q && seen.insert((p.min(q), p.max(q))) {
                out.extend([p, q]);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_edges_appear_once() {
        let edges = unique_edges(&[[0, 1, 2], [2, 1, 3]]);
        assert_eq!(edges.len(), 10, "five unique edges of a quad split in two");
        assert!(unique_edges(&[[0, 0, 0]]).is_empty());
    }

    #[test]
    fn grid_steps_are_round() {
        assert_eq!(nice_step(0.3), 0.5);
        assert_eq!(nice_step(7.0), 10.0);
        assert_eq!(nice_step(f32::NAN), 1.0);
        let mut lines = Vec::new();
        grid(&Aabb::EMPTY, 1.0, &mut lines);
        assert_eq!(lines.len(), 21 * 4);
    }

    #[test]
    fn markers_are_diamonds_around_the_node_origin() {
        let mut out = Vec::new();
        let at = Vec3::new(1.0, 2.0, 3.0);
        marker(&Mat4::from_translation(at), 0.5, colors::MARKER, &mut out);
        assert_eq!(out.len(), 24, "12 edges of an octahedron");
        for v in &out {
            let offset = Vec3::from_array(v.position) - at;
            // Every corner is a tip of the diamond: half a unit along one axis.
            assert!((offset.abs().max_element() - 0.5).abs() < 1e-6 && offset.abs().element_sum() <= 0.5 + 1e-6);
        }
    }

    #[test]
    fn skeleton_joins_bones_at_their_pivoted_origins() {
        // Two parentless joints (MDR): the second joins the first. One M2-style joint whose
        // matrix turns about its pivot sits at matrix · pivot.
        let mut out = Vec::new();
        let joints = [Mat4::IDENTITY, Mat4::from_translation(Vec3::new(2.0, 0.0, 0.0))];
        skeleton(&Mat4::IDENTITY, &joints, &[Vec3::ZERO, Vec3::ZERO], &[None, None], 0.1, &mut out);
        // Two crosses of three lines, one bone line; two vertices per line.
        assert_eq!(out.len(), 2 * 7);
        let bone = out.iter().skip(6).take(2).map(|v| v.position).collect::<Vec<_>>();
        assert_eq!(bone, [[0.0, 0.0, 0.0], [2.0, 0.0, 0.0]]);

        let mut out = Vec::new();
        let pivot = Vec3::new(0.0, 1.0, 0.0);
        let turn = Mat4::from_translation(pivot) * Mat4::from_rotation_z(1.0) * Mat4::from_translation(-pivot);
        skeleton(&Mat4::IDENTITY, &[Mat4::IDENTITY, turn], &[Vec3::ZERO, pivot], &[None, Some(0)], 0.1, &mut out);
        let bone = out.iter().skip(6).take(2).map(|v| v.position).collect::<Vec<_>>();
        assert_eq!(bone, [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0]], "a joint turning about its pivot stays there");
    }
}
