//! Golden-image tests of the renderer on whatever wgpu adapter the machine has (Mesa's
//! lavapipe in CI). Each scene is rendered offscreen and compared with `tests/golden/<name>.png`
//! within a mean-error tolerance; on failure the actual image and a diff are written to
//! `tests/out/`. `MDVIEW_UPDATE_GOLDEN=1 cargo test --test render_golden` rewrites the goldens.
//!
//! Without an adapter these tests skip with a message, unless `CI` is set: there they fail.

mod common;

use std::path::{Path, PathBuf};

use glam::{Mat4, Vec2, Vec3};
use image::{Rgba, RgbaImage};
use mdview::render::offscreen::OffscreenRenderer;
use mdview::render::{Camera, DrawPass, Overlays, TextureSource, ViewParams};
use mdview::scene::anim::Pose;
use mdview::scene::{
    Aabb, AlphaMode, FormatKind, Material, Mesh, Node, NodeKind, Scene, SceneKind, Submesh, compute_normals,
};

const SIZE: [u32; 2] = [320, 240];
/// Mean absolute difference per channel (0..255) allowed against a golden.
const MEAN_TOLERANCE: f64 = 1.5;
/// Share of pixels allowed to differ by more than 64 in some channel (edge antialiasing).
const OUTLIER_SHARE: f64 = 0.005;

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A renderer with `scene` loaded, or `None` (with a message) when the machine has no adapter
/// and `CI` is unset.
fn offscreen(scene: &Scene) -> Option<OffscreenRenderer> {
    match OffscreenRenderer::new(scene) {
        Ok(r) => Some(r),
        Err(e) if std::env::var_os("CI").is_none() => {
            eprintln!("SKIPPED: no wgpu adapter on this machine ({e:#}); set CI=1 to make this a failure");
            None
        }
        Err(e) => panic!("CI is set but no wgpu adapter was found: {e:#}"),
    }
}

fn open_demo(name: &str) -> Scene {
    let path = manifest_dir().join("assets/demo").join(name);
    mdview::formats::open(&path).unwrap_or_else(|e| panic!("opening {}: {e}", path.display()))
}

fn framed_view(scene: &Scene, yaw: f32, pitch: f32) -> ViewParams {
    let aspect = SIZE[0] as f32 / SIZE[1] as f32;
    ViewParams::new(SIZE, Camera::framing(&scene.bounds(), yaw, pitch, aspect))
}

/// Compares with the golden (or rewrites it), writing the actual image and a diff on failure.
fn check_golden(name: &str, actual: &RgbaImage) {
    let golden_path = manifest_dir().join("tests/golden").join(format!("{name}.png"));
    if std::env::var_os("MDVIEW_UPDATE_GOLDEN").is_some() {
        actual.save(&golden_path).expect("writing golden");
        eprintln!("updated {}", golden_path.display());
        return;
    }
    let out_dir = manifest_dir().join("tests/out");
    let golden = match image::open(&golden_path) {
        Ok(g) => g.to_rgba8(),
        Err(e) => {
            std::fs::create_dir_all(&out_dir).ok();
            actual.save(out_dir.join(format!("{name}.actual.png"))).ok();
            panic!("no golden {} ({e}); run with MDVIEW_UPDATE_GOLDEN=1 to create it", golden_path.display());
        }
    };
    assert_eq!(golden.dimensions(), actual.dimensions(), "{name}: size differs from the golden");
    let mut diff = RgbaImage::new(actual.width(), actual.height());
    let (mut total, mut outliers) = (0u64, 0u64);
    for ((a, g), d) in actual.pixels().zip(golden.pixels()).zip(diff.pixels_mut()) {
        let channel_diffs: Vec<u8> = (0..4).map(|c| a.0[c].abs_diff(g.0[c])).collect();
        total += channel_diffs.iter().map(|&x| u64::from(x)).sum::<u64>();
        let worst = channel_diffs.iter().copied().max().unwrap_or(0);
        if worst > 64 {
            outliers += 1;
        }
        // Differences in red over a dimmed copy of the golden.
        let dim = |x: u8| x / 4;
        *d = Rgba([dim(g.0[0]).saturating_add(worst.saturating_mul(4)), dim(g.0[1]), dim(g.0[2]), 255]);
    }
    let pixels = f64::from(actual.width() * actual.height());
    let mean = total as f64 / (pixels * 4.0);
    let outlier_share = outliers as f64 / pixels;
    if mean > MEAN_TOLERANCE || outlier_share > OUTLIER_SHARE {
        std::fs::create_dir_all(&out_dir).ok();
        actual.save(out_dir.join(format!("{name}.actual.png"))).ok();
        diff.save(out_dir.join(format!("{name}.diff.png"))).ok();
        panic!(
            "{name}: differs from its golden (mean error {mean:.3} > {MEAN_TOLERANCE} or outliers {:.3}% > {:.3}%); \
             see tests/out/{name}.diff.png; rerun with MDVIEW_UPDATE_GOLDEN=1 if the change is intended",
            outlier_share * 100.0,
            OUTLIER_SHARE * 100.0
        );
    }
}

#[test]
fn island_with_dummies_and_sheared_node() {
    let scene = open_demo("island.MD2");
    let Some(mut r) = offscreen(&scene) else { return };
    assert_eq!(r.report.fallback_count(), 0, "demo textures resolve:\n{}", r.report.to_text());
    let passes: Vec<DrawPass> = r.report.materials.iter().map(|m| m.pass).collect();
    assert!(passes.contains(&DrawPass::CutOut), "palm leaves are cut-outs: {passes:?}");
    assert!(passes.iter().any(|p| matches!(p, DrawPass::Blend(_))), "ripples and sea are blended: {passes:?}");
    let pose = Pose::rest(&scene);
    let image = r.render(&scene, &pose, &framed_view(&scene, 30.0, 25.0)).expect("render");
    check_golden("island", &image);
}

