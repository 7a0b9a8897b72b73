//! An encoder for Quake 3 `.mdr` files, written from the spec and the engine notes, not from the
//! decoder. No `.mdr` files are public, so tests, benchmarks and the demo write their own.
//!
//! Everything is in Quake axes and stored as given: triangles keep the order the caller states
//! (the format's front faces are clockwise), bone indices are written even when out of range,
//! so decoder tests can build files a reader must reject. [`MdrFile::write`] also returns where
//! each record landed, so tests can damage one field precisely.
//!
//! Layout choices the format leaves open (none of which a reader may rely on): header, frames,
//! then per LOD its record followed by its surfaces (each: record, triangles, vertices, bone
//! references), then the tags. Surface idents are `RDM5`; frame bounds and radius are those of
//! LOD 0 skinned in that frame; local origins are zero.
//!
//! The fixtures live here too: [`arm`], a two-bone arm bending over 10 frames, and
//! [`demo_arm`], the demo model's bytes.

use glam::Vec3;

use crate::formats::mdr::decode::BoneMatrix;
use crate::formats::mdr::layout::*;

/// Bone `b` of a frame, as `f32[3][4]` rows with the translation in column 3.
pub const IDENTITY_BONE: BoneMatrix = [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]];

#[derive(Debug, Clone, PartialEq)]
pub struct WeightSpec {
    pub bone: i32,
    pub weight: f32,
    /// Position in the bone's space.
    pub offset: [f32; 3],
}

