//! Theme Park World static meshes, end to end: each decoding rule of the spec checked on a
//! writer-built fixture against values computed by hand.

mod common;

use common::*;
use glam::{Vec2, Vec3};
use mdview::formats::{self, tpw};
use mdview::scene::anim::Pose;
use mdview::scene::{AlphaMode, NodeKind, SceneKind};
use mdview::writers::tpw::*;

fn world_vertex(scene: &mdview::scene::Scene, mesh: usize, vertex: usize) -> [f32; 3] {
    let pose = Pose::rest(scene);
    let p = pose.mesh_positions(scene, mesh)[vertex];
    pose.mesh_world(scene, mesh).transform_point3(p).to_array()
}

#[test]
fn island_tree_places_children_through_dummies_and_keeps_shear() {
    let scene = tpw::decode(&island().to_bytes()).expect("island decodes");
    assert_eq!(scene.kind, SceneKind::Mesh);
    assert_eq!(scene.nodes.len(), 7);
    assert_eq!(scene.meshes.len(), 5);
    assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);

    let names: Vec<&str> = scene.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["Island", "Box77", "Box78", "Box69", "Box70", "l_tree1", "l_tree2"]);
    let parents: Vec<Option<usize>> = scene.nodes.iter().map(|n| n.parent).collect();
    assert_eq!(parents, [None, Some(5), Some(5), Some(6), Some(6), Some(0), Some(0)]);
    assert_eq!(scene.nodes[5].kind, NodeKind::Transform);
    assert_eq!(scene.nodes[5].mesh, None);
    assert_eq!(scene.nodes[4].mesh, Some(4));
    assert_eq!(scene.nodes[0].children, [5, 6]);

    // Box77 (trunk under l_tree1): (0,1,0) + l_tree1 (-11.92, 8.99, 8.40) + Island (10,0,0).
    assert!(approx(world_vertex(&scene, 1, 3), [-1.92, 9.99, 8.40], 1e-5));
    // Box78 (leaves, local y 3.66): (1,0,0) -> (1, 3.66, 0) -> (-10.92, 12.65, 8.40) -> (-0.92, ...).
    assert!(approx(world_vertex(&scene, 2, 1), [-0.92, 12.65, 8.40], 1e-5));
    // Box70 under the sheared l_tree2: (0,0,0) -> (0,3.66,0) -> x = 0.5*3.66 + 2.28 = 4.11,
    // y = 3.66 + 14.88 = 18.54, z = 8.81; then Island +10 in x.
    assert!(approx(world_vertex(&scene, 4, 0), [14.11, 18.54, 8.81], 1e-5));
    // (1,1,0) -> (1, 4.66, 0) -> x = 1 + 0.5*4.66 + 2.28 = 5.61, y = 19.54.
    assert!(approx(world_vertex(&scene, 4, 2), [15.61, 19.54, 8.81], 1e-5));
}

#[test]
fn sheared_flag_marks_only_leaning_axes() {
    let scene = tpw::decode(&island().to_bytes()).unwrap();
    let summary = mdview::info::Summary::of(&scene);
    let sheared: Vec<bool> = summary.nodes.iter().map(|n| n.sheared).collect();
    assert_eq!(sheared, [false, false, false, false, false, false, true]);

    // Non-uniform scale with a rotation is not shear.
    let mut file = island();
    let c = std::f32::consts::FRAC_1_SQRT_2;
    file.dummies[0].matrix = [2.0 * c, 0., -2.0 * c, 0., 0., 3., 0., 0., 0.5 * c, 0., 0.5 * c, 0., 1., 2., 3., 1.];
    let scene = tpw::decode(&file.to_bytes()).unwrap();
    assert!(!mdview::info::Summary::of(&scene).nodes[5].sheared);
}

