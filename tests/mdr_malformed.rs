//! Malformed MDR files: each must give a typed error naming the format, field and offset, or a
//! warning, and none may panic or allocate from an unchecked count. Each file is the encoder's
//! arm with one field damaged at the offset the writer reports.

use mdview::formats::mdr::decode::parse;
use mdview::formats::mdr::layout::*;
use mdview::formats::{self, DecodeError, ErrorKind};
use mdview::writers::mdr::{LodSpec, MdrFile, SurfaceSpec, Written, arm};

fn written(file: &MdrFile) -> (Vec<u8>, Written) {
    file.write()
}

fn put_i32(bytes: &mut [u8], at: u64, value: i32) {
    let at = at as usize;
    bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
}

fn error_of(bytes: &[u8]) -> DecodeError {
    let err = formats::decode_bytes(bytes).expect_err("the damaged file must not decode");
    assert_eq!(err.format, "quake3-mdr");
    err
}

fn assert_invalid(err: &DecodeError, field: &str, offset: u64, why: &str) {
    assert!(err.field.ends_with(field), "field {:?} should end with {field:?} ({err})", err.field);
    assert_eq!(err.offset, offset, "{err}");
    match &err.kind {
        ErrorKind::Invalid(text) => assert!(text.contains(why), "{text:?} should mention {why:?}"),
        other => panic!("expected an invalid-value error, got {other:?} ({err})"),
    }
}

#[test]
fn weight_bone_index_out_of_range_is_an_error() {
    let mut file = arm(false);
    // Vertex 13 (the 4-weight ring), its third weight.
    file.lods[0].surfaces[0].vertices[13].weights[2].bone = 2;
    let (bytes, at) = written(&file);
    let err = error_of(&bytes);
    let vertex_13 = at.vertices[0][0] + 4 * (24 + 20) + 4 * (24 + 2 * 20) + 4 * (24 + 3 * 20) + (24 + 4 * 20);
    let weight = vertex_13 + 24 + 2 * 20;
    assert_invalid(&err, "vertex[13].weight[2].boneIndex", weight, "bone index 2 is not below numBones 2");
    assert!(err.field.starts_with("lod[0].surface[0]."), "{}", err.field);
    assert!(err.to_string().starts_with("quake3-mdr: lod[0].surface[0].vertex[13].weight[2].boneIndex at offset"));

    file.lods[0].surfaces[0].vertices[13].weights[2].bone = -1;
    assert_invalid(&error_of(&file.to_bytes()), "boneIndex", weight, "bone index -1");
}

#[test]
fn triangle_index_out_of_range_is_an_error() {
    let mut file = arm(false);
    file.lods[1].surfaces[0].triangles[3] = [0, 12, 1];
    let (bytes, at) = written(&file);
    let err = error_of(&bytes);
    assert_invalid(&err, "triangle[3]", at.triangles[1][0] + 3 * 12 + 4, "vertex index 12 is not below numVerts 12");
    assert!(err.field.starts_with("lod[1].surface[0]."));
}

#[test]
fn ofs_end_past_the_end_of_the_file_is_an_error() {
    let (bytes, _) = written(&arm(false));
    let cut = &bytes[..bytes.len() - 1];
    assert_invalid(&error_of(cut), "ofsEnd", HDR_OFS_END, "declares");

    let mut long = bytes.clone();
    put_i32(&mut long, HDR_OFS_END, i32::MAX);
    assert_invalid(&error_of(&long), "ofsEnd", HDR_OFS_END, "declares");
    put_i32(&mut long, HDR_OFS_END, -8);
    assert_invalid(&error_of(&long), "ofsEnd", HDR_OFS_END, "shorter than the 104-byte header");
}

#[test]
fn ofs_end_short_of_the_data_confines_every_read() {
    // The object ends before the tags: the tag table now lies past ofsEnd.
    let (mut bytes, at) = written(&arm(false));
    put_i32(&mut bytes, HDR_OFS_END, at.tags as i32);
    let err = error_of(&bytes);
    assert_eq!(err.field, "tags");
    assert!(err.to_string().contains("past the MDR object's end"), "{err}");
}

#[test]
fn negative_counts_are_errors() {
    let (bytes, at) = written(&arm(false));
    let cases: [(&str, u64); 7] = [
        ("numFrames", HDR_NUM_FRAMES),
        ("numBones", HDR_NUM_BONES),
        ("numLODs", HDR_NUM_LODS),
        ("numTags", HDR_NUM_TAGS),
        ("numSurfaces", at.lods[0] + LOD_NUM_SURFACES),
        ("numVerts", at.surfaces[0][0] + SURF_NUM_VERTS),
        ("numWeights", at.vertices[1][0] + VERT_NUM_WEIGHTS),
    ];
    for (field, offset) in cases {
        let mut damaged = bytes.clone();
        put_i32(&mut damaged, offset, -3);
        assert_invalid(&error_of(&damaged), field, offset, "negative count -3");
    }
    let mut damaged = bytes;
    put_i32(&mut damaged, at.surfaces[1][0] + SURF_NUM_TRIANGLES, i32::MIN);
    assert_invalid(&error_of(&damaged), "numTriangles", at.surfaces[1][0] + SURF_NUM_TRIANGLES, "negative count");
}

