//! Byte offsets and record sizes of WotLK (v264) `.m2` and `.skin` files, in one place, as the
//! specs (`wow-m2-wotlk.txt`, `wow-m2-skin-and-tracks.md`) state them. Every M2Array is a
//! `{u32 count, u32 offset}` pair; the constants name where the pair sits.

pub const MAGIC: [u8; 4] = *b"MD20";
/// Legion and later wrap the MD20 body in chunks.
pub const CHUNKED_MAGIC: [u8; 4] = *b"MD21";
pub const SKIN_MAGIC: [u8; 4] = *b"SKIN";

/// WotLK, the target.
pub const VERSION_WOTLK: u32 = 264;
/// Cataclysm: same layout for every field read here; accepted with a warning.
pub const VERSION_CATACLYSM: u32 = 272;
/// Versions 256..=263 keep their views inside the .m2 and use 28-byte tracks.
pub const FIRST_PRE_WOTLK: u32 = 256;

pub const HDR_VERSION: u64 = 0x04;
pub const HDR_NAME: u64 = 0x08;
pub const HDR_FLAGS: u64 = 0x10;
pub const HDR_GLOBAL_SEQUENCES: u64 = 0x14;
pub const HDR_SEQUENCES: u64 = 0x1C;
pub const HDR_SEQUENCE_LOOKUP: u64 = 0x24;
pub const HDR_BONES: u64 = 0x2C;
pub const HDR_KEY_BONE_LOOKUP: u64 = 0x34;
pub const HDR_VERTICES: u64 = 0x3C;
pub const HDR_SKIN_PROFILE_COUNT: u64 = 0x44;
pub const HDR_COLORS: u64 = 0x48;
pub const HDR_TEXTURES: u64 = 0x50;
pub const HDR_TRANSPARENCIES: u64 = 0x58;
pub const HDR_TEXTURE_ANIMS: u64 = 0x60;
pub const HDR_REPLACEABLE_LOOKUP: u64 = 0x68;
pub const HDR_RENDER_FLAGS: u64 = 0x70;
pub const HDR_BONE_LOOKUP: u64 = 0x78;
pub const HDR_TEXTURE_LOOKUP: u64 = 0x80;
pub const HDR_TEXCOORD_LOOKUP: u64 = 0x88;
pub const HDR_TRANSPARENCY_LOOKUP: u64 = 0x90;
pub const HDR_TEXTURE_ANIM_LOOKUP: u64 = 0x98;
pub const HDR_BOUNDING_BOX: u64 = 0xA0;
pub const HDR_ATTACHMENTS: u64 = 0xF0;
pub const HDR_EVENTS: u64 = 0x100;
pub const HDR_LIGHTS: u64 = 0x108;
pub const HDR_CAMERAS: u64 = 0x110;
pub const HDR_RIBBONS: u64 = 0x120;
pub const HDR_PARTICLES: u64 = 0x128;
/// The v264 header ends here (the name usually follows at 0x130).
pub const HEADER_SIZE: u64 = 0x130;
pub const MAX_NAME_LEN: u64 = 1024;

pub const M2ARRAY_SIZE: u64 = 8;
pub const TRACK_SIZE: u64 = 20;
pub const TRACK_INTERPOLATION: u64 = 0x00;
pub const TRACK_GLOBAL_SEQUENCE: u64 = 0x02;
pub const TRACK_TIMESTAMPS: u64 = 0x04;
pub const TRACK_VALUES: u64 = 0x0C;

pub const SEQUENCE_SIZE: u64 = 64;
pub const SEQ_ID: u64 = 0x00;
pub const SEQ_VARIATION: u64 = 0x02;
pub const SEQ_DURATION: u64 = 0x04;
pub const SEQ_MOVE_SPEED: u64 = 0x08;
pub const SEQ_FLAGS: u64 = 0x0C;
pub const SEQ_FREQUENCY: u64 = 0x10;
pub const SEQ_NEXT_VARIATION: u64 = 0x3C;
pub const SEQ_ALIAS_NEXT: u64 = 0x3E;
/// Sequence flag: keyframes live in the .m2 (else in `<model><id:04>-<variation:02>.anim`).
pub const SEQ_FLAG_IN_FILE: u32 = 0x20;
/// Sequence flag: this entry is an alias; its keyframes are those of `aliasNext`.
pub const SEQ_FLAG_ALIAS: u32 = 0x40;