#[test]
fn materials_resolve_names_flags_and_no_texture_sentinel() {
    let vertices =
        vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 0.0, 1.0], [0.0, 0.0, 1.0], [2.0, 0.0, 0.0], [2.0, 0.0, 1.0]];
    let mut mesh = simple_mesh("multi", None, ROW_IDENTITY, vertices, None);
    mesh.faces = vec![[0, 1, 2], [2, 3, 0], [4, 5, 1]];
    mesh.materials = vec![
        MaterialSpec { texture: Some(1), start: 0, end: 1 },
        MaterialSpec { texture: None, start: 2, end: 3 },
        MaterialSpec { texture: Some(0), start: 4, end: 5 },
    ];
    let file = MeshFile {
        textures: vec![TextureSpec::new("water.wct", 0x33), TextureSpec::new("rock.wct", 0x31)],
        meshes: vec![mesh],
        ..Default::default()
    };
    let scene = tpw::decode(&file.to_bytes()).unwrap();
    let summary = mdview::info::Summary::of(&scene);
    let m = &summary.meshes[0];
    assert_eq!(m.materials.len(), 3);
    assert_eq!(m.materials[0].texture.as_deref(), Some("rock.wct"));
    assert_eq!(m.materials[0].flags, 0x31);
    assert!(!m.materials[0].see_through);
    assert_eq!((m.materials[0].start, m.materials[0].end), (0, 1));
    assert_eq!(m.materials[1].texture, None);
    assert_eq!(m.materials[1].flags, 0);
    assert!(!m.materials[1].see_through);
    assert_eq!(m.materials[2].texture.as_deref(), Some("water.wct"));
    assert_eq!(m.materials[2].flags, 0x33);
    assert!(m.materials[2].see_through);
    assert_eq!(scene.materials[2].alpha, AlphaMode::SeeThrough);
    // Faces go to the material whose range holds their first corner: one triangle each.
    assert_eq!(m.materials.iter().map(|x| x.triangles).collect::<Vec<_>>(), [1, 1, 1]);
}

#[test]
fn vertex_count_not_a_multiple_of_four_reads_batched_axis_major() {
    let vertices: Vec<[f32; 3]> = (0..5).map(|i| [i as f32, 10.0 + i as f32, 20.0 + i as f32]).collect();
    let file = MeshFile { meshes: vec![simple_mesh("five", None, ROW_IDENTITY, vertices, None)], ..Default::default() };
    let bytes = file.to_bytes();
    let scene = tpw::decode(&bytes).unwrap();
    let expected: Vec<Vec3> = (0..5).map(|i| Vec3::new(i as f32, 10.0 + i as f32, 20.0 + i as f32)).collect();
    assert_eq!(scene.meshes[0].source_positions, expected);

    // The layout itself: batch 0 holds X0..X3, Y0..Y3, Z0..Z3; batch 1 starts with X4.
    let rec = u32::from_le_bytes(bytes[0x70..0x74].try_into().unwrap()) as usize;
    let vdata = u32::from_le_bytes(bytes[rec + 0x60..rec + 0x64].try_into().unwrap()) as usize;
    let f = |at: usize| f32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    assert_eq!(f(vdata + 4), 1.0); // X1
    assert_eq!(f(vdata + 16), 10.0); // Y0
    assert_eq!(f(vdata + 32 + 12), 23.0); // Z3
    assert_eq!(f(vdata + 48), 4.0); // X4
    assert_eq!(f(vdata + 48 + 16), 14.0); // Y4
}

#[test]
fn vertex_order_reorders_and_duplicates() {
    let vertices = vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [5.0, 5.0, 5.0]];
    let mesh = MeshSpec {
        name: "reordered".into(),
        vertices,
        vertex_order: vec![3, 1, 1, 0, 2],
        uvs: vec![[0.1, 0.2], [0.3, 0.4], [0.5, 0.6], [0.7, 0.8], [0.9, 1.0]],
        faces: vec![[3, 1, 4]],
        face_tags: vec![0xBEEF],
        materials: vec![MaterialSpec { texture: None, start: 0, end: 4 }],
        ..Default::default()
    };
    let scene = tpw::decode(&MeshFile { meshes: vec![mesh], ..Default::default() }.to_bytes()).unwrap();
    let m = &scene.meshes[0];
    assert_eq!(m.vertex_source, [3, 1, 1, 0, 2]);
    let rendered = m.render_positions();
    assert_eq!(rendered[0], Vec3::new(5.0, 5.0, 5.0));
    assert_eq!(rendered[1], rendered[2]);
    assert_eq!(rendered[3], Vec3::ZERO);
    assert_eq!(m.uvs[4], Vec2::new(0.9, 1.0));
    // Stored (3,1,4) is clockwise; the decoder swaps B and C for a CCW front face.
    assert_eq!(m.triangles, [[3, 4, 1]]);
    assert_eq!(m.raw_triangle_tags, [0xBEEF]);
    // (0,0,0), (0,0,1), (1,0,0) counter-clockwise from above: the normal is +Y.
    assert!(m.normals[3].abs_diff_eq(Vec3::Y, 1e-6));
    // UV count is the vertex-order length, vertex count the raw count.
    let summary = mdview::info::Summary::of(&scene);
    assert_eq!((summary.meshes[0].vertices, summary.meshes[0].uvs, summary.meshes[0].faces), (4, 5, 1));
}

