//! [`MeshFile`]: a whole TPW mesh file, its validation and its layout (header, frame tables,
//! mesh and node tables, node names, then per mesh its vertices, UVs, order, faces, materials).

use super::buf::*;
use super::nodes::*;
use crate::formats::tpw::layout::*;

/// A whole mesh file.
#[derive(Debug, Clone, PartialEq)]
pub struct MeshFile {
    /// Header 0x04; the engine loads only 0xDD.
    pub version: u32,
    /// Header 0x30 flag word: 0x1 is set in every static mesh; 0x4 makes animations additive.
    pub flags: u32,
    pub textures: Vec<TextureSpec>,
    pub meshes: Vec<MeshSpec>,
    pub dummies: Vec<DummySpec>,
    /// The path table at 0xAC (count at 0x40).
    pub paths: Vec<PathSpec>,
    /// The node id table at 0x7C (count at 0x48): one record per node from `first_id_node`
    /// (0x46) on.
    pub first_id_node: u16,
    pub node_ids: Vec<NodeIdSpec>,
    /// The terrain heightfield block at 0x6C (notes §6).
    pub heightfield: Option<HeightfieldSpec>,
}

impl Default for MeshFile {
    fn default() -> Self {
        Self {
            version: MAX_VERSION,
            flags: 0x1,
            textures: Vec::new(),
            meshes: Vec::new(),
            dummies: Vec::new(),
            paths: Vec::new(),
            first_id_node: 0,
            node_ids: Vec::new(),
            heightfield: None,
        }
    }
}

impl MeshFile {
    pub fn node_count(&self) -> usize {
        self.meshes.len() + self.dummies.len()
    }

    /// The parent of every node, meshes first.
    fn parents(&self) -> Vec<Option<usize>> {
        self.meshes.iter().map(|m| m.parent).chain(self.dummies.iter().map(|d| d.parent)).collect()
    }

    /// The structural rules a spec must follow for its file to decode.
    pub fn validate(&self) -> Result<(), String> {
        if self.version > MAX_VERSION {
            return Err(format!("version {:#x} is above the engine's limit {MAX_VERSION:#x}", self.version));
        }
        let limit = usize::from(u16::MAX);
        if self.textures.len() > limit || self.node_count() > limit {
            return Err("more textures or nodes than a u16 count holds".into());
        }
        for (i, texture) in self.textures.iter().enumerate() {
            if !texture.name.is_ascii() || texture.name.contains('\0') || texture.name.len() > MAX_TEXTURE_NAME {
                return Err(format!(
                    "texture {i}: name {:?} must be ASCII, without NUL, at most {MAX_TEXTURE_NAME} bytes",
                    texture.name
                ));
            }
        }
        check_parents(&self.parents())?;
        if self.paths.len() > limit {
            return Err("more paths than a u16 count holds".into());
        }
        if let Some(d) = self.dummies.iter().find(|d| d.path.is_some_and(|p| usize::from(p) >= self.paths.len())) {
            return Err(format!("dummy {} names a path past the {} written", d.name, self.paths.len()));
        }
        for (i, dummy) in self.dummies.iter().enumerate() {
            check_name(&format!("dummy {i}"), &dummy.name)?;
        }
        for (i, mesh) in self.meshes.iter().enumerate() {
            let what = format!("mesh {i} ({})", mesh.name);
            check_name(&what, &mesh.name)?;
            let vertices = mesh.vertices.len();
            let order = mesh.vertex_order.len();
            if vertices > limit || order > limit || mesh.faces.len() > limit || mesh.materials.len() > limit {
                return Err(format!("{what}: a count does not fit the format's u16"));
            }
            if let Some(v) = mesh.vertex_order.iter().find(|&&v| usize::from(v) >= vertices) {
                return Err(format!("{what}: vertex order names source vertex {v} of {vertices}"));
            }
            if mesh.uvs.len() != order {
                return Err(format!("{what}: {} UVs for {order} final vertices", mesh.uvs.len()));
            }
            if let Some(f) = mesh.faces.iter().find(|f| f.iter().any(|&v| usize::from(v) >= order)) {
                return Err(format!("{what}: face {f:?} names a vertex past the {order} final vertices"));
            }
            if !mesh.face_tags.is_empty() && mesh.face_tags.len() != mesh.faces.len() {
                return Err(format!("{what}: {} face tags for {} faces", mesh.face_tags.len(), mesh.faces.len()));
            }
            for (k, material) in mesh.materials.iter().enumerate() {
                if let Some(t) = material.texture
                    && t >= self.textures.len()
                {
                    return Err(format!("{what}: material {k} names texture {t} of {}", self.textures.len()));
                }
                if material.start > material.end || usize::from(material.end) >= order {
                    return Err(format!(
                        "{what}: material {k} covers {}..={} of {order} final vertices",
                        material.start, material.end
                    ));
                }
            }
            if mesh.normals.as_ref().is_some_and(|n| !n.is_empty() && n.len() != order) {
                return Err(format!("{what}: stored normals must number the {order} final vertices"));
            }
            let finite = |v: &[f32]| v.iter().all(|x| x.is_finite());
            if !mesh.vertices.iter().all(|v| finite(v)) || !finite(&mesh.matrix) {
                return Err(format!("{what}: a vertex or the matrix is not finite"));
            }
        }
        Ok(())
    }

