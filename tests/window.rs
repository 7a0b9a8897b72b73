//! The real viewer binary in a real (virtual) window: each test starts `mdview` under Xvfb
//! with its scripted options, lets it draw, save a screenshot of the whole window and exit,
//! and then checks the picture. Without `xvfb-run` the tests are skipped, except under CI
//! (`CI` set), where `.ci/run` installs it and a missing one is a failure.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use image::RgbaImage;
use mdview::writers::tpw::{MaterialSpec, MeshFile, MeshSpec, TextureSpec};

const WIDTH: u32 = 1280;
const HEIGHT: u32 = 800;

fn xvfb_available() -> bool {
    let found = Command::new("xvfb-run").arg("--help").stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok();
    if !found {
        assert!(std::env::var_os("CI").is_none(), "xvfb-run is missing under CI: .ci/run should install xvfb");
        eprintln!("skipped: xvfb-run is not installed (apt-get install xvfb xauth)");
    }
    found
}

/// Runs `mdview ARGS` in a fresh virtual display; returns stdout. Kills it after `limit`.
fn run_viewer(args: &[&str], config_dir: &Path, limit: Duration) -> String {
    let runtime = config_dir.join("runtime");
    std::fs::create_dir_all(&runtime).expect("runtime dir");
    let mut child = Command::new("xvfb-run")
        .args(["-a", "-s", &format!("-screen 0 {WIDTH}x{HEIGHT}x24"), env!("CARGO_BIN_EXE_mdview")])
        .args(args)
        .env("MDVIEW_CONFIG_DIR", config_dir)
        .env("XDG_RUNTIME_DIR", &runtime)
        .env("LIBGL_ALWAYS_SOFTWARE", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start xvfb-run");
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            let output = child.wait_with_output().expect("output");
            let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
            let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
            assert!(status.success(), "mdview {args:?} failed ({status}):\n{stdout}\n{stderr}");
            assert!(!stderr.contains("panicked"), "mdview panicked:\n{stderr}");
            return stdout;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let output = child.wait_with_output().expect("output");
            panic!(
                "mdview {args:?} did not exit within {limit:?}:\n{}\n{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn screenshot(args: &[&str], name: &str) -> (RgbaImage, PathBuf) {
    let dir = common::temp_dir(name);
    let png = dir.join("window.png");
    let png_arg = png.to_string_lossy().into_owned();
    let mut all = vec!["--screenshot", png_arg.as_str(), "--screenshot-after-frames", "30", "--exit"];
    all.extend_from_slice(args);
    run_viewer(&all, &dir, Duration::from_secs(180));
    let image = image::open(&png).expect("screenshot written").to_rgba8();
    assert_eq!(image.dimensions(), (WIDTH, HEIGHT), "the whole window is captured");
    (image, dir)
}

fn luma(p: &image::Rgba<u8>) -> f32 {
    0.299 * f32::from(p[0]) + 0.587 * f32::from(p[1]) + 0.114 * f32::from(p[2])
}

/// Fraction of pixels in the rectangle for which `test` holds.
fn fraction(img: &RgbaImage, x0: u32, y0: u32, x1: u32, y1: u32, test: impl Fn(&image::Rgba<u8>) -> bool) -> f32 {
    let mut hits = 0u32;
    let mut total = 0u32;
    for y in y0..y1.min(img.height()) {
        for x in x0..x1.min(img.width()) {
            total += 1;
            if test(img.get_pixel(x, y)) {
                hits += 1;
            }
        }
    }
    hits as f32 / total.max(1) as f32
}

/// The panels are dark with light text: a dark field with a sprinkling of bright pixels.
fn assert_panel_with_text(img: &RgbaImage, x0: u32, x1: u32, what: &str) {
    let dark = fraction(img, x0, 60, x1, 700, |p| luma(p) < 50.0);
    let text = fraction(img, x0, 60, x1, 700, |p| luma(p) > 120.0);
    assert!(dark > 0.6, "{what}: expected a dark panel, {dark:.2} dark");
    assert!(text > 0.002, "{what}: expected readable text, {text:.4} bright");
}

/// The model covers a good part of the viewport's middle: many pixels far from the
/// background colour (the grid alone covers far less).
fn assert_model_drawn(img: &RgbaImage) {
    let bg = *img.get_pixel(WIDTH / 2, 40 + 4);
    let differs = |p: &image::Rgba<u8>| (0..3).map(|c| (i32::from(p[c]) - i32::from(bg[c])).abs()).sum::<i32>() > 60;
    let covered = fraction(img, 400, 200, 880, 600, differs);
    assert!(covered > 0.05, "expected the model in the viewport, {covered:.3} of the middle differs from {bg:?}");
}

/// A 20,000-vertex mesh: a `side` x `side` wavy sheet, as one TPW model.
pub fn sheet(side: u16, phase: f32) -> MeshFile {
    let n = side;
    let mut vertices = Vec::new();
    let mut uvs = Vec::new();
    for j in 0..n {
        for i in 0..n {
            let (u, v) = (f32::from(i) / f32::from(n - 1), f32::from(j) / f32::from(n - 1));
            let height = ((u * 12.0 + phase).sin() * (v * 9.0).cos()) * 0.08;
            vertices.push([u * 2.0 - 1.0, height, v * 2.0 - 1.0]);
            uvs.push([u * 4.0, v * 4.0]);
        }
    }
    let mut faces = Vec::new();
    for j in 0..n - 1 {
        for i in 0..n - 1 {
            let a = j * n + i;
            faces.push([a, a + n, a + 1]);
            faces.push([a + 1, a + n, a + n + 1]);
        }
    }
    let count = n * n;
    MeshFile {
        textures: vec![TextureSpec::opaque("sheet.tga")],
        meshes: vec![MeshSpec {
            name: "Sheet".into(),
            vertex_order: (0..count).collect(),
            vertices,
            uvs,
            faces,
            materials: vec![MaterialSpec { texture: Some(0), start: 0, end: count - 1 }],
            ..Default::default()
        }],
        ..Default::default()
    }
}

#[test]
fn the_demo_opens_plays_and_is_captured() {
    if !xvfb_available() {
        return;
    }
    let (img, _) = screenshot(&[], "window-demo");
    // Layout: folder list on the left, inspector on the right, viewport between.
    assert_panel_with_text(&img, 0, 200, "folder panel");
    assert_panel_with_text(&img, 1000, WIDTH, "inspector");
    assert_model_drawn(&img);
}

#[test]
fn a_damaged_file_shows_an_error_instead_of_crashing() {
    if !xvfb_available() {
        return;
    }
    let dir = common::temp_dir("window-damaged-input");
    let mut bytes = common::island().to_bytes();
    bytes.truncate(bytes.len() / 2);
    let bad = common::write(&dir, "broken.md2", &bytes);
    let (img, _) = screenshot(&[bad.to_string_lossy().as_ref()], "window-damaged");
    // The red error banner at the top of the viewport and of the inspector.
    let red = |p: &image::Rgba<u8>| p[0] > 100 && i32::from(p[0]) > i32::from(p[1]) * 2 && p[0] > p[2];
    let banner = fraction(&img, 200, 30, 1280, 140, red);
    assert!(banner > 0.01, "expected a red error banner, {banner:.4} red");
}

#[test]
fn stepping_through_a_folder_of_20k_vertex_models() {
    if !xvfb_available() {
        return;
    }
    let dir = common::temp_dir("window-bench");
    // 142 x 142 = 20,164 vertices, 40,000 triangles each.
    for k in 0..6 {
        common::write(&dir, &format!("sheet{k}.md2"), &sheet(142, k as f32).to_bytes());
    }
    let config = common::temp_dir("window-bench-config");
    let out = run_viewer(
        &[dir.to_string_lossy().as_ref(), "--bench-steps", "5", "--exit"],
        &config,
        Duration::from_secs(180),
    );
    println!("{out}");
    let opened = out.lines().filter(|l| l.starts_with("open sheet")).count();
    assert_eq!(opened, 6, "the first model and five steps:\n{out}");
    assert!(out.contains("20164 vertices"), "{out}");
    let median = out
        .lines()
        .find_map(|l| l.split("median ").nth(1))
        .and_then(|rest| rest.split(' ').next())
        .and_then(|v| v.parse::<f64>().ok())
        .expect("a median in the summary line");
    // CI draws with lavapipe, a software rasteriser, on a shared machine: one 1280x800 frame
    // costs it 100-200 ms there, so this bound only catches gross regressions (a second frame,
    // a blocking load). The 100 ms goal is measured by hand with a release build.
    let limit = if cfg!(debug_assertions) { 3000.0 } else { 1000.0 };
    assert!(median < limit, "median step {median} ms (limit {limit} ms)");
}

#[test]
fn the_sheet_view_shows_a_thumbnail_per_model() {
    if !xvfb_available() {
        return;
    }
    let dir = common::temp_dir("window-sheet-models");
    for (name, data) in mdview::demo::files() {
        common::write(&dir, name, data);
    }
    // The screenshot waits for the thumbnails.
    let (img, _) = screenshot(&[dir.to_string_lossy().as_ref(), "--sheet-view"], "window-sheet");
    // The demo's park.wad is a folder of the tree: the folder's own models come under a
    // heading, then the archive's under theirs. Three thumbnails of 160 px in a row from the
    // viewport's left edge (the folder panel is 230 px wide), below the first heading, each of
    // the model over the renderer's background, not a grey placeholder.
    let thumbnail = |p: &image::Rgba<u8>| luma(p) > 45.0 && luma(p) < 70.0;
    let top = (36..120)
        .find(|&y| (0..20).all(|d| thumbnail(img.get_pixel(246, y + d))))
        .expect("a thumbnail below the heading");
    let heading = fraction(&img, 238, 36, 600, top, |p| luma(p) > 150.0);
    assert!(top > 50 && heading > 0.01, "a heading above the thumbnails: top {top}, {heading:.3} text");
    for k in 0..3 {
        let x0 = 238 + k * 166;
        let background = *img.get_pixel(x0 + 8, top); // inside the selection outline
        assert!(thumbnail(&background), "thumbnail {k}: {background:?}");
        let framed = fraction(&img, x0 + 10, top, x0 + 150, top + 140, |p| *p == background);
        let model = fraction(&img, x0 + 10, top, x0 + 150, top + 140, |p| luma(p) > 90.0);
        assert!(framed > 0.02 && model > 0.03, "thumbnail {k}: {framed:.2} background, {model:.3} model");
    }
}

/// The tree the window had when the scripted run ended (`--dump-tree`).
fn dumped_tree(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).expect("tree dumped")).expect("tree JSON")
}