#[test]
fn island_overlays_show_dummy_axes_and_sheared_boxes() {
    let scene = open_demo("island.MD2");
    let Some(mut r) = offscreen(&scene) else { return };
    let pose = Pose::rest(&scene);
    let mut view = framed_view(&scene, -35.0, 35.0);
    // Closer than the framing of the whole sea, so the palms, their dummies and the sheared
    // node's box are large enough to judge.
    view.camera.distance *= 0.4;
    view.overlays = Overlays {
        wireframe: false,
        normals: false,
        bounds: true,
        axes: true,
        grid: true,
        skeleton: false,
        markers: false,
    };
    view.selected_node = scene.nodes.iter().position(|n| n.kind == NodeKind::Transform);
    let image = r.render(&scene, &pose, &view).expect("render");
    check_golden("island_overlays", &image);
}

fn gate_at(frame_of: impl Fn(&mdview::scene::Clip) -> f32, name: &str) {
    let scene = open_demo("gate.MD2");
    let clip = mdview::scene::resolve_clip(&scene, "M1").expect("gate has M1");
    let time = frame_of(&scene.clips[clip]);
    let Some(mut r) = offscreen(&scene) else { return };
    let pose = Pose::at(&scene, Some(clip), time);
    let image = r.render(&scene, &pose, &framed_view(&scene, 25.0, 15.0)).expect("render");
    check_golden(name, &image);
}

#[test]
fn gate_frame_zero() {
    gate_at(|clip| clip.start, "gate_start");
}

#[test]
fn gate_last_frame() {
    gate_at(|clip| clip.end, "gate_end");
}

#[test]
fn fountain_mid_morph() {
    let scene = open_demo("fountain.MD2");
    let clip = mdview::scene::resolve_clip(&scene, "M1").expect("fountain has M1");
    let Some(mut r) = offscreen(&scene) else { return };
    let (start, end) = (scene.clips[clip].start, scene.clips[clip].end);
    let mut pose = Pose::rest(&scene);
    // Draw a few frames through the same renderer first: morphed buffers are rewritten in
    // place, and the final image must not depend on what was drawn before.
    let view = framed_view(&scene, 10.0, 35.0);
    for step in 0..3 {
        pose.evaluate(&scene, Some(clip), start + (end - start) * step as f32 / 3.0);
        r.render(&scene, &pose, &view).expect("render");
    }
    pose.evaluate(&scene, Some(clip), (start + end) * 0.5);
    let image = r.render(&scene, &pose, &view).expect("render");
    check_golden("fountain_mid", &image);
}

/// A quad in the XY plane facing +Z (counter-clockwise seen from +Z).
fn quad(name: &str, node: usize, min: Vec2, max: Vec2, material: usize) -> Mesh {
    let positions = vec![
        Vec3::new(min.x, min.y, 0.0),
        Vec3::new(max.x, min.y, 0.0),
        Vec3::new(max.x, max.y, 0.0),
        Vec3::new(min.x, max.y, 0.0),
    ];
    let triangles = vec![[0, 1, 2], [0, 2, 3]];
    Mesh {
        name: name.into(),
        node: Some(node),
        normals: compute_normals(&positions, &triangles),
        bounds: Aabb::from_points(&positions),
        source_positions: positions,
        vertex_source: vec![0, 1, 2, 3],
        uvs: vec![Vec2::new(0.0, 1.0), Vec2::new(1.0, 1.0), Vec2::new(1.0, 0.0), Vec2::new(0.0, 0.0)],
        uvs1: Vec::new(),
        triangles,
        submeshes: vec![Submesh {
            material: Some(material),
            first_triangle: 0,
            triangle_count: 2,
            vertex_start: 0,
            vertex_end: 3,
        }],
        skin: None,
        raw: Vec::new(),
        keep_rest_normals: false,
        raw_triangle_tags: Vec::new(),
    }
}

/// Textures for the see-through scene, written as PNGs into a fresh folder.
fn write_see_through_textures(dir: &Path) {
    std::fs::create_dir_all(dir).expect("temp dir");
    // Stripes whose dark half has alpha 0: drawn by an opaque material, the alpha is ignored.
    RgbaImage::from_fn(
        64,
        64,
        |x, _| if (x / 8) % 2 == 0 { Rgba([240, 240, 240, 255]) } else { Rgba([40, 60, 160, 0]) },
    )
    .save(dir.join("backdrop.png"))
    .expect("png");
    // A true gradient: red, alpha ramping left to right.
    RgbaImage::from_fn(64, 64, |x, _| Rgba([230, 30, 20, (x * 4).min(255) as u8]))
        .save(dir.join("Gradient.PNG"))
        .expect("png");
    // Cut-out art: a green disc with a one-texel soft rim on a clear background.
    RgbaImage::from_fn(64, 64, |x, y| {
        let d = ((x as f32 - 31.5).powi(2) + (y as f32 - 31.5).powi(2)).sqrt();
        let alpha = if d < 26.0 {
            255
        } else if d < 27.0 {
            128
        } else {
            0
        };
        Rgba([30, 200, 60, alpha])
    })
    .save(dir.join("leaf.tga"))
    .expect("tga");
}

/// A cut-out quad over a blended quad over an opaque backdrop whose texture has alpha, plus a
/// quad whose texture exists nowhere (the fallback tile).
fn see_through_scene(dir: &Path) -> Scene {
    let mut scene = Scene::new(FormatKind::TpwMd2, SceneKind::Mesh);
    scene.path = Some(dir.join("seethrough.md2"));
    let material = |name: &str, alpha| {
        let mut m = Material::new(name);
        m.texture = Some(name.to_string());
        m.alpha = alpha;
        m
    };
    scene.materials = vec![
        material("backdrop", AlphaMode::Opaque),
        material("gradient", AlphaMode::SeeThrough),
        material("leaf", AlphaMode::SeeThrough),
        material("no_such_texture", AlphaMode::Opaque),
    ];
    let placements = [
        ("backdrop", Vec3::new(0.0, 0.0, -1.0), Vec2::new(-2.0, -1.5), Vec2::new(2.0, 1.5), 0),
        ("gradient", Vec3::new(0.0, 0.0, 0.0), Vec2::new(-1.6, -1.0), Vec2::new(0.6, 1.0), 1),
        ("leaf", Vec3::new(0.0, 0.0, 0.5), Vec2::new(-0.4, -0.9), Vec2::new(1.4, 0.9), 2),
        ("fallback", Vec3::new(0.0, 0.0, 0.2), Vec2::new(1.0, -1.4), Vec2::new(1.9, -0.5), 3),
    ];
    for (index, (name, offset, min, max, material)) in placements.into_iter().enumerate() {
        let mut node = Node::new(name, NodeKind::Mesh, Mat4::from_translation(offset));
        node.mesh = Some(index);
        scene.nodes.push(node);
        scene.meshes.push(quad(name, index, min, max, material));
    }
    // Textures are found beside the model by the one resolver, as an opened model's are.
    mdview::formats::resolve_images(&mut scene, &[]);
    scene
}