pub const BONE_SIZE: u64 = 88;
pub const BONE_KEY_ID: u64 = 0x00;
pub const BONE_FLAGS: u64 = 0x04;
pub const BONE_PARENT: u64 = 0x08;
pub const BONE_SUBMESH: u64 = 0x0A;
pub const BONE_TRANSLATION: u64 = 0x10;
pub const BONE_ROTATION: u64 = 0x24;
pub const BONE_SCALE: u64 = 0x38;
pub const BONE_PIVOT: u64 = 0x4C;
pub const BONE_FLAG_BILLBOARD: u32 = 0x8;

pub const VERTEX_SIZE: u64 = 48;
pub const VTX_POSITION: u64 = 0x00;
pub const VTX_WEIGHTS: u64 = 0x0C;
pub const VTX_BONES: u64 = 0x10;
pub const VTX_NORMAL: u64 = 0x14;
pub const VTX_UV0: u64 = 0x20;
pub const VTX_UV1: u64 = 0x28;

pub const COLOR_SIZE: u64 = 40;
pub const COLOR_RGB: u64 = 0x00;
pub const COLOR_ALPHA: u64 = 0x14;
pub const TRANSPARENCY_SIZE: u64 = 20;
pub const TEXTURE_ANIM_SIZE: u64 = 60;
pub const TEXANIM_TRANSLATION: u64 = 0x00;
pub const TEXANIM_ROTATION: u64 = 0x14;
pub const TEXANIM_SCALE: u64 = 0x28;

pub const TEXTURE_SIZE: u64 = 16;
/// Texture flags: repeat along X (u) and along Y (v); an axis without its flag clamps.
pub const TEXTURE_FLAG_WRAP_X: u32 = 0x1;
pub const TEXTURE_FLAG_WRAP_Y: u32 = 0x2;
pub const TEX_TYPE: u64 = 0x00;
pub const TEX_FLAGS: u64 = 0x04;
pub const TEX_NAME: u64 = 0x08;

pub const RENDER_FLAGS_SIZE: u64 = 4;
pub const RF_UNLIT: u16 = 0x01;
pub const RF_UNFOGGED: u16 = 0x02;
pub const RF_TWO_SIDED: u16 = 0x04;
pub const RF_BILLBOARD: u16 = 0x08;
pub const RF_NO_DEPTH_WRITE: u16 = 0x10;

pub const ATTACHMENT_SIZE: u64 = 40;
pub const EVENT_SIZE: u64 = 36;
pub const LIGHT_SIZE: u64 = 156;
pub const CAMERA_SIZE: u64 = 100;
pub const RIBBON_SIZE: u64 = 176;
pub const PARTICLE_SIZE: u64 = 476;

// .skin
pub const SKIN_HEADER_SIZE: u64 = 48;
pub const SKIN_LOOKUP: u64 = 0x04;
pub const SKIN_INDICES: u64 = 0x0C;
pub const SKIN_PROPERTIES: u64 = 0x14;
pub const SKIN_SUBMESHES: u64 = 0x1C;
pub const SKIN_UNITS: u64 = 0x24;
pub const SKIN_BONE_COUNT_MAX: u64 = 0x2C;

pub const SUBMESH_SIZE: u64 = 48;
pub const SUB_ID: u64 = 0x00;
pub const SUB_LEVEL: u64 = 0x02;
pub const SUB_VERTEX_START: u64 = 0x04;
pub const SUB_VERTEX_COUNT: u64 = 0x06;
pub const SUB_INDEX_START: u64 = 0x08;
pub const SUB_INDEX_COUNT: u64 = 0x0A;
pub const SUB_BONE_COUNT: u64 = 0x0C;
pub const SUB_CENTER: u64 = 0x14;

pub const UNIT_SIZE: u64 = 24;
pub const UNIT_FLAGS: u64 = 0x00;
pub const UNIT_PRIORITY: u64 = 0x01;
pub const UNIT_SHADER: u64 = 0x02;
pub const UNIT_SUBMESH: u64 = 0x04;
pub const UNIT_COLOR: u64 = 0x08;
pub const UNIT_MATERIAL: u64 = 0x0A;
pub const UNIT_LAYER: u64 = 0x0C;
pub const UNIT_TEXTURE_COUNT: u64 = 0x0E;
pub const UNIT_TEXTURE_COMBO: u64 = 0x10;
pub const UNIT_TEXCOORD_COMBO: u64 = 0x12;
pub const UNIT_WEIGHT_COMBO: u64 = 0x14;
pub const UNIT_TRANSFORM_COMBO: u64 = 0x16;