fn strings(value: &serde_json::Value) -> Vec<String> {
    serde_json::from_value(value.clone()).expect("a list of strings")
}

/// The models opened, in order, as `--bench-steps` prints them (paths below the folder).
fn opened(out: &str) -> Vec<String> {
    out.lines()
        .filter_map(|l| l.strip_prefix("open "))
        .filter_map(|l| l.split(':').next())
        .map(str::to_string)
        .collect()
}

#[test]
fn a_nested_folder_opens_as_a_tree_that_pagedown_and_the_filter_follow() {
    use mdview::writers::wad::{WadMember, write_wad};
    if !xvfb_available() {
        return;
    }
    // Models two levels down (one with an animation), an archive inside, an empty folder and
    // one holding no models.
    let dir = common::temp_dir("window-tree-models");
    let island = common::island().to_bytes();
    common::write(&dir, "top.md2", &island);
    std::fs::create_dir_all(dir.join("creature/rabbit")).expect("folders");
    common::write(&dir.join("creature/rabbit"), "rabbit.md2", &island);
    let clip = mdview::writers::tpw::AnimFile { last_frame: 20, ..Default::default() };
    common::write(&dir.join("creature/rabbit"), "rabbitM1.md2", &clip.to_bytes());
    std::fs::create_dir_all(dir.join("creature/wolf")).expect("folders");
    common::write(&dir.join("creature/wolf"), "wolf.md2", &island);
    std::fs::write(dir.join("jungle.wad"), write_wad(&[WadMember::stored("models/gate.MD2", &island)])).expect("wad");
    std::fs::create_dir_all(dir.join("empty/inside")).expect("empty folder");
    std::fs::create_dir_all(dir.join("docs")).expect("folders");
    common::write(&dir.join("docs"), "readme.txt", b"no models here");
    let folder = dir.to_string_lossy().into_owned();

    // PageDown through the whole tree, in its order, across folders and into the archive.
    let config = common::temp_dir("window-tree");
    let tree_json = config.join("tree.json");
    let tree_arg = tree_json.to_string_lossy().into_owned();
    let out = run_viewer(
        &[&folder, "--bench-steps", "3", "--exit", "--dump-tree", &tree_arg],
        &config,
        Duration::from_secs(180),
    );
    let order = ["top.md2", "creature/rabbit/rabbit.md2", "creature/wolf/wolf.md2", "jungle.wad/models/gate.MD2"];
    assert_eq!(opened(&out), order, "{out}");
    let tree = dumped_tree(&tree_json);
    assert_eq!(tree["complete"], true);
    assert_eq!(strings(&tree["entries"]), order);
    assert_eq!(
        strings(&tree["rows"]),
        [
            "top.md2",
            "creature/",
            "  rabbit/",
            "    rabbit.md2",
            "      ↪ rabbitM1.md2",
            "  wolf/",
            "    wolf.md2",
            "jungle.wad/",
            "  models/",
            "    gate.MD2",
        ],
        "a heading per folder on the way; no empty folder"
    );
    assert_eq!(tree["current"], "jungle.wad/models/gate.MD2");

    // The filter takes a fragment of the path below the folder; PageDown follows it.
    let config = common::temp_dir("window-tree-filtered");
    let tree_json = config.join("tree.json");
    let tree_arg = tree_json.to_string_lossy().into_owned();
    let out = run_viewer(
        &[&folder, "--filter", "Creature/", "--bench-steps", "1", "--exit", "--dump-tree", &tree_arg],
        &config,
        Duration::from_secs(180),
    );
    assert_eq!(opened(&out), ["creature/rabbit/rabbit.md2", "creature/wolf/wolf.md2"], "{out}");
    let tree = dumped_tree(&tree_json);
    assert_eq!(strings(&tree["visible"]), ["creature/rabbit/rabbit.md2", "creature/wolf/wolf.md2"]);
    assert_eq!(strings(&tree["entries"]).len(), 4, "the filter hides, the tree keeps every model");
}