#[test]
fn normals_average_unit_face_normals() {
    // Two triangles sharing vertex 0: one facing +Y, one facing +Z, of very different areas.
    let vertices = vec![[0.0, 0.0, 0.0], [10.0, 0.0, 0.0], [0.0, 0.0, 10.0], [0.0, 1.0, 0.0]];
    let mut mesh = simple_mesh("two", None, ROW_IDENTITY, vertices, None);
    // Stored clockwise: decoded (0,2,1) faces +Y; decoded (0,1,3) faces +Z.
    mesh.faces = vec![[0, 1, 2], [0, 3, 1]];
    let scene = tpw::decode(&MeshFile { meshes: vec![mesh], ..Default::default() }.to_bytes()).unwrap();
    let n = scene.meshes[0].normals[0];
    let expected = Vec3::new(0.0, 1.0, 1.0).normalize();
    assert!(n.abs_diff_eq(expected, 1e-6), "{n}");
}

#[test]
fn unknown_fields_are_kept_raw() {
    let scene = tpw::decode(&island().to_bytes()).unwrap();
    let names: Vec<&str> = scene.raw.iter().map(|f| f.name.as_ref()).collect();
    assert!(names.contains(&"pointer 0x4c") && names.contains(&"pointer 0xac"), "{names:?}");
    let mesh_raw: Vec<&str> = scene.meshes[0].raw.iter().map(|f| f.name.as_ref()).collect();
    for field in ["unknown 0x50", "unknown 0x74", "unknown 0x90", "unknown 0x98"] {
        assert!(mesh_raw.contains(&field), "{field} missing from {mesh_raw:?}");
    }
    assert_eq!(scene.meshes[0].raw_triangle_tags.len(), scene.meshes[0].triangles.len());
}

#[test]
fn any_version_but_0xdd_is_a_typed_error() {
    // The engine loads only 0xDD: above is refused, and so is below (wr_tunnel's 0xCF, the
    // arrows' 0x18), since neither caller asks for an older layout.
    for version in [0xDEu32, 0xCF, 0x18] {
        let mut bytes = island().to_bytes();
        bytes[4..8].copy_from_slice(&version.to_le_bytes());
        let err = tpw::decode(&bytes).unwrap_err();
        assert_eq!((err.format, err.field.as_str(), err.offset), ("tpw-md2", "version", 4));
        assert!(err.to_string().contains("0xdd"), "{err}");
    }
}

#[test]
fn bad_links_and_cycles_become_warnings() {
    let bytes = island().to_bytes();
    let mesh_table = u32::from_le_bytes(bytes[0x70..0x74].try_into().unwrap()) as usize;

    // Box77's parent link points into the middle of a record: neither table.
    let mut broken = bytes.clone();
    let at = mesh_table + 160 + 4;
    broken[at..at + 4].copy_from_slice(&((mesh_table + 3) as u32).to_le_bytes());
    let scene = tpw::decode(&broken).unwrap();
    assert_eq!(scene.nodes[1].parent, None);
    assert!(scene.warnings.iter().any(|w| w.contains("neither")), "{:?}", scene.warnings);

    // Island's parent becomes l_tree1, whose parent is Island: a cycle.
    let mut cyclic = bytes.clone();
    let node_table = u32::from_le_bytes(bytes[0x74..0x78].try_into().unwrap());
    cyclic[mesh_table + 4..mesh_table + 8].copy_from_slice(&node_table.to_le_bytes());
    let scene = tpw::decode(&cyclic).unwrap();
    assert!(scene.warnings.iter().any(|w| w.contains("cycle")), "{:?}", scene.warnings);
    let _ = Pose::rest(&scene); // terminates
}

