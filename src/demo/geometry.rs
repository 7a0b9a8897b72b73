//! Geometry helpers of the demo's models: snapping (so a platform's maths library cannot change
//! the committed bytes), the mesh [`Builder`] (source vertices, final vertices by material,
//! faces), rings, surfaces of revolution and boxes.

use glam::{Vec2, Vec3};
use std::f32::consts::TAU;

use crate::writers::tpw::{MaterialSpec, MeshSpec, rotation_y};

/// Floats that come out of `sin`/`cos` are snapped to 1/4096, so a last-bit difference in a
/// platform's maths library cannot change the committed bytes. (Translations stay exact.)
pub(super) fn snap(x: f32) -> f32 {
    (x * 4096.0).round() / 4096.0
}

/// A rotation about Y with snapped elements (see [`snap`]).
pub(super) fn turn_y(radians: f32) -> [f32; 16] {
    snap_all(rotation_y(radians))
}

pub(super) fn snap_all<const N: usize>(values: [f32; N]) -> [f32; N] {
    values.map(snap)
}

/// Builds one mesh: source vertices, then final vertices grouped by material, then faces.
#[derive(Default)]
pub(super) struct Builder {
    pub(super) sources: Vec<Vec3>,
    order: Vec<u16>,
    uvs: Vec<[f32; 2]>,
    faces: Vec<[u16; 3]>,
    materials: Vec<MaterialSpec>,
    group: Option<(usize, usize)>,
}

impl Builder {
    pub(super) fn source(&mut self, p: Vec3) -> u16 {
        self.sources.push(Vec3::from_array(snap_all(p.to_array())));
        (self.sources.len() - 1) as u16
    }

    /// Starts a material: every final vertex from here on belongs to it.
    pub(super) fn material(&mut self, texture: usize) {
        self.close_material();
        self.group = Some((texture, self.order.len()));
    }

    pub(super) fn close_material(&mut self) {
        if let Some((texture, start)) = self.group.take()
            && self.order.len() > start
        {
            self.materials.push(MaterialSpec {
                texture: Some(texture),
                start: start as u16,
                end: (self.order.len() - 1) as u16,
            });
        }
    }

    pub(super) fn vertex(&mut self, source: u16, uv: Vec2) -> u16 {
        self.order.push(source);
        self.uvs.push(snap_all(uv.to_array()));
        (self.order.len() - 1) as u16
    }

    pub(super) fn source_of(&self, vertex: u16) -> u16 {
        self.order.get(usize::from(vertex)).copied().unwrap_or(0)
    }

    pub(super) fn position(&self, vertex: u16) -> Vec3 {
        self.sources.get(usize::from(self.source_of(vertex))).copied().unwrap_or(Vec3::ZERO)
    }

    /// A counter-clockwise front face. The file stores the reverse winding, so it is written
    /// as (a, c, b). Faces with two corners on one source vertex are dropped.
    pub(super) fn tri(&mut self, a: u16, b: u16, c: u16) {
        let [sa, sb, sc] = [a, b, c].map(|v| self.source_of(v));
        if sa != sb && sb != sc && sa != sc {
            self.faces.push([a, c, b]);
        }
    }

    /// A quad (corners in cyclic order) facing whichever way has a positive dot with `facing`.
    pub(super) fn quad_facing(&mut self, [a, b, c, d]: [u16; 4], facing: Vec3) {
        let [pa, pb, pc] = [a, b, c].map(|v| self.position(v));
        if (pb - pa).cross(pc - pa).dot(facing) >= 0.0 {
            self.tri(a, b, c);
            self.tri(a, c, d);
        } else {
            self.tri(a, c, b);
            self.tri(a, d, c);
        }
    }

    pub(super) fn finish(mut self, name: &str, parent: Option<usize>, matrix: [f32; 16]) -> MeshSpec {
        self.close_material();
        MeshSpec {
            name: name.to_string(),
            parent,
            matrix,
            vertices: self.sources.iter().map(|p| p.to_array()).collect(),
            vertex_order: self.order,
            uvs: self.uvs,
            faces: self.faces,
            materials: self.materials,
            ..MeshSpec::default()
        }
    }
}