/// What the window showed when the scripted run exited (`--dump-view`).
fn dumped_view(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).expect("view dumped")).expect("view JSON")
}

fn vec3(value: &serde_json::Value) -> [f32; 3] {
    serde_json::from_value(value.clone()).expect("three numbers")
}

/// A park save beside its install, as the park writers make them (`tests/park_scene.rs`);
/// returns the install's folder and the save.
fn written_park(name: &str) -> (PathBuf, PathBuf) {
    use mdview::writers::park::{fixture_install, fixture_save, write_install, write_save};
    let root = common::temp_dir(name);
    write_install(&root, &fixture_install()).expect("install written");
    let save = root.join("data/levels/jungle/park.TPWS");
    std::fs::write(&save, write_save(&fixture_save())).expect("save written");
    (root, save)
}

#[test]
fn a_park_opens_with_its_items_listed_and_one_selected_and_framed() {
    if !xvfb_available() {
        return;
    }
    let (_, save) = written_park("window-park");
    let config = common::temp_dir("window-park-run");
    let view_json = config.join("view.json");
    let png = config.join("window.png");
    let args = [
        save.to_string_lossy().into_owned(),
        "--select".into(),
        "monkey #20".into(),
        "--frame-selected".into(),
        "--dump-view".into(),
        view_json.to_string_lossy().into_owned(),
        "--screenshot".into(),
        png.to_string_lossy().into_owned(),
        "--screenshot-after-frames".into(),
        "20".into(),
        "--exit".into(),
    ];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run_viewer(&args, &config, Duration::from_secs(180));
    let view = dumped_view(&view_json);
    assert_eq!(view["format"], "Theme Park World park", "{view}");
    let names: Vec<String> = view["parts"].as_array().expect("parts").iter().map(|p| p["name"].to_string()).collect();
    assert!(names.len() >= 8 && names.iter().any(|n| n == "\"monkey #20\""), "{names:?}");
    assert!(view["layers"].as_u64().unwrap_or(0) > 0, "the items' clips play as layers: {view}");
    assert_eq!(view["inspector_tab"], "Park");
    assert_eq!(view["selected_part"], "monkey #20");
    // The monkey is a 4 × 4-cell plate at cell (40, 30): x 400..440, z 300..340.
    let (min, max) = (vec3(&view["selected_bounds"]["min"]), vec3(&view["selected_bounds"]["max"]));
    assert!((min[0] - 400.0).abs() < 1.0 && (max[2] - 340.0).abs() < 1.0, "{min:?} {max:?}");
    // Framed on it: the camera looks at its middle from about its size away, far closer than
    // the whole park (which reaches from cell 0 to cell 70) would need.
    let target = vec3(&view["camera"]["target"]);
    let middle = [(min[0] + max[0]) / 2.0, (min[1] + max[1]) / 2.0, (min[2] + max[2]) / 2.0];
    assert!((0..3).all(|k| (target[k] - middle[k]).abs() < 1.0), "target {target:?}, middle {middle:?}");
    let distance = view["camera"]["distance"].as_f64().expect("distance") as f32;
    let (park_min, park_max) = (vec3(&view["scene_bounds"]["min"]), vec3(&view["scene_bounds"]["max"]));
    let park_size = (0..3).map(|k| (park_max[k] - park_min[k]).powi(2)).sum::<f32>().sqrt();
    assert!(distance > 20.0 && distance < park_size * 0.5, "distance {distance}, park {park_size}");
    // The window: the Park tab's list on the right, the framed plate filling the viewport.
    let image = image::open(&png).expect("screenshot written").to_rgba8();
    assert_panel_with_text(&image, 1000, WIDTH, "park panel");
    assert_model_drawn(&image);
    assert_selection_drawn(&image);
}

