//! Decodes a TPW mesh file (non-zero mesh table at 0x70) into the scene: the node tree of
//! 160-byte mesh records and 88-byte transform-only records, batched vertices and UVs, the
//! vertex-order table, faces, and materials with their texture names and flag words.

use glam::{Mat4, Vec2, Vec3};

use super::layout::*;
use crate::formats::error::DecodeResult;
use crate::formats::reader::{Reader, Table};
use crate::scene::{
    AlphaMode, FaceAnchor, Material, Mesh, Node, NodeKind, Path, PathKind, RawField, Scene, Submesh, compute_normals,
    math::is_sheared, validate::first_non_finite,
};

/// What animation binding needs from each mesh beyond the scene: the file's own counts and
/// the bounding box that morph values are quantised into.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeshFacts {
    pub vertex_count: u32,
    pub order_length: u32,
    pub bbox_min: Vec3,
    pub bbox_max: Vec3,
}

/// Node tables as located in the header.
pub(crate) struct NodeTables {
    pub mesh_table: Table,
    pub node_table: Table,
    pub mesh_count: u64,
    pub node_count: u64,
}

impl NodeTables {
    pub fn record(&self, node: u64) -> u64 {
        if node < self.mesh_count {
            self.mesh_table.record(node)
        } else {
            self.node_table.record(node.saturating_sub(self.mesh_count))
        }
    }

    /// Converts a stored link (a file offset into either table) into a node index.
    pub fn index_of(&self, offset: u64) -> Option<u64> {
        self.mesh_table
            .index_of(offset)
            .or_else(|| self.node_table.index_of(offset).map(|i| i.saturating_add(self.mesh_count)))
    }
}

pub(crate) fn locate_nodes(r: &Reader, warnings: &mut Vec<String>) -> DecodeResult<NodeTables> {
    let mesh_count = u64::from(r.u16(HDR_MESH_COUNT, "mesh count")?);
    let mut declared_nodes = u64::from(r.u16(HDR_NODE_COUNT, "node count")?);
    let mesh_offset = u64::from(r.u32(HDR_MESH_TABLE, "mesh table offset")?);
    if mesh_count > declared_nodes {
        // Meshes are the first nodes, so there are at least as many nodes as meshes.
        warnings.push(format!(
            "node count {declared_nodes} at 0x42 is below the mesh count {mesh_count}; using {mesh_count}"
        ));
        declared_nodes = mesh_count;
    }
    let mesh_table = r.table(mesh_offset, mesh_count, MESH_RECORD_SIZE, "mesh table")?;
    let dummy_count = declared_nodes - mesh_count;
    let node_offset = if dummy_count > 0 { u64::from(r.u32(HDR_NODE_TABLE, "node table offset")?) } else { 0 };
    let node_table = r.table(node_offset, dummy_count, NODE_RECORD_SIZE, "node table")?;
    Ok(NodeTables { mesh_table, node_table, mesh_count, node_count: declared_nodes })
}

fn matrix_at(r: &Reader, offset: u64, field: &str) -> DecodeResult<Mat4> {
    // Row-major, row-vector storage loaded column-major is the column-vector form (see scene).
    let m = Mat4::from_cols_array(&r.f32s::<16>(offset, field)?);
    if !m.is_finite() {
        return Err(r.invalid(field, offset, "matrix has a NaN or infinite element"));
    }
    Ok(m)
}

fn name_at(r: &Reader, pointer_offset: u64, fallback: String, warnings: &mut Vec<String>) -> DecodeResult<String> {
    let pointer = u64::from(r.u32(pointer_offset, "name pointer")?);
    if pointer == 0 {
        return Ok(fallback);
    }
    match r.cstr(pointer, MAX_NAME_LEN, "name") {
        Ok(name) if !name.is_empty() => Ok(name),
        Ok(_) => Ok(fallback),
        Err(e) => {
            warnings.push(format!("{fallback}: name unreadable ({e}); using a generated name"));
            Ok(fallback)
        }
    }
}

