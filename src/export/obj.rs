//! Wavefront OBJ export of a posed scene: one `o` per mesh in node order, world-space
//! positions, `vt u (1-v)`, normals, counter-clockwise faces, and an `.mtl` naming each
//! material's texture. Hand-written: OBJ is a few lines of text and no crate adds anything.

use std::fmt::Write as _;
use std::path::Path;

use glam::{Mat3, Vec3};

use crate::scene::Scene;
use crate::scene::anim::Pose;

/// The OBJ and MTL texts for `scene` in `pose`. `mtl_name` is the file name the OBJ refers to.
pub fn to_obj(scene: &Scene, pose: &Pose, mtl_name: &str) -> (String, String) {
    let mut obj = String::new();
    let mut mtl = String::new();
    let _ = writeln!(obj, "# mdview export ({})", scene.format.label());
    // Z-up sources (Quake, WoW) were turned to the scene's Y-up as they were decoded.
    let _ = writeln!(obj, "# axes: Y-up, right-handed, as OBJ importers expect");
    let _ = writeln!(obj, "mtllib {mtl_name}");
    for (index, material) in scene.materials.iter().enumerate() {
        let _ = writeln!(mtl, "newmtl {}", material_name(scene, index));
        let _ = writeln!(mtl, "Kd {} {} {}", material.base_color.x, material.base_color.y, material.base_color.z);
        // The file the one texture resolver found (what `render` draws), else the name as stated.
        let resolved = scene.material_image(index).and_then(|image| image.location());
        if let Some(texture) = resolved.as_ref().or(material.texture.as_ref()) {
            let _ = writeln!(mtl, "map_Kd {texture}");
        }
        let _ = writeln!(mtl);
    }

    // Meshes in node order (a mesh without a node goes last).
    let mut order: Vec<usize> = (0..scene.meshes.len()).collect();
    order.sort_by_key(|&m| scene.meshes.get(m).and_then(|mesh| mesh.node).unwrap_or(usize::MAX));

    let mut base = 1u64;
    for mesh_index in order {
        let Some(mesh) = scene.meshes.get(mesh_index) else { continue };
        if mesh.node.is_some_and(|n| !pose.visible.get(n).copied().unwrap_or(true)) {
            continue;
        }
        let world = pose.mesh_world(scene, mesh_index);
        let normal_matrix = Mat3::from_mat4(world).inverse().transpose();
        let positions = pose.mesh_positions(scene, mesh_index);
        let normals = pose.mesh_normals(scene, mesh_index);
        let uvs = pose.mesh_uvs(scene, mesh_index);
        let _ = writeln!(obj, "o {}", mesh.name);
        obj.reserve(positions.len() * 96 + mesh.triangles.len() * 48);
        for p in &positions {
            let w = world.transform_point3(*p);
            push_line(&mut obj, "v", &w.to_array());
        }
        for i in 0..positions.len() {
            let uv = uvs.get(i).copied().unwrap_or_default();
            push_line(&mut obj, "vt", &[uv.x, 1.0 - uv.y]);
        }
        for i in 0..positions.len() {
            let n = normals.get(i).copied().unwrap_or(Vec3::Y);
            let n = (normal_matrix * n).try_normalize().unwrap_or(Vec3::Y);
            push_line(&mut obj, "vn", &n.to_array());
        }
        // Multi-pass materials (M2 texture-unit layers) repeat a triangle range; write it once.
        let mut written: Vec<(u32, u32)> = Vec::new();
        for sub in &mesh.submeshes {
            if written.contains(&(sub.first_triangle, sub.triangle_count)) {
                continue;
            }
            written.push((sub.first_triangle, sub.triangle_count));
            if let Some(m) = sub.material {
                let _ = writeln!(obj, "usemtl {}", material_name(scene, m));
            }
            let first = sub.first_triangle as usize;
            let tris = mesh.triangles.get(first..first + sub.triangle_count as usize).unwrap_or(&[]);
            let mut digits = itoa::Buffer::new();
            for tri in tris {
                obj.push('f');
                for corner in tri.map(|i| base + u64::from(i)) {
                    let text = digits.format(corner);
                    for separator in [' ', '/', '/'] {
                        obj.push(separator);
                        obj.push_str(text);
                    }
                }
                obj.push('\n');
            }
        }
        base += positions.len() as u64;
    }
    (obj, mtl)
}

/// One `prefix x y z` line. Floats go through `zmij` (shortest round-trip digits, as `{}`
/// gives, several times faster; very small or large values in exponent form, which OBJ readers
/// take), and the line is pushed without the formatting machinery: this loop is most of a batch
/// conversion's time.
fn push_line(out: &mut String, prefix: &str, values: &[f32]) {
    let mut buffer = zmij::Buffer::new();
    out.push_str(prefix);
    for &value in values {
        out.push(' ');
        // `-0` and `0` read the same; the shorter form keeps files small.
        out.push_str(if value == 0.0 { "0" } else { buffer.format(value) });
    }
    out.push('\n');
}

fn material_name(scene: &Scene, index: usize) -> String {
    let label = scene.materials.get(index).map(|m| m.name.as_str()).unwrap_or("material");
    let clean: String =
        label.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect();
    format!("m{index}_{clean}")
}

/// Writes `path` (OBJ) and an `.mtl` beside it.
pub fn write(scene: &Scene, pose: &Pose, path: &Path) -> std::io::Result<()> {
    let mtl_path = path.with_extension("mtl");
    let mtl_name = mtl_path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "model.mtl".into());
    let (obj, mtl) = to_obj(scene, pose, &mtl_name);
    super::write_output(path, obj)?;
    super::write_output(&mtl_path, mtl)
}
