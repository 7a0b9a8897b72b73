//! The ground of a park built from a written install and save: the terrain's cells textured
//! from their records, the water clip, heights, path tiles and queue pieces, and what a missing
//! part leaves. Expected corners, heights and turns are worked out by hand from the fixture's
//! formulas, not by the code under test.

use std::path::{Path, PathBuf};

use glam::{Vec2, Vec3};
use mdview::formats::park::ground::{PATH_LIFT, build_ground};
use mdview::formats::park::world::{MAP_SIZE, Tile};
use mdview::formats::park::{Park, open_park};
use mdview::scene::{Channel, Scene};
use mdview::writers::park::{default_cell, fixture_install, fixture_save, write_install, write_save};
use mdview::writers::park_ground::{fixture_cell, fixture_ground, fixture_height, write_ground};

fn temp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("mdview-park-ground-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The fixture save with four more queue cells, one at each angle: (46..=49, 31).
fn save_with_queues() -> mdview::writers::park::SaveSpec {
    let mut save = fixture_save();
    for (k, (index, angle)) in [(5u32, 0u32), (3, 90), (4, 180), (6, 270)].into_iter().enumerate() {
        let mut cell = default_cell();
        if let Some(map) = cell.map.as_mut() {
            map.base.tile = Tile { set: 2, index, angle };
            map.base.kind = 3;
        }
        save.cells.insert(31 * MAP_SIZE + 46 + k, cell);
    }
    save
}

/// Writes the fixture install (with its ground) and the save; opens the park.
fn written(name: &str) -> (PathBuf, Park) {
    let root = temp_dir(name);
    write_install(&root, &fixture_install()).unwrap();
    let save = root.join("data/levels/jungle/fixture.TPWS");
    std::fs::write(&save, write_save(&save_with_queues())).unwrap();
    let park = open_park(&save, Some(&root)).unwrap();
    (root, park)
}

fn mesh_named<'a>(scene: &'a Scene, name: &str) -> Option<(usize, &'a mdview::scene::Mesh)> {
    scene.meshes.iter().enumerate().find(|(_, m)| m.name == name)
}

/// The UVs of the quad whose first corner stands at world (x, z), in corner order.
fn quad_uvs(mesh: &mdview::scene::Mesh, x: f32, z: f32) -> Option<([Vec2; 4], [Vec3; 4])> {
    let quad = mesh.source_positions.iter().step_by(4).position(|p| p.x == x && p.z == z)? * 4;
    let uvs: [Vec2; 4] = std::array::from_fn(|k| mesh.uvs[quad + k]);
    let positions: [Vec3; 4] = std::array::from_fn(|k| mesh.source_positions[quad + k]);
    Some((uvs, positions))
}

fn uv(u: f32, v: f32) -> Vec2 {
    Vec2::new(u, v)
}

