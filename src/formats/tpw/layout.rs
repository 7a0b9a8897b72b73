//! Byte offsets and record sizes of the TPW `.md2` format, in one place, as the spec
//! (`tpw-md2.txt`) states them. The decoder and the writer both use these names.

pub const MAGIC: [u8; 4] = [0x46, 0x5D, 0xD1, 0x1C];
/// The engine rejects versions above this.
pub const MAX_VERSION: u32 = 0xDD;
/// The only animation format version the engine accepts.
pub const ANIM_VERSION: u32 = 0xCB;

pub const HDR_VERSION: u64 = 0x04;
pub const HDR_ANIM_VERSION: u64 = 0x08;
pub const HDR_FLAGS: u64 = 0x30;
pub const HDR_FRAME_COUNT: u64 = 0x36;
pub const HDR_TABLE_AC_COUNT: u64 = 0x40;
pub const HDR_NODE_COUNT: u64 = 0x42;
pub const HDR_MESH_COUNT: u64 = 0x44;
/// First node the 0x7C id table describes (OpenTPW).
pub const HDR_NODE_ID_FIRST: u64 = 0x46;
pub const HDR_TABLE_7C_COUNT: u64 = 0x48;
pub const NODE_ID_RECORD_SIZE: u64 = 20;
pub const HDR_FRAME_TABLE: u64 = 0x50;
pub const HDR_FRAME_DATA_TABLE: u64 = 0x54;
pub const HDR_MESH_TABLE: u64 = 0x70;
pub const HDR_NODE_TABLE: u64 = 0x74;
pub const HDR_TABLE_7C: u64 = 0x7C;
pub const HDR_BBOX: u64 = 0x80;
pub const HDR_ANIM_BLOCK: u64 = 0x98;
pub const HDR_TABLE_AC: u64 = 0xAC;
/// The header spans at least up to the runtime scratch word at 0xB0.
pub const HEADER_SIZE: u64 = 0xB4;
/// Header pointers the engine relocates, by offset.
pub const HDR_POINTERS: [u64; 15] =
    [0x4C, 0x50, 0x54, 0x58, 0x5C, 0x60, 0x64, 0x68, 0x6C, 0x70, 0x74, 0x78, 0x7C, 0x98, 0xAC];

pub const MESH_RECORD_SIZE: u64 = 0xA0;
pub const NODE_RECORD_SIZE: u64 = 0x58;
/// Node flag bit marking a transform-only node.
pub const TRANSFORM_ONLY_FLAG: u32 = 0x200;

// Shared node header (both record kinds).
pub const NODE_FLAGS: u64 = 0x00;
pub const NODE_PARENT: u64 = 0x04;
pub const NODE_SIBLING: u64 = 0x08;
pub const NODE_CHILD: u64 = 0x0C;
pub const NODE_MATRIX: u64 = 0x10;
pub const NODE_NAME: u64 = 0x54;
pub const MAX_NAME_LEN: u64 = 256;

// Mesh record.
pub const MESH_FLAGS: u64 = 0x00;
pub const MESH_VERTEX_COUNT: u64 = 0x58;
pub const MESH_MATERIAL_COUNT: u64 = 0x5A;
pub const MESH_FACE_COUNT: u64 = 0x5C;
pub const MESH_ORDER_LENGTH: u64 = 0x5E;
pub const MESH_VERTEX_DATA: u64 = 0x60;
pub const MESH_POINTER_64: u64 = 0x64;
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
pub const ANIM_LAST_FRAME: u64 = 0x08;
pub const ANIM_ROTATION_KEY_SUM: u64 = 0x10;
pub const ANIM_TRACK_COUNT: u64 = 0x12;
pub const ANIM_TRACK_TABLE: u64 = 0x2C;

// Track descriptor.
pub const TRACK_SIZE: u64 = 64;
pub const TRACK_INDEX: u64 = 0x00;
pub const TRACK_FLAGS: u64 = 0x04;
pub const TRACK_FRAME_VALUE: u64 = 0x0C;
pub const TRACK_ROTATION_COUNT: u64 = 0x10;
pub const TRACK_TARGET: u64 = 0x14;
pub const TRACK_UNRELATED_16: u64 = 0x16;
pub const TRACK_SLOT_POSITION: u64 = 0x18;
pub const TRACK_SLOT_ROTATION: u64 = 0x1C;
pub const TRACK_SLOT_20: u64 = 0x20;
pub const TRACK_SLOT_24: u64 = 0x24;
pub const TRACK_SLOT_MORPH: u64 = 0x28;
pub const TRACK_SLOT_UV: u64 = 0x2C;
pub const TRACK_SLOT_VISIBILITY: u64 = 0x30;
pub const TRACK_SLOT_34: u64 = 0x34;

// Channel flag bits.
pub const CH_POSITION: u32 = 0x1;
pub const CH_ROTATION: u32 = 0x8;
pub const CH_SLOT_20: u32 = 0x80 | 0x100;
pub const CH_SLOT_24: u32 = 0x200;
pub const CH_MORPH: u32 = 0x1000;
pub const CH_MORPH_REDIRECT: u32 = 0x4000;
pub const CH_UV: u32 = 0x10000;
pub const CH_VISIBILITY: u32 = 0x20000;

pub const ROTATION_KEY_SIZE: u64 = 20;
pub const MORPH_DESCRIPTOR_SIZE: u64 = 16;
pub const MORPH_RECORD_COUNT: u64 = 0x02;
pub const MORPH_RECORD_TABLE: u64 = 0x0C;
pub const MORPH_RECORD_SIZE: u64 = 20;
pub const UV_DESCRIPTOR_SIZE: u64 = 20;