/// Decodes the node tree and meshes of a mesh file into `scene`. Returns per-mesh facts.
pub(crate) fn decode_meshes(r: &Reader, scene: &mut Scene) -> DecodeResult<Vec<MeshFacts>> {
    let tables = locate_nodes(r, &mut scene.warnings)?;
    let textures = TextureTables::locate(r)?;
    let mut facts = Vec::new();
    let mut links = Vec::new();

    for index in 0..tables.node_count {
        let rec = tables.record(index);
        let is_mesh = index < tables.mesh_count;
        let what = if is_mesh { format!("mesh[{index}]") } else { format!("node[{index}]") };
        let flags = r.u32(rec + NODE_FLAGS, "flags").map_err(|e| e.within(&what))?;
        let parent = r.u32(rec + NODE_PARENT, "parent link").map_err(|e| e.within(&what))?;
        let sibling = r.u32(rec + NODE_SIBLING, "sibling link").map_err(|e| e.within(&what))?;
        let child = r.u32(rec + NODE_CHILD, "first-child link").map_err(|e| e.within(&what))?;
        let local = matrix_at(r, rec + NODE_MATRIX, "matrix").map_err(|e| e.within(&what))?;
        let name = name_at(r, rec + NODE_NAME, what.clone(), &mut scene.warnings).map_err(|e| e.within(&what))?;
        let kind = if is_mesh { NodeKind::Mesh } else { NodeKind::Transform };
        let mut node = Node::new(name, kind, local);
        node.raw = vec![
            RawField::new("flags", rec + NODE_FLAGS, u64::from(flags)),
            RawField::new("parent link", rec + NODE_PARENT, u64::from(parent)),
            RawField::new("sibling link", rec + NODE_SIBLING, u64::from(sibling)),
            RawField::new("first-child link", rec + NODE_CHILD, u64::from(child)),
        ];
        if !is_mesh {
            node.raw.push(RawField::new("transform-only bit 0x200", rec, u64::from(flags & TRANSFORM_ONLY_FLAG)));
        }
        links.push([parent, sibling, child]);
        if is_mesh {
            let (mesh, mesh_facts, materials) =
                decode_mesh(r, rec, index as usize, &node.name, &textures, scene.materials.len(), &mut scene.warnings)
                    .map_err(|e| e.within(&what))?;
            node.mesh = Some(scene.meshes.len());
            scene.meshes.push(mesh);
            scene.materials.extend(materials);
            facts.push(mesh_facts);
        }
        scene.nodes.push(node);
    }
    resolve_links(&tables, &links, scene);
    attach_node_ids(r, &tables, scene);
    Ok(facts)
}

/// The path table (header 0xAC, 0x40 records; notes §5). A path that cannot be read becomes
/// `Err(reason)` in its place; the table itself missing gives no paths.
pub(crate) fn decode_paths(r: &Reader) -> DecodeResult<Vec<Result<Path, String>>> {
    let offset = u64::from(r.u32(HDR_PATH_TABLE, "path table offset")?);
    let count = u64::from(r.u16(HDR_TABLE_AC_COUNT, "path count")?);
    if offset == 0 || count == 0 {
        return Ok(Vec::new());
    }
    let table = r.table(offset, count, PATH_RECORD_SIZE, "path table")?;
    let mut paths = Vec::with_capacity(count as usize);
    for i in 0..count {
        let at = table.record(i);
        let read = || -> DecodeResult<Path> {
            let kind_bits = r.u32(at + PATH_TYPE, "path type")?;
            let points = u64::from(r.u32(at + PATH_POINT_COUNT, "path point count")?);
            let points_at = u64::from(r.u32(at + PATH_POINTS, "path points offset")?);
            let points_table = r.table(points_at, points, 12, "path points")?;
            let points = (0..points)
                .map(|k| r.f32s::<3>(points_table.record(k), "path point").map(Vec3::from_array))
                .collect::<DecodeResult<Vec<_>>>()?;
            if points.iter().any(|p| !p.is_finite()) {
                return Err(r.invalid("path point", points_at, "a point is not finite"));
            }
            Ok(Path { kind: path_kind(kind_bits), closed: kind_bits & PATH_CLOSED != 0, points })
        };
        paths.push(read().map_err(|e| format!("path {i}: {e}")));
    }
    Ok(paths)
}

/// The sampler a path or position type word selects (notes §5): 0x2 Bezier, else 0x8 straight,
/// else Catmull-Rom.
pub fn path_kind(type_bits: u32) -> PathKind {
    if type_bits & PATH_BEZIER != 0 {
        PathKind::Bezier
    } else if type_bits & PATH_STRAIGHT != 0 {
        PathKind::Straight
    } else {
        PathKind::CatmullRom
    }
}