#[test]
fn terrain_cells_heights_water_paths_and_queues_from_a_written_install() {
    let (root, park) = written("whole");
    let ground = build_ground(Some(&root), park.theme.as_deref(), &park);
    let scene = &ground.scene;
    assert!(ground.warnings.is_empty(), "{:#?}", ground.warnings);
    assert!(scene.images.iter().all(|i| i.source.is_some()), "every image resolves");

    // Heights: the middle of a cell is the mean of (x, y) and (x + 1, y + 1); 0 off the field.
    assert!((ground.height_at([3, 4]) - (0.7 + 0.9) / 2.0).abs() < 1e-5);
    assert!((ground.height_at([45, 31]) - (7.6 + 7.8) / 2.0).abs() < 1e-5);
    assert_eq!(ground.height_at([100, 10]), 0.0);
    assert_eq!(ground.height_at([10, 90]), 0.0);

    // The ground: every cell but the river's two columns and the five queue cells.
    let (_, terrain) = mesh_named(scene, "heightfield").expect("heightfield mesh");
    assert_eq!(terrain.source_positions.len(), (96 * 85 - 2 * 85 - 5) * 4);
    assert_eq!(terrain.triangles.len(), (96 * 85 - 2 * 85 - 5) * 2);
    // Textures 1 and 2, each plain and at half colour.
    let names: Vec<&str> =
        terrain.submeshes.iter().map(|s| scene.materials[s.material.unwrap()].name.as_str()).collect();
    assert_eq!(
        names,
        [
            "ground jgr_bas1.tga",
            "ground jgr_bas1.tga (half colour)",
            "ground jgr_bas2.tga",
            "ground jgr_bas2.tga (half colour)"
        ]
    );
    // Cell (3, 4): flags 0x48, mirror then a quarter turn.
    assert_eq!(fixture_cell(3, 4), [0x48, 2]);
    let (uvs, corners) = quad_uvs(terrain, 30.0, 40.0).expect("cell (3, 4)");
    assert_eq!(uvs, [uv(1.0, 0.0), uv(0.0, 0.0), uv(0.0, 1.0), uv(1.0, 1.0)]);
    assert_eq!(corners.map(|c| (c.x, c.z)), [(30.0, 40.0), (40.0, 40.0), (40.0, 50.0), (30.0, 50.0)]);
    assert!(
        corners
            .iter()
            .zip([(3, 4), (4, 4), (4, 5), (3, 5)])
            .all(|(c, (x, y))| (c.y - fixture_height(x, y)).abs() < 1e-5)
    );
    // Cell (1, 5): flags 0x08, one quarter turn.
    assert_eq!(fixture_cell(1, 5), [0x08, 1]);
    assert_eq!(quad_uvs(terrain, 10.0, 50.0).unwrap().0, [uv(0.0, 1.0), uv(0.0, 0.0), uv(1.0, 0.0), uv(1.0, 1.0)]);
    assert!(quad_uvs(terrain, 200.0, 0.0).is_none(), "the river's cells are not ground");
    assert!(quad_uvs(terrain, 450.0, 310.0).is_none(), "a queue piece's cell is not ground");

    // The water: basem.md2's clip, sliding the water mesh's UVs.
    let water_clip = &scene.clips[ground.water_clip.expect("water clip")];
    assert!(water_clip.source.as_ref().unwrap().to_string_lossy().ends_with("basem.md2"));
    assert!(water_clip.channels.iter().any(|c| matches!(c, Channel::UvKeys { .. })), "{:?}", water_clip.channels);
    assert!(mesh_named(scene, "water").is_some());

    // Paths: cells (43, 31) and (44, 31), tile 5 at 90°: the PathTex row's pathtex/ art.
    let (_, paths) = mesh_named(scene, "paths").expect("paths mesh");
    assert_eq!(paths.source_positions.len(), 8);
    let material = &scene.materials[paths.submeshes[0].material.unwrap()];
    assert_eq!(material.texture.as_deref(), Some("jpa_xrd1.wct"));
    let location = scene.images[material.image.unwrap()].location().unwrap().replace('\\', "/");
    assert!(location.contains("terrain.wad/pathtex/") && !location.contains("spathtex"), "{location}");
    let (uvs, corners) = quad_uvs(paths, 430.0, 310.0).expect("path (43, 31)");
    assert_eq!(uvs, [uv(0.0, 1.0), uv(0.0, 0.0), uv(1.0, 0.0), uv(1.0, 1.0)]);
    assert!((corners[0].y - (fixture_height(43, 31) + PATH_LIFT)).abs() < 1e-5);
    assert!((corners[2].y - (fixture_height(44, 32) + PATH_LIFT)).abs() < 1e-5);

    // Queues: five cells, four distinct pieces each decoded once.
    assert_eq!(ground.queue_placements.len(), 5);
    let mut pieces: Vec<&str> = ground.queue_pieces.iter().map(|p| p.name).collect();
    pieces.sort();
    assert_eq!(pieces, ["quebin1", "quebnd1", "quebnd2", "queend", "questra"]);
    // Where each plate's model corner (0, 0, 0) and the +X end of its edge (10, 0, 0) stand, by
    // hand: the cell's middle (x·10 + 5, h, 315) plus R(−5, 0, −5), R for 360 − the angle.
    let world = scene.rest_world_matrices();
    let h = |x: u32| (fixture_height(x, 31) + fixture_height(x + 1, 32)) / 2.0;
    let cases = [
        ("questra", 45, 90, Vec3::new(460.0, h(45), 310.0), Vec3::new(460.0, h(45), 320.0)),
        ("queend", 46, 0, Vec3::new(460.0, h(46), 310.0), Vec3::new(470.0, h(46), 310.0)),
        ("quebnd2", 47, 90, Vec3::new(480.0, h(47), 310.0), Vec3::new(480.0, h(47), 320.0)),
        ("quebnd1", 48, 180, Vec3::new(490.0, h(48), 320.0), Vec3::new(480.0, h(48), 320.0)),
        ("quebin1", 49, 270, Vec3::new(490.0, h(49), 320.0), Vec3::new(490.0, h(49), 310.0)),
    ];
    for (piece, x, angle, corner, x_end) in cases {
        let placement = ground.queue_placements.iter().find(|p| p.cell == [x as u8, 31]).expect("placement");
        assert_eq!(placement.turn_degrees, (360 - angle) % 360);
        assert_eq!(ground.queue_pieces[placement.piece].name, piece);
        let holder = &scene.nodes[placement.node];
        let plate_node = holder.children[0];
        let plate = scene.meshes.iter().find(|m| m.node == Some(plate_node)).expect("plate mesh");
        assert_eq!(plate.name, format!("{piece}_base"));
        let m = world[plate_node];
        let got = (m.transform_point3(Vec3::ZERO), m.transform_point3(Vec3::new(10.0, 0.0, 0.0)));
        assert!(got.0.abs_diff_eq(corner, 1e-4) && got.1.abs_diff_eq(x_end, 1e-4), "{piece} at {angle}: {got:?}");
    }
    let mut checked = scene.clone();
    assert!(checked.validate().is_ok());
}