/// A ring of `segments` source vertices at height `y` (one vertex when `radius` is 0), vertex
/// `j` at angle `TAU * j / segments` from +X towards +Z, its radius scaled by `wobble(angle)`.
pub(super) fn ring(b: &mut Builder, radius: f32, y: f32, segments: usize, wobble: &dyn Fn(f32) -> f32) -> Vec<u16> {
    if radius == 0.0 {
        return vec![b.source(Vec3::new(0.0, y, 0.0))];
    }
    (0..segments)
        .map(|j| {
            let angle = TAU * j as f32 / segments as f32;
            let r = radius * wobble(angle);
            b.source(Vec3::new(r * angle.cos(), y, r * angle.sin()))
        })
        .collect()
}

pub(super) fn round(_: f32) -> f32 {
    1.0
}

/// A surface of revolution through `rings` (source rings, in profile order) in the current
/// material. It faces to the right of the profile in the (radius, height) plane: rings listed
/// bottom to top face outwards, outside to centre face up, centre to outside face down.
/// With `seam`, each ring gets `segments + 1` final vertices so U can wrap; without it the
/// final vertices close the loop. `uv(ring, column, position)` gives each final vertex's UV.
pub(super) fn lathe(b: &mut Builder, rings: &[&[u16]], seam: bool, uv: &dyn Fn(usize, usize, Vec3) -> Vec2) {
    let segments = rings.iter().map(|r| r.len()).max().unwrap_or(1);
    let mut finals: Vec<Vec<u16>> = Vec::new();
    for (i, sources) in rings.iter().enumerate() {
        let columns = if sources.len() == 1 && !seam { 1 } else { segments + usize::from(seam) };
        let row = (0..columns)
            .map(|j| {
                let source = sources.get(if sources.len() == 1 { 0 } else { j % segments }).copied().unwrap_or(0);
                let p = b.sources.get(usize::from(source)).copied().unwrap_or(Vec3::ZERO);
                b.vertex(source, uv(i, j, p))
            })
            .collect();
        finals.push(row);
    }
    let at = |row: &Vec<u16>, j: usize| -> u16 {
        let index = if row.len() == 1 {
            0
        } else if seam {
            j
        } else {
            j % row.len()
        };
        row.get(index).copied().unwrap_or(0)
    };
    for pair in finals.windows(2) {
        let [lower, upper] = pair else { continue };
        for j in 0..segments {
            let (a, bb, c, d) = (at(lower, j), at(lower, j + 1), at(upper, j + 1), at(upper, j));
            // Normal = profile tangent x angle tangent: right of the profile direction.
            b.tri(a, d, c);
            b.tri(a, c, bb);
        }
    }
}

/// An axis-aligned box in the current material, each face with its own final vertices and
/// planar UVs (`uv_scale` texture repeats per unit).
pub(super) fn cuboid(b: &mut Builder, min: Vec3, max: Vec3, uv_scale: f32) {
    let corner = |x: usize, y: usize, z: usize| {
        Vec3::new(
            if x == 1 { max.x } else { min.x },
            if y == 1 { max.y } else { min.y },
            if z == 1 { max.z } else { min.z },
        )
    };
    let mut sources = [0u16; 8];
    for (i, s) in sources.iter_mut().enumerate() {
        *s = b.source(corner(i & 1, (i >> 1) & 1, (i >> 2) & 1));
    }
    for axis in 0..3 {
        let (ua, va) = ((axis + 1) % 3, (axis + 2) % 3);
        for side in 0..2 {
            let corners = [(0, 0), (1, 0), (1, 1), (0, 1)].map(|(u, v)| {
                let mut bits = [0usize; 3];
                bits[axis] = side;
                bits[ua] = u;
                bits[va] = v;
                let index = bits[0] | (bits[1] << 1) | (bits[2] << 2);
                let source = sources[index];
                let p = corner(bits[0], bits[1], bits[2]);
                b.vertex(source, Vec2::new(p[ua], -p[va]) * uv_scale)
            });
            let mut facing = Vec3::ZERO;
            facing[axis] = if side == 1 { 1.0 } else { -1.0 };
            b.quad_facing(corners, facing);
        }
    }
}