#[derive(Debug, Clone, PartialEq)]
pub struct VertexSpec {
    pub normal: [f32; 3],
    /// `s, t`, origin at the top left of the image.
    pub tex_coords: [f32; 2],
    pub weights: Vec<WeightSpec>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct SurfaceSpec {
    pub name: String,
    pub shader: String,
    pub shader_index: i32,
    pub vertices: Vec<VertexSpec>,
    /// Vertex indices as stored: clockwise front faces.
    pub triangles: Vec<[i32; 3]>,
    pub bone_refs: Vec<i32>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct LodSpec {
    pub surfaces: Vec<SurfaceSpec>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct FrameSpec {
    /// At most 15 characters (a 16-byte field); not written when compressed.
    pub name: String,
    pub bones: Vec<BoneMatrix>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TagSpec {
    pub name: String,
    pub bone: i32,
}

/// A whole `.mdr` file.
#[derive(Debug, Clone, PartialEq)]
pub struct MdrFile {
    pub name: String,
    pub version: i32,
    /// Written as `numBones`; every frame should hold this many bones.
    pub bone_count: usize,
    pub frames: Vec<FrameSpec>,
    /// Write compressed frames (negative `ofsFrames`, 12 u16 per bone).
    pub compressed: bool,
    pub lods: Vec<LodSpec>,
    pub tags: Vec<TagSpec>,
}

impl Default for MdrFile {
    fn default() -> Self {
        Self {
            name: String::new(),
            version: VERSION,
            bone_count: 0,
            frames: Vec::new(),
            compressed: false,
            lods: Vec::new(),
            tags: Vec::new(),
        }
    }
}

/// Where [`MdrFile::write`] put each record (absolute file offsets).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Written {
    pub frames: u64,
    pub lods: Vec<u64>,
    /// Per LOD, per surface.
    pub surfaces: Vec<Vec<u64>>,
    /// Per LOD, per surface: the first vertex record.
    pub vertices: Vec<Vec<u64>>,
    /// Per LOD, per surface: the first triangle record.
    pub triangles: Vec<Vec<u64>>,
    pub tags: u64,
    pub end: u64,
}

/// Quantises a bone matrix to 12 u16 as the engine's `MC_Compress` lays them out: translation
/// in steps of 1/64, rotation in steps of 1/32766, both biased by 32768 and clamped. Values are
/// rounded to the nearest step (the engine's compressor truncates), so a decoded value is within
/// half a step of the original when it is in range.
pub fn compress_bone(m: &BoneMatrix) -> [u16; COMP_BONE_VALUES] {
    let quantise = |value: f32, step: f32| (value / step).round().clamp(-COMP_BIAS, COMP_BIAS - 1.0) + COMP_BIAS;
    let mut out = [0u16; COMP_BONE_VALUES];
    let (translation, rotation) = out.split_at_mut(3);
    for ((row, t), stored) in m.iter().zip(translation.iter_mut()).zip(rotation.chunks_exact_mut(3)) {
        *t = quantise(row[3], COMP_TRANSLATION_STEP) as u16;
        for (cell, value) in stored.iter_mut().zip(row) {
            *cell = quantise(*value, COMP_ROTATION_STEP) as u16;
        }
    }
    out
}

/// A little-endian byte sink with fixed-size string fields.
struct Out(Vec<u8>);

impl Out {
    fn at(&self) -> u64 {
        self.0.len() as u64
    }
    fn i32(&mut self, v: i32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn f32(&mut self, v: f32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn f32s(&mut self, values: &[f32]) {
        for &v in values {
            self.f32(v);
        }
    }
    fn u16(&mut self, v: u16) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    /// `text` NUL-padded to `len` bytes, cut to keep a terminator.
    fn name(&mut self, text: &str, len: u64) {
        let start = self.0.len();
        self.0.extend(text.bytes().take((len as usize).saturating_sub(1)));
        self.0.resize(start + len as usize, 0);
    }
    fn patch_i32(&mut self, at: u64, v: i32) {
        let at = at as usize;
        if let Some(dst) = self.0.get_mut(at..at + 4) {
            dst.copy_from_slice(&v.to_le_bytes());
        }
    }
}

/// A file offset as the format's i32 (fixtures stay far below 2 GiB).
fn offset(value: u64) -> i32 {
    i32::try_from(value).unwrap_or(i32::MAX)
}

impl SurfaceSpec {
    /// Bytes the surface spans: record, triangles, vertices, bone references.
    fn size(&self) -> u64 {
        let vertices: u64 =
            self.vertices.iter().map(|v| VERTEX_HEADER_SIZE + WEIGHT_SIZE * v.weights.len() as u64).sum();
        SURFACE_SIZE + TRIANGLE_SIZE * self.triangles.len() as u64 + vertices + 4 * self.bone_refs.len() as u64
    }
}

impl MdrFile {
    pub fn to_bytes(&self) -> Vec<u8> {
        self.write().0
    }

    /// The file and where each record landed.
    pub fn write(&self) -> (Vec<u8>, Written) {
        let mut out = Out(Vec::new());
        let mut written = Written::default();
        let frame_size = if self.compressed {
            COMP_FRAME_HEADER_SIZE + COMP_BONE_SIZE * self.bone_count as u64
        } else {
            FRAME_HEADER_SIZE + BONE_SIZE * self.bone_count as u64
        };
        written.frames = HEADER_SIZE;
        let lods_at = HEADER_SIZE + frame_size * self.frames.len() as u64;

        out.0.extend_from_slice(&MAGIC);
        out.i32(self.version);
        out.name(&self.name, NAME_LEN);
        out.i32(self.frames.len() as i32);
        out.i32(self.bone_count as i32);
        out.i32(if self.compressed { -offset(written.frames) } else { offset(written.frames) });
        out.i32(self.lods.len() as i32);
        out.i32(offset(lods_at));
        out.i32(self.tags.len() as i32);
        let tags_field = out.at();
        out.i32(0); // ofsTags, patched below
        let end_field = out.at();
        out.i32(0); // ofsEnd, patched below
        debug_assert_eq!(out.at(), HEADER_SIZE);

        for frame in &self.frames {
            self.write_frame(&mut out, frame);
        }
        debug_assert_eq!(out.at(), lods_at);

        for lod in &self.lods {
            let lod_at = out.at();
            written.lods.push(lod_at);
            let surfaces_size: u64 = lod.surfaces.iter().map(SurfaceSpec::size).sum();
            out.i32(lod.surfaces.len() as i32);
            out.i32(offset(LOD_SIZE));
            out.i32(offset(LOD_SIZE + surfaces_size));
            let (mut surfaces, mut vertices, mut triangles) = (Vec::new(), Vec::new(), Vec::new());
            for surface in &lod.surfaces {
                let (at, verts_at, tris_at) = write_surface(&mut out, surface);
                surfaces.push(at);
                vertices.push(verts_at);
                triangles.push(tris_at);
            }
            written.surfaces.push(surfaces);
            written.vertices.push(vertices);
            written.triangles.push(triangles);
        }

        written.tags = out.at();
        out.patch_i32(tags_field, offset(written.tags));
        for tag in &self.tags {
            out.i32(tag.bone);
            out.name(&tag.name, TAG_NAME_LEN);
        }
        written.end = out.at();
        out.patch_i32(end_field, offset(written.end));
        (out.0, written)
    }

    fn write_frame(&self, out: &mut Out, frame: &FrameSpec) {
        let (min, max, radius) = self.frame_bounds(frame);
        out.f32s(&min.to_array());
        out.f32s(&max.to_array());
        out.f32s(&[0.0; 3]);
        out.f32(radius);
        if self.compressed {
            for bone in &frame.bones {
                for value in compress_bone(bone) {
                    out.u16(value);
                }
            }
        } else {
            out.name(&frame.name, FRAME_NAME_LEN);
            for bone in &frame.bones {
                for row in bone {
                    out.f32s(row);
                }
            }
        }
    }

    /// The box and radius of LOD 0 in this frame: `Σ w · (M · offset)` per vertex.
    fn frame_bounds(&self, frame: &FrameSpec) -> (Vec3, Vec3, f32) {
        let (mut min, mut max) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
        let vertices = self.lods.first().into_iter().flat_map(|l| &l.surfaces).flat_map(|s| &s.vertices);
        for vertex in vertices {
            let mut p = Vec3::ZERO;
            for w in &vertex.weights {
                let Some(m) = usize::try_from(w.bone).ok().and_then(|b| frame.bones.get(b)) else { continue };
                let o = Vec3::from_array(w.offset);
                let moved = Vec3::from_array(m.map(|row| row[0] * o.x + row[1] * o.y + row[2] * o.z + row[3]));
                p += moved * w.weight;
            }
            min = min.min(p);
            max = max.max(p);
        }
        if min.x > max.x {
            return (Vec3::ZERO, Vec3::ZERO, 0.0);
        }
        (min, max, min.length().max(max.length()))
    }
}

/// Writes one surface; returns where it, its vertices and its triangles start.
fn write_surface(out: &mut Out, surface: &SurfaceSpec) -> (u64, u64, u64) {
    let at = out.at();
    let tris_rel = SURFACE_SIZE;
    let verts_rel = tris_rel + TRIANGLE_SIZE * surface.triangles.len() as u64;
    let vertex_bytes: u64 =
        surface.vertices.iter().map(|v| VERTEX_HEADER_SIZE + WEIGHT_SIZE * v.weights.len() as u64).sum();
    let refs_rel = verts_rel + vertex_bytes;
    out.0.extend_from_slice(&MAGIC);
    out.name(&surface.name, NAME_LEN);
    out.name(&surface.shader, NAME_LEN);
    out.i32(surface.shader_index);
    out.i32(-offset(at));
    out.i32(surface.vertices.len() as i32);
    out.i32(offset(verts_rel));
    out.i32(surface.triangles.len() as i32);
    out.i32(offset(tris_rel));
    out.i32(surface.bone_refs.len() as i32);
    out.i32(offset(refs_rel));
    out.i32(offset(surface.size()));
    debug_assert_eq!(out.at(), at + SURFACE_SIZE);
    for triangle in &surface.triangles {
        for &index in triangle {
            out.i32(index);
        }
    }
    for vertex in &surface.vertices {
        out.f32s(&vertex.normal);
        out.f32s(&vertex.tex_coords);
        out.i32(vertex.weights.len() as i32);
        for w in &vertex.weights {
            out.i32(w.bone);
            out.f32(w.weight);
            out.f32s(&w.offset);
        }
    }
    for &r in &surface.bone_refs {
        out.i32(r);
    }
    debug_assert_eq!(out.at(), at + surface.size());
    (at, at + verts_rel, at + tris_rel)
}

// ---------------------------------------------------------------------------------------------
// Fixtures.

/// The upper arm's bone.
pub const UPPER_ARM: i32 = 0;
/// The forearm's bone; the elbow is at x = [`ELBOW_X`] in the rest pose.
pub const FOREARM: i32 = 1;
pub const ELBOW_X: f32 = 10.0;
pub const ARM_LENGTH: f32 = 20.0;
/// The fixture arm's shader path.
pub const ARM_SHADER: &str = "models/mdview/arm";

/// A ring of the tube: its x position and its weights as `(bone, weight)`.
pub struct Ring {
    pub x: f32,
    pub weights: Vec<(i32, f32)>,
}

/// A tube along +X (forward) with a square cross-section of half-size 1, one ring of four
/// vertices per [`Ring`], outward normals, and clockwise-from-outside triangles (the format's
/// front faces), including a cap at each end. Each weight's offset is the vertex's rest
/// position in its bone's space: bone 0 rests at the origin and bone 1 at the elbow, both
/// unrotated.
pub fn tube(name: &str, rings: &[Ring]) -> SurfaceSpec {
    const CORNERS: [[f32; 2]; 4] = [[1.0, 1.0], [-1.0, 1.0], [-1.0, -1.0], [1.0, -1.0]];
    let mut vertices = Vec::new();
    for ring in rings {
        for (k, [y, z]) in CORNERS.iter().copied().enumerate() {
            let rest = Vec3::new(ring.x, y, z);
            let weights = ring
                .weights
                .iter()
                .map(|&(bone, weight)| {
                    let bone_origin = if bone == FOREARM { Vec3::new(ELBOW_X, 0.0, 0.0) } else { Vec3::ZERO };
                    WeightSpec { bone, weight, offset: (rest - bone_origin).to_array() }
                })
                .collect();
            vertices.push(VertexSpec {
                normal: Vec3::new(0.0, y, z).normalize().to_array(),
                tex_coords: [ring.x / ARM_LENGTH, k as f32 / 4.0],
                weights,
            });
        }
    }
    let mut triangles = Vec::new();
    let v = |ring: usize, corner: usize| (ring * 4 + corner % 4) as i32;
    for ring in 0..rings.len().saturating_sub(1) {
        for k in 0..4 {
            let (a, b, c, d) = (v(ring, k), v(ring, k + 1), v(ring + 1, k + 1), v(ring + 1, k));
            // Counter-clockwise from outside is (a, b, d), (b, c, d); the file stores the reverse.
            triangles.push([a, d, b]);
            triangles.push([b, d, c]);
        }
    }
    if let Some(last) = rings.len().checked_sub(1) {
        // The start cap faces -X and the end cap +X, both clockwise seen from outside.
        triangles.extend([[v(0, 0), v(0, 1), v(0, 2)], [v(0, 0), v(0, 2), v(0, 3)]]);
        triangles.extend([[v(last, 0), v(last, 2), v(last, 1)], [v(last, 0), v(last, 3), v(last, 2)]]);
    }
    SurfaceSpec { name: name.into(), shader: ARM_SHADER.into(), vertices, triangles, ..Default::default() }
}

/// The elbow angle of fixture frame `f`: 10° per frame, 0° to 90°.
pub fn arm_elbow_degrees(frame: usize) -> f32 {
    10.0 * frame as f32
}

/// The fixture's bones in frame `f`: the upper arm unrotated and lifted 0.25 per frame along
/// +Z (up); the forearm at the (lifted) elbow, bent up by [`arm_elbow_degrees`], i.e. rotated
/// about -Y so that +X turns towards +Z.
pub fn arm_bones(frame: usize) -> Vec<BoneMatrix> {
    let lift = 0.25 * frame as f32;
    let (s, c) = arm_elbow_degrees(frame).to_radians().sin_cos();
    vec![
        [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, lift]],
        [[c, 0.0, -s, ELBOW_X], [0.0, 1.0, 0.0, 0.0], [s, 0.0, c, lift]],
    ]
}

/// The test fixture: a two-bone arm bending over 10 frames named `bend01`..`bend10`.
/// - LOD 0, surface `arm`: five rings at x = 0, 5, 10, 15, 20 (20 vertices, 36 triangles) with
///   1, 2, 3, 4 and 1 weights: `[(0, 1)]`, `[(0, .75), (1, .25)]`,
///   `[(0, .5), (1, .25), (1, .25)]`, `[(0, .1), (1, .4), (1, .3), (0, .2)]`, `[(1, 1)]`.
/// - LOD 1, surface `arm_lod1`: three rings at x = 0, 10, 20 (12 vertices, 20 triangles) with
///   `[(0, 1)]`, `[(0, .5), (1, .5)]`, `[(1, 1)]`.
/// - A tag `tag_forearm` on the forearm.
pub fn arm(compressed: bool) -> MdrFile {
    let ring = |x: f32, weights: &[(i32, f32)]| Ring { x, weights: weights.to_vec() };
    let lod0 = tube(
        "arm",
        &[
            ring(0.0, &[(0, 1.0)]),
            ring(5.0, &[(0, 0.75), (1, 0.25)]),
            ring(10.0, &[(0, 0.5), (1, 0.25), (1, 0.25)]),
            ring(15.0, &[(0, 0.1), (1, 0.4), (1, 0.3), (0, 0.2)]),
            ring(20.0, &[(1, 1.0)]),
        ],
    );
    let lod1 = tube("arm_lod1", &[ring(0.0, &[(0, 1.0)]), ring(10.0, &[(0, 0.5), (1, 0.5)]), ring(20.0, &[(1, 1.0)])]);
    MdrFile {
        name: "models/mdview/arm.mdr".into(),
        bone_count: 2,
        frames: (0..10).map(|f| FrameSpec { name: format!("bend{:02}", f + 1), bones: arm_bones(f) }).collect(),
        compressed,
        lods: vec![LodSpec { surfaces: vec![lod0] }, LodSpec { surfaces: vec![lod1] }],
        tags: vec![TagSpec { name: "tag_forearm".into(), bone: FOREARM }],
        ..Default::default()
    }
}

/// The demo model: a smoother arm (17 rings, weights blending over the elbow) with two clips,
/// `bend` (20 frames: the elbow bends to 110° and back while the arm lifts) and `wave`
/// (16 frames: the forearm raised, the whole arm swinging ±35° about the up axis), two LODs
/// and a `tag_forearm` tag on the forearm. This is what `assets/mdr/arm.mdr` holds.
pub fn demo_arm() -> Vec<u8> {
    let fine: Vec<Ring> = (0..=16)
        .map(|i| {
            let x = i as f32 * 1.25;
            // The forearm's share ramps smoothly from x = 7 to x = 13.
            let t = ((x - 7.0) / 6.0).clamp(0.0, 1.0);
            let forearm = t * t * (3.0 - 2.0 * t);
            let weights = match forearm {
                w if w <= 0.0 => vec![(UPPER_ARM, 1.0)],
                w if w >= 1.0 => vec![(FOREARM, 1.0)],
                w => vec![(UPPER_ARM, 1.0 - w), (FOREARM, w)],
            };
            Ring { x, weights }
        })
        .collect();
    let coarse: Vec<Ring> = [0.0, 5.0, 10.0, 15.0, 20.0]
        .iter()
        .map(|&x| {
            let weights = match x {
                x if x < ELBOW_X => vec![(UPPER_ARM, 1.0)],
                x if x > ELBOW_X => vec![(FOREARM, 1.0)],
                _ => vec![(UPPER_ARM, 0.5), (FOREARM, 0.5)],
            };
            Ring { x, weights }
        })
        .collect();

    // Both bones turned by `swing` about +Z (up) at the shoulder; the forearm bent by `elbow`.
    let pose = |swing_deg: f32, elbow_deg: f32, lift: f32| -> Vec<BoneMatrix> {
        let (ss, sc) = swing_deg.to_radians().sin_cos();
        let (es, ec) = elbow_deg.to_radians().sin_cos();
        let swing = glam::Mat3::from_cols(Vec3::new(sc, ss, 0.0), Vec3::new(-ss, sc, 0.0), Vec3::Z);
        let bend = glam::Mat3::from_cols(Vec3::new(ec, 0.0, es), Vec3::Y, Vec3::new(-es, 0.0, ec));
        let lifted = Vec3::new(0.0, 0.0, lift);
        let elbow = swing * Vec3::new(ELBOW_X, 0.0, 0.0) + lifted;
        let rows = |m: glam::Mat3, t: Vec3| -> BoneMatrix {
            let r = m.transpose();
            [r.x_axis.extend(t.x).to_array(), r.y_axis.extend(t.y).to_array(), r.z_axis.extend(t.z).to_array()]
        };
        vec![rows(swing, lifted), rows(swing * bend, elbow)]
    };
    let mut frames = Vec::new();
    for f in 0..20 {
        let phase = (f as f32 / 19.0 * std::f32::consts::PI).sin();
        frames.push(FrameSpec { name: format!("bend{:02}", f + 1), bones: pose(0.0, 110.0 * phase, 2.0 * phase) });
    }
    for f in 0..16 {
        let swing = 35.0 * (f as f32 / 16.0 * std::f32::consts::TAU).sin();
        frames.push(FrameSpec { name: format!("wave{:02}", f + 1), bones: pose(swing, 90.0, 2.0) });
    }
    MdrFile {
        name: "models/mdview/demo_arm.mdr".into(),
        bone_count: 2,
        frames,
        lods: vec![
            LodSpec { surfaces: vec![tube("arm", &fine)] },
            LodSpec { surfaces: vec![tube("arm_lod1", &coarse)] },
        ],
        tags: vec![TagSpec { name: "tag_forearm".into(), bone: FOREARM }],
        ..Default::default()
    }
    .to_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::mdr::decode::uncompress_bone;

    fn le_i32(bytes: &[u8], at: u64) -> i32 {
        let at = at as usize;
        i32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
    }

    #[test]
    fn header_fields_point_at_what_the_spec_says() {
        let file = arm(false);
        let (bytes, written) = file.write();
        assert_eq!(&bytes[..4], b"RDM5");
        assert_eq!(le_i32(&bytes, HDR_VERSION), 2);
        assert_eq!(le_i32(&bytes, HDR_NUM_FRAMES), 10);
        assert_eq!(le_i32(&bytes, HDR_NUM_BONES), 2);
        assert_eq!(le_i32(&bytes, HDR_OFS_FRAMES), 104);
        assert_eq!(le_i32(&bytes, HDR_NUM_LODS), 2);
        assert_eq!(le_i32(&bytes, HDR_OFS_LODS) as u64, written.lods[0]);
        assert_eq!(written.lods[0], 104 + 10 * (56 + 2 * 48));
        assert_eq!(le_i32(&bytes, HDR_OFS_TAGS) as u64, written.tags);
        assert_eq!(le_i32(&bytes, HDR_OFS_END) as usize, bytes.len());
        assert_eq!(written.tags + 36, written.end);
        // LOD 0's ofsEnd lands on LOD 1; its surfaces start right after the record.
        assert_eq!(written.lods[0] + le_i32(&bytes, written.lods[0] + LOD_OFS_END) as u64, written.lods[1]);
        assert_eq!(written.surfaces[0][0], written.lods[0] + 12);
        let surface = written.surfaces[0][0];
        assert_eq!(le_i32(&bytes, surface + SURF_OFS_HEADER), -(surface as i32));
        assert_eq!(surface + le_i32(&bytes, surface + SURF_OFS_VERTS) as u64, written.vertices[0][0]);
        assert_eq!(surface + le_i32(&bytes, surface + SURF_OFS_TRIANGLES) as u64, written.triangles[0][0]);
        assert_eq!(surface + le_i32(&bytes, surface + SURF_OFS_END) as u64, written.lods[1]);
    }

    #[test]
    fn compressed_frames_are_signalled_by_a_negative_offset() {
        let (bytes, written) = arm(true).write();
        assert_eq!(le_i32(&bytes, HDR_OFS_FRAMES), -104);
        assert_eq!(written.lods[0], 104 + 10 * (40 + 2 * 24));
    }

    #[test]
    fn compression_round_trips_within_half_a_step() {
        for frame in 0..10 {
            for bone in arm_bones(frame) {
                let back = uncompress_bone(&compress_bone(&bone));
                for (row, back_row) in bone.iter().zip(&back) {
                    for (k, (a, b)) in row.iter().zip(back_row).enumerate() {
                        let step = if k == 3 { COMP_TRANSLATION_STEP } else { COMP_ROTATION_STEP };
                        assert!((a - b).abs() <= step * 0.5 + 1e-7, "{a} vs {b}");
                    }
                }
            }
        }
        // The bias: zero is 32768, one rotation unit is 32766 steps.
        assert_eq!(
            compress_bone(&IDENTITY_BONE),
            [32768, 32768, 32768, 65534, 32768, 32768, 32768, 65534, 32768, 32768, 32768, 65534]
        );
    }

    #[test]
    fn tube_triangles_are_clockwise_from_outside() {
        let surface = &arm(false).lods[0].surfaces[0];
        let rest = |i: i32| {
            let v = &surface.vertices[i as usize];
            let w = &v.weights[0];
            let origin = if w.bone == FOREARM { Vec3::new(ELBOW_X, 0.0, 0.0) } else { Vec3::ZERO };
            Vec3::from_array(w.offset) + origin
        };
        let centre = Vec3::new(ARM_LENGTH / 2.0, 0.0, 0.0);
        for &[a, b, c] in &surface.triangles {
            let (pa, pb, pc) = (rest(a), rest(b), rest(c));
            let normal = (pb - pa).cross(pc - pa);
            assert!(normal.dot((pa + pb + pc) / 3.0 - centre) < 0.0, "triangle {a} {b} {c} is not clockwise");
        }
    }
}