/// The selected item's outline: the viewport holds some of the renderer's highlight orange-yellow
/// (the parks' orange stand-in boxes stand away from the items these tests frame).
fn assert_selection_drawn(img: &RgbaImage) {
    let yellow =
        |p: &image::Rgba<u8>| p[0] > 200 && p[1] > 140 && p[2] < 110 && i32::from(p[0]) - i32::from(p[2]) > 120;
    let outlined = fraction(img, 240, 60, 900, 700, yellow);
    assert!(outlined > 0.001, "expected the selection outlined in the viewport, {outlined:.4} yellow");
}

/// The built-in demo is a park: an item selected by name (`#` picks the first placed item,
/// `gate #20`, as every item's name carries its thing id) is framed in the view.
#[test]
fn the_demo_park_opens_and_an_item_is_selected_and_framed() {
    if !xvfb_available() {
        return;
    }
    let config = common::temp_dir("window-demo-park");
    let view_json = config.join("view.json");
    let view_arg = view_json.to_string_lossy().into_owned();
    let (image, _) =
        screenshot(&["--select", "#", "--frame-selected", "--dump-view", &view_arg], "window-demo-park-shot");
    let view = dumped_view(&view_json);
    assert_eq!(view["format"], "Theme Park World park", "the demo opens as a park: {view}");
    let selected = view["selected_part"].as_str().expect("an item selected").to_string();
    assert!(selected.contains('#'), "{selected}");
    let (min, max) = (vec3(&view["selected_bounds"]["min"]), vec3(&view["selected_bounds"]["max"]));
    let target = vec3(&view["camera"]["target"]);
    assert!(
        (0..3).all(|k| (target[k] - (min[k] + max[k]) / 2.0).abs() < 0.01 * (max[k] - min[k]).abs().max(1.0)),
        "framed on {selected}: target {target:?}, bounds {min:?} {max:?}"
    );
    let (park_min, park_max) = (vec3(&view["scene_bounds"]["min"]), vec3(&view["scene_bounds"]["max"]));
    let item_size = (0..3).map(|k| (max[k] - min[k]).powi(2)).sum::<f32>().sqrt();
    let park_size = (0..3).map(|k| (park_max[k] - park_min[k]).powi(2)).sum::<f32>().sqrt();
    let distance = view["camera"]["distance"].as_f64().expect("distance") as f32;
    assert!(item_size < park_size * 0.5, "the item is a small part of the park: {item_size} of {park_size}");
    assert!(distance > item_size * 0.5 && distance < item_size * 4.0, "distance {distance}, item {item_size}");
    assert_panel_with_text(&image, 1000, WIDTH, "park panel");
    assert_model_drawn(&image);
    assert_selection_drawn(&image);
}