#[test]
fn see_through_cut_out_over_blended() {
    let dir = std::env::temp_dir().join(format!("mdview-golden-see-through-{}", std::process::id()));
    write_see_through_textures(&dir);
    let scene = see_through_scene(&dir);
    let Some(mut r) = offscreen(&scene) else { return };
    let passes: Vec<(String, DrawPass)> = r.report.materials.iter().map(|m| (m.name.clone(), m.pass)).collect();
    assert_eq!(
        passes.iter().map(|(_, p)| *p).collect::<Vec<_>>(),
        [DrawPass::Opaque, DrawPass::Blend(mdview::render::BlendKind::Alpha), DrawPass::CutOut, DrawPass::Opaque],
        "{passes:?}"
    );
    assert!(matches!(r.report.materials[3].source, TextureSource::Fallback { .. }));
    assert!(matches!(&r.report.materials[1].source, TextureSource::File(p) if p.ends_with("Gradient.PNG")));

    let view = ViewParams::new(
        SIZE,
        Camera { target: Vec3::ZERO, yaw_deg: 0.0, pitch_deg: 0.0, distance: 6.0, fov_y_deg: 40.0 },
    );
    let mut unlit = view;
    unlit.lit = false;
    let image = r.render(&scene, &Pose::rest(&scene), &unlit).expect("render");
    std::fs::remove_dir_all(&dir).ok();

    // Project a world point to a pixel, to probe what is drawn where.
    let clip_from_world = view.camera.clip_from_world(view.aspect(), 3.0);
    let pixel_at = |p: Vec3| {
        let ndc = clip_from_world.project_point3(p);
        let x = ((ndc.x * 0.5 + 0.5) * SIZE[0] as f32) as u32;
        let y = ((0.5 - ndc.y * 0.5) * SIZE[1] as f32) as u32;
        image.get_pixel(x.min(SIZE[0] - 1), y.min(SIZE[1] - 1)).0
    };
    // The cut-out disc's centre is solid green, in front of everything.
    let leaf = pixel_at(Vec3::new(0.5, 0.0, 0.5));
    assert!(leaf[1] > 150 && leaf[0] < 80, "cut-out centre should be green, got {leaf:?}");
    // Outside the disc but inside its quad, the blended quad and backdrop show through.
    let corner = pixel_at(Vec3::new(-0.35, 0.85, 0.5));
    assert!(corner[1] < 150, "the cut-out's clear corner must not hide what is behind, got {corner:?}");
    // The backdrop's alpha-0 stripes are still drawn (opaque ignores alpha): no background.
    let backdrop_column = (0..8).map(|i| pixel_at(Vec3::new(1.5 + i as f32 * 0.05, 1.2, -1.0))).collect::<Vec<_>>();
    assert!(backdrop_column.iter().any(|p| p[2] > 120 && p[0] < 90), "blue stripes drawn: {backdrop_column:?}");
    // Over a white stripe, the gradient's nearly clear left edge stays white, and halfway
    // along it is clearly red (green drops).
    let left = pixel_at(Vec3::new(-1.55, 0.95, 0.0));
    let middle = pixel_at(Vec3::new(-0.45, 0.95, 0.0));
    assert!(left[1] > 200 && middle[1] + 40 < left[1], "gradient ramps: left {left:?} middle {middle:?}");
    check_golden("see_through", &image);
}

#[test]
fn transparent_background_and_flag_tint() {
    let scene = open_demo("gate.MD2");
    let Some(mut r) = offscreen(&scene) else { return };
    let mut view = framed_view(&scene, 0.0, 0.0);
    view.background = [0.0; 4];
    view.flag_bits = Some(0x02);
    let image = r.render(&scene, &Pose::rest(&scene), &view).expect("render");
    assert_eq!(image.get_pixel(0, 0).0[3], 0, "corner is transparent");
    // A point on the left door, a little left of the centre line where the doors meet.
    let door = image.get_pixel(SIZE[0] * 2 / 5, SIZE[1] / 2).0;
    assert_eq!(door[3], 255, "the model is opaque");
}

/// A Quake II corpus model (read in place, never copied), posed at a frame of a clip.
fn quake2_golden(file: &str, clip: &str, frame: f32, name: &str) {
    let path = manifest_dir().join("../shared/corpus/md2").join(file);
    if !path.exists() {
        eprintln!("SKIPPED: {} is not in the corpus", path.display());
        return;
    }
    let scene = mdview::formats::open(&path).unwrap_or_else(|e| panic!("{e}"));
    let Some(mut r) = offscreen(&scene) else { return };
    let clip = mdview::scene::resolve_clip(&scene, clip).expect("clip");
    let start = scene.clips[clip].start;
    let pose = Pose::at(&scene, Some(clip), start + frame);
    let image = r.render(&scene, &pose, &framed_view(&scene, 40.0, 15.0)).expect("render");
    check_golden(name, &image);
}

