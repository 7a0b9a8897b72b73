//! Byte offsets and record sizes of the TPW `.md2` format, in one place, as the specs state
//! them (`tpw-engine-notes.md`, which wins over `tpw-md2.txt`; section numbers below are the
//! notes'). The decoder and the writer both use these names.

pub const MAGIC: [u8; 4] = [0x46, 0x5D, 0xD1, 0x1C];
/// The only version the engine loads (notes §2): above is refused, and below is refused unless
/// the caller asks for an older layout, which neither caller does.
pub const MAX_VERSION: u32 = 0xDD;
/// The only animation format version the engine accepts.
pub const ANIM_VERSION: u32 = 0xCB;

pub const HDR_VERSION: u64 = 0x04;
pub const HDR_ANIM_VERSION: u64 = 0x08;
/// The u32 flag word (notes §2).
pub const HDR_FLAGS: u64 = 0x30;
/// Flag-word bit 0x4: additive animation (coaster parts). Rotation keys compose with the
/// authored rotation; position, path and raw-frame samples add to what the node holds.
pub const HDR_ADDITIVE_FLAG: u32 = 0x4;
pub const HDR_FRAME_COUNT: u64 = 0x36;
pub const HDR_TABLE_AC_COUNT: u64 = 0x40;
pub const HDR_NODE_COUNT: u64 = 0x42;
pub const HDR_MESH_COUNT: u64 = 0x44;
/// First node the 0x7C id table describes (OpenTPW).
pub const HDR_NODE_ID_FIRST: u64 = 0x46;
pub const HDR_TABLE_7C_COUNT: u64 = 0x48;
pub const NODE_ID_RECORD_SIZE: u64 = 20;
/// In a node id record: the flag word, the id, and the face-anchor pointer (notes §4).
pub const NODE_ID_FLAGS: u64 = 0x00;
pub const NODE_ID_ID: u64 = 0x04;
pub const NODE_ID_ANCHOR: u64 = 0x0C;
/// A record's anchor is used when its flags meet any of these bits.
pub const ANCHOR_FLAGS: u32 = 0x40040;
/// A face anchor: face index (u16), an undecoded u16, then u, v and the offset along the
/// face normal (three f32 from [`ANCHOR_U`]).
pub const ANCHOR_RECORD_SIZE: u64 = 16;
pub const ANCHOR_FACE: u64 = 0x00;
pub const ANCHOR_U: u64 = 0x04;
pub const HDR_FRAME_TABLE: u64 = 0x50;
pub const HDR_FRAME_DATA_TABLE: u64 = 0x54;
/// The terrain heightfield block (notes §6); 0 in all but the terrain models.
pub const HDR_HEIGHTFIELD: u64 = 0x6C;
/// The block's header, and its fields: stored vertex and cell counts (u16), cell size X and Y
/// (f32), cells across and down (u32), the authored height range (f32 low, high), and the
/// pointers to the heights (f32, rows of across + 1) and to the 4-byte cell records.
pub const HEIGHTFIELD_HEADER_SIZE: u64 = 0x30;
pub const HF_VERTEX_COUNT: u64 = 0x04;
pub const HF_CELL_COUNT: u64 = 0x06;
/// Two f32 the notes call the grid's world origin (open).
pub const HF_ORIGIN: u64 = 0x08;
pub const HF_CELL_SIZE: u64 = 0x10;
pub const HF_CELLS_ACROSS: u64 = 0x18;
pub const HF_CELLS_DOWN: u64 = 0x1C;
pub const HF_HEIGHT_RANGE: u64 = 0x20;
pub const HF_HEIGHTS: u64 = 0x28;
pub const HF_CELLS: u64 = 0x2C;
pub const HDR_MESH_TABLE: u64 = 0x70;
pub const HDR_NODE_TABLE: u64 = 0x74;
pub const HDR_TABLE_7C: u64 = 0x7C;
pub const HDR_BBOX: u64 = 0x80;
pub const HDR_ANIM_BLOCK: u64 = 0x98;
pub const HDR_TABLE_AC: u64 = 0xAC;
/// Path table (notes §5): [`HDR_TABLE_AC_COUNT`] records of [`PATH_RECORD_SIZE`] bytes.
pub const HDR_PATH_TABLE: u64 = HDR_TABLE_AC;
pub const PATH_RECORD_SIZE: u64 = 16;
pub const PATH_TYPE: u64 = 0x00;
pub const PATH_POINT_COUNT: u64 = 0x04;
pub const PATH_POINTS: u64 = 0x08;
/// Path type bits: closed, cubic Bezier (4 points a segment, 3 new), straight lines.
pub const PATH_CLOSED: u32 = 0x1;
pub const PATH_BEZIER: u32 = 0x2;
pub const PATH_STRAIGHT: u32 = 0x8;
/// The header spans at least up to the runtime scratch word at 0xB0.
pub const HEADER_SIZE: u64 = 0xB4;
/// Header pointers the engine relocates, by offset.
pub const HDR_POINTERS: [u64; 15] =
    [0x4C, 0x50, 0x54, 0x58, 0x5C, 0x60, 0x64, 0x68, 0x6C, 0x70, 0x74, 0x78, 0x7C, 0x98, 0xAC];