    /// Encodes the file. Structural mistakes in the spec are caught by `debug_assert!` (see
    /// [`MeshFile::validate`]).
    pub fn to_bytes(&self) -> Vec<u8> {
        let checked = self.validate();
        debug_assert!(checked.is_ok(), "invalid TPW mesh spec: {checked:?}");

        let mut buf = Buf::with_header();
        buf.u32(HDR_VERSION, self.version);
        buf.u32(HDR_ANIM_VERSION, ANIM_VERSION);
        buf.u16(HDR_FRAME_COUNT, to_u16(self.textures.len()));
        buf.u16(HDR_NODE_COUNT, to_u16(self.node_count()));
        buf.u16(HDR_MESH_COUNT, to_u16(self.meshes.len()));
        buf.u32(HDR_FLAGS, self.flags);

        // Frame table: 8-byte entries (flags word first), then the 20-byte names; then the frame
        // data table, whose records point back at those names.
        let texture_count = self.textures.len() as u64;
        let (frame_table, frame_data) = if self.textures.is_empty() {
            (0, 0)
        } else {
            let table = buf.reserve(texture_count * (FRAME_ENTRY_SIZE + TEXTURE_NAME_LEN));
            let data = buf.reserve(texture_count * FRAME_DATA_SIZE);
            let names = table + texture_count * FRAME_ENTRY_SIZE;
            for (i, texture) in (0u64..).zip(&self.textures) {
                buf.u32(table + i * FRAME_ENTRY_SIZE, texture.flags);
                let name = texture.name.as_bytes();
                let name = name.get(..MAX_TEXTURE_NAME).unwrap_or(name);
                buf.put(names + i * TEXTURE_NAME_LEN, name);
                buf.offset(data + i * FRAME_DATA_SIZE + FRAME_DATA_NAME, names + i * TEXTURE_NAME_LEN);
            }
            (table, data)
        };
        buf.offset(HDR_FRAME_TABLE, frame_table);
        buf.offset(HDR_FRAME_DATA_TABLE, frame_data);

        let mesh_count = self.meshes.len() as u64;
        let mesh_table = buf.reserve(mesh_count * MESH_RECORD_SIZE);
        let node_table =
            if self.dummies.is_empty() { 0 } else { buf.reserve(self.dummies.len() as u64 * NODE_RECORD_SIZE) };
        buf.offset(HDR_MESH_TABLE, mesh_table);
        buf.offset(HDR_NODE_TABLE, node_table);
        let record = |node: usize| -> u64 {
            let node = node as u64;
            if node < mesh_count {
                mesh_table + node * MESH_RECORD_SIZE
            } else {
                node_table + (node - mesh_count) * NODE_RECORD_SIZE
            }
        };

        // The shared node header of both record kinds.
        let parents = self.parents();
        let (siblings, children) = derive_links(&parents);
        let headers = self.meshes.iter().map(|m| (m.flags & !TRANSFORM_ONLY_FLAG, &m.matrix, &m.name, None)).chain(
            self.dummies.iter().map(|d| {
                let path_bit = if d.path.is_some() { PATH_NODE_FLAG } else { 0 };
                (d.flags | TRANSFORM_ONLY_FLAG | path_bit, &d.matrix, &d.name, d.path)
            }),
        );
        for (node, (flags, matrix, name, path)) in headers.enumerate() {
            let at = record(node);
            buf.u32(at + NODE_FLAGS, flags);
            buf.u16(at + NODE_OWN_INDEX, to_u16(node));
            buf.u16(at + NODE_PATH_INDEX, path.unwrap_or(0));
            let link = |target: Option<&Option<usize>>| target.copied().flatten().map_or(0, record);
            buf.offset(at + NODE_PARENT, link(parents.get(node)));
            buf.offset(at + NODE_SIBLING, link(siblings.get(node)));
            buf.offset(at + NODE_CHILD, link(children.get(node)));
            buf.f32s(at + NODE_MATRIX, matrix);
            let mut text = name.as_bytes().to_vec();
            text.push(0);
            let name_at = buf.append(&text);
            buf.offset(at + NODE_NAME, name_at);
        }

        for (mesh, at) in self.meshes.iter().zip((0u64..).map(|i| mesh_table + i * MESH_RECORD_SIZE)) {
            self.write_mesh_data(&mut buf, mesh, at, frame_table);
        }
        if !self.paths.is_empty() {
            let table = buf.reserve(self.paths.len() as u64 * PATH_RECORD_SIZE);
            for (i, path) in (0u64..).zip(&self.paths) {
                let rec = table + i * PATH_RECORD_SIZE;
                let points =
                    buf.append(&path.points.iter().flatten().flat_map(|v| v.to_le_bytes()).collect::<Vec<_>>());
                buf.u32(rec + PATH_TYPE, path.kind);
                buf.u32(rec + PATH_POINT_COUNT, to_u32(path.points.len() as u64));
                buf.offset(rec + PATH_POINTS, points);
            }
            buf.u16(HDR_TABLE_AC_COUNT, to_u16(self.paths.len()));
            buf.offset(HDR_PATH_TABLE, table);
        }
        if !self.node_ids.is_empty() {
            let table = buf.reserve(self.node_ids.len() as u64 * NODE_ID_RECORD_SIZE);
            for (i, ids) in (0u64..).zip(&self.node_ids) {
                let rec = table + i * NODE_ID_RECORD_SIZE;
                buf.u32(rec + NODE_ID_FLAGS, ids.flags);
                buf.u32(rec + NODE_ID_ID, ids.id);
                if let Some(anchor) = ids.anchor {
                    let mut bytes = u16s(&[anchor.face, 0]);
                    bytes.extend([anchor.u, anchor.v, anchor.offset].iter().flat_map(|f| f.to_le_bytes()));
                    let at = buf.append(&bytes);
                    buf.offset(rec + NODE_ID_ANCHOR, at);
                }
            }
            buf.u16(HDR_NODE_ID_FIRST, self.first_id_node);
            buf.u16(HDR_TABLE_7C_COUNT, to_u16(self.node_ids.len()));
            buf.offset(HDR_TABLE_7C, table);
        }
        if let Some(field) = &self.heightfield {
            let header = buf.reserve(HEIGHTFIELD_HEADER_SIZE);
            let vertices = (u64::from(field.across) + 1) * (u64::from(field.down) + 1);
            let cells = u64::from(field.across) * u64::from(field.down);
            buf.u16(header + HF_VERTEX_COUNT, to_u16(vertices as usize));
            buf.u16(header + HF_CELL_COUNT, to_u16(cells as usize));
            buf.f32s(header + HF_CELL_SIZE, &field.cell);
            buf.u32(header + HF_CELLS_ACROSS, field.across);
            buf.u32(header + HF_CELLS_DOWN, field.down);
            buf.f32s(header + HF_HEIGHT_RANGE, &[field.low, field.high]);
            let heights = buf.append(&field.heights.iter().flat_map(|h| h.to_le_bytes()).collect::<Vec<_>>());
            buf.offset(header + HF_HEIGHTS, heights);
            let records = buf.reserve(cells.max(1) * 4);
            for (i, [flags, texture]) in (0u64..).zip(&field.cells).take(cells as usize) {
                buf.u16(records + 4 * i, *flags);
                buf.u16(records + 4 * i + 2, *texture);
            }
            buf.offset(header + HF_CELLS, records);
            buf.offset(HDR_HEIGHTFIELD, header);
        }
        buf.finish()
    }

