//! An encoder for Theme Park World `.md2` files, written from the spec (`tpw-md2.txt`), not from
//! the decoder. No game files are public, so tests, benchmarks and the built-in demo write their
//! own: [`MeshFile`] for static meshes with a node tree, [`AnimFile`] for animation files.
//!
//! What the writer guarantees is structure: every count matches its table, every stored offset
//! points at what the spec says it points at, every table starts on a 4-byte boundary, the track
//! table ends exactly where the animation block starts (unless asked to break that), and every
//! channel bit it sets owns a filled slot. [`MeshFile::validate`] and [`AnimFile::validate`]
//! state the structural rules a spec must follow; `to_bytes` checks them with `debug_assert!`.
//! Values are the caller's: a non-unit quaternion or descending frames are written as given, so
//! decoder tests can build files a reader must reject.
//!
//! Layout choices the spec leaves open (none of which a reader may rely on):
//! - Mesh files: header, frame table (entries then names), frame data table, mesh table, node
//!   table, node names, then per mesh its vertices, UVs, vertex order, faces and materials.
//! - Animation files: header, track table, animation block, then per track its channel data.
//! - A pointer to an empty table is 0; header 0x74 is 0 when there are no transform-only nodes.
//! - Top-level nodes are chained through their sibling links, in index order, like children.
//! - Fields the spec calls unknown are written as 0.

use glam::{Mat4, Quat, Vec3};

use super::layout::*;

/// Every table the writer lays out starts on, and is padded to, this boundary.
const ALIGN: u64 = 4;
/// Texture names live in 20-byte NUL-padded fields, so at most 19 characters keep a terminator.
pub const MAX_TEXTURE_NAME: usize = TEXTURE_NAME_LEN as usize - 1;

/// The 4x4 identity, row-major.
pub const IDENTITY: [f32; 16] = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0];

/// One frame-table entry: a texture name and the flags word at the entry's first 4 bytes
/// (the word materials read through their FrameOffset; 0x01 is set on every game material,
/// 0x02 marks see-through).
#[derive(Debug, Clone, PartialEq)]
pub struct TextureSpec {
    pub name: String,
    pub flags: u32,
}

impl TextureSpec {
    pub fn new(name: impl Into<String>, flags: u32) -> Self {
        Self { name: name.into(), flags }
    }

    /// Flags 0x01, as on every material in the game.
    pub fn opaque(name: impl Into<String>) -> Self {
        Self::new(name, 0x01)
    }

    /// Flags 0x01 | 0x02: drawn see-through.
    pub fn see_through(name: impl Into<String>) -> Self {
        Self::new(name, 0x01 | SEE_THROUGH_FLAG)
    }
}

impl Default for TextureSpec {
    fn default() -> Self {
        Self::opaque("")
    }
}

/// A material: its texture (index into [`MeshFile::textures`]; `None` writes FrameOffset 0,
/// "no texture") and the inclusive range of final vertices it covers.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MaterialSpec {
    pub texture: Option<usize>,
    pub start: u16,
    pub end: u16,
}

/// One mesh node (a 160-byte record at header 0x70).
#[derive(Debug, Clone, PartialEq)]
pub struct MeshSpec {
    pub name: String,
    /// Node index: meshes are nodes `0..meshes.len()`, dummies follow in order.
    pub parent: Option<usize>,
    /// Row-major, row-vector convention (translation at elements 12, 13, 14).
    pub matrix: [f32; 16],
    /// Source vertices, written in batches of 4, axis-major, count padded to a multiple of 4.
    pub vertices: Vec<[f32; 3]>,
    /// Final vertex `i` -> source vertex index; its length is the vertex order length (0x5E).
    pub vertex_order: Vec<u16>,
    /// One per final vertex, batched like the vertices but with 2 axes.
    pub uvs: Vec<[f32; 2]>,
    /// A, B, C into the final vertex list, exactly as stored: the file's winding is the reverse
    /// of counter-clockwise front faces, and the writer does not flip.
    pub faces: Vec<[u16; 3]>,
    /// The leading unknown u16 of each face; empty writes zeros.
    pub face_tags: Vec<u16>,
    pub materials: Vec<MaterialSpec>,
    /// `None` writes the vertices' own box (zeros for a mesh with none). Morph values quantise
    /// into this box, so a mesh that morphs beyond its rest shape states a bigger one.
    pub bbox: Option<([f32; 3], [f32; 3])>,
    /// The record's flags word. Bit 0x200 is never written on a mesh record: it marks a
    /// transform-only node, and the engine skips the materials of a node that carries it.
    pub flags: u32,
    /// The normals table at 0x64, one entry per final vertex (the lighter's reading); `None`
    /// writes pointer 0 (no stored normals).
    pub normals: Option<Vec<[f32; 3]>>,
}

impl Default for MeshSpec {
    fn default() -> Self {
        Self {
            name: String::new(),
            parent: None,
            matrix: IDENTITY,
            vertices: Vec::new(),
            vertex_order: Vec::new(),
            uvs: Vec::new(),
            faces: Vec::new(),
            face_tags: Vec::new(),
            materials: Vec::new(),
            bbox: None,
            flags: 0,
            normals: None,
        }
    }
}

impl MeshSpec {
    /// The box written at 0x78/0x84: the given one, or the vertices' own.
    pub fn written_bbox(&self) -> ([f32; 3], [f32; 3]) {
        if let Some(bbox) = self.bbox {
            return bbox;
        }
        let mut points = self.vertices.iter().map(|v| Vec3::from_array(*v));
        let Some(first) = points.next() else { return ([0.0; 3], [0.0; 3]) };
        let (min, max) = points.fold((first, first), |(lo, hi), p| (lo.min(p), hi.max(p)));
        (min.to_array(), max.to_array())
    }
}

/// A transform-only node: an 88-byte record at header 0x74. The writer always sets bit 0x200.
#[derive(Debug, Clone, PartialEq)]
pub struct DummySpec {
    pub name: String,
    pub parent: Option<usize>,
    pub matrix: [f32; 16],
    pub flags: u32,
    /// Makes this a path node: sets flag 0x8 and writes the path index at +0x52.
    pub path: Option<u16>,
}

impl Default for DummySpec {
    fn default() -> Self {
        Self { name: String::new(), parent: None, matrix: IDENTITY, flags: TRANSFORM_ONLY_FLAG, path: None }
    }
}

/// One path-table record (header 0xAC): type bits (0x1 closed, 0x2 Bezier, 0x8 straight) and
/// points in the path node's space.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PathSpec {
    pub kind: u32,
    pub points: Vec<[f32; 3]>,
}

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

/// A heightfield block: `across × down` cells of `cell` size, and `(across + 1) × (down + 1)`
/// heights row by row. The per-cell records are written as zeros.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HeightfieldSpec {
    pub cell: [f32; 2],
    pub across: u32,
    pub down: u32,
    /// The authored height range (+0x20, +0x24).
    pub low: f32,
    pub high: f32,
    pub heights: Vec<f32>,
}

/// One 20-byte node id record (notes §4): flag word, id, and an optional face anchor.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NodeIdSpec {
    pub flags: u32,
    pub id: u32,
    pub anchor: Option<FaceAnchorSpec>,
}