pub const MESH_RECORD_SIZE: u64 = 0xA0;
pub const NODE_RECORD_SIZE: u64 = 0x58;
/// Node flag bit marking a transform-only node.
pub const TRANSFORM_ONLY_FLAG: u32 = 0x200;
/// Node flag bit marking a path node: its u16 at [`NODE_PATH_INDEX`] names a path (notes §5).
pub const PATH_NODE_FLAG: u32 = 0x8;

// Shared node header (both record kinds).
pub const NODE_FLAGS: u64 = 0x00;
pub const NODE_PARENT: u64 = 0x04;
pub const NODE_SIBLING: u64 = 0x08;
pub const NODE_CHILD: u64 = 0x0C;
pub const NODE_MATRIX: u64 = 0x10;
/// Own index in the combined node list (notes §3).
pub const NODE_OWN_INDEX: u64 = 0x50;
/// Path index, read only when [`PATH_NODE_FLAG`] is set.
pub const NODE_PATH_INDEX: u64 = 0x52;
pub const NODE_NAME: u64 = 0x54;
pub const MAX_NAME_LEN: u64 = 256;

// Mesh record.
pub const MESH_FLAGS: u64 = 0x00;
pub const MESH_VERTEX_COUNT: u64 = 0x58;
pub const MESH_MATERIAL_COUNT: u64 = 0x5A;
pub const MESH_FACE_COUNT: u64 = 0x5C;
pub const MESH_ORDER_LENGTH: u64 = 0x5E;
pub const MESH_VERTEX_DATA: u64 = 0x60;
/// Normals table: 12-byte f32 triples indexed by a face's first u16, bits 0-14 (notes §7).
pub const MESH_NORMALS: u64 = 0x64;
pub const FACE_NORMAL_MASK: u16 = 0x7FFF;
pub const MESH_UV_DATA: u64 = 0x68;
pub const MESH_MATERIAL_TABLE: u64 = 0x6C;
pub const MESH_FACE_DATA: u64 = 0x70;
pub const MESH_BBOX_MIN: u64 = 0x78;
pub const MESH_BBOX_MAX: u64 = 0x84;
pub const MESH_ORDER_TABLE: u64 = 0x94;

pub const FACE_RECORD_SIZE: u64 = 8;
pub const MATERIAL_RECORD_SIZE: u64 = 16;
pub const MAT_FRAME_OFFSET: u64 = 0x00;
pub const MAT_START: u64 = 0x08;
pub const MAT_END: u64 = 0x0A;
/// Material flag bit: draw see-through.
pub const SEE_THROUGH_FLAG: u32 = 0x02;

pub const FRAME_ENTRY_SIZE: u64 = 8;
pub const FRAME_DATA_SIZE: u64 = 16;
pub const FRAME_DATA_NAME: u64 = 0x0C;
pub const TEXTURE_NAME_LEN: u64 = 20;

// Animation block (at the header's 0x98).
pub const ANIM_BLOCK_SIZE: u64 = 72;
pub const ANIM_FIRST_FRAME: u64 = 0x04;
pub const ANIM_LAST_FRAME: u64 = 0x08;
pub const ANIM_ROTATION_KEY_SUM: u64 = 0x10;
pub const ANIM_TRACK_COUNT: u64 = 0x12;
pub const ANIM_HIDE_COUNT: u64 = 0x1A;
pub const ANIM_TRACK_TABLE: u64 = 0x2C;
/// Hide list: [`ANIM_HIDE_COUNT`] u16 node indices, hidden when the clip starts (notes §18).
pub const ANIM_HIDE_LIST: u64 = 0x38;