    fn write_mesh_data(&self, buf: &mut Buf, mesh: &MeshSpec, at: u64, frame_table: u64) {
        buf.u16(at + MESH_VERTEX_COUNT, to_u16(mesh.vertices.len()));
        buf.u16(at + MESH_MATERIAL_COUNT, to_u16(mesh.materials.len()));
        buf.u16(at + MESH_FACE_COUNT, to_u16(mesh.faces.len()));
        buf.u16(at + MESH_ORDER_LENGTH, to_u16(mesh.vertex_order.len()));
        let (min, max) = mesh.written_bbox();
        buf.f32s(at + MESH_BBOX_MIN, &min);
        buf.f32s(at + MESH_BBOX_MAX, &max);

        let vertices = write_batched(buf, &mesh.vertices);
        buf.offset(at + MESH_VERTEX_DATA, vertices);
        let uvs = write_batched(buf, &mesh.uvs);
        buf.offset(at + MESH_UV_DATA, uvs);
        let order = if mesh.vertex_order.is_empty() { 0 } else { buf.append(&u16s(&mesh.vertex_order)) };
        buf.offset(at + MESH_ORDER_TABLE, order);
        if let Some(normals) = mesh.normals.as_ref().filter(|n| !n.is_empty()) {
            let table = buf.append(&normals.iter().flatten().flat_map(|v| v.to_le_bytes()).collect::<Vec<_>>());
            buf.offset(at + MESH_NORMALS, table);
        }

        let faces = if mesh.faces.is_empty() { 0 } else { buf.reserve(mesh.faces.len() as u64 * FACE_RECORD_SIZE) };
        for (i, face) in (0u64..).zip(&mesh.faces) {
            let tag = mesh.face_tags.get(i as usize).copied().unwrap_or(0);
            let [a, b, c] = *face;
            buf.put(faces + i * FACE_RECORD_SIZE, &u16s(&[tag, a, b, c]));
        }
        buf.offset(at + MESH_FACE_DATA, faces);

        let materials =
            if mesh.materials.is_empty() { 0 } else { buf.reserve(mesh.materials.len() as u64 * MATERIAL_RECORD_SIZE) };
        for (i, material) in (0u64..).zip(&mesh.materials) {
            let rec = materials + i * MATERIAL_RECORD_SIZE;
            let frame = material.texture.map_or(0, |t| frame_table + t as u64 * FRAME_ENTRY_SIZE);
            buf.offset(rec + MAT_FRAME_OFFSET, frame);
            buf.u16(rec + MAT_START, material.start);
            buf.u16(rec + MAT_END, material.end);
        }
        buf.offset(at + MESH_MATERIAL_TABLE, materials);
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::*;
    use super::super::*;
    use crate::formats::tpw::layout::*;
    use crate::formats::tpw::{decode, decode_model};
    use crate::scene::{AlphaMode, NodeKind};
    use glam::Vec3;

    #[test]
    fn five_vertices_are_written_in_two_axis_major_batches() {
        let file = MeshFile { meshes: vec![numbered_mesh("m", 5)], ..MeshFile::default() };
        let b = file.to_bytes();
        assert_eq!(&b[0..4], &MAGIC);
        assert_eq!(u32_at(&b, 0x04), 0xDD);
        assert_eq!(u32_at(&b, 0x08), 0xCB);
        assert_eq!((u16_at(&b, 0x36), u16_at(&b, 0x42), u16_at(&b, 0x44)), (0, 1, 1));
        // Header 0xB4 bytes, mesh record 0xB4..0x154, name "m\0" padded to 0x158.
        assert_eq!(u32_at(&b, 0x70), 0xB4);
        assert_eq!(u32_at(&b, 0x74), 0);
        assert_eq!(u32_at(&b, 0xB4 + 0x54), 0x154);
        assert_eq!(&b[0x154..0x158], b"m\0\0\0");
        // Vertices: 2 batches of 48 bytes at 0x158; UVs: 2 batches of 32 at 0x1B8; order: 10
        // bytes padded to 12 at 0x1F8; faces: 3 x 8 at 0x204; one material at 0x21C.
        let rec = 0xB4;
        assert_eq!(u16_at(&b, rec + 0x58), 5);
        assert_eq!(u16_at(&b, rec + 0x5E), 5);
        assert_eq!(u32_at(&b, rec + 0x60), 0x158);
        assert_eq!(u32_at(&b, rec + 0x68), 0x1B8);
        assert_eq!(u32_at(&b, rec + 0x94), 0x1F8);
        assert_eq!(u32_at(&b, rec + 0x70), 0x204);
        assert_eq!(u32_at(&b, rec + 0x6C), 0x21C);
        assert_eq!(u16_at(&b, rec + 0x5A), 1);
        assert_eq!(b.len(), 0x21C + 16);
        assert_eq!(&b[0x21C..0x22C], &[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0]);
        let v = 0x158;
        for lane in 0..4 {
            assert_eq!(f32_at(&b, v + 4 * lane), lane as f32, "X{lane}");
            assert_eq!(f32_at(&b, v + 16 + 4 * lane), 10.0 + lane as f32, "Y{lane}");
            assert_eq!(f32_at(&b, v + 32 + 4 * lane), 20.0 + lane as f32, "Z{lane}");
        }
        // Second batch: X4 X? X? X?, Y4 ..., Z4 ...; the padding lanes are zero.
        assert_eq!((f32_at(&b, v + 48), f32_at(&b, v + 64), f32_at(&b, v + 80)), (4.0, 14.0, 24.0));
        assert_eq!(&b[v + 52..v + 64], &[0; 12]);
        let uv = 0x1B8;
        assert_eq!((f32_at(&b, uv + 4 * 3), f32_at(&b, uv + 16 + 4 * 3)), (3.0, -3.0));
        assert_eq!((f32_at(&b, uv + 32), f32_at(&b, uv + 48)), (4.0, -4.0));
        assert_eq!(&b[0x1F8..0x204], &[0, 0, 1, 0, 2, 0, 3, 0, 4, 0, 0, 0]);
        // Face 0 = [0, 2, 1]: tag 0, then A B C as given.
        assert_eq!(&b[0x204..0x20C], &[0, 0, 0, 0, 2, 0, 1, 0]);
        // Computed box.
        assert_eq!((f32_at(&b, rec + 0x78), f32_at(&b, rec + 0x7C), f32_at(&b, rec + 0x80)), (0.0, 10.0, 20.0));
        assert_eq!((f32_at(&b, rec + 0x84), f32_at(&b, rec + 0x88), f32_at(&b, rec + 0x8C)), (4.0, 14.0, 24.0));
    }

    #[test]
    fn frame_tables_and_material_frame_offsets() {
        let mut mesh = numbered_mesh("m", 4);
        mesh.materials =
            vec![MaterialSpec { texture: Some(1), start: 0, end: 1 }, MaterialSpec { texture: None, start: 2, end: 3 }];
        let file = MeshFile {
            textures: vec![TextureSpec::opaque("grass"), TextureSpec::see_through("leaves_cutout")],
            meshes: vec![mesh],
            ..MeshFile::default()
        };
        let b = file.to_bytes();
        // Frame table at 0xB4: 2 x 8-byte entries, then 2 x 20-byte names at 0xC4 and 0xD8.
        assert_eq!(u16_at(&b, 0x36), 2);
        assert_eq!(u32_at(&b, 0x50), 0xB4);
        assert_eq!((u32_at(&b, 0xB4), u32_at(&b, 0xBC)), (0x01, 0x03));
        assert_eq!(&b[0xC4..0xD8], b"grass\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0");
        assert_eq!(&b[0xD8..0xE6], b"leaves_cutout\0");
        // Frame data table at 0xEC: 16-byte records whose +0x0C points at the names.
        assert_eq!(u32_at(&b, 0x54), 0xEC);
        assert_eq!((u32_at(&b, 0xEC + 0x0C), u32_at(&b, 0xFC + 0x0C)), (0xC4, 0xD8));
        // Mesh table after it, at 0x10C.
        assert_eq!(u32_at(&b, 0x70), 0x10C);
        let materials = u32_at(&b, 0x10C + 0x6C) as usize;
        assert_eq!(u32_at(&b, materials), 0xBC, "texture 1's frame entry");
        assert_eq!((u16_at(&b, materials + 8), u16_at(&b, materials + 10)), (0, 1));
        assert_eq!(u32_at(&b, materials + 16), 0, "no texture");
        assert_eq!((u16_at(&b, materials + 24), u16_at(&b, materials + 26)), (2, 3));

        let scene = decode(&b).unwrap();
        assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);
        let leaves = &scene.materials[0];
        assert_eq!(leaves.texture.as_deref(), Some("leaves_cutout"));
        assert_eq!(leaves.flags, 0x03);
        assert_eq!(leaves.alpha, AlphaMode::SeeThrough);
        assert_eq!(scene.materials[1].texture, None);
    }

