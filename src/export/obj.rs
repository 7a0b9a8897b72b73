//! Wavefront OBJ export of a posed scene: one `o` per mesh in node order, world-space
//! positions, `vt u (1-v)`, normals, counter-clockwise faces, and an `.mtl` naming each
//! material's texture, written beside it as PNG (OBJ importers read PNG, not PCX, BLP or WCT).
//! Hand-written: OBJ is a few lines of text and no crate adds anything.

use std::fmt::Write as _;
use std::path::Path;

use glam::{Mat3, Vec3};

use crate::scene::Scene;
use crate::scene::anim::Pose;

/// The OBJ and MTL texts for `scene` in `pose`. `mtl_name` is the file name the OBJ refers to.
/// The `.mtl` names each texture where the resolver found it (see [`write()`] for PNG copies).
pub fn to_obj(scene: &Scene, pose: &Pose, mtl_name: &str) -> (String, String) {
    to_obj_with(scene, pose, mtl_name, &[])
}

/// As [`to_obj`]; `copies[image]` is the file, beside the `.mtl`, that scene image was
/// written to, and the `.mtl` names it (with `map_d` too where its alpha is used).
fn to_obj_with(scene: &Scene, pose: &Pose, mtl_name: &str, copies: &[Option<TextureCopy>]) -> (String, String) {
    let mut obj = String::new();
    let mut mtl = String::new();
    let _ = writeln!(obj, "# mdview export ({})", scene.format.label());
    // Z-up sources (Quake, WoW) were turned to the scene's Y-up as they were decoded.
    let _ = writeln!(obj, "# axes: Y-up, right-handed, as OBJ importers expect");
    let _ = writeln!(obj, "mtllib {mtl_name}");
    for (index, material) in scene.materials.iter().enumerate() {
        let _ = writeln!(mtl, "newmtl {}", material_name(scene, index));
        let _ = writeln!(mtl, "Kd {} {} {}", material.base_color.x, material.base_color.y, material.base_color.z);
        let copy = material.image.and_then(|i| copies.get(i)).and_then(Option::as_ref);
        if let Some(copy) = copy {
            let _ = writeln!(mtl, "map_Kd {}", copy.file_name);
            if copy.has_alpha && material.alpha.is_see_through() {
                let _ = writeln!(mtl, "map_d {}", copy.file_name);
            }
        } else {
            // The file the one texture resolver found (what `render` draws), made absolute so it
            // does not depend on where mdview ran, else the name as stated.
            let resolved = scene
                .material_image(index)
                .and_then(|image| image.location())
                .map(|location| std::path::absolute(&location).map_or(location, |p| p.to_string_lossy().into_owned()));
            if let Some(texture) = resolved.as_ref().or(material.texture.as_ref()) {
                let _ = writeln!(mtl, "map_Kd {texture}");
            }
        }
        let _ = writeln!(mtl);
    }

    // Meshes in node order (a mesh without a node goes last).
    let mut order: Vec<usize> = (0..scene.meshes.len()).collect();
    order.sort_by_key(|&m| scene.meshes.get(m).and_then(|mesh| mesh.node).unwrap_or(usize::MAX));

    // Positions and normals share one numbering; texture coordinates have their own, as a mesh
    // whose materials sample its second set writes both sets.
    let mut base = 1u64;
    let mut uv_base = 1u64;
    for mesh_index in order {
        let Some(mesh) = scene.meshes.get(mesh_index) else { continue };
        if mesh.node.is_some_and(|n| !pose.visible.get(n).copied().unwrap_or(true)) {
            continue;
        }
        let world = pose.mesh_world(scene, mesh_index);
        let linear = Mat3::from_mat4(world);
        let normal_matrix = linear.inverse().transpose();
        // A mirroring world matrix reverses the winding of the baked positions: swap two
        // corners back so faces stay counter-clockwise from the front.
        let mirrored = linear.determinant() < 0.0;
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
        let samples_second_set = |material: Option<usize>| {
            material.and_then(|m| scene.materials.get(m)).is_some_and(|m| mesh.samples_second_uv_set(m))
        };
        let second_set_used = mesh.submeshes.iter().any(|sub| samples_second_set(sub.material));
        if second_set_used {
            for i in 0..positions.len() {
                let uv = mesh.uvs1.get(i).copied().unwrap_or_default();
                push_line(&mut obj, "vt", &[uv.x, 1.0 - uv.y]);
            }
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
            let uv_first = uv_base + if samples_second_set(sub.material) { positions.len() as u64 } else { 0 };
            let (mut digits, mut uv_digits) = (itoa::Buffer::new(), itoa::Buffer::new());
            for &[a, b, c] in tris {
                let tri = if mirrored { [a, c, b] } else { [a, b, c] };
                obj.push('f');
                for i in tri {
                    let text = digits.format(base + u64::from(i));
                    // Usually the same number: formatted once then (this loop is hot).
                    let uv_text = if uv_first == base { text } else { uv_digits.format(uv_first + u64::from(i)) };
                    for (separator, number) in [(' ', text), ('/', uv_text), ('/', text)] {
                        obj.push(separator);
                        obj.push_str(number);
                    }
                }
                obj.push('\n');
            }
        }
        base += positions.len() as u64;
        uv_base += positions.len() as u64 * if second_set_used { 2 } else { 1 };
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
    format!("m{index}_{}", safe_chars(label))
}

/// Whether [`write()`] copies the textures beside the `.mtl`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Textures {
    /// Each texture the materials draw with becomes `<obj name>_<texture name>.png` beside the
    /// `.mtl`, which names it: the pixels the viewer draws, in a format every importer reads,
    /// found wherever the folder is moved.
    CopyAsPng,
    /// The `.mtl` names the files the textures were found in (absolute), as they are.
    LeaveInPlace,
}