#[test]
fn a_park_takes_its_items_from_the_install_given_or_remembered() {
    if !xvfb_available() {
        return;
    }
    let (root, written) = written_park("window-park-install");
    // The save alone, away from its install: the items are named by id, with a warning (and a
    // scripted run never stops for the install dialog).
    let alone = common::temp_dir("window-park-alone");
    let save = alone.join("park.TPWS");
    std::fs::copy(&written, &save).expect("save copied");
    let save_arg = save.to_string_lossy().into_owned();
    let run = |extra: &[&str], config: &Path| {
        let view_json = config.join("view.json");
        let view_arg = view_json.to_string_lossy().into_owned();
        let mut args = vec![save_arg.as_str(), "--bench-steps", "0", "--exit", "--dump-view", view_arg.as_str()];
        args.extend_from_slice(extra);
        run_viewer(&args, config, Duration::from_secs(180));
        dumped_view(&view_json)
    };
    let names = |view: &serde_json::Value| -> Vec<String> {
        view["parts"].as_array().expect("parts").iter().filter_map(|p| p["name"].as_str().map(String::from)).collect()
    };
    let no_install = |view: &serde_json::Value| {
        view["warnings"].as_array().expect("warnings").iter().any(|w| w.as_str().unwrap_or("").contains("no install"))
    };
    let view = run(&[], &common::temp_dir("window-park-alone-run"));
    assert!(no_install(&view), "{view}");
    assert!(!names(&view).iter().any(|n| n == "monkey #20"), "{:?}", names(&view));
    // `--install DIR` finds them.
    let root_arg = root.to_string_lossy().into_owned();
    let view = run(&["--install", &root_arg], &common::temp_dir("window-park-given-run"));
    assert!(!no_install(&view), "{view}");
    assert!(names(&view).iter().any(|n| n == "monkey #20"), "{:?}", names(&view));
    // So does the install the viewer remembers in its settings.
    let config = common::temp_dir("window-park-remembered-run");
    let settings = serde_json::json!({ "files": [], "folders": [], "install": root });
    std::fs::write(config.join("recent.json"), settings.to_string()).expect("settings written");
    let view = run(&[], &config);
    assert!(names(&view).iter().any(|n| n == "monkey #20"), "{:?}", names(&view));
}

