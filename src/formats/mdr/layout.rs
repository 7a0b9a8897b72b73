//! Byte offsets and record sizes of the Quake 3 `.mdr` format (`RDM5`), in one place, as the
//! spec (`quake3-mdr.txt`) and the engine notes (`quake3-mdr-engine-notes.md`) state them. All
//! values are little-endian; offsets are relative to the record named in each group.

pub const MAGIC: [u8; 4] = *b"RDM5";
/// The only version the engine loads (`MDR_VERSION`).
pub const VERSION: i32 = 2;
/// The engine renders with a fixed `bones[MDR_MAX_BONES]` array.
pub const ENGINE_MAX_BONES: u64 = 128;
/// The engine refuses a surface with this many vertices or more (`SHADER_MAX_VERTEXES`).
pub const ENGINE_MAX_SURFACE_VERTICES: u64 = 1000;
/// The engine refuses a surface with this many indices or more (`SHADER_MAX_INDEXES`).
pub const ENGINE_MAX_SURFACE_INDICES: u64 = 6000;

// Header (104 bytes), relative to the file start.
pub const HEADER_SIZE: u64 = 104;
pub const HDR_IDENT: u64 = 0;
pub const HDR_VERSION: u64 = 4;
pub const HDR_NAME: u64 = 8;
pub const NAME_LEN: u64 = 64;
pub const HDR_NUM_FRAMES: u64 = 72;
pub const HDR_NUM_BONES: u64 = 76;
/// Negative: the frames are compressed and start at `-ofsFrames`.
pub const HDR_OFS_FRAMES: u64 = 80;
pub const HDR_NUM_LODS: u64 = 84;
pub const HDR_OFS_LODS: u64 = 88;
pub const HDR_NUM_TAGS: u64 = 92;
pub const HDR_OFS_TAGS: u64 = 96;
pub const HDR_OFS_END: u64 = 100;

// Frame: bounds, local origin, radius, then (plain frames only) a name, then the bones.
pub const FRAME_BOUNDS_MIN: u64 = 0;
pub const FRAME_BOUNDS_MAX: u64 = 12;
pub const FRAME_LOCAL_ORIGIN: u64 = 24;
pub const FRAME_RADIUS: u64 = 36;
pub const FRAME_NAME: u64 = 40;
pub const FRAME_NAME_LEN: u64 = 16;
/// Plain frame header; its bones follow.
pub const FRAME_HEADER_SIZE: u64 = 56;
/// Compressed frame header (no name); its bones follow.
pub const COMP_FRAME_HEADER_SIZE: u64 = 40;

/// Plain bone: `f32[3][4]`, row-major, column-vector convention (translation in column 3).
pub const BONE_SIZE: u64 = 48;
/// Compressed bone: 12 little-endian u16.
pub const COMP_BONE_SIZE: u64 = 24;
pub const COMP_BONE_VALUES: usize = 12;
/// Compressed values are stored with this bias (`1 << 15`).
pub const COMP_BIAS: f32 = 32768.0;
/// Units per translation step (`MC_SCALE_X`, `1/64`).
pub const COMP_TRANSLATION_STEP: f32 = 1.0 / 64.0;
/// Units per rotation step (`MC_SCALE_VECT`, `1/((1 << 15) - 2)`).
pub const COMP_ROTATION_STEP: f32 = 1.0 / 32766.0;

// LOD (12 bytes), offsets relative to the LOD.
pub const LOD_SIZE: u64 = 12;
pub const LOD_NUM_SURFACES: u64 = 0;
pub const LOD_OFS_SURFACES: u64 = 4;
/// Where the next LOD starts.
pub const LOD_OFS_END: u64 = 8;

// Surface (168 bytes), offsets relative to the surface.
pub const SURFACE_SIZE: u64 = 168;
pub const SURF_IDENT: u64 = 0;
pub const SURF_NAME: u64 = 4;
pub const SURF_SHADER: u64 = 68;
pub const SURF_SHADER_INDEX: u64 = 132;
/// Negative offset back to the header; the engine ignores it.
pub const SURF_OFS_HEADER: u64 = 136;
pub const SURF_NUM_VERTS: u64 = 140;
pub const SURF_OFS_VERTS: u64 = 144;
pub const SURF_NUM_TRIANGLES: u64 = 148;
pub const SURF_OFS_TRIANGLES: u64 = 152;
pub const SURF_NUM_BONE_REFS: u64 = 156;
pub const SURF_OFS_BONE_REFS: u64 = 160;
/// Where the next surface starts.
pub const SURF_OFS_END: u64 = 164;

// Vertex (24 bytes + 20 per weight).
pub const VERTEX_HEADER_SIZE: u64 = 24;
pub const VERT_NORMAL: u64 = 0;
pub const VERT_TEX_COORDS: u64 = 12;
pub const VERT_NUM_WEIGHTS: u64 = 20;

// Weight (20 bytes).
pub const WEIGHT_SIZE: u64 = 20;
pub const WEIGHT_BONE: u64 = 0;
pub const WEIGHT_VALUE: u64 = 4;
pub const WEIGHT_OFFSET: u64 = 8;

/// Triangle: three i32 vertex indices, clockwise.
pub const TRIANGLE_SIZE: u64 = 12;

// Tag (36 bytes).
pub const TAG_SIZE: u64 = 36;
pub const TAG_BONE: u64 = 0;
pub const TAG_NAME: u64 = 4;
pub const TAG_NAME_LEN: u64 = 32;