/// A texture written beside the `.mtl`.
#[derive(Debug, Clone)]
struct TextureCopy {
    file_name: String,
    /// Some texel is not fully opaque.
    has_alpha: bool,
}

/// Writes `path` (OBJ), an `.mtl` beside it and, with [`Textures::CopyAsPng`], the textures.
/// Returns a note for each texture that could not be copied (the `.mtl` then names it as stated).
pub fn write(scene: &Scene, pose: &Pose, path: &Path, textures: Textures) -> std::io::Result<Vec<String>> {
    let mtl_path = path.with_extension("mtl");
    let mtl_name = mtl_path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "model.mtl".into());
    let mut notes = Vec::new();
    let copies = match textures {
        Textures::CopyAsPng => copy_textures(scene, path, &mut notes)?,
        Textures::LeaveInPlace => Vec::new(),
    };
    let (obj, mtl) = to_obj_with(scene, pose, &mtl_name, &copies);
    super::write_output(path, obj)?;
    super::write_output(&mtl_path, mtl)?;
    Ok(notes)
}

/// Writes each scene image the faces draw with as a PNG beside `obj_path`, named after the
/// OBJ and the texture (`tris_hunter.png`); per scene image, the copy, if one was written.
fn copy_textures(scene: &Scene, obj_path: &Path, notes: &mut Vec<String>) -> std::io::Result<Vec<Option<TextureCopy>>> {
    let stem = obj_path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "model".into());
    let folder = obj_path.parent().unwrap_or(Path::new(""));
    // Only what the faces draw with: a Quake II model's other skins stay where they are.
    let used = scene.drawn_images();
    let mut taken = std::collections::HashSet::new();
    let mut copies = vec![None; scene.images.len()];
    for (index, image) in scene.images.iter().enumerate() {
        if !used.get(index).copied().unwrap_or(false) {
            continue;
        }
        let pixels = match image.load() {
            Ok(pixels) => pixels,
            Err(e) => {
                notes.push(format!("texture {} not copied: {e}", image.name));
                continue;
            }
        };
        let png = match super::encode_png(&pixels) {
            Ok(png) => png,
            Err(e) => {
                notes.push(format!("texture {} not copied: {e}", image.name));
                continue;
            }
        };
        let mut file_name = format!("{stem}_{}.png", texture_stem(&image.name));
        if !taken.insert(file_name.clone()) {
            file_name = format!("{stem}_{}_{index}.png", texture_stem(&image.name));
            taken.insert(file_name.clone());
        }
        super::write_output(&folder.join(&file_name), png)?;
        let has_alpha = pixels.rgba.chunks_exact(4).any(|p| p.get(3).is_some_and(|&a| a < 255));
        if let Some(slot) = copies.get_mut(index) {
            *slot = Some(TextureCopy { file_name, has_alpha });
        }
    }
    Ok(copies)
}

/// A texture name's last path part without its extension, in characters safe in any file
/// name (`players/hunter/hunter.pcx` and `ITEM\\AXE.BLP` give `hunter` and `AXE`).
fn texture_stem(name: &str) -> String {
    let last = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let stem = last.rsplit_once('.').map_or(last, |(stem, _)| stem);
    let clean = safe_chars(stem);
    if clean.is_empty() { "texture".into() } else { clean }
}