/// Per node, the path it names: `Some(index)` for a transform-only node with the path bit 0x8.
pub(crate) fn path_nodes(r: &Reader, scene: &Scene) -> Vec<Option<u16>> {
    let Ok(tables) = locate_nodes(r, &mut Vec::new()) else { return vec![None; scene.nodes.len()] };
    (0..scene.nodes.len() as u64)
        .map(|index| {
            let rec = tables.record(index);
            let flags = r.u32(rec + NODE_FLAGS, "flags").ok()?;
            if flags & PATH_NODE_FLAG == 0 || flags & TRANSFORM_ONLY_FLAG == 0 {
                return None;
            }
            r.u16(rec + NODE_PATH_INDEX, "path index").ok()
        })
        .collect()
}

/// The optional id table (count at 0x48, records at 0x7C, first node at 0x46) gives nodes a
/// lookup id and flag word (OpenTPW: costume pieces), kept raw, and a record whose flags meet
/// [`ANCHOR_FLAGS`] may pin its node to a face of its parent's mesh ([`FaceAnchor`], notes
/// §4). A bad table or anchor is only a warning.
fn attach_node_ids(r: &Reader, tables: &NodeTables, scene: &mut Scene) {
    let ids = (|| -> DecodeResult<Option<(u64, Table)>> {
        let count = u64::from(r.u16(HDR_TABLE_7C_COUNT, "node id count")?);
        let offset = u64::from(r.u32(HDR_TABLE_7C, "node id table")?);
        if count == 0 || offset == 0 {
            return Ok(None);
        }
        let first = u64::from(r.u16(HDR_NODE_ID_FIRST, "first node with an id")?);
        Ok(Some((first, r.table(offset, count, NODE_ID_RECORD_SIZE, "node id table")?)))
    })();
    match ids {
        Ok(None) => {}
        Err(e) => scene.warnings.push(format!("node id table unreadable ({e}); ids not shown")),
        Ok(Some((first, table))) => {
            for record in 0..table.count {
                let at = table.record(record);
                let index = (first + record) as usize;
                let (Ok(flags), Ok(id)) =
                    (r.u32(at + NODE_ID_FLAGS, "node id flags"), r.u32(at + NODE_ID_ID, "node id"))
                else {
                    continue;
                };
                let pointer = r.u32(at + NODE_ID_ANCHOR, "face anchor pointer").unwrap_or(0);
                let anchor = (pointer != 0 && flags & ANCHOR_FLAGS != 0)
                    .then(|| face_anchor(r, tables, scene, index, u64::from(pointer)));
                let Some(node) = scene.nodes.get_mut(index) else { break };
                node.raw.push(RawField::new("id", at + NODE_ID_ID, u64::from(id)));
                node.raw.push(RawField::new("id flags", at + NODE_ID_FLAGS, u64::from(flags)));
                if pointer != 0 {
                    node.raw.push(RawField::new("face anchor", at + NODE_ID_ANCHOR, u64::from(pointer)));
                }
                match anchor {
                    Some(Ok(anchor)) => node.anchor = Some(Box::new(anchor)),
                    Some(Err(reason)) => {
                        let name = node.name.clone();
                        scene
                            .warnings
                            .push(format!("{name}: face anchor not used ({reason}); the node keeps its place"));
                    }
                    None => {}
                }
            }
        }
    }
}