/// A Quake 3 player folder opens in the viewer as the player, and `--weapon` hangs a gun on
/// its `tag_weapon` (the panel's "Attach weapon…" in a scripted run).
#[test]
fn a_player_folder_opens_as_the_player_holding_the_weapon_given() {
    use mdview::writers::md3::{sample, write};
    if !xvfb_available() {
        return;
    }
    let root = common::temp_dir("window-md3-player");
    let player = root.join("sarge");
    std::fs::create_dir_all(&player).expect("player folder");
    let mut upper = sample(2);
    upper.tag_names = vec!["tag_weapon".into()];
    upper.tags.iter_mut().flatten().for_each(|tag| tag.name = "tag_weapon".into());
    for (name, file) in [("lower", sample(2)), ("upper", upper), ("head", sample(2))] {
        common::write(&player, &format!("{name}.md3"), &write(&file));
    }
    let gun = common::write(&root, "gun.md3", &write(&sample(1)));
    let config = common::temp_dir("window-md3-player-run");
    let view_json = config.join("view.json");
    let [player_arg, gun_arg, view_arg] = [&player, &gun, &view_json].map(|p| p.to_string_lossy().into_owned());
    let args = [player_arg.as_str(), "--weapon", &gun_arg, "--bench-steps", "0", "--exit", "--dump-view", &view_arg];
    run_viewer(&args, &config, Duration::from_secs(180));
    let view = dumped_view(&view_json);
    assert_eq!(view["path"], player_arg, "{view}");
    let parts: Vec<(String, String)> = view["parts"]
        .as_array()
        .expect("parts")
        .iter()
        .map(|p| (p["name"].as_str().unwrap_or("").into(), p["group"].as_str().unwrap_or("").into()))
        .collect();
    let groups: Vec<&str> = parts.iter().map(|(_, g)| g.as_str()).collect();
    assert_eq!(groups, ["player", "player", "player", "weapon"], "{view}");
    assert_eq!(parts.last().map(|(n, _)| n.as_str()), Some("gun.md3"));
    let warnings = view["warnings"].as_array().expect("warnings");
    assert!(!warnings.iter().any(|w| w.as_str().unwrap_or("").contains("not held")), "{view}");
}