    #[test]
    fn links_are_file_offsets_derived_from_parents() {
        // Island-like: mesh 0 is the root, dummy node 3 hangs off it, meshes 1 and 2 off the dummy.
        let file = MeshFile {
            meshes: vec![
                numbered_mesh("island", 3),
                MeshSpec { parent: Some(3), ..numbered_mesh("trunk", 3) },
                MeshSpec { parent: Some(3), matrix: translation(0.0, 3.66, 0.0), ..numbered_mesh("leaves", 3) },
            ],
            dummies: vec![DummySpec {
                name: "l_tree1".into(),
                parent: Some(0),
                matrix: then(&shear_y(0.25, 0.0), &translation(-11.92, 8.99, 8.40)),
                flags: 0,
                path: None,
            }],
            ..MeshFile::default()
        };
        let b = file.to_bytes();
        // Mesh records at 0xB4, 0x154, 0x1F4; the node table right after, at 0x294.
        assert_eq!((u16_at(&b, 0x42), u16_at(&b, 0x44)), (4, 3));
        assert_eq!((u32_at(&b, 0x70), u32_at(&b, 0x74)), (0xB4, 0x294));
        let links = |rec: usize| [0, 4, 8, 12].map(|k| u32_at(&b, rec + k));
        // [flags, parent, sibling, first child]
        assert_eq!(links(0xB4), [0, 0, 0, 0x294]);
        assert_eq!(links(0x154), [0, 0x294, 0x1F4, 0]);
        assert_eq!(links(0x1F4), [0, 0x294, 0, 0]);
        assert_eq!(links(0x294), [0x200, 0xB4, 0, 0x154]);
        assert_eq!(f32_at(&b, 0x1F4 + 0x10 + 4 * 13), 3.66);

        let scene = decode(&b).unwrap();
        assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);
        let names: Vec<&str> = scene.nodes.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(names, ["island", "trunk", "leaves", "l_tree1"]);
        assert_eq!(scene.nodes[3].kind, NodeKind::Transform);
        assert_eq!(scene.nodes[3].parent, Some(0));
        assert_eq!(scene.nodes[3].children, [1, 2]);
        assert_eq!(scene.nodes[0].children, [3]);
        assert!(crate::scene::math::is_sheared(&scene.nodes[3].local));
        assert_eq!(scene.nodes[3].local.w_axis.truncate(), Vec3::new(-11.92, 8.99, 8.40));
    }

    #[test]
    fn top_level_nodes_are_chained_as_siblings() {
        let file = MeshFile {
            meshes: vec![numbered_mesh("door_l", 3), numbered_mesh("door_r", 3), numbered_mesh("post", 3)],
            ..MeshFile::default()
        };
        let b = file.to_bytes();
        assert_eq!(u32_at(&b, 0xB4 + 8), 0x154);
        assert_eq!(u32_at(&b, 0x154 + 8), 0x1F4);
        assert_eq!(u32_at(&b, 0x1F4 + 8), 0);
        let scene = decode(&b).unwrap();
        assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);
        assert!(scene.nodes.iter().all(|n| n.parent.is_none()));
    }

    #[test]
    fn mesh_round_trips_through_the_decoder() {
        // Two source vertices shared by four final vertices across two materials.
        let mesh = MeshSpec {
            name: "quad".into(),
            parent: None,
            matrix: then(&rotation_y(0.5), &translation(1.0, 2.0, 3.0)),
            vertices: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 0.0, 1.0], [0.0, 0.0, 1.0], [0.5, 1.0, 0.5]],
            vertex_order: vec![0, 1, 2, 3, 0, 2, 4],
            uvs: vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [0.0, 0.0], [1.0, 1.0], [0.5, 0.5]],
            faces: vec![[0, 2, 1], [0, 3, 2], [4, 5, 6]],
            face_tags: vec![7, 8, 9],
            materials: vec![
                MaterialSpec { texture: Some(0), start: 0, end: 3 },
                MaterialSpec { texture: Some(1), start: 4, end: 6 },
            ],
            bbox: Some(([-1.0, -2.0, -3.0], [4.0, 5.0, 6.0])),
            flags: 0x20,
            // Stored per final vertex, not unit length: the decoder normalises them.
            normals: Some(vec![
                [0.0, 2.0, 0.0],
                [0.0, 0.0, -3.0],
                [1.0, 0.0, 0.0],
                [0.0, 0.5, 0.0],
                [0.0, -1.0, 0.0],
                [3.0, 4.0, 0.0],
                [0.0, 0.0, 1.0],
            ]),
        };
        let file = MeshFile {
            textures: vec![TextureSpec::opaque("sand"), TextureSpec::new("water", 0x13)],
            meshes: vec![mesh.clone()],
            ..MeshFile::default()
        };
        let bytes = file.to_bytes();
        let model = decode_model(&bytes).unwrap();
        let scene = &model.scene;
        assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);
        let m = &scene.meshes[0];
        assert_eq!(m.source_positions.len(), 5);
        assert_eq!(m.source_positions[4], Vec3::new(0.5, 1.0, 0.5));
        assert_eq!(m.vertex_source, [0, 1, 2, 3, 0, 2, 4]);
        assert_eq!(m.uvs[6], glam::Vec2::new(0.5, 0.5));
        // The decoder reverses the stored winding.
        assert_eq!(m.triangles, [[0, 1, 2], [0, 2, 3], [4, 6, 5]]);
        assert_eq!(m.raw_triangle_tags, [7, 8, 9]);
        assert_eq!(m.submeshes.len(), 2);
        assert_eq!((m.submeshes[1].vertex_start, m.submeshes[1].vertex_end), (4, 6));
        assert_eq!(scene.materials[1].texture.as_deref(), Some("water"));
        assert_eq!(scene.materials[1].flags, 0x13);
        assert_eq!(model.meshes[0].bbox_min, Vec3::new(-1.0, -2.0, -3.0));
        assert_eq!(model.meshes[0].bbox_max, Vec3::new(4.0, 5.0, 6.0));
        // The file's normals, not ones computed from the faces (which would all be +-Y here).
        assert_eq!(m.normals[1], Vec3::new(0.0, 0.0, -1.0));
        assert_eq!(m.normals[5], Vec3::new(0.6, 0.8, 0.0));
        assert_eq!((model.meshes[0].vertex_count, model.meshes[0].order_length), (5, 7));
        assert_eq!(scene.nodes[0].local.to_cols_array(), mesh.matrix);
        assert_eq!(scene.nodes[0].raw[0].value, 0x20);
    }

    #[test]
    fn paths_path_nodes_and_the_flag_word() {
        let file = MeshFile {
            flags: 0x5,
            meshes: vec![numbered_mesh("cart", 3)],
            dummies: vec![
                DummySpec { name: "spline".into(), path: Some(1), ..DummySpec::default() },
                DummySpec { name: "plain".into(), ..DummySpec::default() },
            ],
            paths: vec![
                PathSpec { kind: 0x8, points: vec![[0.0; 3], [1.0, 0.0, 0.0]] },
                PathSpec { kind: 0x3, points: vec![[0.0; 3], [1.0; 3], [2.0; 3], [3.0; 3], [4.0; 3], [5.0; 3]] },
            ],
            ..MeshFile::default()
        };
        let b = file.to_bytes();
        assert_eq!(u32_at(&b, 0x30), 0x5);
        assert_eq!(u16_at(&b, 0x40), 2);
        let dummies = u32_at(&b, 0x74) as usize;
        // [flags, own index at 0x50, path index at 0x52] of nodes 1 and 2.
        assert_eq!((u32_at(&b, dummies), u16_at(&b, dummies + 0x50), u16_at(&b, dummies + 0x52)), (0x208, 1, 1));
        assert_eq!((u32_at(&b, dummies + 0x58), u16_at(&b, dummies + 0x58 + 0x50)), (0x200, 2));
        let table = u32_at(&b, 0xAC) as usize;
        assert_eq!([0, 4, 12].map(|k| u32_at(&b, table + 16 + k)), [0x3, 6, 0]);
        let points = u32_at(&b, table + 16 + 8) as usize;
        assert_eq!(f32_at(&b, points + 12 * 5 + 8), 5.0);

        let model = decode_model(&b).unwrap();
        assert!(model.additive);
        assert_eq!(model.path_nodes, [None, Some(1), None]);
        let path = model.paths[1].clone().unwrap();
        assert_eq!((path.kind, path.closed, path.points.len()), (crate::scene::PathKind::Bezier, true, 6));
        assert_eq!(path.segments(), 2);
        assert_eq!(model.paths[0].clone().unwrap().segments(), 1, "two points, open, straight");
    }

    #[test]
    fn mesh_records_never_carry_the_transform_only_bit() {
        let file = MeshFile { meshes: vec![MeshSpec { flags: 0x220, ..numbered_mesh("m", 3) }], ..MeshFile::default() };
        let b = file.to_bytes();
        assert_eq!(u32_at(&b, 0xB4), 0x20);
    }

    #[test]
    fn validation_names_structural_mistakes() {
        let bad_order = MeshFile {
            meshes: vec![MeshSpec { vertex_order: vec![0, 1, 9], ..numbered_mesh("m", 3) }],
            ..MeshFile::default()
        };
        assert!(bad_order.validate().unwrap_err().contains("source vertex 9"));
        let bad_uvs =
            MeshFile { meshes: vec![MeshSpec { uvs: vec![], ..numbered_mesh("m", 3) }], ..MeshFile::default() };
        assert!(bad_uvs.validate().is_err());
        let bad_face = MeshFile {
            meshes: vec![MeshSpec { faces: vec![[0, 1, 3]], ..numbered_mesh("m", 3) }],
            ..MeshFile::default()
        };
        assert!(bad_face.validate().is_err());
        let cycle = MeshFile {
            meshes: vec![numbered_mesh("a", 3)],
            dummies: vec![
                DummySpec { parent: Some(2), ..DummySpec::default() },
                DummySpec { parent: Some(1), ..DummySpec::default() },
            ],
            ..MeshFile::default()
        };
        assert!(cycle.validate().unwrap_err().contains("cycle"));
        let parent_range =
            MeshFile { meshes: vec![MeshSpec { parent: Some(1), ..numbered_mesh("a", 3) }], ..MeshFile::default() };
        assert!(parent_range.validate().is_err());
        let long_texture = MeshFile { textures: vec![TextureSpec::opaque("a".repeat(20))], ..MeshFile::default() };
        assert!(long_texture.validate().is_err());
        let values = AnimFile {
            tracks: vec![TrackSpec {
                morph: Some(MorphSpec {
                    records: vec![MorphRecordSpec { channels: vec![0, 1], frames: vec![0], values: vec![0] }],
                    ..MorphSpec::default()
                }),
                ..TrackSpec::default()
            }],
            ..AnimFile::default()
        };
        assert!(values.validate().unwrap_err().contains("1 values for 2 channels x 1 frames"));
        let points = AnimFile {
            tracks: vec![TrackSpec {
                position: Some(PositionSpec { kind: 0x12, points: vec![[0.0; 3]; 3], frames: vec![0, 10] }),
                ..TrackSpec::default()
            }],
            ..AnimFile::default()
        };
        assert!(points.validate().unwrap_err().contains("needs 4 points"));
        let curve = AnimFile {
            tracks: vec![TrackSpec {
                rotation: vec![RotationKeySpec { curve: 0, ..key(0, 0.0) }],
                ..TrackSpec::default()
            }],
            ..AnimFile::default()
        };
        assert!(curve.validate().unwrap_err().contains("curve"));
    }
}