/// Reads the face anchor at `pointer` for `node`: the face is one of its parent's mesh, its
/// corners as stored, and its normal from the mesh's 0x64 table (entry `word0 & 0x7FFF`), which
/// animation never rewrites; a mesh without that table gives the face's own normal at rest.
fn face_anchor(
    r: &Reader,
    tables: &NodeTables,
    scene: &Scene,
    node: usize,
    pointer: u64,
) -> Result<FaceAnchor, String> {
    let err = |e: crate::formats::error::DecodeError| e.to_string();
    let record = r.table(pointer, 1, ANCHOR_RECORD_SIZE, "face anchor").map_err(err)?.record(0);
    let face = u64::from(r.u16(record + ANCHOR_FACE, "anchor face").map_err(err)?);
    let [u, v, offset] = r.f32s::<3>(record + ANCHOR_U, "face anchor u, v and offset").map_err(err)?;
    if ![u, v, offset].iter().all(|n| n.is_finite()) {
        return Err(format!("u, v or offset at {record:#x} is not finite"));
    }
    let parent = scene.nodes.get(node).and_then(|n| n.parent).ok_or("the node has no parent")?;
    let mesh_index = scene.nodes.get(parent).and_then(|p| p.mesh).ok_or("its parent is not a mesh")?;
    let mesh = scene.meshes.get(mesh_index).ok_or("its parent is not a mesh")?;
    // Meshes are the first nodes, so the parent's record is the mesh record.
    let rec = tables.record(parent as u64);
    let face_count = u64::from(r.u16(rec + MESH_FACE_COUNT, "face count").map_err(err)?);
    if face >= face_count {
        return Err(format!("face {face} of a mesh with {face_count}"));
    }
    let face_offset = u64::from(r.u32(rec + MESH_FACE_DATA, "face data offset").map_err(err)?);
    let face_at = r.table(face_offset, face_count, FACE_RECORD_SIZE, "face data").map_err(err)?.record(face);
    let word0 = r.u16(face_at, "face normal index").map_err(err)?;
    let mut corners = [0u32; 3];
    for (k, corner) in (1u64..).zip(corners.iter_mut()) {
        let slot = r.u16(face_at + 2 * k, "face corner").map_err(err)?;
        *corner = *mesh.vertex_source.get(usize::from(slot)).ok_or(format!("face {face} names vertex {slot}"))?;
    }
    let stored = match u64::from(r.u32(rec + MESH_NORMALS, "normals table offset").map_err(err)?) {
        0 => None,
        table => {
            let entry = table.checked_add(12 * u64::from(word0 & 0x7FFF)).ok_or("normal entry past the file")?;
            let n = Vec3::from_array(r.f32s::<3>(entry, "face normal").map_err(err)?);
            Some(n.try_normalize().ok_or(format!("normal entry at {entry:#x} is not a direction"))?)
        }
    };
    let normal = match stored {
        Some(n) => n,
        None => {
            let [c0, c1, c2] = corners.map(|c| mesh.source_positions.get(c as usize).copied().unwrap_or(Vec3::ZERO));
            // Stored clockwise, so this order faces the same way as the decoded triangle.
            (c2 - c0).cross(c1 - c0).try_normalize().unwrap_or(Vec3::ZERO)
        }
    };
    Ok(FaceAnchor { mesh: mesh_index, corners, u, v, offset, normal })
}

/// Turns stored offsets into parent indices and child lists; bad links and cycles become
/// warnings, and the node is treated as a root.
fn resolve_links(tables: &NodeTables, links: &[[u32; 3]], scene: &mut Scene) {
    let count = scene.nodes.len();
    for (index, link) in links.iter().enumerate() {
        let [parent, sibling, child] = *link;
        let name = scene.nodes.get(index).map(|n| n.name.clone()).unwrap_or_default();
        for (label, value) in [("sibling", sibling), ("first-child", child)] {
            if value != 0 && tables.index_of(u64::from(value)).is_none() {
                scene.warnings.push(format!(
                    "node {index} ({name}): {label} link {value:#x} lands in neither node table; ignored"
                ));
            }
        }
        if parent == 0 {
            continue;
        }
        match tables.index_of(u64::from(parent)).map(|p| p as usize) {
            Some(p) if p != index && p < count => {
                if let Some(node) = scene.nodes.get_mut(index) {
                    node.parent = Some(p);
                }
            }
            _ => scene.warnings.push(format!(
                "node {index} ({name}): parent link {parent:#x} lands in neither node table; treated as a root"
            )),
        }
    }
    // Break parent cycles: walk each chain; a chain longer than the node count loops.
    for start in 0..count {
        let mut cursor = scene.nodes.get(start).and_then(|n| n.parent);
        let mut steps = 0;
        while let Some(p) = cursor {
            steps += 1;
            if p == start || steps > count {
                let name = scene.nodes.get(start).map(|n| n.name.clone()).unwrap_or_default();
                scene.warnings.push(format!("node {start} ({name}): parent links form a cycle; treated as a root"));
                if let Some(node) = scene.nodes.get_mut(start) {
                    node.parent = None;
                }
                break;
            }
            cursor = scene.nodes.get(p).and_then(|n| n.parent);
        }
    }
    for index in 0..count {
        if let Some(p) = scene.nodes.get(index).and_then(|n| n.parent)
            && let Some(parent) = scene.nodes.get_mut(p)
        {
            parent.children.push(index);
        }
    }
}