/// A player model that names no skin draws with the image named like its folder (`x/x.pcx`,
/// flat red), and its weapon with the `weapon.pcx` it names (flat yellow): both textured,
/// neither the white of an untextured material nor the fallback tile.
#[test]
fn quake2_player_without_skins_draws_its_folder_skin() {
    let root = common::temp_dir("golden-q2-folder-skin");
    let path = common::quake2_player_folder(&root);
    let scene = mdview::formats::open(&path).unwrap_or_else(|e| panic!("{e}"));
    let Some(mut r) = offscreen(&scene) else { return };
    assert_eq!(r.report.fallback_count(), 0, "{}", r.report.to_text());
    let mut view = framed_view(&scene, 0.0, 0.0);
    view.lit = false;
    let image = r.render(&scene, &Pose::rest(&scene), &view).expect("render");
    // Unlit, a texel shows its own colour. The model spans the left part of the picture, the
    // weapon the right; sample the middle of each quad's projection.
    let world_to_pixel = |p: Vec3| {
        let clip =
            view.camera.clip_from_world(view.aspect(), mdview::render::camera::bounding_sphere(&scene.bounds()).1)
                * p.extend(1.0);
        let ndc = clip.truncate() / clip.w;
        (((ndc.x + 1.0) * 0.5 * SIZE[0] as f32) as u32, ((1.0 - ndc.y) * 0.5 * SIZE[1] as f32) as u32)
    };
    let near = |a: [u8; 4], b: [u8; 3]| a.iter().zip(b).all(|(&x, y)| x.abs_diff(y) <= 3);
    let (mx, my) = world_to_pixel(Vec3::new(8.0, 8.0, 0.0));
    let model = image.get_pixel(mx, my).0;
    assert!(near(model, common::X_SKIN), "model at ({mx}, {my}) is {model:?}, not x.pcx's {:?}", common::X_SKIN);
    let (wx, wy) = world_to_pixel(Vec3::new(32.0, 8.0, 0.0));
    let weapon = image.get_pixel(wx, wy).0;
    assert!(near(weapon, common::WEAPON_SKIN), "weapon at ({wx}, {wy}) is {weapon:?}");
    check_golden("quake2_folder_skin", &image);
    std::fs::remove_dir_all(&root).ok();
}

#[test]
fn quake2_hunter_running_with_weapon_and_pcx_skin() {
    quake2_golden("hunter/tris.md2", "run", 2.0, "quake2_hunter_run");
}

#[test]
fn quake2_turretdroid_with_png_skin() {
    quake2_golden("turretdroid/TurretDroid.md2", "stand", 0.0, "quake2_turretdroid");
}

/// One unlit, blended, two-sided quad (2 units wide, facing +Z) whose texture is red on the
/// left half and green on the right; the texture is written into `dir`.
fn halves_quad_scene(dir: &Path) -> Scene {
    use mdview::scene::BlendMode;
    std::fs::create_dir_all(dir).expect("temp dir");
    let texture = dir.join("halves.png");
    RgbaImage::from_fn(64, 64, |x, _| if x < 32 { Rgba([255, 0, 0, 255]) } else { Rgba([0, 255, 0, 255]) })
        .save(&texture)
        .expect("png");
    let mut scene = Scene::new(FormatKind::WowM2, SceneKind::Mesh);
    scene.path = Some(dir.join("quad.m2"));
    let mut material = Material::new("halves");
    material.texture = Some("halves.png".into());
    material.alpha = AlphaMode::Blend(BlendMode::Alpha);
    material.unlit = true;
    material.two_sided = true;
    scene.materials.push(material);
    let mut node = Node::new("quad", NodeKind::Mesh, Mat4::IDENTITY);
    node.mesh = Some(0);
    scene.nodes.push(node);
    scene.meshes.push(quad("quad", 0, Vec2::splat(-1.0), Vec2::splat(1.0), 0));
    mdview::formats::resolve_images(&mut scene, &[]);
    assert!(scene.images[0].location().is_some_and(|l| l.ends_with("halves.png")), "halves.png resolves");
    scene
}

