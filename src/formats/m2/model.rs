//! Decodes the `.m2` itself (magic `MD20`) into plain records: header, sequences, bones with
//! their tracks, vertices, materials' inputs (render flags, textures, lookups, colours,
//! transparencies, texture animations) and the listed extras (attachments, events, lights,
//! cameras, ribbon and particle emitters). Positions stay in the file's Z-up axes here and the
//! scene builder maps them (see [`super::axes`]), except bone track keys, which are read
//! straight into scene axes so that building clips need not touch them again.

use glam::{Quat, Vec3};

use super::layout::*;
use super::tracks::{self, KeySource, Track, TrackReader, m2array};
use crate::formats::error::DecodeResult;
use crate::formats::reader::{Reader, Table};
use crate::scene::validate::any_not_finite;

pub const FORMAT: &str = "wow-m2";

#[derive(Debug, Clone, PartialEq)]
pub struct Sequence {
    pub id: u16,
    pub variation: u16,
    pub duration_ms: u32,
    pub move_speed: f32,
    pub flags: u32,
    pub frequency: i16,
    pub next_variation: i16,
    pub alias_next: u16,
}

impl Sequence {
    pub fn in_file(&self) -> bool {
        self.flags & SEQ_FLAG_IN_FILE != 0
    }

    pub fn is_alias(&self) -> bool {
        self.flags & SEQ_FLAG_ALIAS != 0
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Bone {
    pub key_bone_id: i32,
    pub flags: u32,
    pub parent: i16,
    pub submesh: u16,
    /// Unlike every other position here, a bone's track keys are in scene axes: they are
    /// turned as they are read (see [`tracks::BONE_TRANSLATION_KEYS`]).
    pub translation: Track<Vec3>,
    pub rotation: Track<Quat>,
    pub scale: Track<Vec3>,
    /// In the file's axes, as stored.
    pub pivot: Vec3,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Vertex {
    pub position: Vec3,
    pub weights: [u8; 4],
    pub bones: [u8; 4],
    pub normal: Vec3,
    pub uv: [f32; 2],
    /// The second texture coordinate set (0x28), for units whose texture coordinate lookup is 1.
    pub uv1: [f32; 2],
}

#[derive(Debug, Clone, PartialEq)]
pub struct Texture {
    pub kind: u32,
    pub flags: u32,
    /// The stored file name (empty for run-time types).
    pub name: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ColorAnim {
    pub rgb: Track<Vec3>,
    pub alpha: Track<f32>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TextureAnim {
    pub translation: Track<Vec3>,
    pub rotation: Track<Quat>,
    pub scale: Track<Vec3>,
}

/// A point on a bone, for attachments, events, lights and emitters.
#[derive(Debug, Clone, PartialEq)]
pub struct Marker {
    pub kind: MarkerKind,
    /// Attachment or event id, light type, emitter texture...
    pub id: u32,
    pub label: String,
    pub bone: u16,
    pub position: Vec3,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkerKind {
    Attachment,
    Event,
    Light,
    Camera,
    Ribbon,
    Particle,
}

impl MarkerKind {
    pub fn label(self) -> &'static str {
        match self {
            MarkerKind::Attachment => "attachment",
            MarkerKind::Event => "event",
            MarkerKind::Light => "light",
            MarkerKind::Camera => "camera",
            MarkerKind::Ribbon => "ribbon emitter",
            MarkerKind::Particle => "particle emitter",
        }
    }
}

/// Everything read from one .m2.
#[derive(Debug, Clone, Default)]
pub struct M2Model {
    pub version: u32,
    pub name: String,
    pub flags: u32,
    pub global_periods: Vec<u32>,
    pub sequences: Vec<Sequence>,
    /// Per sequence: where its keyframes were read from (`None`: in the .m2; `Some(true)`:
    /// its .anim was supplied; `Some(false)`: its .anim is missing).
    pub anim_present: Vec<Option<bool>>,
    pub bones: Vec<Bone>,
    pub key_bone_lookup: Vec<i16>,
    pub vertices: Vec<Vertex>,
    pub skin_profile_count: u32,
    pub colors: Vec<ColorAnim>,
    pub textures: Vec<Texture>,
    pub transparencies: Vec<Track<f32>>,
    pub texture_anims: Vec<TextureAnim>,
    pub replaceable_lookup: Vec<i16>,
    /// (flags, blend mode) pairs.
    pub render_flags: Vec<(u16, u16)>,
    pub bone_lookup: Vec<u16>,
    pub texture_lookup: Vec<u16>,
    pub texcoord_lookup: Vec<i16>,
    pub transparency_lookup: Vec<u16>,
    pub texture_anim_lookup: Vec<i16>,
    pub bounding_box: [f32; 6],
    pub markers: Vec<Marker>,
    pub warnings: Vec<String>,
}

/// The version check: v264 decodes, v272 decodes with a warning, everything else (pre-WotLK
/// embedded views, chunked MD21, unknown values) is refused before any other field is read.
pub fn check_version(r: &Reader) -> DecodeResult<(u32, Option<String>)> {
    let magic = r.bytes(0, 4, "magic")?;
    if magic == CHUNKED_MAGIC {
        return Err(r.error(
            "magic",
            0,
            crate::formats::ErrorKind::Unsupported(
                "chunked MD21 (Legion and later) is an unsupported version; only MD20 v264 (WotLK) is read".into(),
            ),
        ));
    }
    if magic != MAGIC {
        return Err(r.invalid("magic", 0, "not an M2 model (expected \"MD20\")"));
    }
    let version = r.u32(HDR_VERSION, "version")?;
    let unsupported = |why: String| r.error("version", HDR_VERSION, crate::formats::ErrorKind::Unsupported(why));
    match version {
        VERSION_WOTLK => Ok((version, None)),
        VERSION_CATACLYSM => Ok((
            version,
            Some(format!(
                "version {version} (Cataclysm) is read with the v264 (WotLK) layout, which matches for the fields used"
            )),
        )),
        v if (FIRST_PRE_WOTLK..VERSION_WOTLK).contains(&v) => Err(unsupported(format!(
            "unsupported version {v}: pre-WotLK models (256..=263) keep their views inside the .m2 and use 28-byte tracks; only v264 is read"
        ))),
        v => Err(unsupported(format!("unsupported version {v}: only v264 (WotLK) and v272 (Cataclysm) are read"))),
    }
}

/// Reads the sequence table only (to know which `.anim` files to look for).
pub fn read_sequences(data: &[u8]) -> DecodeResult<Vec<Sequence>> {
    let r = Reader::new(data, FORMAT);
    check_version(&r)?;
    let table = array(&r, HDR_SEQUENCES, SEQUENCE_SIZE, "sequences")?;
    let mut out = Vec::with_capacity(table.count as usize);
    for i in 0..table.count {
        let at = table.record(i);
        let w = |e: crate::formats::DecodeError| e.within(&format!("sequence[{i}]"));
        out.push(Sequence {
            id: r.u16(at + SEQ_ID, "id").map_err(w)?,
            variation: r.u16(at + SEQ_VARIATION, "variation").map_err(w)?,
            duration_ms: r.u32(at + SEQ_DURATION, "duration").map_err(w)?,
            move_speed: r.f32(at + SEQ_MOVE_SPEED, "move speed").map_err(w)?,
            flags: r.u32(at + SEQ_FLAGS, "flags").map_err(w)?,
            frequency: r.i16(at + SEQ_FREQUENCY, "frequency").map_err(w)?,
            next_variation: r.i16(at + SEQ_NEXT_VARIATION, "next variation").map_err(w)?,
            alias_next: r.u16(at + SEQ_ALIAS_NEXT, "alias next").map_err(w)?,
        });
    }
    Ok(out)
}

/// An M2Array in the header, checked against the file for `stride`-byte records.
fn array(r: &Reader, at: u64, stride: u64, field: &str) -> DecodeResult<Table> {
    let count = u64::from(r.u32(at, field)?);
    let offset = u64::from(r.u32(at + 4, field)?);
    r.table(offset, count, stride, field)
}

fn u16_list(r: &Reader, at: u64, field: &str) -> DecodeResult<Vec<u16>> {
    let t = array(r, at, 2, field)?;
    r.u16s(t.offset, t.count, field)
}

fn i16_list(r: &Reader, at: u64, field: &str) -> DecodeResult<Vec<i16>> {
    Ok(u16_list(r, at, field)?.into_iter().map(|v| v as i16).collect())
}

fn vec3_at(r: &Reader, at: u64, field: &str) -> DecodeResult<Vec3> {
    Ok(Vec3::from_array(r.f32s::<3>(at, field)?))
}

/// Decodes a .m2. `anims[i]` holds the bytes of sequence `i`'s `.anim` file when the caller
/// found one (only consulted for sequences whose keyframes are not in the .m2).
pub fn decode(data: &[u8], anims: &[Option<&[u8]>]) -> DecodeResult<M2Model> {
    let r = Reader::new(data, FORMAT);
    let (version, version_warning) = check_version(&r)?;
    r.bytes(0, HEADER_SIZE, "header")?;
    let mut m = M2Model { version, ..M2Model::default() };
    m.warnings.extend(version_warning);
    m.flags = r.u32(HDR_FLAGS, "global flags")?;
    let (name_len, name_offset) = (r.u32(HDR_NAME, "name length")?, r.u32(HDR_NAME + 4, "name offset")?);
    m.name = match r.cstr(u64::from(name_offset), u64::from(name_len).min(MAX_NAME_LEN), "name") {
        Ok(name) => name,
        Err(e) => {
            m.warnings.push(format!("model name unreadable ({e})"));
            String::new()
        }
    };
    let globals = array(&r, HDR_GLOBAL_SEQUENCES, 4, "global sequences")?;
    for i in 0..globals.count {
        m.global_periods.push(r.u32(globals.record(i), "global sequence")?);
    }
    m.sequences = read_sequences(data)?;
    m.skin_profile_count = r.u32(HDR_SKIN_PROFILE_COUNT, "skin profile count")?;

    // Where each sequence's keyframes live: aliases followed (bounded), .anim files attached.
    let mut sources = Vec::with_capacity(m.sequences.len());
    for (i, seq) in m.sequences.iter().enumerate() {
        let mut target = i;
        let mut hops = 0;
        while let Some(s) = m.sequences.get(target).filter(|s| s.is_alias()) {
            target = usize::from(s.alias_next);
            hops += 1;
            if hops > m.sequences.len() || target >= m.sequences.len() {
                m.warnings.push(format!("sequence {i}: alias chain is broken or loops; plays the rest pose"));
                target = usize::MAX;
                break;
            }
        }
        let source = match m.sequences.get(target) {
            None => KeySource::Missing,
            Some(s) if s.in_file() => KeySource::File(r),
            Some(_) => match anims.get(target).copied().flatten() {
                Some(bytes) => KeySource::File(Reader::new(bytes, "wow-anim")),
                None => KeySource::Missing,
            },
        };
        m.anim_present.push(match m.sequences.get(target) {
            Some(s) if !s.in_file() => Some(matches!(source, KeySource::File(_))),
            _ => None,
        });
        let _ = seq;
        sources.push((target, source));
    }
    let anim_len: u64 = anims.iter().flatten().map(|a| a.len() as u64).sum();
    let tr = TrackReader::new(r, sources, m.global_periods.clone(), r.len().saturating_add(anim_len));

    let bones = array(&r, HDR_BONES, BONE_SIZE, "bones")?;
    for i in 0..bones.count {
        let at = bones.record(i);
        let w = |e: crate::formats::DecodeError| e.within(&format!("bone[{i}]"));
        let label = |what: &str| format!("bone[{i}] {what}");
        let bone = Bone {
            key_bone_id: r.i32(at + BONE_KEY_ID, "key bone id").map_err(w)?,
            flags: r.u32(at + BONE_FLAGS, "flags").map_err(w)?,
            parent: r.i16(at + BONE_PARENT, "parent").map_err(w)?,
            submesh: r.u16(at + BONE_SUBMESH, "submesh").map_err(w)?,
            translation: tr.read(
                at + BONE_TRANSLATION,
                tracks::BONE_TRANSLATION_KEYS,
                &label("translation"),
                &mut m.warnings,
            ),
            rotation: tr.read(at + BONE_ROTATION, tracks::BONE_ROTATION_KEYS, &label("rotation"), &mut m.warnings),
            scale: tr.read(at + BONE_SCALE, tracks::BONE_SCALE_KEYS, &label("scale"), &mut m.warnings),
            pivot: vec3_at(&r, at + BONE_PIVOT, "pivot").map_err(w)?,
        };
        m.bones.push(bone);
    }
    m.key_bone_lookup = i16_list(&r, HDR_KEY_BONE_LOOKUP, "key bone lookup")?;

    let vertices = array(&r, HDR_VERTICES, VERTEX_SIZE, "vertices")?;
    let bytes = r.bytes(vertices.offset, vertices.count * VERTEX_SIZE, "vertices")?;
    let mut non_finite = 0usize;
    // Whole 48-byte records split at fixed offsets (position 0x00, weights 0x0C, bones 0x10,
    // normal 0x14, uv0 0x20, uv1 0x28): no per-field check in the loop.
    const _: () = assert!(
        VERTEX_SIZE == 48
            && VTX_POSITION == 0
            && VTX_WEIGHTS == 12
            && VTX_BONES == 16
            && VTX_NORMAL == 20
            && VTX_UV0 == 32
            && VTX_UV1 == 40
    );
    let (records, _) = bytes.as_chunks::<48>();
    // Collected from a map over whole records: the exact length is known up front, so there
    // is no capacity check per vertex as there was with `push`.
    m.vertices = records
        .iter()
        .map(|record| {
            let [p0, p1, p2, weights, bones, n0, n1, n2, u, v, u1, v1]: [[u8; 4]; 12] = bytemuck::cast(*record);
            let values = [p0, p1, p2, n0, n1, n2, u, v].map(f32::from_le_bytes);
            let [p0, p1, p2, n0, n1, n2, u, v] = values;
            let mut position = Vec3::new(p0, p1, p2);
            let mut normal = Vec3::new(n0, n1, n2);
            let mut uv = [u, v];
            // The second set is zeroed where not finite without a warning: most units never
            // sample it, and some exporters leave it unset.
            let uv1 = [u1, v1].map(f32::from_le_bytes).map(|v| if v.is_finite() { v } else { 0.0 });
            // One branch on a fold of bit tests, not eight short-circuit `is_finite` compares.
            if any_not_finite(&values) {
                non_finite += 1;
                position = if position.is_finite() { position } else { Vec3::ZERO };
                normal = if normal.is_finite() { normal } else { Vec3::Z };
                uv = uv.map(|v| if v.is_finite() { v } else { 0.0 });
            }
            Vertex { position, weights, bones, normal, uv, uv1 }
        })
        .collect();
    if non_finite > 0 {
        m.warnings.push(format!("{non_finite} vertices had NaN or infinite values; those values were zeroed"));
    }

    let colors = array(&r, HDR_COLORS, COLOR_SIZE, "colors")?;
    for i in 0..colors.count {
        let at = colors.record(i);
        m.colors.push(ColorAnim {
            rgb: tr.read(at + COLOR_RGB, tracks::VEC3, &format!("color[{i}] rgb"), &mut m.warnings),
            alpha: tr.read(at + COLOR_ALPHA, tracks::FIXED16, &format!("color[{i}] alpha"), &mut m.warnings),
        });
    }
    let textures = array(&r, HDR_TEXTURES, TEXTURE_SIZE, "textures")?;
    for i in 0..textures.count {
        let at = textures.record(i);
        let kind = r.u32(at + TEX_TYPE, "texture type")?;
        let flags = r.u32(at + TEX_FLAGS, "texture flags")?;
        let (len, offset) = (r.u32(at + TEX_NAME, "texture name")?, r.u32(at + TEX_NAME + 4, "texture name")?);
        let name = if len == 0 {
            String::new()
        } else {
            match r.cstr(u64::from(offset), u64::from(len).min(MAX_NAME_LEN), "texture name") {
                Ok(n) => n,
                Err(e) => {
                    m.warnings.push(format!("texture {i}: file name unreadable ({e})"));
                    String::new()
                }
            }
        };
        m.textures.push(Texture { kind, flags, name });
    }
    let transparencies = array(&r, HDR_TRANSPARENCIES, TRANSPARENCY_SIZE, "transparencies")?;
    for i in 0..transparencies.count {
        let label = format!("transparency[{i}]");
        m.transparencies.push(tr.read(transparencies.record(i), tracks::FIXED16, &label, &mut m.warnings));
    }
    let anims_table = array(&r, HDR_TEXTURE_ANIMS, TEXTURE_ANIM_SIZE, "texture animations")?;
    for i in 0..anims_table.count {
        let at = anims_table.record(i);
        let l = |what: &str| format!("texture animation[{i}] {what}");
        m.texture_anims.push(TextureAnim {
            translation: tr.read(at + TEXANIM_TRANSLATION, tracks::VEC3, &l("translation"), &mut m.warnings),
            rotation: tr.read(at + TEXANIM_ROTATION, tracks::FLOAT_QUAT, &l("rotation"), &mut m.warnings),
            scale: tr.read(at + TEXANIM_SCALE, tracks::VEC3, &l("scale"), &mut m.warnings),
        });
    }
    m.replaceable_lookup = i16_list(&r, HDR_REPLACEABLE_LOOKUP, "replaceable texture lookup")?;
    let flags = array(&r, HDR_RENDER_FLAGS, RENDER_FLAGS_SIZE, "render flags")?;
    for i in 0..flags.count {
        let at = flags.record(i);
        m.render_flags.push((r.u16(at, "render flags")?, r.u16(at + 2, "blend mode")?));
    }
    m.bone_lookup = u16_list(&r, HDR_BONE_LOOKUP, "bone lookup")?;
    m.texture_lookup = u16_list(&r, HDR_TEXTURE_LOOKUP, "texture lookup")?;
    m.texcoord_lookup = i16_list(&r, HDR_TEXCOORD_LOOKUP, "texture coordinate lookup")?;
    m.transparency_lookup = u16_list(&r, HDR_TRANSPARENCY_LOOKUP, "transparency lookup")?;
    m.texture_anim_lookup = i16_list(&r, HDR_TEXTURE_ANIM_LOOKUP, "texture animation lookup")?;
    m.bounding_box = r.f32s::<6>(HDR_BOUNDING_BOX, "bounding box")?;

    // The listed extras are local: a damaged list is a warning, never a failed model.
    let mut markers = Vec::new();
    for (kind, at, stride) in [
        (MarkerKind::Attachment, HDR_ATTACHMENTS, ATTACHMENT_SIZE),
        (MarkerKind::Event, HDR_EVENTS, EVENT_SIZE),
        (MarkerKind::Light, HDR_LIGHTS, LIGHT_SIZE),
        (MarkerKind::Camera, HDR_CAMERAS, CAMERA_SIZE),
        (MarkerKind::Ribbon, HDR_RIBBONS, RIBBON_SIZE),
        (MarkerKind::Particle, HDR_PARTICLES, PARTICLE_SIZE),
    ] {
        match read_markers(&r, kind, at, stride, &mut markers) {
            Ok(()) => {}
            Err(e) => m.warnings.push(format!("{} list unreadable ({e}); not listed", kind.label())),
        }
    }
    m.markers = markers;
    Ok(m)
}

fn read_markers(r: &Reader, kind: MarkerKind, at: u64, stride: u64, out: &mut Vec<Marker>) -> DecodeResult<()> {
    let table = array(r, at, stride, kind.label())?;
    for i in 0..table.count {
        let rec = table.record(i);
        let marker = match kind {
            MarkerKind::Attachment => {
                let id = r.u32(rec, "attachment id")?;
                Marker {
                    kind,
                    id,
                    label: attachment_name(id).map(str::to_string).unwrap_or_else(|| format!("attachment {id}")),
                    bone: r.u16(rec + 4, "attachment bone")?,
                    position: vec3_at(r, rec + 8, "attachment position")?,
                }
            }
            MarkerKind::Event => {
                let ident = r.bytes(rec, 4, "event identifier")?;
                let label: String = ident.iter().map(|&b| if b.is_ascii_graphic() { b as char } else { '.' }).collect();
                Marker {
                    kind,
                    id: r.u32(rec + 4, "event data")?,
                    label,
                    bone: r.u16(rec + 8, "event bone")?,
                    position: vec3_at(r, rec + 12, "event position")?,
                }
            }
            MarkerKind::Light => {
                let t = r.u16(rec, "light type")?;
                Marker {
                    kind,
                    id: u32::from(t),
                    label: match t {
                        0 => "directional light".into(),
                        1 => "point light".into(),
                        other => format!("light type {other}"),
                    },
                    bone: r.u16(rec + 2, "light bone")?,
                    position: vec3_at(r, rec + 4, "light position")?,
                }
            }
            MarkerKind::Camera => {
                let t = r.u32(rec, "camera type")?;
                let fov = r.f32(rec + 4, "camera fov")?;
                let (count, _) = m2array(r, rec + 0x10 + TRACK_TIMESTAMPS, "camera").unwrap_or((0, 0));
                Marker {
                    kind,
                    id: t,
                    label: format!("camera type {t}, fov {fov:.3}, {count} position key lists"),
                    bone: u16::MAX,
                    position: vec3_at(r, rec + 0x24, "camera position")?,
                }
            }
            MarkerKind::Ribbon => {
                let textures = r.u32(rec + 0x14, "ribbon textures")?;
                Marker {
                    kind,
                    id: r.u32(rec, "ribbon id")?,
                    label: format!("ribbon, {textures} textures"),
                    bone: r.u32(rec + 4, "ribbon bone")?.min(u32::from(u16::MAX)) as u16,
                    position: vec3_at(r, rec + 8, "ribbon position")?,
                }
            }
            MarkerKind::Particle => {
                let texture = r.u16(rec + 0x16, "particle texture")?;
                let blend = r.u8(rec + 0x28, "particle blend")?;
                let emitter = r.u8(rec + 0x29, "particle emitter type")?;
                Marker {
                    kind,
                    id: u32::from(texture),
                    label: format!("emitter type {emitter}, texture {texture}, blend {blend}"),
                    bone: r.u16(rec + 0x14, "particle bone")?,
                    position: vec3_at(r, rec + 8, "particle position")?,
                }
            }
        };
        out.push(marker);
    }
    Ok(())
}

/// Attachment slot names for ids 0..=35 (the spec's table; "-" slots have no name).
pub fn attachment_name(id: u32) -> Option<&'static str> {
    const NAMES: [&str; 36] = [
        "left wrist / mount",
        "right palm",
        "left palm",
        "right elbow",
        "left elbow",
        "right shoulder",
        "left shoulder",
        "right knee",
        "left knee",
        "",
        "",
        "helmet",
        "back",
        "",
        "",
        "bust",
        "bust",
        "face",
        "above character",
        "ground",
        "top of head",
        "left palm",
        "right palm",
        "",
        "",
        "",
        "right back sheath",
        "left back sheath",
        "middle back sheath",
        "belly",
        "left back",
        "right back",
        "left hip sheath",
        "right hip sheath",
        "bust",
        "right palm",
    ];
    NAMES.get(id as usize).copied().filter(|n| !n.is_empty())
}