#[test]
fn detection_reads_content_not_extension() {
    let dir = temp_dir("detect");
    let path = write(&dir, "model.mdr", &island().to_bytes());
    let scene = formats::open(&path).expect("TPW content with an .mdr name still opens as TPW");
    assert_eq!(scene.format.id(), "tpw-md2");
    let junk = write(&dir, "junk.md2", b"PK\x03\x04 definitely a zip");
    let err = formats::open(&junk).unwrap_err().to_string();
    assert!(err.contains("50 4B 03 04"), "{err}");
}

#[test]
fn truncated_tables_fail_with_field_and_offset() {
    let bytes = island().to_bytes();
    let err = tpw::decode(&bytes[..0x60]).unwrap_err();
    assert_eq!(err.format, "tpw-md2");
    assert!(err.to_string().contains("offset 0x"), "{err}");
    // Cut inside the last mesh's vertex data: the error names that mesh and field.
    let mesh_table = u32::from_le_bytes(bytes[0x70..0x74].try_into().unwrap()) as usize;
    let rec = mesh_table + 4 * 160;
    let vdata = u32::from_le_bytes(bytes[rec + 0x60..rec + 0x64].try_into().unwrap()) as usize;
    let err = tpw::decode(&bytes[..vdata + 8]).unwrap_err();
    assert_eq!(err.field, "mesh[4].vertex data", "{err}");
    assert_eq!(err.offset, vdata as u64);
}