/// A 16-byte face anchor: a face of the parent's mesh, `u` and `v` across it, and the offset
/// along the face's stored normal.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct FaceAnchorSpec {
    pub face: u16,
    pub u: f32,
    pub v: f32,
    pub offset: f32,
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

/// One 20-byte rotation keyframe.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RotationKeySpec {
    pub frame: u16,
    /// Easing curve id into [`TrackSpec::easing`]; [`NO_EASING`] (0xFFFF) for none.
    pub curve: u16,
    /// x, y, z, w.
    pub quat: [f32; 4],
}

/// One 20-byte morph record: `channels.len()` channel ids keyed at `frames`, values entry-major
/// (`values[e * channels.len() + k]`, packed with [`pack_morph`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MorphRecordSpec {
    pub channels: Vec<u16>,
    pub frames: Vec<u16>,
    pub values: Vec<u32>,
}

/// A morph descriptor (0x2C bytes): flags byte, the track's quantisation box (centre at +0x14,
/// step at +0x20) and its records.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MorphSpec {
    pub flags: u8,
    pub centre: [f32; 3],
    pub step: [f32; 3],
    pub records: Vec<MorphRecordSpec>,
}

/// Raw float vertex frames (bits 0x1000 + 0x4000): a 16-byte record, the index table (one u32
/// per target vertex) directly before whole frames of `per_frame` positions.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RawFramesSpec {
    pub index: Vec<u32>,
    pub per_frame: u32,
    pub positions: Vec<[f32; 3]>,
}

/// One UV entry: the keys of one UV slot, `(frame, [u, v])`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UvEntrySpec {
    pub keys: Vec<(u16, [f32; 2])>,
}

/// A position record: type word (0x12 Bezier, 0x18 straight), points and key frames.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PositionSpec {
    pub kind: u32,
    pub points: Vec<[f32; 3]>,
    pub frames: Vec<u16>,
}

/// A path-progress record: one percentage per frame from `start`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PathProgressSpec {
    pub start: u32,
    pub values: Vec<f32>,
}

/// One 64-byte track descriptor and its channels.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TrackSpec {
    /// The index stored at +0x00; `None` writes its position in the table.
    pub index: Option<u32>,
    pub target: u16,
    /// The u16 at +0x16 when the track has no visibility channel (which owns it as its count).
    pub unrelated_16: u16,
    /// The frame value at +0x0C.
    pub frame_value: u32,
    /// OR'd into the computed flag word as given (e.g. 0x400 facing, or 0x40). A channel bit set
    /// here without its data leaves that slot 0: a deliberately broken track.
    pub extra_flags: u32,
    /// Empty means no rotation channel (bit 0x8, count at +0x10, pointer at +0x1C).
    pub rotation: Vec<RotationKeySpec>,
    /// Easing curves at +0x34, 8 bytes each; curve id k is record k.
    pub easing: Vec<[u8; 8]>,
    /// Bit 0x1000: a 0x2C-byte descriptor at +0x28 and 20-byte records.
    pub morph: Option<MorphSpec>,
    /// Bits 0x1000 + 0x4000: raw frames at +0x28.
    pub raw_frames: Option<RawFramesSpec>,
    /// Bit 0x10000: a 20-byte descriptor at +0x2C; index, value and frame tables contiguous.
    pub uv: Option<Vec<UvEntrySpec>>,
    /// Bit 0x1: a 16-byte record at +0x18.
    pub position: Option<PositionSpec>,
    /// Bits 0x80 + 0x100: count at +0x12, 16-byte keys at +0x20.
    pub scale: Option<Vec<(u16, [f32; 3])>>,
    /// Bit 0x200: a 16-byte record at +0x24, values after it.
    pub path_progress: Option<PathProgressSpec>,
    /// Bit 0x20000: count at +0x16, i16 entries at +0x30.
    pub visibility: Option<Vec<i16>>,
}

/// A whole animation file.
#[derive(Debug, Clone, PartialEq)]
pub struct AnimFile {
    /// Header 0x04.
    pub version: u32,
    /// Header 0x08; the engine discards the animation unless it is 0xCB.
    pub anim_version: u32,
    /// Block +0x04 (0 in every game file) and +0x08: the clip spans their difference.
    pub first_frame: i32,
    pub last_frame: u32,
    /// Block +0x1A / +0x38: node indices hidden at clip start.
    pub hide_list: Vec<u16>,
    pub tracks: Vec<TrackSpec>,
    /// Leave 4 bytes between the track table and the block, so that
    /// `tableOffset + count * 64 == blockOffset` fails.
    pub break_identity: bool,
    /// Store 0 at header 0x98 (the block is still laid out).
    pub no_block: bool,
}

impl Default for AnimFile {
    fn default() -> Self {
        Self {
            version: MAX_VERSION,
            anim_version: ANIM_VERSION,
            first_frame: 0,
            last_frame: 0,
            hide_list: Vec::new(),
            tracks: Vec::new(),
            break_identity: false,
            no_block: false,
        }
    }
}

/// A file under construction: zero-filled, growing at 4-byte-aligned ends.
struct Buf {
    bytes: Vec<u8>,
}

impl Buf {
    fn with_header() -> Self {
        let mut buf = Self { bytes: vec![0; HEADER_SIZE as usize] };
        buf.put(0, &MAGIC);
        buf
    }

    /// Appends `size` zero bytes (padded to 4) at the next 4-byte boundary; returns their offset.
    fn reserve(&mut self, size: u64) -> u64 {
        let start = (self.bytes.len() as u64).next_multiple_of(ALIGN);
        self.bytes.resize((start + size.next_multiple_of(ALIGN)) as usize, 0);
        start
    }

    fn append(&mut self, data: &[u8]) -> u64 {
        let at = self.reserve(data.len() as u64);
        self.put(at, data);
        at
    }

    fn put(&mut self, at: u64, data: &[u8]) {
        let start = at as usize;
        let end = start + data.len();
        if self.bytes.len() < end {
            self.bytes.resize(end, 0);
        }
        if let Some(dst) = self.bytes.get_mut(start..end) {
            dst.copy_from_slice(data);
        }
    }

    fn u16(&mut self, at: u64, value: u16) {
        self.put(at, &value.to_le_bytes());
    }

    fn u32(&mut self, at: u64, value: u32) {
        self.put(at, &value.to_le_bytes());
    }

    /// Stores a file offset as the u32 the format keeps.
    fn offset(&mut self, at: u64, offset: u64) {
        self.u32(at, to_u32(offset));
    }

    fn f32s(&mut self, at: u64, values: &[f32]) {
        for (i, v) in values.iter().enumerate() {
            self.put(at + 4 * i as u64, &v.to_le_bytes());
        }
    }

    fn finish(self) -> Vec<u8> {
        self.bytes
    }
}

fn to_u32(value: u64) -> u32 {
    debug_assert!(value <= u64::from(u32::MAX), "offset {value:#x} does not fit the format's u32");
    u32::try_from(value).unwrap_or(u32::MAX)
}

fn to_u16(value: usize) -> u16 {
    debug_assert!(value <= usize::from(u16::MAX), "count {value} does not fit the format's u16");
    u16::try_from(value).unwrap_or(u16::MAX)
}