/// The frame table (8-byte entries, then 20-byte names) and the parallel frame data table.
pub(crate) struct TextureTables {
    pub frames: Table,
    pub frame_data: Table,
}

impl TextureTables {
    pub fn locate(r: &Reader) -> DecodeResult<Self> {
        let count = u64::from(r.u16(HDR_FRAME_COUNT, "frame count")?);
        let frame_offset = u64::from(r.u32(HDR_FRAME_TABLE, "frame table offset")?);
        let data_offset = u64::from(r.u32(HDR_FRAME_DATA_TABLE, "frame data table offset")?);
        let (frames, frame_data) = if count == 0 {
            (
                Table { offset: frame_offset, count: 0, stride: FRAME_ENTRY_SIZE },
                Table { offset: data_offset, count: 0, stride: FRAME_DATA_SIZE },
            )
        } else {
            (
                r.table(frame_offset, count, FRAME_ENTRY_SIZE, "frame table")?,
                r.table(data_offset, count, FRAME_DATA_SIZE, "frame data table")?,
            )
        };
        Ok(Self { frames, frame_data })
    }

    /// The texture name of frame `index`, through the frame data table's name pointer.
    pub(crate) fn name(&self, r: &Reader, index: u64) -> DecodeResult<String> {
        let pointer = u64::from(r.u32(self.frame_data.record(index) + FRAME_DATA_NAME, "frame data name pointer")?);
        r.cstr(pointer, TEXTURE_NAME_LEN, "texture name")
    }
}

/// Appends a batch of four to `out`, stopping at `count` entries: the last batch may hold
/// padding. A whole batch is a fixed-size copy; a slice of varying length would call `memcpy`
/// for every batch.
fn push_batch<T: Copy>(out: &mut Vec<T>, batch: [T; 4], count: usize) {
    let room = count.saturating_sub(out.len());
    if room >= 4 {
        out.extend(batch);
    } else {
        out.extend(batch.into_iter().take(room));
    }
}

fn batch_table(r: &Reader, offset: u64, count: u64, axes: u64, field: &str) -> DecodeResult<Table> {
    let batches = count.div_ceil(4);
    r.table(offset, batches, axes * 16, field)
}