#[test]
fn no_install_is_a_flat_placeholder_with_untextured_paths() {
    let (_, park) = written("no-install");
    let ground = build_ground(None, park.theme.as_deref(), &park);
    assert!(ground.warnings.iter().any(|w| w.contains("no install")), "{:?}", ground.warnings);
    let (_, plane) = mesh_named(&ground.scene, "ground (placeholder)").expect("placeholder");
    // Over the used cells, each reaching its footprint's longer side either way: from the coaster
    // at (10, 10) (3 × 2, so from cell 7) to the unknown item at (70, 70) (1 × 1, to cell 72).
    // The bus is not on the map.
    assert!(plane.source_positions.iter().all(|p| p.y == 0.0));
    assert_eq!((plane.bounds.min, plane.bounds.max), (Vec3::new(70.0, 0.0, 70.0), Vec3::new(720.0, 0.0, 720.0)));
    assert_eq!(ground.height_at([45, 31]), 0.0);
    let (_, paths) = mesh_named(&ground.scene, "paths").expect("paths");
    assert!(ground.scene.materials[paths.submeshes[0].material.unwrap()].texture.is_none());
    assert!(ground.queue_placements.is_empty() && ground.water_clip.is_none());
}

#[test]
fn missing_parts_are_warnings_and_the_rest_builds() {
    let (root, park) = written("missing");
    let mut spec = fixture_ground("jungle");
    spec.queue_pieces.retain(|(name, _)| name != "queend");
    spec.terrain_files.retain(|(path, _)| !path.ends_with("jpa_xrd1.wct") && path != "textures/jgr_bas2.wct");
    spec.basem = None;
    write_ground(&root, &spec).unwrap();
    let ground = build_ground(Some(&root), park.theme.as_deref(), &park);
    let said = |what: &str| ground.warnings.iter().any(|w| w.contains(what));
    assert!(said("queue piece queend.md2 is not in"), "{:#?}", ground.warnings);
    assert!(said("jpa_xrd1.wct not found"), "{:#?}", ground.warnings);
    assert!(said("jgr_bas2.tga not found"), "{:#?}", ground.warnings);
    assert!(said("no basem.md2"), "{:#?}", ground.warnings);
    assert_eq!(ground.queue_placements.len(), 4, "the other pieces stand");
    // The end piece's cell keeps its ground.
    let (_, terrain) = mesh_named(&ground.scene, "heightfield").unwrap();
    assert!(quad_uvs(terrain, 460.0, 310.0).is_some());
    assert!(mesh_named(&ground.scene, "paths").is_some());

    // No terrain.wad at all: the placeholder, and still the queue pieces.
    std::fs::remove_file(root.join("data/levels/jungle/terrain.wad")).unwrap();
    let ground = build_ground(Some(&root), park.theme.as_deref(), &park);
    assert!(ground.warnings.iter().any(|w| w.contains("no terrain.wad")), "{:#?}", ground.warnings);
    assert!(mesh_named(&ground.scene, "ground (placeholder)").is_some());
    assert_eq!(ground.queue_placements.len(), 4);
}