fn u16s(values: &[u16]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn u32s(values: &[u32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// `data` zero-padded to at least 4 bytes, so a slot pointer always lands inside the file.
fn write_batched<const N: usize>(buf: &mut Buf, items: &[[f32; N]]) -> u64 {
    if items.is_empty() {
        return 0;
    }
    let batch_size = N as u64 * 16;
    let at = buf.reserve(items.len().div_ceil(4) as u64 * batch_size);
    for (i, item) in items.iter().enumerate() {
        let (batch, lane) = ((i / 4) as u64, (i % 4) as u64);
        for (axis, value) in item.iter().enumerate() {
            buf.f32s(at + batch * batch_size + axis as u64 * 16 + lane * 4, &[*value]);
        }
    }
    at
}

fn check_name(what: &str, name: &str) -> Result<(), String> {
    if !name.is_ascii() || name.contains('\0') || name.len() >= MAX_NAME_LEN as usize {
        return Err(format!("{what}: name {name:?} must be ASCII, without NUL, under {MAX_NAME_LEN} bytes"));
    }
    Ok(())
}

/// Per node: its next sibling and first child, both in index order. Top-level nodes are chained
/// as siblings of each other.
fn derive_links(parents: &[Option<usize>]) -> (Vec<Option<usize>>, Vec<Option<usize>>) {
    let count = parents.len();
    let mut sibling = vec![None; count];
    let mut first_child = vec![None; count];
    let mut last_child: Vec<Option<usize>> = vec![None; count];
    let mut last_root = None;
    for (index, parent) in parents.iter().enumerate() {
        let last = match parent {
            Some(p) => last_child.get_mut(*p),
            None => Some(&mut last_root),
        };
        let Some(last) = last else { continue };
        match last.replace(index) {
            Some(previous) => {
                if let Some(s) = sibling.get_mut(previous) {
                    *s = Some(index);
                }
            }
            None => {
                if let Some(c) = parent.and_then(|p| first_child.get_mut(p)) {
                    *c = Some(index);
                }
            }
        }
    }
    (sibling, first_child)
}

/// Checks that following parents from every node ends at a root within `parents.len()` steps.
fn check_parents(parents: &[Option<usize>]) -> Result<(), String> {
    let count = parents.len();
    for (index, parent) in parents.iter().enumerate() {
        if let Some(p) = parent
            && *p >= count
        {
            return Err(format!("node {index}: parent {p} is not one of the {count} nodes"));
        }
        let mut cursor = *parent;
        let mut steps = 0;
        while let Some(p) = cursor {
            steps += 1;
            if p == index || steps > count {
                return Err(format!("node {index}: parent links form a cycle"));
            }
            cursor = parents.get(p).copied().flatten();
        }
    }
    Ok(())
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

impl TrackSpec {
    /// The flag word written at +0x04: one bit per channel carried, plus `extra_flags`.
    pub fn flags(&self) -> u32 {
        let mut flags = self.extra_flags;
        let mut set = |present: bool, bits: u32| {
            if present {
                flags |= bits;
            }
        };
        set(!self.rotation.is_empty(), CH_ROTATION);
        set(self.morph.is_some(), CH_MORPH);
        set(self.raw_frames.is_some(), CH_MORPH | CH_RAW_FRAMES);
        set(self.uv.is_some(), CH_UV);
        set(self.position.is_some(), CH_POSITION);
        set(self.scale.is_some(), CH_SCALE);
        set(self.path_progress.is_some(), CH_PATH);
        set(self.visibility.is_some(), CH_VISIBILITY);
        flags
    }
}

impl AnimFile {
    /// The structural rules a spec must follow for its file to lay out as the spec says.
    pub fn validate(&self) -> Result<(), String> {
        let limit = usize::from(u16::MAX);
        if self.tracks.len() > limit || self.hide_list.len() > limit {
            return Err(format!("{} tracks or the hide list do not fit a u16 count", self.tracks.len()));
        }
        let key_sum: usize = self.tracks.iter().map(|t| t.rotation.len()).sum();
        if key_sum > limit {
            return Err(format!("{key_sum} rotation keys do not fit the block's u16 sum"));
        }
        for (i, track) in self.tracks.iter().enumerate() {
            if track.morph.is_some() && track.raw_frames.is_some() {
                return Err(format!("track {i}: morph and raw frames share the +0x28 slot"));
            }
            for record in track.morph.iter().flat_map(|m| &m.records) {
                if record.channels.len() > limit || record.frames.len() > limit {
                    return Err(format!("track {i}: a morph record's counts do not fit u16"));
                }
                if record.values.len() != record.channels.len() * record.frames.len() {
                    return Err(format!(
                        "track {i}: a morph record has {} values for {} channels x {} frames",
                        record.values.len(),
                        record.channels.len(),
                        record.frames.len()
                    ));
                }
            }
            if track.morph.as_ref().is_some_and(|m| m.records.len() > limit) {
                return Err(format!("track {i}: too many morph records for the descriptor's u16"));
            }
            if track.uv.iter().flatten().any(|e| e.keys.len() > limit) {
                return Err(format!("track {i}: a UV entry has more keys than a u16 holds"));
            }
            if let Some(position) = &track.position {
                let keys = position.frames.len();
                let points = if position.kind & PATH_BEZIER != 0 { 3 * keys.saturating_sub(1) + 1 } else { keys };
                if keys == 0 || keys > limit || position.points.len() != points {
                    return Err(format!(
                        "track {i}: position type {:#x} with {keys} keys needs {points} points",
                        position.kind
                    ));
                }
            }
            if track.scale.as_ref().is_some_and(|k| k.len() > limit)
                || track.visibility.as_ref().is_some_and(|v| v.len() > limit)
            {
                return Err(format!("track {i}: scale keys or visibility entries do not fit a u16 count"));
            }
            if track.rotation.iter().any(|k| k.curve != NO_EASING && usize::from(k.curve) >= track.easing.len()) {
                return Err(format!("track {i}: a rotation key names a curve past the {} written", track.easing.len()));
            }
        }
        Ok(())
    }

    /// Encodes the file. Structural mistakes in the spec are caught by `debug_assert!` (see
    /// [`AnimFile::validate`]).
    pub fn to_bytes(&self) -> Vec<u8> {
        let checked = self.validate();
        debug_assert!(checked.is_ok(), "invalid TPW animation spec: {checked:?}");

        let mut buf = Buf::with_header();
        buf.u32(HDR_VERSION, self.version);
        buf.u32(HDR_ANIM_VERSION, self.anim_version);
        // Header 0x70 stays 0: that is what makes this an animation file.
        let table = buf.reserve(self.tracks.len() as u64 * TRACK_SIZE);
        if self.break_identity {
            buf.reserve(ALIGN);
        }
        let block = buf.reserve(ANIM_BLOCK_SIZE);
        buf.offset(HDR_ANIM_BLOCK, if self.no_block { 0 } else { block });
        let key_sum: usize = self.tracks.iter().map(|t| t.rotation.len()).sum();
        buf.put(block + ANIM_FIRST_FRAME, &self.first_frame.to_le_bytes());
        buf.u32(block + ANIM_LAST_FRAME, self.last_frame);
        buf.u16(block + ANIM_ROTATION_KEY_SUM, to_u16(key_sum));
        buf.u16(block + ANIM_TRACK_COUNT, to_u16(self.tracks.len()));
        buf.offset(block + ANIM_TRACK_TABLE, table);
        if !self.hide_list.is_empty() {
            let list = buf.append(&u16s(&self.hide_list));
            buf.u16(block + ANIM_HIDE_COUNT, to_u16(self.hide_list.len()));
            buf.offset(block + ANIM_HIDE_LIST, list);
        }

        for (position, track) in (0u32..).zip(&self.tracks) {
            write_track(&mut buf, table + u64::from(position) * TRACK_SIZE, position, track);
        }
        buf.finish()
    }
}

fn write_track(buf: &mut Buf, at: u64, position: u32, track: &TrackSpec) {
    buf.u32(at + TRACK_INDEX, track.index.unwrap_or(position));
    buf.u32(at + TRACK_FLAGS, track.flags());
    buf.u32(at + TRACK_FRAME_VALUE, track.frame_value);
    buf.u16(at + TRACK_ROTATION_COUNT, to_u16(track.rotation.len()));
    buf.u16(at + TRACK_TARGET, track.target);
    buf.u16(at + TRACK_UNRELATED_16, track.unrelated_16);

    if !track.rotation.is_empty() {
        let keys = buf.reserve(track.rotation.len() as u64 * ROTATION_KEY_SIZE);
        for (i, key) in (0u64..).zip(&track.rotation) {
            let rec = keys + i * ROTATION_KEY_SIZE;
            buf.u16(rec, key.frame);
            buf.u16(rec + 2, key.curve);
            buf.f32s(rec + 4, &key.quat);
        }
        buf.offset(at + TRACK_SLOT_ROTATION, keys);
    }
    if !track.easing.is_empty() {
        let curves = buf.append(&track.easing.concat());
        buf.offset(at + TRACK_SLOT_EASING, curves);
    }

    if let Some(morph) = &track.morph {
        let descriptor = buf.reserve(MORPH_DESCRIPTOR_SIZE);
        let table = buf.reserve(morph.records.len() as u64 * MORPH_RECORD_SIZE);
        buf.put(descriptor, &[morph.flags]);
        buf.u16(descriptor + MORPH_RECORD_COUNT, to_u16(morph.records.len()));
        buf.offset(descriptor + MORPH_RECORD_TABLE, table);
        buf.f32s(descriptor + MORPH_CENTRE, &morph.centre);
        buf.f32s(descriptor + MORPH_STEP, &morph.step);
        for (i, record) in (0u64..).zip(&morph.records) {
            let rec = table + i * MORPH_RECORD_SIZE;
            // Each array starts on a 4-byte boundary: the channel ids and the frames are padded.
            let channels = buf.append(&u16s(&record.channels));
            let frames = buf.append(&u16s(&record.frames));
            let values = buf.append(&u32s(&record.values));
            buf.u16(rec, to_u16(record.frames.len()));
            buf.u16(rec + 2, to_u16(record.channels.len()));
            buf.offset(rec + 4, channels);
            buf.offset(rec + 8, frames);
            buf.offset(rec + 12, values);
        }
        buf.offset(at + TRACK_SLOT_MORPH, descriptor);
    }

    if let Some(frames) = &track.raw_frames {
        let record = buf.reserve(RAW_FRAMES_RECORD_SIZE);
        let index = buf.append(&u32s(&frames.index));
        let positions =
            buf.append(&frames.positions.iter().flatten().flat_map(|v| v.to_le_bytes()).collect::<Vec<_>>());
        buf.offset(record, index);
        buf.u32(record + 4, frames.per_frame);
        buf.offset(record + 8, positions);
        buf.offset(at + TRACK_SLOT_MORPH, record);
    }

    if let Some(entries) = &track.uv {
        let n = entries.len() as u64;
        let c: usize = entries.iter().map(|e| e.keys.len()).sum();
        let descriptor = buf.reserve(UV_DESCRIPTOR_SIZE);
        // Index (n x 4), value (c x 8) and frame (c x 2) tables, contiguous in that order.
        let index = buf.reserve(n * 4);
        let values = buf.reserve(c as u64 * 8);
        let frames = buf.reserve(c as u64 * 2);
        buf.u32(descriptor + UV_ENTRY_COUNT, to_u32(n));
        buf.offset(descriptor + UV_INDEX_TABLE, index);
        buf.u32(descriptor + UV_KEY_COUNT, to_u32(c as u64));
        buf.offset(descriptor + UV_FRAME_TABLE, frames);
        buf.offset(descriptor + UV_VALUE_TABLE, values);
        let mut first = 0u64;
        for (i, entry) in (0u64..).zip(entries) {
            buf.u16(index + 4 * i, to_u16(first as usize));
            buf.u16(index + 4 * i + 2, to_u16(entry.keys.len()));
            for (k, (frame, uv)) in (first..).zip(&entry.keys) {
                buf.f32s(values + 8 * k, uv);
                buf.u16(frames + 2 * k, *frame);
            }
            first += entry.keys.len() as u64;
        }
        buf.offset(at + TRACK_SLOT_UV, descriptor);
    }

    if let Some(position) = &track.position {
        let record = buf.reserve(POSITION_RECORD_SIZE);
        let points = buf.append(&position.points.iter().flatten().flat_map(|v| v.to_le_bytes()).collect::<Vec<_>>());
        let keys: Vec<u16> = position.frames.iter().flat_map(|&f| [f, 0]).collect();
        let keys = buf.append(&u16s(&keys));
        buf.u32(record, position.kind);
        buf.u16(record + 4, to_u16(position.points.len()));
        buf.u16(record + 6, to_u16(position.frames.len()));
        buf.offset(record + 8, points);
        buf.offset(record + 12, keys);
        buf.offset(at + TRACK_SLOT_POSITION, record);
    }

    if let Some(keys) = &track.scale {
        let table = buf.reserve(keys.len() as u64 * SCALE_KEY_SIZE);
        for (i, (frame, value)) in (0u64..).zip(keys) {
            buf.u16(table + i * SCALE_KEY_SIZE, *frame);
            buf.f32s(table + i * SCALE_KEY_SIZE + 4, value);
        }
        buf.u16(at + TRACK_SCALE_COUNT, to_u16(keys.len()));
        buf.offset(at + TRACK_SLOT_SCALE, table);
    }

    if let Some(progress) = &track.path_progress {
        // The values follow the record directly, as in all 71 game tracks.
        let record = buf.reserve(PATH_PROGRESS_RECORD_SIZE + progress.values.len() as u64 * 4);
        buf.u32(record, progress.start);
        buf.u32(record + 4, to_u32(progress.values.len() as u64));
        buf.offset(record + 12, record + PATH_PROGRESS_RECORD_SIZE);
        buf.f32s(record + PATH_PROGRESS_RECORD_SIZE, &progress.values);
        buf.offset(at + TRACK_SLOT_PATH, record);
    }

    if let Some(entries) = &track.visibility {
        let list: Vec<u8> = entries.iter().flat_map(|e| e.to_le_bytes()).collect();
        let list = if list.is_empty() { buf.reserve(ALIGN) } else { buf.append(&list) };
        buf.u16(at + TRACK_VISIBILITY_COUNT, to_u16(entries.len()));
        buf.offset(at + TRACK_SLOT_VISIBILITY, list);
    }
}

/// Packs a position into the three signed 10-bit fields of a morph value (X bits 0-9, Y 10-19,
/// Z 20-29) in a track's box: the inverse of `centre + field * step`, rounded and clamped to
/// -512..=511. A zero step packs 0.
pub fn pack_morph(pos: [f32; 3], centre: [f32; 3], step: [f32; 3]) -> u32 {
    let fields = pos.iter().zip(centre.iter().zip(&step)).map(|(&p, (&c, &s))| {
        let field = if s != 0.0 && s.is_finite() && p.is_finite() {
            ((p - c) / s).round().clamp(-512.0, 511.0) as i32
        } else {
            0
        };
        (field as u32) & 0x3FF
    });
    fields.zip([0u32, 10, 20]).fold(0, |raw, (field, shift)| raw | (field << shift))
}

/// A box (centre, step) whose 10-bit fields span `min..=max`: centre midway, step =
/// extent / 1023 (the writer's choice; the notes say nothing of how the game's tools chose).
pub fn morph_box(min: [f32; 3], max: [f32; 3]) -> ([f32; 3], [f32; 3]) {
    let (min, max) = (Vec3::from_array(min), Vec3::from_array(max));
    (((min + max) * 0.5).to_array(), ((max - min) / 1023.0).to_array())
}

/// Row-major (row-vector) form of a column-vector glam matrix: the same 16 floats.
fn stored(m: Mat4) -> [f32; 16] {
    m.to_cols_array()
}

fn loaded(m: &[f32; 16]) -> Mat4 {
    Mat4::from_cols_array(m)
}

/// A translation, row-major with the translation at elements 12, 13, 14.
pub fn translation(x: f32, y: f32, z: f32) -> [f32; 16] {
    stored(Mat4::from_translation(Vec3::new(x, y, z)))
}

/// A right-handed rotation about +Y (Y-up: +90 degrees turns +X towards -Z).
pub fn rotation_y(radians: f32) -> [f32; 16] {
    stored(Mat4::from_rotation_y(radians))
}

pub fn scale(x: f32, y: f32, z: f32) -> [f32; 16] {
    stored(Mat4::from_scale(Vec3::new(x, y, z)))
}

/// A shear that leans the Y axis: a point at height `y` moves by `(x_per_y, z_per_y) * y`.
/// The axes are no longer perpendicular, so no translation/rotation/scale can express it.
pub fn shear_y(x_per_y: f32, z_per_y: f32) -> [f32; 16] {
    let mut m = Mat4::IDENTITY;
    m.y_axis.x = x_per_y;
    m.y_axis.z = z_per_y;
    stored(m)
}

/// `first`, then `second` (row-vector order: `first * second`).
pub fn then(first: &[f32; 16], second: &[f32; 16]) -> [f32; 16] {
    stored(loaded(second) * loaded(first))
}

/// `m` with its translation replaced (elements 12, 13, 14).
pub fn with_translation(m: &[f32; 16], x: f32, y: f32, z: f32) -> [f32; 16] {
    let mut m = loaded(m);
    m.w_axis = Vec3::new(x, y, z).extend(1.0);
    stored(m)
}

/// A quaternion about +Y as stored in rotation keys (x, y, z, w).
pub fn quat_y(radians: f32) -> [f32; 4] {
    Quat::from_rotation_y(radians).to_array()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::reader::Reader;
    use crate::formats::tpw::{FORMAT, anim, decode, decode_model};
    use crate::scene::{AlphaMode, NodeKind};
    use glam::Vec2;

    fn u16_at(b: &[u8], at: usize) -> u16 {
        u16::from_le_bytes(b[at..at + 2].try_into().unwrap())
    }
    fn u32_at(b: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
    }
    fn f32_at(b: &[u8], at: usize) -> f32 {
        f32::from_le_bytes(b[at..at + 4].try_into().unwrap())
    }

    /// A mesh of `n` vertices at (i, 10 + i, 20 + i) with UV (i, -i), one fan of faces, one
    /// untextured material over all of it.
    fn numbered_mesh(name: &str, n: u16) -> MeshSpec {
        MeshSpec {
            name: name.into(),
            vertices: (0..n).map(|i| [f32::from(i), 10.0 + f32::from(i), 20.0 + f32::from(i)]).collect(),
            vertex_order: (0..n).collect(),
            uvs: (0..n).map(|i| [f32::from(i), -f32::from(i)]).collect(),
            faces: (1..n.saturating_sub(1)).map(|i| [0, i + 1, i]).collect(),
            materials: vec![MaterialSpec { texture: None, start: 0, end: n - 1 }],
            ..MeshSpec::default()
        }
    }

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

    #[test]
    fn every_stored_offset_is_four_byte_aligned() {
        // Odd lengths everywhere: names, vertex counts, order lengths, face counts, arrays.
        let mut a = numbered_mesh("abcde", 5);
        a.materials = vec![MaterialSpec { texture: Some(2), start: 0, end: 4 }];
        let b = MeshSpec { parent: Some(2), ..numbered_mesh("xy", 3) };
        let file = MeshFile {
            textures: vec![TextureSpec::opaque("t"), TextureSpec::opaque("tex"), TextureSpec::see_through("texture9")],
            meshes: vec![a, b],
            dummies: vec![DummySpec { name: "dum".into(), parent: Some(0), ..DummySpec::default() }],
            ..MeshFile::default()
        };
        let bytes = file.to_bytes();
        let mut offsets = vec![u32_at(&bytes, 0x50), u32_at(&bytes, 0x54), u32_at(&bytes, 0x70), u32_at(&bytes, 0x74)];
        let frame_data = u32_at(&bytes, 0x54) as usize;
        offsets.extend((0..3).map(|i| u32_at(&bytes, frame_data + 16 * i + 0x0C)));
        let (meshes, dummies) = (u32_at(&bytes, 0x70) as usize, u32_at(&bytes, 0x74) as usize);
        for rec in [meshes, meshes + 0xA0, dummies] {
            offsets.extend([0x04, 0x08, 0x0C, 0x54].map(|k| u32_at(&bytes, rec + k)));
        }
        for rec in [meshes, meshes + 0xA0] {
            offsets.extend([0x60, 0x68, 0x6C, 0x70, 0x94].map(|k| u32_at(&bytes, rec + k)));
        }
        offsets.push(u32_at(&bytes, u32_at(&bytes, meshes + 0x6C) as usize));
        assert!(offsets.iter().all(|o| o % 4 == 0), "{offsets:x?}");
        assert_eq!(bytes.len() % 4, 0);
        assert!(decode(&bytes).unwrap().warnings.is_empty());

        let anim = AnimFile {
            hide_list: vec![1, 2, 3],
            tracks: vec![
                TrackSpec {
                    rotation: vec![RotationKeySpec { curve: 0, ..key(0, 0.0) }, key(3, 0.0)],
                    easing: vec![[1, 2, 3, 4, 5, 6, 7, 8]],
                    morph: Some(MorphSpec {
                        records: vec![
                            MorphRecordSpec { channels: vec![0], frames: vec![0, 1, 2], values: vec![0; 3] },
                            MorphRecordSpec { channels: vec![1, 2, 3], frames: vec![5], values: vec![0; 3] },
                        ],
                        ..MorphSpec::default()
                    }),
                    uv: Some(vec![UvEntrySpec { keys: vec![(0, [0.0, 0.0]), (1, [1.0, 0.0]), (7, [0.5, 0.5])] }]),
                    position: Some(PositionSpec { kind: 0x18, points: vec![[1.0; 3]], frames: vec![3] }),
                    scale: Some(vec![(1, [1.0; 3])]),
                    path_progress: Some(PathProgressSpec { start: 0, values: vec![1.0, 2.0, 3.0] }),
                    visibility: Some(vec![1, -2, 3]),
                    ..TrackSpec::default()
                },
                TrackSpec {
                    raw_frames: Some(RawFramesSpec {
                        index: vec![0, 2, 1],
                        per_frame: 3,
                        positions: vec![[0.5; 3]; 3],
                    }),
                    ..TrackSpec::default()
                },
            ],
            ..AnimFile::default()
        };
        let bytes = anim.to_bytes();
        let block = u32_at(&bytes, 0x98) as usize;
        let mut offsets = vec![block as u32, u32_at(&bytes, block + 0x38)];
        for t in [0xB4, 0xF4] {
            offsets.extend([0x18, 0x1C, 0x20, 0x24, 0x28, 0x2C, 0x30, 0x34].map(|k| u32_at(&bytes, t + k)));
        }
        let records = u32_at(&bytes, u32_at(&bytes, 0xB4 + 0x28) as usize + 0x0C) as usize;
        offsets.push(records as u32);
        for i in 0..2 {
            offsets.extend([4, 8, 12].map(|k| u32_at(&bytes, records + 20 * i + k)));
        }
        let uv = u32_at(&bytes, 0xB4 + 0x2C) as usize;
        offsets.extend([4, 12, 16].map(|k| u32_at(&bytes, uv + k)));
        let position = u32_at(&bytes, 0xB4 + 0x18) as usize;
        offsets.extend([8, 12].map(|k| u32_at(&bytes, position + k)));
        offsets.push(u32_at(&bytes, u32_at(&bytes, 0xB4 + 0x24) as usize + 12));
        let raw = u32_at(&bytes, 0xF4 + 0x28) as usize;
        offsets.extend([0, 8].map(|k| u32_at(&bytes, raw + k)));
        assert!(offsets.iter().all(|o| o % 4 == 0), "{offsets:x?}");
        let decoded = anim::decode_anim(&Reader::new(&bytes, FORMAT)).unwrap();
        assert!(decoded.warnings.is_empty(), "{:?}", decoded.warnings);
        let track = &decoded.tracks[0];
        assert!(matches!(track.morph, Some(Ok(_))));
        for ok in [
            track.rotation.as_ref().map(|r| r.is_ok()),
            track.uv.as_ref().map(|r| r.is_ok()),
            track.position_curve.as_ref().map(|r| r.is_ok()),
            track.scale.as_ref().map(|r| r.is_ok()),
            track.path_progress.as_ref().map(|r| r.is_ok()),
            track.visibility.as_ref().map(|r| r.is_ok()),
            decoded.tracks[1].raw_frames.as_ref().map(|r| r.is_ok()),
        ] {
            assert_eq!(ok, Some(true), "{track:?}");
        }
    }

    fn key(frame: u16, radians: f32) -> RotationKeySpec {
        RotationKeySpec { frame, curve: NO_EASING, quat: quat_y(radians) }
    }

    #[test]
    fn track_table_ends_where_the_block_starts() {
        let file = AnimFile {
            last_frame: 30,
            tracks: vec![
                TrackSpec { target: 0, rotation: vec![key(0, 0.0), key(30, 1.0)], ..TrackSpec::default() },
                TrackSpec {
                    target: 1,
                    rotation: vec![key(0, 0.0), key(15, 0.5), key(30, -1.0)],
                    ..TrackSpec::default()
                },
            ],
            ..AnimFile::default()
        };
        let b = file.to_bytes();
        assert_eq!(u32_at(&b, 0x70), 0, "animation files have no mesh table");
        // Table at 0xB4, 2 x 64 bytes, so the block is at 0x134.
        assert_eq!(u32_at(&b, 0x98), 0x134);
        assert_eq!(u32_at(&b, 0x134 + 0x2C), 0xB4);
        assert_eq!(u32_at(&b, 0x134 + 0x08), 30);
        assert_eq!((u16_at(&b, 0x134 + 0x10), u16_at(&b, 0x134 + 0x12)), (5, 2));
        // Rotation keys follow the 72-byte block: track 0's at 0x17C, track 1's at 0x1A4.
        assert_eq!((u32_at(&b, 0xB4), u32_at(&b, 0xB4 + 4), u16_at(&b, 0xB4 + 0x10)), (0, 0x8, 2));
        assert_eq!(u32_at(&b, 0xB4 + 0x1C), 0x17C);
        assert_eq!(u32_at(&b, 0xF4), 1);
        assert_eq!(u16_at(&b, 0xF4 + 0x14), 1);
        assert_eq!(u32_at(&b, 0xF4 + 0x1C), 0x1A4);
        assert_eq!(u16_at(&b, 0x1A4 + 20), 15);
        assert_eq!(f32_at(&b, 0x1A4 + 20 + 8), (0.25f32).sin());

        let decoded = anim::decode_anim(&Reader::new(&b, FORMAT)).unwrap();
        assert_eq!(decoded.status, anim::BlockStatus::Readable);
        assert!(decoded.warnings.is_empty(), "{:?}", decoded.warnings);
        let rotation = decoded.tracks[1].rotation.clone().unwrap().unwrap();
        assert_eq!(rotation.keys.iter().map(|k| k.frame).collect::<Vec<_>>(), [0, 15, 30]);
        assert!(rotation.keys[2].quat.abs_diff_eq(Quat::from_rotation_y(-1.0), 1e-6));
        assert_eq!(rotation.curves, [None; 3]);

        let broken = AnimFile { break_identity: true, ..file.clone() }.to_bytes();
        assert_eq!(u32_at(&broken, 0x98), 0x138);
        assert_eq!(u32_at(&broken, 0x138 + 0x2C), 0xB4);
        let decoded = anim::decode_anim(&Reader::new(&broken, FORMAT)).unwrap();
        assert_eq!(decoded.status, anim::BlockStatus::IdentityFailed);
        assert!(decoded.tracks.is_empty());

        // With no tracks there is no table to check: the game's track-less clips fail the
        // identity, and are valid clips with their span and hide list all the same.
        let empty = AnimFile { tracks: Vec::new(), hide_list: vec![2], break_identity: true, ..file.clone() };
        let bytes = empty.to_bytes();
        let block = u32_at(&bytes, 0x98) as usize;
        assert_ne!(u32_at(&bytes, block + 0x2C) as usize, block, "the fixture breaks the identity");
        let decoded = anim::decode_anim(&Reader::new(&bytes, FORMAT)).unwrap();
        assert_eq!(decoded.status, anim::BlockStatus::Readable);
        assert!(decoded.warnings.is_empty(), "{:?}", decoded.warnings);
        assert_eq!((decoded.track_count, decoded.length(), decoded.hide_list.clone()), (0, 30, vec![2]));
        // Even a table offset past the end of the file is no error then.
        let mut far = bytes.clone();
        far[block + 0x2C..block + 0x30].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(anim::decode_anim(&Reader::new(&far, FORMAT)).unwrap().status, anim::BlockStatus::Readable);

        let none = AnimFile { no_block: true, ..file }.to_bytes();
        assert_eq!(u32_at(&none, 0x98), 0);
        assert!(anim::decode_anim(&Reader::new(&none, FORMAT)).unwrap().tracks.is_empty());
    }

    #[test]
    fn morph_arrays_are_padded_to_four_bytes() {
        let file = AnimFile {
            tracks: vec![TrackSpec {
                morph: Some(MorphSpec {
                    flags: 0x03,
                    centre: [1.0, 2.0, 3.0],
                    step: [0.5, 0.25, 0.125],
                    records: vec![
                        MorphRecordSpec { channels: vec![0, 1, 2], frames: vec![0, 10], values: (1..=6).collect() },
                        MorphRecordSpec { channels: vec![3, 4], frames: vec![0], values: vec![7, 8] },
                    ],
                }),
                ..TrackSpec::default()
            }],
            ..AnimFile::default()
        };
        let b = file.to_bytes();
        // Table 0xB4..0xF4, block 0xF4..0x13C, descriptor 0x13C..0x168 (0x2C), records 0x168..0x190.
        let track = 0xB4;
        assert_eq!(u32_at(&b, track + 4), 0x1000);
        assert_eq!(u32_at(&b, track + 0x28), 0x13C);
        assert_eq!((b[0x13C], u16_at(&b, 0x13C + 2)), (0x03, 2));
        assert_eq!(u32_at(&b, 0x13C + 0x0C), 0x168);
        assert_eq!([0x14, 0x18, 0x1C].map(|k| f32_at(&b, 0x13C + k)), [1.0, 2.0, 3.0]);
        assert_eq!([0x20, 0x24, 0x28].map(|k| f32_at(&b, 0x13C + k)), [0.5, 0.25, 0.125]);
        // Record 0: 3 channel ids (6 bytes, padded to 8: gap 2b + 2), 2 frames (4 bytes: gap 2a).
        let rec = |i: usize| [0, 2].map(|k| u16_at(&b, 0x168 + 20 * i + k));
        let ptrs = |i: usize| [4, 8, 12].map(|k| u32_at(&b, 0x168 + 20 * i + k));
        assert_eq!(rec(0), [2, 3]);
        assert_eq!(ptrs(0), [0x190, 0x198, 0x19C]);
        assert_eq!(&b[0x190..0x198], &[0, 0, 1, 0, 2, 0, 0, 0]);
        assert_eq!(u32_at(&b, 0x19C + 4 * 5), 6);
        // Record 1: 2 channel ids (4 bytes: gap 2b), 1 frame (2 bytes, padded to 4: gap 2a + 2).
        assert_eq!(rec(1), [1, 2]);
        assert_eq!(ptrs(1), [0x1B4, 0x1B8, 0x1BC]);
        assert_eq!(b.len(), 0x1C4);

        let decoded = anim::decode_anim(&Reader::new(&b, FORMAT)).unwrap();
        let morph = decoded.tracks[0].morph.clone().unwrap().unwrap();
        assert_eq!((morph.flags, morph.centre, morph.step), (3, Vec3::new(1.0, 2.0, 3.0), Vec3::new(0.5, 0.25, 0.125)));
        assert_eq!(morph.records[0].channels, [0, 1, 2]);
        assert_eq!(morph.records[0].frames, [0, 10]);
        assert_eq!(morph.records[0].values, [1, 2, 3, 4, 5, 6]);
        assert_eq!(morph.records[1].values, [7, 8]);
    }

    #[test]
    fn uv_runs_pack_index_then_values_then_frames() {
        let file = AnimFile {
            last_frame: 100,
            tracks: vec![TrackSpec {
                uv: Some(vec![
                    UvEntrySpec { keys: vec![(0, [0.0, 0.5]), (40, [-1.0, -0.5]), (100, [-2.0, -1.0])] },
                    UvEntrySpec { keys: vec![(0, [0.25, 0.0]), (50, [1.25, 0.0])] },
                ]),
                ..TrackSpec::default()
            }],
            ..AnimFile::default()
        };
        let b = file.to_bytes();
        // Descriptor 0x13C; index 0x150 (2 x 4), values 0x158 (5 x 8), frames 0x180 (5 x 2).
        assert_eq!(u32_at(&b, 0xB4 + 4), 0x10000);
        assert_eq!(u32_at(&b, 0xB4 + 0x2C), 0x13C);
        assert_eq!([0, 4, 8, 12, 16].map(|k| u32_at(&b, 0x13C + k)), [2, 0x150, 5, 0x180, 0x158]);
        assert_eq!(&b[0x150..0x158], &[0, 0, 3, 0, 3, 0, 2, 0]);
        assert_eq!([0, 4, 8, 12, 16, 20].map(|k| f32_at(&b, 0x158 + k)), [0.0, 0.5, -1.0, -0.5, -2.0, -1.0]);
        assert_eq!((f32_at(&b, 0x170), f32_at(&b, 0x178)), (0.25, 1.25));
        assert_eq!([0, 2, 4, 6, 8].map(|k| u16_at(&b, 0x180 + k)), [0, 40, 100, 0, 50]);
        assert_eq!(b.len(), 0x18C);

        let decoded = anim::decode_anim(&Reader::new(&b, FORMAT)).unwrap();
        let entries = decoded.tracks[0].uv.clone().unwrap().unwrap();
        assert_eq!(entries[0].keys[1], (40, Vec2::new(-1.0, -0.5)));
        assert_eq!(entries[1].keys, [(0, Vec2::new(0.25, 0.0)), (50, Vec2::new(1.25, 0.0))]);
        assert_eq!(decoded.length(), 100);
    }

    #[test]
    fn node_channels_fill_their_own_slots() {
        let file = AnimFile {
            tracks: vec![TrackSpec {
                index: Some(9),
                target: 3,
                frame_value: 42,
                extra_flags: CH_PATH_FACING,
                rotation: vec![RotationKeySpec { curve: 0, ..key(0, 0.0) }, key(10, 1.0)],
                easing: vec![[32, 66, 105, 141, 176, 208, 233, 249]],
                position: Some(PositionSpec {
                    kind: 0x18,
                    points: vec![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]],
                    frames: vec![0, 10],
                }),
                scale: Some(vec![(5, [1.0, 2.0, 3.0])]),
                path_progress: Some(PathProgressSpec { start: 0, values: vec![10.0, 20.0] }),
                visibility: Some(vec![0, -7, 12]),
                ..TrackSpec::default()
            }],
            ..AnimFile::default()
        };
        let b = file.to_bytes();
        let t = 0xB4;
        assert_eq!(u32_at(&b, t), 9);
        assert_eq!(u32_at(&b, t + 4), 0x8 | 0x1 | 0x180 | 0x200 | 0x400 | 0x20000);
        assert_eq!(u32_at(&b, t + 0x0C), 42);
        // Counts: rotation +0x10, scale +0x12, target +0x14, visibility +0x16.
        assert_eq!([0x10, 0x12, 0x14, 0x16].map(|k| u16_at(&b, t + k)), [2, 1, 3, 3]);
        // After the block (0xF4..0x13C): rotation keys 0x13C (40), curves 0x164 (8), position
        // record 0x16C (16), its points 0x17C (24) and keys 0x194 (8), scale keys 0x19C (16),
        // path record 0x1AC with values at 0x1BC (8), visibility 0x1C4 (6, padded to 8).
        assert_eq!(
            [0x18, 0x1C, 0x20, 0x24, 0x28, 0x2C, 0x30, 0x34].map(|k| u32_at(&b, t + k)),
            [0x16C, 0x13C, 0x19C, 0x1AC, 0, 0, 0x1C4, 0x164]
        );
        assert_eq!((u16_at(&b, 0x13C + 2), u16_at(&b, 0x13C + 22)), (0, 0xFFFF));
        assert_eq!(&b[0x164..0x16C], &[32, 66, 105, 141, 176, 208, 233, 249]);
        assert_eq!([0, 4, 8, 12].map(|k| u32_at(&b, 0x16C + k)), [0x18, 0x0002_0002, 0x17C, 0x194]);
        assert_eq!(f32_at(&b, 0x17C + 12), 4.0);
        assert_eq!([0, 2, 4, 6].map(|k| u16_at(&b, 0x194 + k)), [0, 0, 10, 0]);
        assert_eq!((u16_at(&b, 0x19C), f32_at(&b, 0x19C + 8)), (5, 2.0));
        assert_eq!([0, 4, 8, 12].map(|k| u32_at(&b, 0x1AC + k)), [0, 2, 0, 0x1BC]);
        assert_eq!((f32_at(&b, 0x1BC), f32_at(&b, 0x1C0)), (10.0, 20.0));
        assert_eq!(&b[0x1C4..0x1CC], &[0, 0, 0xF9, 0xFF, 12, 0, 0, 0]);
        assert_eq!(b.len(), 0x1CC);

        let decoded = anim::decode_anim(&Reader::new(&b, FORMAT)).unwrap();
        let track = &decoded.tracks[0];
        assert_eq!((track.stored_index, track.target, track.frame_value), (9, 3, 42));
        let rotation = track.rotation.clone().unwrap().unwrap();
        assert_eq!(rotation.curves, [Some([32, 66, 105, 141, 176, 208, 233, 249]), None]);
        let position = track.position_curve.clone().unwrap().unwrap();
        assert_eq!((position.kind, position.frames.as_slice()), (0x18, &[0u16, 10][..]));
        assert_eq!(track.scale.clone().unwrap().unwrap(), [(5, Vec3::new(1.0, 2.0, 3.0))]);
        assert_eq!(track.path_progress.clone().unwrap().unwrap().values, [10.0, 20.0]);
        assert_eq!(track.visibility.clone().unwrap().unwrap(), [0, -7, 12]);
        assert!(track.morph.is_none() && track.uv.is_none() && track.raw_frames.is_none());
        assert_eq!(decoded.warnings, ["track 0: stores index 9, expected 0"]);
    }

    #[test]
    fn raw_frames_and_the_hide_list() {
        let file = AnimFile {
            last_frame: 1,
            hide_list: vec![2, 5, 7],
            tracks: vec![TrackSpec {
                raw_frames: Some(RawFramesSpec {
                    index: vec![1, 0],
                    per_frame: 2,
                    positions: vec![[1.0; 3], [2.0; 3], [3.0; 3], [4.0; 3]],
                }),
                ..TrackSpec::default()
            }],
            ..AnimFile::default()
        };
        let b = file.to_bytes();
        // Block 0xF4; hide list 0x13C (6 bytes, padded to 8); record 0x144; index 0x154 (8);
        // positions 0x15C (48).
        assert_eq!((u16_at(&b, 0xF4 + 0x1A), u32_at(&b, 0xF4 + 0x38)), (3, 0x13C));
        assert_eq!([0, 2, 4].map(|k| u16_at(&b, 0x13C + k)), [2, 5, 7]);
        assert_eq!((u32_at(&b, 0xB4 + 4), u32_at(&b, 0xB4 + 0x28)), (0x5000, 0x144));
        assert_eq!([0, 4, 8, 12].map(|k| u32_at(&b, 0x144 + k)), [0x154, 2, 0x15C, 0]);
        assert_eq!((u32_at(&b, 0x154), u32_at(&b, 0x158)), (1, 0));
        assert_eq!(f32_at(&b, 0x15C + 36), 4.0);
        assert_eq!(b.len(), 0x18C);

        let decoded = anim::decode_anim(&Reader::new(&b, FORMAT)).unwrap();
        assert_eq!(decoded.hide_list, [2, 5, 7]);
        let frames = decoded.tracks[0].raw_frames.clone().unwrap().unwrap();
        assert_eq!((frames.index.as_slice(), frames.per_frame, frames.frame_count()), (&[1u32, 0][..], 2, 2));
        assert!(decoded.tracks[0].morph.is_none());
    }

    #[test]
    fn morph_values_pack_as_the_inverse_of_the_spec_decode() {
        let (centre, step) = ([3.0, 0.5, 20.0], [0.01, 0.001, 0.02]);
        for p in [[3.0, 0.5, 20.0], [-2.0, 0.0, 10.0], [8.0, 1.0, 30.0], [0.123, 0.77, 29.0]] {
            let raw = pack_morph(p, centre, step);
            assert_eq!(raw >> 30, 0);
            let back = anim::morph_position(raw, Vec3::from_array(centre), Vec3::from_array(step));
            for axis in 0..3 {
                let inside = (p[axis] - centre[axis]).abs() <= 511.0 * step[axis];
                if inside {
                    assert!((back[axis] - p[axis]).abs() <= step[axis] * 0.5 + 1e-5, "{p:?} -> {back:?}");
                }
            }
        }
        // The centre is 0 on every axis; past the box clamps to -512 / 511.
        assert_eq!(pack_morph(centre, centre, step), 0);
        assert_eq!(pack_morph([-100.0, 100.0, 20.0], centre, step), 0x200 | 0x1FF << 10);
        // A zero step has nothing to quantise into.
        assert_eq!(pack_morph([1.0, 1.0, 1.0], [0.0; 3], [0.0; 3]), 0);
        // The box spanning min..max: centre midway, step a 1023th of the extent.
        assert_eq!(
            morph_box([-2.0, 0.0, 10.0], [8.0, 1.023, 30.0]),
            ([3.0, 0.5115, 20.0], [10.0 / 1023.0, 0.001, 20.0 / 1023.0])
        );
    }

    #[test]
    fn matrix_helpers_use_the_files_row_vector_layout() {
        let t = translation(1.0, 2.0, 3.0);
        assert_eq!(&t[12..15], &[1.0, 2.0, 3.0]);
        // Row-vector: a point is rotated first, then moved.
        let m = then(&rotation_y(std::f32::consts::FRAC_PI_2), &t);
        let p = Mat4::from_cols_array(&m).transform_point3(Vec3::X);
        assert!(p.abs_diff_eq(Vec3::new(1.0, 2.0, 2.0), 1e-6), "{p}");
        let s = shear_y(0.5, 0.0);
        assert_eq!(s[4], 0.5);
        assert!(crate::scene::math::is_sheared(&Mat4::from_cols_array(&s)));
        assert_eq!(&with_translation(&s, 4.0, 5.0, 6.0)[12..16], &[4.0, 5.0, 6.0, 1.0]);
    }
}