fn decode_mesh(
    r: &Reader,
    rec: u64,
    mesh_index: usize,
    name: &str,
    textures: &TextureTables,
    material_base: usize,
    warnings: &mut Vec<String>,
) -> DecodeResult<(Mesh, MeshFacts, Vec<Material>)> {
    let vertex_count = u64::from(r.u16(rec + MESH_VERTEX_COUNT, "vertex count")?);
    let material_count = u64::from(r.u16(rec + MESH_MATERIAL_COUNT, "material count")?);
    let face_count = u64::from(r.u16(rec + MESH_FACE_COUNT, "face count")?);
    let order_length = u64::from(r.u16(rec + MESH_ORDER_LENGTH, "vertex order length")?);
    let vertex_offset = u64::from(r.u32(rec + MESH_VERTEX_DATA, "vertex data offset")?);
    let uv_offset = u64::from(r.u32(rec + MESH_UV_DATA, "UV data offset")?);
    let material_offset = u64::from(r.u32(rec + MESH_MATERIAL_TABLE, "material table offset")?);
    let face_offset = u64::from(r.u32(rec + MESH_FACE_DATA, "face data offset")?);
    let order_offset = u64::from(r.u32(rec + MESH_ORDER_TABLE, "vertex order table offset")?);
    let bbox_min = Vec3::from_array(r.f32s::<3>(rec + MESH_BBOX_MIN, "bounding box minimum")?);
    let bbox_max = Vec3::from_array(r.f32s::<3>(rec + MESH_BBOX_MAX, "bounding box maximum")?);

    // Check every table against the file before allocating from its count.
    let vertex_table = batch_table(r, vertex_offset, vertex_count, 3, "vertex data")?;
    let uv_table = batch_table(r, uv_offset, order_length, 2, "UV data")?;
    let order_table = r.table(order_offset, order_length, 2, "vertex order table")?;
    let face_table = r.table(face_offset, face_count, FACE_RECORD_SIZE, "face data")?;
    let material_table = r.table(material_offset, material_count, MATERIAL_RECORD_SIZE, "material table")?;

    // Each table is fetched once as a checked slice, then walked in fixed-size chunks.
    let vertex_bytes = r.bytes(vertex_table.offset, vertex_table.end() - vertex_table.offset, "vertex data")?;
    // Batches of four vertices as x0..x3, y0..y3, z0..z3: whole 48-byte batches are turned into
    // floats at once, and finiteness is checked once per mesh (the failing vertex is found only
    // when there is one).
    let mut source_positions = Vec::with_capacity(vertex_count as usize);
    for batch in vertex_bytes.as_chunks::<48>().0 {
        let words: [[u8; 4]; 12] = bytemuck::cast(*batch);
        let [x0, x1, x2, x3, y0, y1, y2, y3, z0, z1, z2, z3] = words.map(f32::from_le_bytes);
        let quad = [Vec3::new(x0, y0, z0), Vec3::new(x1, y1, z1), Vec3::new(x2, y2, z2), Vec3::new(x3, y3, z3)];
        push_batch(&mut source_positions, quad, vertex_count as usize);
    }
    if let Some(i) = first_non_finite(bytemuck::cast_slice(&source_positions), 3) {
        let i = i as u64;
        return Err(r.invalid("vertex data", vertex_table.record(i / 4), format!("vertex {i} is not finite")));
    }

    let order_bytes = r.bytes(order_table.offset, order_table.end() - order_table.offset, "vertex order table")?;
    let uv_bytes = r.bytes(uv_table.offset, uv_table.end() - uv_table.offset, "UV data")?;
    let mut vertex_source = Vec::with_capacity(order_length as usize);
    let mut uvs = Vec::with_capacity(order_length as usize);
    // Source indices are checked all at once (a max), the failing entry found only when one is bad.
    let order = order_bytes.as_chunks::<2>().0;
    // An empty order (the terrain models' empty heightfield mesh) names nothing.
    let highest = order.iter().fold(0u16, |m, &b| m.max(u16::from_le_bytes(b)));
    if !order.is_empty() && u64::from(highest) >= vertex_count {
        let i = order.iter().position(|&b| u64::from(u16::from_le_bytes(b)) >= vertex_count).unwrap_or(0);
        let source = order.get(i).map_or(u16::MAX, |&b| u16::from_le_bytes(b));
        return Err(r.invalid(
            "vertex order table",
            order_table.record(i as u64),
            format!("entry {i} names source vertex {source}, but the mesh has {vertex_count}"),
        ));
    }
    vertex_source.extend(order.iter().map(|&b| u32::from(u16::from_le_bytes(b))));
    // UV batches of four as u0..u3, v0..v3.
    for batch in uv_bytes.as_chunks::<32>().0 {
        let words: [[u8; 4]; 8] = bytemuck::cast(*batch);
        let [u0, u1, u2, u3, v0, v1, v2, v3] = words.map(f32::from_le_bytes);
        let quad = [Vec2::new(u0, v0), Vec2::new(u1, v1), Vec2::new(u2, v2), Vec2::new(u3, v3)]
            .map(|uv| if uv.is_finite() { uv } else { Vec2::ZERO });
        push_batch(&mut uvs, quad, order_length as usize);
    }

    let face_bytes = r.bytes(face_table.offset, face_table.end() - face_table.offset, "face data")?;
    let mut triangles = Vec::with_capacity(face_count as usize);
    let mut tags = Vec::with_capacity(face_count as usize);
    let mut highest_corner = 0u16;
    for face in face_bytes.as_chunks::<{ FACE_RECORD_SIZE as usize }>().0 {
        let [tag, a, b, c]: [u16; 4] = bytemuck::cast::<_, [[u8; 2]; 4]>(*face).map(u16::from_le_bytes);
        highest_corner = highest_corner.max(a).max(b).max(c);
        // Stored clockwise; swap B and C for a counter-clockwise front face.
        triangles.push([u32::from(a), u32::from(c), u32::from(b)]);
        tags.push(tag);
    }
    // Corners are checked all at once; the failing one is searched only when there is one.
    if !triangles.is_empty() && u64::from(highest_corner) >= order_length {
        let bad = face_bytes.as_chunks::<{ FACE_RECORD_SIZE as usize }>().0.iter().enumerate().find_map(|(i, face)| {
            let words: [u16; 4] = bytemuck::cast::<_, [[u8; 2]; 4]>(*face).map(u16::from_le_bytes);
            (1..4).find_map(|k| words.get(k).filter(|&&v| u64::from(v) >= order_length).map(|&v| (i, k, v)))
        });
        let (i, k, v) = bad.unwrap_or((0, 1, highest_corner));
        let at = face_table.record(i as u64) + 2 * k as u64;
        return Err(r.invalid(
            "face data",
            at,
            format!("face {i} names vertex {v}, but the mesh has {order_length} reordered vertices"),
        ));
    }

    let mut materials = Vec::with_capacity(material_count as usize);
    let mut ranges = Vec::with_capacity(material_count as usize);
    for i in 0..material_count {
        let offset = material_table.record(i);
        let (material, start, end) = decode_material(r, offset, name, i, textures, warnings)?;
        materials.push(material);
        ranges.push((start, end));
    }

    // Group triangles by the material whose vertex range holds their first corner; triangles
    // in no range are drawn last with no material.
    let material_of = |v: u32| ranges.iter().position(|&(s, e)| v >= s && v <= e);
    // Triangles grouped by slot (the last slot is "no material"), keeping file order within a
    // slot. Files list faces material by material, so the common case is one copy; otherwise a
    // counting sort places them.
    let no_material = ranges.len();
    let slots: Vec<usize> = triangles.iter().map(|tri| material_of(tri[0]).unwrap_or(no_material)).collect();
    let mut counts = vec![0usize; no_material + 1];
    for run in slots.chunk_by(|a, b| a == b) {
        if let Some(count) = run.first().and_then(|&slot| counts.get_mut(slot)) {
            *count += run.len();
        }
    }
    if !slots.is_sorted() {
        let mut next: Vec<usize> = counts
            .iter()
            .scan(0usize, |start, &count| {
                let first = *start;
                *start += count;
                Some(first)
            })
            .collect();
        let mut grouped = vec![[0u32; 3]; triangles.len()];
        let mut grouped_tags = vec![0u16; tags.len()];
        for ((&tri, &tag), &slot) in triangles.iter().zip(&tags).zip(&slots) {
            let Some(at) = next.get_mut(slot) else { continue };
            if let (Some(t), Some(g)) = (grouped.get_mut(*at), grouped_tags.get_mut(*at)) {
                *t = tri;
                *g = tag;
            }
            *at += 1;
        }
        triangles = grouped;
        tags = grouped_tags;
    }
    let mut submeshes = Vec::new();
    let mut first_triangle = 0usize;
    for (slot, &count) in counts.iter().enumerate() {
        let range = ranges.get(slot).copied();
        if range.is_none() && count == 0 {
            continue;
        }
        if range.is_none() {
            warnings.push(format!("{name}: {count} triangles lie in no material's vertex range; drawn untextured"));
        }
        let (vertex_start, vertex_end) = range.unwrap_or((0, 0));
        submeshes.push(Submesh {
            material: range.map(|_| material_base + slot),
            first_triangle: first_triangle as u32,
            triangle_count: count as u32,
            vertex_start,
            vertex_end,
        });
        first_triangle += count;
    }

    let render_positions = crate::scene::expand_positions(&source_positions, &vertex_source);
    // The engine lights with the stored table in every pose: morph does not rewrite it (§7).
    let (normals, keep_rest_normals) = match stored_normals(r, rec, order_length) {
        Ok(Some(normals)) => (normals, true),
        Ok(None) => (compute_normals(&render_positions, &triangles), false),
        Err(reason) => {
            warnings.push(format!("{name}: stored normals unusable ({reason}); computed from the faces instead"));
            (compute_normals(&render_positions, &triangles), false)
        }
    };
    let raw = [
        ("flags", MESH_FLAGS),
        ("pointer 0x04", 0x04),
        ("pointer 0x08", 0x08),
        ("pointer 0x0C", 0x0C),
        ("unknown 0x50", 0x50),
        ("normals 0x64", MESH_NORMALS),
        ("unknown 0x74", 0x74),
        ("unknown 0x90", 0x90),
        ("unknown 0x98", 0x98),
        ("unknown 0x9C", 0x9C),
    ]
    .iter()
    .map(|&(label, at)| r.u32(rec + at, label).map(|v| RawField::new(label, rec + at, u64::from(v))))
    .collect::<DecodeResult<Vec<_>>>()?;

    let mesh = Mesh {
        name: name.to_string(),
        node: Some(mesh_index),
        bounds: crate::scene::Aabb::from_points(&source_positions),
        source_positions,
        vertex_source,
        uvs,
        uvs1: Vec::new(),
        normals,
        keep_rest_normals,
        triangles,
        submeshes,
        skin: None,
        raw,
        raw_triangle_tags: tags,
    };
    let facts = MeshFacts { vertex_count: vertex_count as u32, order_length: order_length as u32, bbox_min, bbox_max };
    Ok((mesh, facts, materials))
}