/// Sphere-mapped texture coordinates (M2 environment mapping) come from the view-space
/// reflection, not the mesh: with every UV on the green half, the quad still shows the red
/// half on the side where the reflection points left (u < 0.5), as GL_SPHERE_MAP does.
#[test]
fn sphere_mapped_materials_sample_by_reflection() {
    let dir = std::env::temp_dir().join(format!("mdview-sphere-map-{}", std::process::id()));
    let mut scene = halves_quad_scene(&dir);
    scene.meshes[0].uvs = vec![Vec2::new(0.9, 0.5); 4];
    let Some(mut plain) = offscreen(&scene) else { return };
    let mut view = framed_view(&scene, 0.0, 0.0);
    view.background = [0.0, 0.0, 0.0, 1.0];
    let row = |image: &RgbaImage, fraction: f32| {
        image.get_pixel((image.width() as f32 * fraction) as u32, image.height() / 2).0
    };
    let image = plain.render(&scene, &Pose::rest(&scene), &view).expect("render");
    assert!(row(&image, 0.4)[1] > 240 && row(&image, 0.6)[1] > 240, "mesh UVs: all green");

    scene.materials[0].sphere_map = true;
    let Some(mut mapped) = offscreen(&scene) else { return };
    let image = mapped.render(&scene, &Pose::rest(&scene), &view).expect("render");
    let (left, right) = (row(&image, 0.4), row(&image, 0.6));
    // Seen head-on, a point left of centre reflects the eye ray to the left: u < 0.5, red.
    assert!(left[0] > 240 && left[1] < 15, "left of centre: {left:?}");
    assert!(right[1] > 240 && right[0] < 15, "right of centre: {right:?}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A material samples the texture coordinate set it names (M2 units whose coordinate lookup
/// says 1): with the first set on the red half and the second on the green half, set 0 draws
/// red and set 1 green; a mesh with no second set draws its first for set 1.
#[test]
fn materials_sample_the_uv_set_they_name() {
    let dir = std::env::temp_dir().join(format!("mdview-uv-set-{}", std::process::id()));
    let mut scene = halves_quad_scene(&dir);
    scene.meshes[0].uvs = vec![Vec2::new(0.1, 0.5); 4];
    scene.meshes[0].uvs1 = vec![Vec2::new(0.9, 0.5); 4];
    let mut view = framed_view(&scene, 0.0, 0.0);
    view.background = [0.0, 0.0, 0.0, 1.0];
    let centre = |scene: &Scene| {
        let mut r = offscreen(scene)?;
        let image = r.render(scene, &Pose::rest(scene), &view).expect("render");
        Some(image.get_pixel(image.width() / 2, image.height() / 2).0)
    };
    let Some(first) = centre(&scene) else { return };
    assert!(first[0] > 240 && first[1] < 15, "set 0: red, got {first:?}");
    scene.materials[0].uv_set = 1;
    let second = centre(&scene).expect("renderer");
    assert!(second[1] > 240 && second[0] < 15, "set 1: green, got {second:?}");
    scene.meshes[0].uvs1.clear();
    let missing = centre(&scene).expect("renderer");
    assert!(missing[0] > 240 && missing[1] < 15, "set 1 with no second set: the first, red, got {missing:?}");
    std::fs::remove_dir_all(&dir).ok();
}

/// The renderer applies the pose's material channels: colour, alpha and the texture transform
/// (M2 colour, transparency and texture-animation tracks). One unlit, blended quad whose
/// texture is red on the left half and green on the right, on black.
#[test]
fn material_colour_alpha_and_texture_transform_animate() {
    use mdview::scene::{Channel, Clip, Curve, Key, TrackTime};
    let dir = std::env::temp_dir().join(format!("mdview-material-anim-{}", std::process::id()));
    let mut scene = halves_quad_scene(&dir);
    let clip = |name: &str, channel: Channel| Clip {
        name: name.into(),
        source: None,
        start: 0.0,
        end: 1.0,
        rate: 1.0,
        channels: vec![channel],
        tracks: Vec::new(),
        warnings: Vec::new(),
    };
    fn two_keys<T>(a: T, b: T) -> Curve<T> {
        Curve::linear(vec![Key { time: 0.0, value: a }, Key { time: 1.0, value: b }])
    }
    scene.clips = vec![
        clip(
            "colour",
            Channel::MaterialColor {
                material: 0,
                keys: two_keys(Vec3::ONE, Vec3::new(0.0, 1.0, 1.0)),
                time: TrackTime::Clip,
            },
        ),
        clip("alpha", Channel::MaterialAlpha { material: 0, keys: two_keys(1.0, 0.25), time: TrackTime::Clip }),
        clip(
            "uv",
            Channel::UvTransform {
                material: 0,
                translation: two_keys(Vec3::ZERO, Vec3::new(0.5, 0.0, 0.0)),
                rotation: Curve::default(),
                scale: Curve::default(),
                time: [TrackTime::Clip; 3],
            },
        ),
    ];
    let Some(mut r) = offscreen(&scene) else { return };
    let mut view = framed_view(&scene, 0.0, 0.0);
    view.background = [0.0, 0.0, 0.0, 1.0];
    // Two sample points across the quad, one in each texture half, and their colours.
    let sample = |image: &RgbaImage| {
        let y = image.height() / 2;
        [image.get_pixel(image.width() * 2 / 5, y).0, image.get_pixel(image.width() * 3 / 5, y).0]
    };
    let mut render_at = |clip: usize, time: f32| {
        let pose = Pose::at(&scene, Some(clip), time);
        sample(&r.render(&scene, &pose, &view).expect("render"))
    };
    let rest = render_at(0, 0.0);
    let (red_side, green_side) = if rest[0][0] > rest[0][1] { (0, 1) } else { (1, 0) };
    assert!(rest[red_side][0] > 240 && rest[red_side][1] < 15, "red half at rest: {rest:?}");
    assert!(rest[green_side][1] > 240 && rest[green_side][0] < 15, "green half at rest: {rest:?}");

    // Colour (0, 1, 1) multiplies the texture: the red half goes black, the green half stays.
    let coloured = render_at(0, 1.0);
    assert!(coloured[red_side][0] < 15, "red half under colour (0, 1, 1): {coloured:?}");
    assert!(coloured[green_side][1] > 240, "green half under colour (0, 1, 1): {coloured:?}");

    // Alpha 0.25 over black: a quarter of the linear intensity, about 137 in sRGB.
    let faded = render_at(1, 1.0);
    assert!((110..=160).contains(&faded[red_side][0]), "red half at alpha 0.25: {faded:?}");

    // Half a texture of translation swaps the halves.
    let scrolled = render_at(2, 1.0);
    assert!(scrolled[red_side][1] > 240 && scrolled[red_side][0] < 15, "scrolled: {scrolled:?}");
    assert!(scrolled[green_side][0] > 240 && scrolled[green_side][1] < 15, "scrolled: {scrolled:?}");

    // And back at rest the original state returns (uniforms are rewritten, not left behind).
    assert_eq!(render_at(2, 0.0), rest);
    std::fs::remove_dir_all(&dir).ok();
}

/// Issue 12: a surface whose final alpha is 0 is not drawn, whatever its blend mode (WoW Model
/// Viewer, wow.export). An opaque quad, whose blend ignores alpha, faded to 0 by its alpha
/// track: the read-back shows the background where the quad was.
#[test]
fn a_surface_faded_to_alpha_zero_is_not_drawn() {
    use mdview::scene::{BlendMode, Channel, Clip, Curve, Key, TrackTime};
    let dir = std::env::temp_dir().join(format!("mdview-faded-{}", std::process::id()));
    let mut scene = halves_quad_scene(&dir);
    scene.materials[0].alpha = AlphaMode::Blend(BlendMode::Opaque);
    let fade = Curve::linear(vec![Key { time: 0.0, value: 1.0 }, Key { time: 1.0, value: 0.0 }]);
    scene.clips = vec![Clip {
        name: "fade".into(),
        source: None,
        start: 0.0,
        end: 1.0,
        rate: 1.0,
        channels: vec![Channel::MaterialAlpha { material: 0, keys: fade, time: TrackTime::Clip }],
        tracks: Vec::new(),
        warnings: Vec::new(),
    }];
    let Some(mut r) = offscreen(&scene) else { return };
    let mut view = framed_view(&scene, 0.0, 0.0);
    view.background = [0.0, 0.0, 1.0, 1.0];
    let mut centre_at = |time: f32| {
        let image = r.render(&scene, &Pose::at(&scene, Some(0), time), &view).expect("render");
        let (w, h) = (image.width(), image.height());
        [image.get_pixel(w * 2 / 5, h / 2).0, image.get_pixel(w * 3 / 5, h / 2).0]
    };
    let half = centre_at(0.5);
    assert!(half.iter().all(|p| p[2] < 15), "opaque at alpha 0.5 still covers the background: {half:?}");
    let gone = centre_at(1.0);
    assert!(gone.iter().all(|p| p[2] > 240 && p[0] < 15 && p[1] < 15), "alpha 0: background only: {gone:?}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Issue 12: texture wrap modes. UVs from 0.75 to 1.75 across the quad; at its centre u = 1.25,
/// which repeats onto the red half (u 0.25) and clamps to the green edge (u 1).
#[test]
fn texture_wrap_repeats_or_clamps_per_material() {
    use mdview::scene::TextureWrap;
    let dir = std::env::temp_dir().join(format!("mdview-wrap-{}", std::process::id()));
    let mut scene = halves_quad_scene(&dir);
    for uv in &mut scene.meshes[0].uvs {
        uv.x = if uv.x < 0.5 { 0.75 } else { 1.75 };
    }
    let mut view = framed_view(&scene, 0.0, 0.0);
    view.background = [0.0, 0.0, 0.0, 1.0];
    let centre = |scene: &Scene| {
        let mut r = offscreen(scene)?;
        let image = r.render(scene, &Pose::rest(scene), &view).expect("render");
        Some(image.get_pixel(image.width() / 2 + 4, image.height() / 2).0)
    };
    let Some(repeated) = centre(&scene) else { return };
    assert!(repeated[0] > 240 && repeated[1] < 15, "repeat: red {repeated:?}");
    scene.materials[0].wrap = [TextureWrap::Clamp, TextureWrap::Repeat];
    let clamped = centre(&scene).expect("adapter");
    assert!(clamped[1] > 240 && clamped[0] < 15, "clamp: green {clamped:?}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A WoW M2 corpus model (read in place, never copied) in its bind pose or a sequence at a
/// time in milliseconds; framed on the pose, as `render` frames it.
fn m2_golden(file: &str, sequence: Option<(&str, f32)>, name: &str) {
    let path = manifest_dir().join("../shared/corpus/m2").join(file);
    if !path.exists() {
        eprintln!("SKIPPED: {} is not in the corpus", path.display());
        return;
    }
    let scene = mdview::formats::open(&path).unwrap_or_else(|e| panic!("{e}"));
    let Some(mut r) = offscreen(&scene) else { return };
    let pose = match sequence {
        Some((clip, ms)) => Pose::at(&scene, Some(mdview::scene::resolve_clip(&scene, clip).expect("sequence")), ms),
        None => Pose::rest(&scene),
    };
    let aspect = SIZE[0] as f32 / SIZE[1] as f32;
    let view = ViewParams::new(SIZE, Camera::framing(&pose.bounds(&scene), 60.0, 15.0, aspect));
    let image = r.render(&scene, &pose, &view).expect("render");
    check_golden(name, &image);
}

#[test]
fn m2_rabbit_bind_pose_with_its_creature_skin() {
    m2_golden("rabbit/Rabbit.m2", None, "m2_rabbit_bind");
}

#[test]
fn m2_rabbit_running() {
    m2_golden("rabbit/Rabbit.m2", Some(("Run", 300.0)), "m2_rabbit_run");
}

/// The tank's textures are not in the corpus, so it draws with fallback tiles: the opaque base
/// layers and the additive, sphere-mapped reflection layers over them.
#[test]
fn m2_tank_bind_pose() {
    m2_golden("tank/tank.m2", None, "m2_tank_bind");
}

/// The tank's one sequence (Stand, 36 s) has no animated tracks: half-way through it, the
/// tank must look exactly as it does in the bind pose.
#[test]
fn m2_tank_standing() {
    m2_golden("tank/tank.m2", Some(("Stand", 18_033.0)), "m2_tank_stand");
}

/// Each of M2's eight blend modes, drawn for real: a quad textured with one colour of alpha
/// 0.5 over a grey background, read back and compared with the spec's blend equation in linear
/// light (sRGB targets blend in linear).
#[test]
fn m2_blend_modes_blend_as_the_spec_table_says() {
    use mdview::scene::BlendMode;
    let to_linear = |c: f32| if c <= 0.04045 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) };
    let dir = std::env::temp_dir().join(format!("mdview-blend-modes-{}", std::process::id()));
    let mut scene = halves_quad_scene(&dir);
    let texel = [255u8, 128, 0, 128];
    RgbaImage::from_pixel(8, 8, Rgba(texel)).save(dir.join("halves.png")).expect("png");
    let src: Vec<f32> = texel[..3].iter().map(|&c| to_linear(f32::from(c) / 255.0)).collect();
    let alpha = f32::from(texel[3]) / 255.0;
    let dst = to_linear(0.5);
    type Equation = fn(f32, f32, f32) -> f32;
    let modes: [(BlendMode, Equation); 8] = [
        (BlendMode::Opaque, |s, _, _| s),
        (BlendMode::AlphaKey, |s, _, _| s), // alpha 0.5 passes the 128/255 key
        (BlendMode::Alpha, |s, d, a| s * a + d * (1.0 - a)), // SRC_ALPHA, 1 − SRC_ALPHA
        (BlendMode::NoAlphaAdd, |s, d, _| s + d), // ONE, ONE
        (BlendMode::Add, |s, d, a| s * a + d), // SRC_ALPHA, ONE
        (BlendMode::Mod, |s, d, _| s * d),  // DST_COLOR, ZERO
        (BlendMode::Mod2x, |s, d, _| s * d + d * s), // DST_COLOR, SRC_COLOR
        (BlendMode::BlendAdd, |s, d, a| s + d * (1.0 - a)), // ONE, 1 − SRC_ALPHA
    ];
    for (mode, equation) in modes {
        scene.materials[0].alpha = AlphaMode::Blend(mode);
        let Some(mut r) = offscreen(&scene) else { return };
        let mut view = framed_view(&scene, 0.0, 0.0);
        view.background = [0.5, 0.5, 0.5, 1.0];
        let image = r.render(&scene, &Pose::rest(&scene), &view).expect("render");
        let pixel = image.get_pixel(SIZE[0] / 2, SIZE[1] / 2).0;
        for channel in 0..3 {
            let expected = equation(src[channel], dst, alpha).min(1.0);
            let actual = to_linear(f32::from(pixel[channel]) / 255.0);
            assert!(
                (actual - expected).abs() < 0.02,
                "{mode:?} channel {channel}: expected linear {expected:.3}, got {actual:.3} (pixel {pixel:?})"
            );
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A contact sheet of the demo folder plus one damaged file: 2x2 cells, each framed on its
/// model with its name underneath, the damaged one showing its decode error in red.
#[test]
fn demo_contact_sheet_two_by_two() {
    use mdview::render::sheet::{self, SheetOptions};
    let dir = std::env::temp_dir().join(format!("mdview-golden-sheet-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    // The loose demo files; the demo archive (a folder of its own) has its own sheet test.
    for (name, data) in mdview::demo::files().iter().filter(|(n, _)| !n.ends_with(".wad")) {
        std::fs::write(dir.join(name), data).expect("demo file");
    }
    let gate = mdview::demo::files().iter().find(|(n, _)| *n == "gate.MD2").expect("gate").1;
    std::fs::write(dir.join("broken.md2"), &gate[..100]).expect("damaged copy");
    let gpu = match mdview::render::offscreen::HeadlessGpu::new() {
        Ok(gpu) => gpu,
        Err(e) if std::env::var_os("CI").is_none() => {
            eprintln!("SKIPPED: no wgpu adapter on this machine ({e:#}); set CI=1 to make this a failure");
            return;
        }
        Err(e) => panic!("CI is set but no wgpu adapter was found: {e:#}"),
    };
    let items = sheet::items_below(&dir, sheet::models_under(&dir).expect("listing"));
    let labels: Vec<&str> = items.iter().map(|i| i.label.as_str()).collect();
    assert_eq!(labels, ["broken.md2", "fountain.MD2", "gate.MD2", "island.MD2"], "animations get no cell");
    let options = SheetOptions { cell: 160, ..SheetOptions::default() };
    let mut progress = Vec::new();
    let drawn = sheet::render_sheet(
        &gpu,
        &items,
        |item| mdview::formats::open(&item.path).map_err(|e| e.reason()),
        &options,
        |done| progress.push(done),
    )
    .expect("sheet");
    assert_eq!(progress, [1, 2, 3, 4], "progress counts every cell once");
    assert_eq!((drawn.columns, drawn.rows, drawn.image.dimensions()), (2, 2, (320, 320)));
    let broken = &drawn.cells[0];
    assert!(broken.error.as_deref().is_some_and(|e| e.contains("tpw-md2")), "{:?}", broken.error);
    assert!(drawn.cells[1..].iter().all(|c| c.error.is_none() && c.fallback_textures == 0), "{:?}", drawn.cells);
    assert_eq!((drawn.cells[3].x, drawn.cells[3].y), (160, 160));
    check_golden("demo_sheet", &drawn.image);
    // The render options reach every cell: a wireframe changes the pictures, and a clip that
    // no model has is flagged per cell.
    let options = SheetOptions {
        overlays: mdview::render::Overlays { wireframe: true, ..Default::default() },
        clip: Some("no such clip".into()),
        ..options
    };
    let wired = sheet::render_sheet(
        &gpu,
        &items,
        |item| mdview::formats::open(&item.path).map_err(|e| e.reason()),
        &options,
        |_| {},
    )
    .expect("sheet");
    assert_ne!(wired.image, drawn.image, "the wireframe is drawn");
    assert!(wired.cells[1..].iter().all(|c| c.missing_clip), "{:?}", wired.cells);
    std::fs::remove_dir_all(&dir).ok();
}

/// A mesh under a mirroring world matrix (negative determinant) has its winding reversed on
/// screen; a single-sided surface is still drawn from its front, as glTF and modelling tools
/// have it, and the back still culled. The quad is mirrored in x, so its red half moves right.
#[test]
fn a_mirrored_single_sided_mesh_shows_its_front() {
    let dir = std::env::temp_dir().join(format!("mdview-mirrored-{}", std::process::id()));
    let mut scene = halves_quad_scene(&dir);
    scene.materials[0].alpha = AlphaMode::Opaque;
    scene.materials[0].two_sided = false;
    scene.nodes[0].local = Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0));
    let Some(mut r) = offscreen(&scene) else { return };
    let mut view = framed_view(&scene, 0.0, 0.0);
    view.background = [0.0, 0.0, 1.0, 1.0];
    let mut sides = |yaw: f32| {
        view.camera.yaw_deg = yaw;
        let image = r.render(&scene, &Pose::rest(&scene), &view).expect("render");
        let (w, h) = (image.width(), image.height());
        [image.get_pixel(w * 2 / 5, h / 2).0, image.get_pixel(w * 3 / 5, h / 2).0]
    };
    let [left, right] = sides(0.0);
    assert!(left[1] > 200 && left[0] < 60 && right[0] > 200 && right[1] < 60, "front: {left:?} {right:?}");
    let back = sides(180.0);
    assert!(back.iter().all(|p| p[2] > 240 && p[0] < 15 && p[1] < 15), "back culled: {back:?}");
    std::fs::remove_dir_all(&dir).ok();
}

/// An M2 texture unit with two textures draws both, as the 3.3.5a client combines them: a
/// quad whose first texture is light grey everywhere and whose second (on the second UV set,
/// red on the left half and blue on the right) multiplies it, unlit on black. Built through
/// the M2 scene builder from the decoded records, so the lookups, texture count and combiner
/// rule are the decoder's. Without the second layer the quad is grey all over.
#[test]
fn m2_unit_with_two_textures_draws_both() {
    use mdview::formats::m2::build::{BuildOptions, build};
    use mdview::formats::m2::model::{M2Model, Texture, Vertex};
    use mdview::formats::m2::skin::{Skin, SkinSubmesh, TextureUnit};
    use mdview::scene::LayerCombine;
    let dir = std::env::temp_dir().join(format!("mdview-two-textures-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    RgbaImage::from_pixel(8, 8, Rgba([200, 200, 200, 255])).save(dir.join("base.png")).expect("png");
    RgbaImage::from_fn(64, 64, |x, _| if x < 32 { Rgba([255, 0, 0, 255]) } else { Rgba([0, 0, 255, 255]) })
        .save(dir.join("layer.png"))
        .expect("png");
    // A quad upright in WoW's x-z plane (scene x-y), facing the camera; the first UV set sits
    // in one spot, the second spans the quad.
    let corner = |x: f32, z: f32| Vertex {
        position: Vec3::new(x, 0.0, z),
        weights: [255, 0, 0, 0],
        bones: [0; 4],
        normal: Vec3::new(0.0, -1.0, 0.0),
        uv: [0.5, 0.5],
        uv1: [(x + 1.0) / 2.0, (1.0 - z) / 2.0],
    };
    let model = M2Model {
        version: 264,
        vertices: vec![corner(-1.0, -1.0), corner(1.0, -1.0), corner(1.0, 1.0), corner(-1.0, 1.0)],
        textures: vec![
            Texture { kind: 0, flags: 0, name: "base.png".into() },
            Texture { kind: 0, flags: 0, name: "layer.png".into() },
        ],
        texture_lookup: vec![0, 1],
        texcoord_lookup: vec![0, 1],
        // Unlit and two-sided, opaque blending.
        render_flags: vec![(0x5, 0)],
        ..M2Model::default()
    };
    let skin = Skin {
        lookup: vec![0, 1, 2, 3],
        indices: vec![0, 1, 2, 0, 2, 3],
        submeshes: vec![SkinSubmesh {
            id: 0,
            level: 0,
            vertex_start: 0,
            vertex_count: 4,
            index_start: 0,
            index_count: 6,
            bone_count: 0,
            center: [0.0; 3],
            offset: 0,
        }],
        units: vec![TextureUnit { color: -1, texture_count: 2, ..TextureUnit::default() }],
        bone_count_max: 0,
    };
    let mut scene = build(&model, Some(&skin), &BuildOptions::default(), 1 << 16);
    scene.path = Some(dir.join("two_textures.m2"));
    mdview::formats::resolve_images(&mut scene, &[]);
    assert_eq!(scene.validate(), Ok(()));
    let layer = scene.materials[0].layer2.clone().expect("a second layer");
    assert_eq!((layer.uv_set, layer.sphere_map, layer.combine), (1, false, LayerCombine::Opaque));
    assert!(layer.image.is_some(), "layer.png resolves");

    let mut view = framed_view(&scene, 0.0, 0.0);
    view.background = [0.0, 0.0, 0.0, 1.0];
    let render = |scene: &Scene| {
        let mut r = offscreen(scene)?;
        Some(r.render(scene, &Pose::rest(scene), &view).expect("render"))
    };
    let Some(image) = render(&scene) else { return };
    let at = |image: &RgbaImage, fraction: f32| {
        image.get_pixel((image.width() as f32 * fraction) as u32, image.height() / 2).0
    };
    // 200 × 255 / 255 on the layer's own channel, 0 on the others.
    let (left, right) = (at(&image, 0.35), at(&image, 0.65));
    assert!(left[0].abs_diff(200) < 8 && left[1] < 8 && left[2] < 8, "left: grey × red, got {left:?}");
    assert!(right[2].abs_diff(200) < 8 && right[0] < 8 && right[1] < 8, "right: grey × blue, got {right:?}");
    check_golden("m2_two_textures", &image);

    scene.materials[0].layer2 = None;
    let plain = render(&scene).expect("renderer");
    let (left, right) = (at(&plain, 0.35), at(&plain, 0.65));
    assert!(left.iter().take(3).all(|&c| c.abs_diff(200) < 8), "first texture alone: grey, got {left:?}");
    assert_eq!(left, right);
    std::fs::remove_dir_all(&dir).ok();
}

/// A synthetic park of two items placed eight times (`writers::park_synthetic`): the repeats
/// of the idle item share their first placement's buffers and draw instanced; the looping item
/// morphs its top, so that mesh of each copy draws from buffers of its own. The picture matches its golden, and matches the same
/// park drawn with no sharing at all (every mesh its own buffers and draw).
#[test]
fn park_with_repeated_items_draws_them_instanced() {
    let root = std::env::temp_dir().join(format!("mdview-render-park-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let save = mdview::writers::park_synthetic::write_synthetic_park(&root, 2, 8).expect("writing the park");
    let scene = mdview::formats::open(&save).expect("opening the park");
    assert!(scene.mesh_copies.iter().any(Option::is_some), "repeated items are marked as copies");
    let Some(mut r) = offscreen(&scene) else { return };
    assert_eq!(r.report.fallback_count(), 0, "item textures resolve:\n{}", r.report.to_text());
    let pose = Pose::at(&scene, None, 1.0);
    // Frame the first four items, not the whole map.
    let mut bounds = Aabb::EMPTY;
    for part in scene.parts.iter().filter(|p| p.group != "ground").take(4) {
        for mesh in part.meshes.clone() {
            bounds = bounds.union(&scene.meshes[mesh].bounds.transformed(&pose.mesh_world(&scene, mesh)));
        }
    }
    let aspect = SIZE[0] as f32 / SIZE[1] as f32;
    let view = ViewParams::new(SIZE, Camera::framing(&bounds, 20.0, 35.0, aspect));
    let image = r.render(&scene, &pose, &view).expect("render");
    let stats = r.renderer.draw_stats();
    assert!(stats.instanced_draws > 0, "repeats draw instanced: {stats:?}");
    assert!(stats.draws < stats.instances, "fewer draws than submeshes drawn: {stats:?}");
    check_golden("park_instanced", &image);

    let mut unshared = scene.clone();
    unshared.mesh_copies.clear();
    let Some(mut plain) = offscreen(&unshared) else { return };
    let reference = plain.render(&unshared, &pose, &view).expect("render");
    assert_eq!(plain.renderer.draw_stats().instanced_draws, 0);
    let total: u64 = image.as_raw().iter().zip(reference.as_raw()).map(|(a, b)| u64::from(a.abs_diff(*b))).sum();
    let mean = total as f64 / image.as_raw().len() as f64;
    assert!(mean < 0.05, "instanced and one-by-one drawing differ: mean error {mean}");
    let _ = std::fs::remove_dir_all(&root);
}