/// A vertex that is not finite fails the mesh, naming the vertex and its batch; a stored normal
/// of zero length is a warning naming its entry, and normals are computed instead.
#[test]
fn a_non_finite_vertex_is_an_error_and_an_unusable_stored_normal_a_warning() {
    // The writer refuses a NaN, so a marker value is written and replaced in the bytes.
    let mut file = island();
    let marker = 0.3217f32; // inside the box, so only the vertex holds it
    file.meshes[1].vertices[3][1] = marker;
    let mut bytes = file.to_bytes();
    let at: Vec<usize> =
        bytes.windows(4).enumerate().filter(|(_, w)| *w == marker.to_le_bytes()).map(|(i, _)| i).collect();
    assert_eq!(at.len(), 1, "the marker is written once");
    bytes[at[0]..at[0] + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    let err = tpw::decode(&bytes).expect_err("a NaN vertex").to_string();
    assert!(err.contains("vertex 3 is not finite"), "{err}");

    let mut file = island();
    let order = file.meshes[1].vertex_order.len();
    let mut normals = vec![[0.0, 1.0, 0.0]; order];
    normals[order - 1] = [0.0, 0.0, 0.0];
    file.meshes[1].normals = Some(normals);
    let scene = tpw::decode(&file.to_bytes()).expect("decodes with computed normals");
    let warning = scene.warnings.iter().find(|w| w.contains("stored normals unusable")).cloned().unwrap_or_default();
    assert!(warning.contains(&format!("entry {} at 0x", order - 1)), "{:?}", scene.warnings);
    assert!(warning.ends_with("is not a usable direction); computed from the faces instead"), "{warning}");
}

/// The heightfield block (header 0x6C, notes §6) fills the empty mesh that the terrain models
/// carry: vertex (x, y) at (x * cell X, height, y * cell Y), two triangles a cell facing up.
#[test]
fn a_heightfield_fills_the_empty_terrain_mesh() {
    let scene = tpw::decode(&terrain().to_bytes()).expect("terrain decodes");
    assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);
    let ground = &scene.meshes[0];
    assert_eq!(ground.name, "heightfield");
    assert_eq!(ground.source_positions.len(), 12, "(3 + 1) x (2 + 1) heights");
    assert_eq!(ground.triangles.len(), 12, "two a cell");
    assert_eq!(ground.source_positions[6], Vec3::new(20.0, 5.0, 10.0), "row 1, column 2");
    assert_eq!(ground.source_positions[8], Vec3::new(0.0, -2.0, 20.0), "row 2, column 0");
    assert_eq!((ground.bounds.min, ground.bounds.max), (Vec3::new(0.0, -2.0, 0.0), Vec3::new(30.0, 5.0, 20.0)));
    // The flat corner cell (0, 0)-(10, 0)-(0, 10) faces up.
    assert_eq!(ground.normals[0], Vec3::Y);
    let first = ground.triangles[0].map(|v| ground.source_positions[v as usize]);
    assert!((first[1] - first[0]).cross(first[2] - first[0]).y > 0.0, "counter-clockwise seen from above");
    assert_eq!(ground.submeshes.len(), 1);
    assert_eq!(ground.submeshes[0].triangle_count, 12);
    let raw = |name: &str| ground.raw.iter().find(|f| f.name == name).map(|f| f.value);
    assert_eq!(raw("heightfield cells across"), Some(3));
    assert_eq!(raw("heightfield vertex count"), Some(12));
    assert_eq!(scene.meshes[1].source_positions.len(), 3, "other meshes are left alone");

    // The grid goes to the empty mesh with flag 0x2, not to an earlier empty one without it.
    let mut file = terrain();
    file.meshes.insert(0, MeshSpec { name: "spare".into(), ..Default::default() });
    let scene = tpw::decode(&file.to_bytes()).expect("decodes");
    assert!(scene.meshes[0].source_positions.is_empty(), "spare stays empty");
    assert_eq!((scene.meshes[1].name.as_str(), scene.meshes[1].source_positions.len()), ("heightfield", 12));

    // Stored counts that disagree with the cells across and down are a warning.
    let mut bytes = terrain().to_bytes();
    let header = u32::from_le_bytes(bytes[0x6C..0x70].try_into().unwrap()) as usize;
    bytes[header + 0x04..header + 0x06].copy_from_slice(&13u16.to_le_bytes());
    let scene = tpw::decode(&bytes).expect("decodes");
    assert_eq!(scene.meshes[0].source_positions.len(), 12);
    assert!(scene.warnings.iter().any(|w| w.starts_with("heightfield counts 13 vertices")), "{:?}", scene.warnings);

    // A cell size whose grid reaches past the largest float, or no heights pointer, is a
    // warning; the model still opens (through the scene's validation too).
    let damaged = |at: usize, value: [u8; 4]| {
        let mut bytes = terrain().to_bytes();
        bytes[header + at..header + at + 4].copy_from_slice(&value);
        let dir = temp_dir(&format!("terrain-damaged-{at:x}"));
        let scene = formats::open(&write(&dir, "base.MD2", &bytes)).expect("still opens");
        assert!(scene.meshes[0].source_positions.is_empty());
        assert!(scene.warnings.iter().any(|w| w.starts_with("heightfield unreadable")), "{:?}", scene.warnings);
    };
    damaged(0x10, 2e38f32.to_le_bytes());
    damaged(0x28, [0; 4]);

    // A block whose heights run past the file is a warning; the model still opens.
    let mut bytes = terrain().to_bytes();
    let header = u32::from_le_bytes(bytes[0x6C..0x70].try_into().unwrap()) as usize;
    bytes[header + 0x28..header + 0x2C].copy_from_slice(&0x00FF_FFF0u32.to_le_bytes());
    let scene = tpw::decode(&bytes).expect("still decodes");
    assert!(scene.meshes[0].source_positions.is_empty());
    assert!(scene.warnings.iter().any(|w| w.starts_with("heightfield unreadable")), "{:?}", scene.warnings);
}

/// A mesh with no vertices, faces or materials (the terrain models' `heightfield` mesh without
/// its block) decodes and opens as an empty mesh.
#[test]
fn an_empty_mesh_opens() {
    let dir = temp_dir("empty-mesh");
    let file = MeshFile { heightfield: None, ..terrain() };
    let path = write(&dir, "base.MD2", &file.to_bytes());
    let scene = formats::open(&path).expect("an empty mesh is no error");
    assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);
    assert!(scene.meshes[0].source_positions.is_empty() && scene.meshes[0].triangles.is_empty());
    assert_eq!(scene.meshes[1].triangles.len(), 1);
}