/// The mesh's stored normals (table at 0x64, notes §7), one per render vertex: the engine's
/// lighter reads one entry per vertex-order slot. `None` when the pointer is 0.
fn stored_normals(r: &Reader, rec: u64, order_length: u64) -> Result<Option<Vec<Vec3>>, String> {
    let offset = u64::from(r.u32(rec + MESH_NORMALS, "normals table offset").map_err(|e| e.to_string())?);
    if offset == 0 || order_length == 0 {
        return Ok(None);
    }
    let table = r.table(offset, order_length, 12, "normals table").map_err(|e| e.to_string())?;
    let bytes = r.bytes(table.offset, table.end() - table.offset, "normals table").map_err(|e| e.to_string())?;
    let entries = bytes.as_chunks::<12>().0;
    let normals: Vec<Vec3> = entries
        .iter()
        .map(|entry| {
            let words: [[u8; 4]; 3] = bytemuck::cast(*entry);
            // A zero or non-finite entry becomes NaN, found below.
            Vec3::from_array(words.map(f32::from_le_bytes)).try_normalize().unwrap_or(Vec3::NAN)
        })
        .collect();
    if let Some(i) = first_non_finite(bytemuck::cast_slice(&normals), 3) {
        return Err(format!("entry {i} at {:#x} is not a usable direction", table.record(i as u64)));
    }
    Ok(Some(normals))
}