#[test]
fn a_looping_lod_chain_is_a_warning_and_keeps_the_lods_before_it() {
    let (mut bytes, at) = written(&arm(false));
    // Three LODs declared; LOD 1 points back at LOD 0.
    put_i32(&mut bytes, HDR_NUM_LODS, 3);
    put_i32(&mut bytes, at.lods[1] + LOD_OFS_END, at.lods[0] as i32 - at.lods[1] as i32);
    let scene = formats::decode_bytes(&bytes).expect("LOD 0 and 1 are intact");
    assert_eq!(scene.lods.len(), 2);
    assert!(
        scene.warnings.iter().any(|w| w.contains("loops back to LOD 0") && w.contains("after 2 of 3")),
        "{:?}",
        scene.warnings
    );

    // An LOD whose ofsEnd is 0 points at itself, however many LODs are declared.
    let (mut bytes, at) = written(&arm(false));
    put_i32(&mut bytes, HDR_NUM_LODS, i32::MAX);
    put_i32(&mut bytes, at.lods[0] + LOD_OFS_END, 0);
    let model = parse(&bytes).expect("LOD 0 is intact");
    assert_eq!(model.lods.len(), 1);
    assert!(model.warnings.iter().any(|w| w.contains("loops back to LOD 0")), "{:?}", model.warnings);
}

#[test]
fn surfaces_shared_or_looping_past_the_file_are_errors() {
    // 40 LODs, each pointed at LOD 0's surface: more surface bytes than the whole file holds.
    let mut file = arm(false);
    file.lods.truncate(1);
    let tiny = SurfaceSpec { name: "tiny".into(), ..Default::default() };
    file.lods.extend((1..40).map(|_| LodSpec { surfaces: vec![tiny.clone()] }));
    let (mut bytes, at) = written(&file);
    for &lod in &at.lods[1..] {
        put_i32(&mut bytes, lod + LOD_OFS_SURFACES, at.surfaces[0][0] as i32 - lod as i32);
    }
    let err = error_of(&bytes);
    assert!(matches!(&err.kind, ErrorKind::Invalid(t) if t.contains("surfaces overlap or loop")), "{err}");
    assert!(err.field.starts_with("lod["), "{err}");

    // A surface that ends inside its own header would make the chain stand still.
    let (mut bytes, at) = written(&arm(false));
    put_i32(&mut bytes, at.surfaces[0][0] + SURF_OFS_END, 0);
    put_i32(&mut bytes, at.lods[0] + LOD_NUM_SURFACES, 1_000_000);
    assert_invalid(&error_of(&bytes), "ofsEnd", at.surfaces[0][0] + SURF_OFS_END, "inside the 168-byte surface header");
}

#[test]
fn tag_bone_index_out_of_range_is_an_error() {
    let mut file = arm(false);
    file.tags[0].bone = 5;
    let (bytes, at) = written(&file);
    assert_invalid(&error_of(&bytes), "tag[0].boneIndex", at.tags, "bone index 5 is not below numBones 2");
}

#[test]
fn huge_counts_fail_before_allocating() {
    let (bytes, at) = written(&arm(false));
    for (offset, value) in [
        (HDR_NUM_FRAMES, i32::MAX),
        (HDR_NUM_BONES, i32::MAX),
        (HDR_NUM_TAGS, i32::MAX),
        (at.surfaces[0][0] + SURF_NUM_VERTS, i32::MAX),
        (at.surfaces[0][0] + SURF_NUM_TRIANGLES, i32::MAX),
        (at.vertices[0][0] + VERT_NUM_WEIGHTS, i32::MAX),
    ] {
        let mut damaged = bytes.clone();
        put_i32(&mut damaged, offset, value);
        let err = error_of(&damaged);
        assert!(matches!(err.kind, ErrorKind::OutOfBounds { .. } | ErrorKind::Overflow), "{err}");
    }
}

#[test]
fn header_level_rejections() {
    let (bytes, _) = written(&arm(false));
    let mut v3 = bytes.clone();
    put_i32(&mut v3, HDR_VERSION, 3);
    assert!(matches!(error_of(&v3).kind, ErrorKind::Unsupported(_)));

    let mut no_frames = bytes.clone();
    put_i32(&mut no_frames, HDR_NUM_FRAMES, 0);
    assert_invalid(&error_of(&no_frames), "numFrames", HDR_NUM_FRAMES, "no frames");

    // ofsFrames = i32::MIN: compressed, at 2^31, far past the end.
    let mut far = bytes.clone();
    put_i32(&mut far, HDR_OFS_FRAMES, i32::MIN);
    assert!(matches!(error_of(&far).kind, ErrorKind::OutOfBounds { .. }));

    let mut nan = bytes;
    nan[HEADER_SIZE as usize + 56..HEADER_SIZE as usize + 60].copy_from_slice(&f32::NAN.to_le_bytes());
    assert_invalid(&error_of(&nan), "frame[0].bone[0]", HEADER_SIZE + 56, "NaN");
}

#[test]
fn engine_limits_and_oddities_are_warnings() {
    let mut file = arm(false);
    file.lods[0].surfaces[0].vertices[0].weights[0].weight = 0.5;
    file.lods[1].surfaces[0].vertices[0].weights.clear();
    let mut bytes = file.to_bytes();
    bytes.extend_from_slice(&[0; 7]);
    let scene = formats::decode_bytes(&bytes).expect("oddities are not fatal");
    let text = scene.warnings.join("\n");
    assert!(text.contains("surface arm: 1 vertices have weights that do not sum to 1"), "{text}");
    assert!(text.contains("surface arm_lod1: some vertices have no weights"), "{text}");
    assert!(text.contains("7 bytes after ofsEnd"), "{text}");
}

#[test]
fn every_truncation_is_a_clean_error() {
    for compressed in [false, true] {
        let bytes = arm(compressed).to_bytes();
        for cut in 0..bytes.len() {
            assert!(formats::decode_bytes(&bytes[..cut]).is_err(), "cut at {cut} decoded");
        }
    }
}
