//! The `.skin` file (magic `SKIN`): one level of detail of an M2's geometry. It holds the
//! vertex lookup (skin vertex → M2 vertex), triangle indices over skin vertices, submeshes and
//! texture units (batches). Every array is checked against the .skin's own bytes here; indices
//! into the .m2 (vertices, render flags, textures...) are checked when the scene is built.

use super::layout::*;
use crate::formats::error::DecodeResult;
use crate::formats::reader::Reader;

pub const FORMAT: &str = "wow-skin";

#[derive(Debug, Clone, PartialEq)]
pub struct SkinSubmesh {
    pub id: u16,
    pub level: u16,
    pub vertex_start: u16,
    pub vertex_count: u16,
    /// First index into the skin's index list, with the level extension applied.
    pub index_start: u32,
    pub index_count: u16,
    pub bone_count: u16,
    pub center: [f32; 3],
    /// Byte offset of the record, for messages.
    pub offset: u64,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct TextureUnit {
    pub flags: u8,
    pub priority: i8,
    pub shader_id: u16,
    pub submesh: u16,
    pub color: i16,
    pub render_flags: u16,
    pub layer: u16,
    pub texture_count: u16,
    pub texture_combo: u16,
    pub texcoord_combo: u16,
    pub weight_combo: u16,
    pub transform_combo: u16,
    pub offset: u64,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Skin {
    pub lookup: Vec<u16>,
    pub indices: Vec<u16>,
    pub submeshes: Vec<SkinSubmesh>,
    pub units: Vec<TextureUnit>,
    pub bone_count_max: u32,
}

fn array(r: &Reader, at: u64, stride: u64, field: &str) -> DecodeResult<(u64, u64)> {
    let count = u64::from(r.u32(at, field)?);
    let offset = u64::from(r.u32(at + 4, field)?);
    r.table(offset, count, stride, field)?;
    Ok((count, offset))
}

fn u16_list(r: &Reader, at: u64, field: &str) -> DecodeResult<Vec<u16>> {
    let (count, offset) = array(r, at, 2, field)?;
    r.u16s(offset, count, field)
}

/// Decodes a .skin file on its own (errors name format `wow-skin`).
pub fn decode(data: &[u8]) -> DecodeResult<Skin> {
    let r = Reader::new(data, FORMAT);
    let magic = r.bytes(0, 4, "magic")?;
    if magic != SKIN_MAGIC {
        return Err(r.invalid("magic", 0, "not a .skin file (expected \"SKIN\")"));
    }
    r.bytes(0, SKIN_HEADER_SIZE, "header")?;
    let lookup = u16_list(&r, SKIN_LOOKUP, "vertex lookup")?;
    let indices = u16_list(&r, SKIN_INDICES, "indices")?;
    let bone_count_max = r.u32(SKIN_BONE_COUNT_MAX, "bone count max")?;

    let (count, offset) = array(&r, SKIN_SUBMESHES, SUBMESH_SIZE, "submeshes")?;
    let mut submeshes = Vec::with_capacity(count as usize);
    for i in 0..count {
        let at = offset + i * SUBMESH_SIZE;
        let f = |o: u64, name: &str| r.u16(at + o, name).map_err(|e| e.within(&format!("submesh[{i}]")));
        let level = f(SUB_LEVEL, "level")?;
        let index_start = u32::from(f(SUB_INDEX_START, "index start")?) + (u32::from(level) << 16);
        submeshes.push(SkinSubmesh {
            id: f(SUB_ID, "id")?,
            level,
            vertex_start: f(SUB_VERTEX_START, "vertex start")?,
            vertex_count: f(SUB_VERTEX_COUNT, "vertex count")?,
            index_start,
            index_count: f(SUB_INDEX_COUNT, "index count")?,
            bone_count: f(SUB_BONE_COUNT, "bone count")?,
            center: r.f32s::<3>(at + SUB_CENTER, "center")?,
            offset: at,
        });
    }

    let (count, offset) = array(&r, SKIN_UNITS, UNIT_SIZE, "texture units")?;
    let mut units = Vec::with_capacity(count as usize);
    for i in 0..count {
        let at = offset + i * UNIT_SIZE;
        let f = |o: u64, name: &str| r.u16(at + o, name).map_err(|e| e.within(&format!("texture unit[{i}]")));
        units.push(TextureUnit {
            flags: r.u8(at + UNIT_FLAGS, "flags")?,
            priority: r.u8(at + UNIT_PRIORITY, "priority")? as i8,
            shader_id: f(UNIT_SHADER, "shader id")?,
            submesh: f(UNIT_SUBMESH, "submesh")?,
            color: r.i16(at + UNIT_COLOR, "color index")?,
            render_flags: f(UNIT_MATERIAL, "render flags index")?,
            layer: f(UNIT_LAYER, "material layer")?,
            texture_count: f(UNIT_TEXTURE_COUNT, "texture count")?,
            texture_combo: f(UNIT_TEXTURE_COMBO, "texture combo")?,
            texcoord_combo: f(UNIT_TEXCOORD_COMBO, "texcoord combo")?,
            weight_combo: f(UNIT_WEIGHT_COMBO, "transparency combo")?,
            transform_combo: f(UNIT_TRANSFORM_COMBO, "texture transform combo")?,
            offset: at,
        });
    }
    Ok(Skin { lookup, indices, submeshes, units, bone_count_max })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_other_magic_and_short_headers() {
        assert!(decode(b"MD20").is_err());
        let e = decode(b"SKIN\0\0\0\0").unwrap_err();
        assert_eq!(e.format, FORMAT);
    }

    #[test]
    fn level_extends_the_index_start() {
        let mut d = vec![0u8; 48 + 48];
        d[..4].copy_from_slice(b"SKIN");
        d[0x1C..0x20].copy_from_slice(&1u32.to_le_bytes());
        d[0x20..0x24].copy_from_slice(&48u32.to_le_bytes());
        d[48 + 2..48 + 4].copy_from_slice(&1u16.to_le_bytes()); // level 1
        d[48 + 8..48 + 10].copy_from_slice(&5u16.to_le_bytes()); // index start 5
        let skin = decode(&d).unwrap();
        assert_eq!(skin.submeshes[0].index_start, 65536 + 5);
    }
}