// Track descriptor.
pub const TRACK_SIZE: u64 = 64;
pub const TRACK_INDEX: u64 = 0x00;
pub const TRACK_FLAGS: u64 = 0x04;
pub const TRACK_FRAME_VALUE: u64 = 0x0C;
pub const TRACK_ROTATION_COUNT: u64 = 0x10;
pub const TRACK_TARGET: u64 = 0x14;
/// Scale key count (0x80 tracks).
pub const TRACK_SCALE_COUNT: u64 = 0x12;
/// Visibility entry count (0x20000 tracks); unknown on others.
pub const TRACK_UNRELATED_16: u64 = 0x16;
pub const TRACK_VISIBILITY_COUNT: u64 = TRACK_UNRELATED_16;
pub const TRACK_SLOT_POSITION: u64 = 0x18;
pub const TRACK_SLOT_ROTATION: u64 = 0x1C;
pub const TRACK_SLOT_20: u64 = 0x20;
pub const TRACK_SLOT_SCALE: u64 = TRACK_SLOT_20;
pub const TRACK_SLOT_24: u64 = 0x24;
pub const TRACK_SLOT_PATH: u64 = TRACK_SLOT_24;
pub const TRACK_SLOT_MORPH: u64 = 0x28;
pub const TRACK_SLOT_UV: u64 = 0x2C;
pub const TRACK_SLOT_VISIBILITY: u64 = 0x30;
pub const TRACK_SLOT_34: u64 = 0x34;
/// Easing curves of a rotation track: 8-byte records, record k is curve id k (notes §10).
pub const TRACK_SLOT_EASING: u64 = TRACK_SLOT_34;
pub const EASING_RECORD_SIZE: u64 = 8;
/// A rotation key's curve id meaning "no easing".
pub const NO_EASING: u16 = 0xFFFF;

// Channel flag bits.
pub const CH_POSITION: u32 = 0x1;
pub const CH_ROTATION: u32 = 0x8;
pub const CH_SLOT_20: u32 = 0x80 | 0x100;
/// Scale: the pair 0x80 + 0x100 (notes §15).
pub const CH_SCALE: u32 = CH_SLOT_20;
pub const CH_SLOT_24: u32 = 0x200;
/// Path progress (notes §16); 0x400 faces the node along the path, 0x800 is undecoded.
pub const CH_PATH: u32 = CH_SLOT_24;
pub const CH_PATH_FACING: u32 = 0x400;
pub const CH_PATH_800: u32 = 0x800;
pub const CH_MORPH: u32 = 0x1000;
/// With 0x1000: the +0x28 slot holds raw float vertex frames (notes §12), not a morph.
pub const CH_MORPH_REDIRECT: u32 = 0x4000;
pub const CH_RAW_FRAMES: u32 = CH_MORPH_REDIRECT;
pub const CH_UV: u32 = 0x10000;
pub const CH_VISIBILITY: u32 = 0x20000;

pub const ROTATION_KEY_SIZE: u64 = 20;
/// The morph descriptor is at least 0x2C bytes (notes §11).
pub const MORPH_DESCRIPTOR_SIZE: u64 = 0x2C;
/// Quantisation box of the track: value = centre + field * step, per axis.
pub const MORPH_CENTRE: u64 = 0x14;
pub const MORPH_STEP: u64 = 0x20;
pub const MORPH_RECORD_COUNT: u64 = 0x02;
pub const MORPH_RECORD_TABLE: u64 = 0x0C;
pub const MORPH_RECORD_SIZE: u64 = 20;
/// UV descriptor (notes §13): +0x00 entry count n, +0x04 index table, +0x08 total key count c,
/// +0x0C frame table, +0x10 value table; index, value and frame tables are contiguous.
pub const UV_DESCRIPTOR_SIZE: u64 = 20;
pub const UV_ENTRY_COUNT: u64 = 0x00;
pub const UV_INDEX_TABLE: u64 = 0x04;
pub const UV_KEY_COUNT: u64 = 0x08;
pub const UV_FRAME_TABLE: u64 = 0x0C;
pub const UV_VALUE_TABLE: u64 = 0x10;
/// Position record (archives note): u32 type, u16 point count, u16 key count, u32 points,
/// u32 keys (u16 frame, u16 zero).
pub const POSITION_RECORD_SIZE: u64 = 16;
pub const POSITION_KEY_SIZE: u64 = 4;
/// Scale keys: u16 frame, u16 zero, f32 sx, sy, sz (notes §15).
pub const SCALE_KEY_SIZE: u64 = 16;
/// Path-progress record: start frame, value count, 0, values offset (notes §16).
pub const PATH_PROGRESS_RECORD_SIZE: u64 = 16;
/// Raw vertex frames record: index table, vertices per frame, positions, 0 (notes §12).
pub const RAW_FRAMES_RECORD_SIZE: u64 = 16;
/// The engine's frame rate (notes §20).
pub const FRAMES_PER_SECOND: f32 = 30.0;