fn decode_material(
    r: &Reader,
    offset: u64,
    mesh_name: &str,
    index: u64,
    textures: &TextureTables,
    warnings: &mut Vec<String>,
) -> DecodeResult<(Material, u32, u32)> {
    let field = |f: &str| format!("material[{index}].{f}");
    let frame_offset = r.u32(offset + MAT_FRAME_OFFSET, &field("frame offset"))?;
    let start = u32::from(r.u16(offset + MAT_START, &field("start index"))?);
    let end = u32::from(r.u16(offset + MAT_END, &field("end index"))?);
    let mut material = Material::new(format!("{mesh_name}/{index}"));
    material.raw = vec![
        RawField::new("frame offset", offset, u64::from(frame_offset)),
        RawField::new("unknown +0x04", offset + 4, u64::from(r.u16(offset + 4, &field("unknown"))?)),
        RawField::new("unknown +0x06", offset + 6, u64::from(r.u16(offset + 6, &field("unknown"))?)),
        RawField::new("unknown +0x0C", offset + 12, u64::from(r.u32(offset + 12, &field("unknown"))?)),
    ];
    if frame_offset != 0 {
        // The flags word sits at the frame offset itself: the frame table entry's first bytes.
        let frame_offset = u64::from(frame_offset);
        material.flags = r.u32(frame_offset, &field("flags word"))?;
        match textures.frames.index_of(frame_offset) {
            Some(frame) => match textures.name(r, frame) {
                Ok(name) => material.texture = Some(name),
                Err(e) => warnings.push(format!("{mesh_name}: material {index}: texture name unreadable ({e})")),
            },
            None => warnings.push(format!(
                "{mesh_name}: material {index}: frame offset {frame_offset:#x} is not an entry of the frame table at {:#x}; no texture",
                textures.frames.offset
            )),
        }
        if material.flags & SEE_THROUGH_FLAG != 0 {
            material.alpha = AlphaMode::SeeThrough;
        }
    }
    if let Some(texture) = &material.texture {
        material.name = texture.clone();
    }
    if end < start {
        warnings.push(format!("{mesh_name}: material {index}: vertex range {start}..={end} is empty"));
    }
    Ok((material, start, end))
}

/// Whether any node of the scene is sheared (for summaries).
pub fn sheared_nodes(scene: &Scene) -> Vec<usize> {
    scene.nodes.iter().enumerate().filter(|(_, n)| is_sheared(&n.local)).map(|(i, _)| i).collect()
}