/// `text` with every character but ASCII letters, digits, `_` and `-` made `_`: safe in a
/// material name and in any file name.
fn safe_chars(text: &str) -> String {
    text.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{Aabb, FormatKind, Material, Mesh, Node, NodeKind, SceneKind, Submesh};
    use glam::{Mat4, Vec2};

    /// One triangle facing +z, under a node with `local`; the OBJ's face line.
    fn face_under(local: Mat4) -> String {
        let mut scene = Scene::new(FormatKind::TpwMd2, SceneKind::Mesh);
        let positions = vec![Vec3::ZERO, Vec3::X, Vec3::Y];
        scene.meshes.push(Mesh {
            name: "tri".into(),
            node: Some(0),
            normals: vec![Vec3::Z; 3],
            bounds: Aabb::from_points(&positions),
            source_positions: positions,
            vertex_source: vec![0, 1, 2],
            uvs: vec![Vec2::ZERO; 3],
            uvs1: Vec::new(),
            triangles: vec![[0, 1, 2]],
            submeshes: vec![Submesh {
                material: None,
                first_triangle: 0,
                triangle_count: 1,
                vertex_start: 0,
                vertex_end: 2,
            }],
            skin: None,
            raw: Vec::new(),
            keep_rest_normals: false,
            raw_triangle_tags: Vec::new(),
        });
        let mut node = Node::new("tri", NodeKind::Mesh, local);
        node.mesh = Some(0);
        scene.nodes.push(node);
        let (obj, _) = to_obj(&scene, &Pose::rest(&scene), "x.mtl");
        obj.lines().find(|l| l.starts_with("f ")).unwrap_or_default().to_string()
    }

    /// Baked through a mirror, the corners would wind clockwise from the front: two are swapped.
    #[test]
    fn a_mirrored_mesh_keeps_counter_clockwise_faces() {
        assert_eq!(face_under(Mat4::IDENTITY), "f 1/1/1 2/2/2 3/3/3");
        assert_eq!(face_under(Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0))), "f 1/1/1 3/3/3 2/2/2");
        // Two mirrors make a turn: no swap.
        assert_eq!(face_under(Mat4::from_scale(Vec3::new(-1.0, -1.0, 1.0))), "f 1/1/1 2/2/2 3/3/3");
    }

    /// A submesh whose material samples the second UV set gets its own `vt` block after the
    /// first, and the mesh after it keeps counting from there.
    #[test]
    fn a_material_on_the_second_uv_set_faces_the_second_vt_block() {
        let mut scene = Scene::new(FormatKind::WowM2, SceneKind::Mesh);
        let positions = vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::ONE];
        let quad = |uvs1: Vec<Vec2>, submeshes: Vec<Submesh>| Mesh {
            name: "quad".into(),
            node: Some(0),
            normals: vec![Vec3::Z; 4],
            bounds: Aabb::from_points(&positions),
            source_positions: positions.clone(),
            vertex_source: vec![0, 1, 2, 3],
            uvs: vec![Vec2::new(0.25, 0.0); 4],
            uvs1,
            triangles: vec![[0, 1, 2], [1, 3, 2]],
            submeshes,
            skin: None,
            raw: Vec::new(),
            keep_rest_normals: false,
            raw_triangle_tags: Vec::new(),
        };
        let sub = |first_triangle, material| Submesh {
            material: Some(material),
            first_triangle,
            triangle_count: 1,
            vertex_start: 0,
            vertex_end: 3,
        };
        scene.materials.push(Material::new("first set"));
        scene.materials.push(Material { uv_set: 1, ..Material::new("second set") });
        scene.meshes.push(quad(vec![Vec2::new(0.75, 0.0); 4], vec![sub(0, 0), sub(1, 1)]));
        scene.meshes.push(quad(Vec::new(), vec![sub(0, 0), sub(1, 0)]));
        let mut node = Node::new("quad", NodeKind::Mesh, Mat4::IDENTITY);
        node.mesh = Some(0);
        scene.nodes.push(node);
        let (obj, _) = to_obj(&scene, &Pose::rest(&scene), "x.mtl");
        let lines =
            |prefix: &str| obj.lines().filter(|l| l.starts_with(prefix)).map(str::to_string).collect::<Vec<_>>();
        // Four first-set coordinates and four second-set ones for the first mesh, four for the second.
        let vt = lines("vt ");
        assert_eq!(vt.len(), 12);
        assert!(vt[..4].iter().all(|l| l == "vt 0.25 1.0") && vt[4..8].iter().all(|l| l == "vt 0.75 1.0"), "{vt:?}");
        assert_eq!(
            lines("f "),
            ["f 1/1/1 2/2/2 3/3/3", "f 2/6/2 4/8/4 3/7/3", "f 5/9/5 6/10/6 7/11/7", "f 6/10/6 8/12/8 7/11/7"]
        );
    }

    #[test]
    fn texture_stems_are_the_last_part_without_extension_in_safe_characters() {
        assert_eq!(texture_stem("players/hunter/hunter.pcx"), "hunter");
        assert_eq!(texture_stem("ITEM\\OBJECTCOMPONENTS\\AXE.BLP"), "AXE");
        assert_eq!(texture_stem("my skin#2.tga"), "my_skin_2");
        assert_eq!(texture_stem("noext"), "noext");
        assert_eq!(texture_stem("dir/.pcx"), "texture");
    }
}
