//! Archives as a user meets them: `info` listing a `.wad`, models opened through member paths
//! with their sibling animations and textures from inside the archive, `extract` (with one bad
//! member that must not hide the others), `scan` reading inside archives, and the texture
//! search order across a theme's archives.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use mdview::formats::assets::{Assets, texture_dirs};
use mdview::writers::wad::{WadMember, write_wad};
use mdview::writers::wct::{WctOptions, encode};

fn mdview(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_mdview")).args(args).output().expect("run mdview")
}

fn demo(name: &str) -> Vec<u8> {
    mdview::demo::files().iter().find(|(n, _)| *n == name).map(|(_, d)| d.to_vec()).unwrap()
}

fn flat_wct(rgba: [u8; 4]) -> Vec<u8> {
    let pixels: Vec<u8> = (0..16 * 16).flat_map(|_| rgba).collect();
    encode(&pixels, 16, 16, WctOptions { alpha: rgba[3] != 255, ..Default::default() })
}

/// A theme folder: `jungle.wad` with the demo gate (RefPack) and its two animations, a
/// texture in `stexture\`; shared texture archives beside it; a loose file.
fn theme(test: &str) -> PathBuf {
    let dir = common::temp_dir(test);
    let data = dir.join("data");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::write(
        data.join("jungle.wad"),
        write_wad(&[
            WadMember::compressed("models/gate.MD2", &demo("gate.MD2")),
            WadMember::compressed("models/gateM1.MD2", &demo("gateM1.MD2")),
            WadMember::stored("models/gateM2.MD2", &demo("gateM2.MD2")),
            WadMember::stored("stexture/gate_wood.wct", &flat_wct([200, 10, 10, 255])),
        ]),
    )
    .unwrap();
    // Both shared archives hold stone_blocks: sharetex.wad wins.
    std::fs::write(
        data.join("sharetex.wad"),
        write_wad(&[WadMember::stored("textures/stone_blocks.wct", &flat_wct([10, 200, 10, 255]))]),
    )
    .unwrap();
    std::fs::write(
        data.join("ssharete.wad"),
        write_wad(&[
            WadMember::stored("textures/stone_blocks.wct", &flat_wct([10, 10, 200, 255])),
            WadMember::stored("textures/only_here.wct", &flat_wct([1, 2, 3, 255])),
        ]),
    )
    .unwrap();
    std::fs::write(data.join("aaa_other.wad"), write_wad(&[WadMember::stored("x/far.wct", &flat_wct([5, 5, 5, 128]))]))
        .unwrap();
    std::fs::write(data.join("loose.wct"), flat_wct([9, 9, 9, 255])).unwrap();
    dir
}

#[test]
fn info_lists_an_archive_in_text_and_json() {
    let dir = theme("wad-info");
    let wad = dir.join("data/jungle.wad");
    let out = mdview(&["info", wad.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let members = json["members"].as_array().unwrap();
    let names: Vec<&str> = members.iter().map(|m| m["path"].as_str().unwrap()).collect();
    assert_eq!(names, ["models/gate.MD2", "models/gateM1.MD2", "models/gateM2.MD2", "stexture/gate_wood.wct"]);
    assert_eq!(members[0]["size"], demo("gate.MD2").len());
    assert_eq!(members[0]["compression"], "refpack");
    assert!(members[0]["stored_size"].as_u64().unwrap() < demo("gate.MD2").len() as u64);
    assert_eq!(members[2]["compression"], "stored");
    assert_eq!(members[2]["stored_size"], members[2]["size"]);
    let text = String::from_utf8_lossy(&mdview(&["info", wad.to_str().unwrap()]).stdout).into_owned();
    assert!(text.contains("4 members") && text.contains("models/gateM1.MD2") && text.contains("refpack"), "{text}");
}

#[test]
fn a_member_opens_with_its_siblings_like_the_loose_file() {
    let dir = theme("wad-open");
    let member = dir.join("data/jungle.wad/models/gate.MD2");
    let scene = mdview::formats::open(&member).unwrap();
    let loose = mdview::formats::decode_bytes(&demo("gate.MD2")).unwrap();
    assert_eq!(scene.meshes.len(), loose.meshes.len());
    assert_eq!(scene.clips.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["M1", "M2"]);
    assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);
    // An animation member opens its base model from the archive, with itself selected.
    let anim = mdview::formats::open(&dir.join("data/jungle.wad/models/GATEM2.md2")).unwrap();
    assert_eq!(anim.default_clip.and_then(|c| anim.clips.get(c)).map(|c| c.name.as_str()), Some("M2"));
    // And through the command line, for export too.
    let obj = dir.join("gate.obj");
    let out =
        mdview(&["export", member.to_str().unwrap(), "-o", obj.to_str().unwrap(), "--anim", "M1", "--frame", "30"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(std::fs::read_to_string(&obj).unwrap().contains("\nf "));
    let out = mdview(&["info", dir.join("data/jungle.wad/models/none.MD2").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no member models/none.MD2"));
}

fn resolved(assets: &mut Assets, search: &[PathBuf], name: &str, base: &Path) -> Option<String> {
    let found = assets.resolve_texture(name, search)?.path()?;
    Some(found.strip_prefix(base).unwrap().to_string_lossy().replace('\\', "/"))
}

/// An image file (loose or in an archive) decoded through the one image entry point.
fn load_image(path: &Path) -> image::RgbaImage {
    let bytes = mdview::formats::vfs::read(path).unwrap();
    let name = path.file_name().unwrap().to_string_lossy();
    let image = mdview::formats::assets::decode_image(&bytes, &name, path.display().to_string()).unwrap();
    image::RgbaImage::from_raw(image.width, image.height, image.rgba).unwrap()
}

#[test]
fn textures_follow_the_archive_search_order() {
    let dir = theme("wad-textures");
    let data = dir.join("data");
    let member = data.join("jungle.wad/models/gate.MD2");
    let search = texture_dirs(Some(&member), &[]);
    let mut assets = Assets::new();
    let mut resolver = |name: &str| resolved(&mut assets, &search, name, &data);
    // The same archive's stexture\ (no textures\ there).
    assert_eq!(resolver("gate_wood.tga").as_deref(), Some("jungle.wad/stexture/gate_wood.wct"));
    // sharetex.wad before ssharete.wad.
    assert_eq!(resolver("STONE_BLOCKS").as_deref(), Some("sharetex.wad/textures/stone_blocks.wct"));
    assert_eq!(resolver("only_here").as_deref(), Some("ssharete.wad/textures/only_here.wct"));
    // Then the folder's other archives, then loose files.
    assert_eq!(resolver("far.tga").as_deref(), Some("aaa_other.wad/x/far.wct"));
    assert_eq!(resolver("loose").as_deref(), Some("loose.wct"));
    assert_eq!(resolver("missing"), None);
    // The pixels are the WCT's, and its alpha classifies as on a PNG.
    let image = load_image(&data.join("sharetex.wad/textures/stone_blocks.wct"));
    assert_eq!(image.get_pixel(3, 3).0, [10, 200, 10, 255]);
    let far = load_image(&data.join("aaa_other.wad/x/far.wct"));
    assert_eq!(far.get_pixel(0, 0).0[3], 128);
    assert_eq!(mdview::render::textures::classify_alpha(&far), mdview::render::textures::SeeThroughKind::Blended);
}

#[test]
fn extract_writes_every_member_and_reports_each_failure() {
    let dir = theme("wad-extract");
    let mut archive = write_wad(&[
        WadMember::compressed("models/gate.MD2", &demo("gate.MD2")),
        WadMember::stored("textures/good.wct", &flat_wct([100, 100, 100, 255])),
        WadMember::stored("textures/bad.wct", b"not a texture at all, far too short"),
        WadMember::compressed("models/broken.MD2", &demo("gateM1.MD2")),
    ]);
    // Break the second RefPack stream: its first command byte becomes a stop code that ends
    // the stream at once, so it falls short of its declared size.
    let index = mdview::formats::wad::read_index(&archive).unwrap();
    let broken = index.find("models/broken.MD2").unwrap();
    archive[broken.data_offset as usize + 5] = 0xFC;
    let wad = dir.join("damaged.wad");
    std::fs::write(&wad, &archive).unwrap();
    let out_dir = dir.join("out");
    let out = mdview(&["extract", wad.to_str().unwrap(), "-o", out_dir.to_str().unwrap(), "--png"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("(models/broken.MD2)") && stderr.contains("refpack stream"), "{stderr}");
    assert!(stderr.contains("textures/bad.wct"), "{stderr}");
    assert_eq!(std::fs::read(out_dir.join("models/gate.MD2")).unwrap(), demo("gate.MD2"));
    assert!(out_dir.join("textures/good.png").is_file() && out_dir.join("textures/bad.wct").is_file());
    assert!(!out_dir.join("models/broken.MD2").exists());
    let png = image::open(out_dir.join("textures/good.png")).unwrap().to_rgba8();
    assert_eq!(png.get_pixel(5, 5).0, [100, 100, 100, 255]);

    // Cut off inside the last member: the members before it are still written, and the cut
    // one is a warning and a failure of its own (`info` still refuses the whole archive).
    let cut = dir.join("cut.wad");
    let last = index.entries.iter().max_by_key(|e| e.data_offset).unwrap();
    std::fs::write(&cut, &archive[..last.data_offset as usize + 3]).unwrap();
    let cut_out = dir.join("cut-out");
    let out = mdview(&["extract", cut.to_str().unwrap(), "-o", cut_out.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("warning: entry {} (", last.index)) && stderr.contains("cannot be read"),
        "{stderr}"
    );
    // The broken RefPack member still fails as before, and the cut one too.
    let expected_failures = if last.path == "models/broken.MD2" { 1 } else { 2 };
    assert!(stderr.contains(&format!("{expected_failures} of 4 members failed")), "{stderr}");
    assert!(!cut_out.join(&last.path).exists());
    for entry in index.entries.iter().filter(|e| e.path != last.path && e.path != "models/broken.MD2") {
        assert!(cut_out.join(&entry.path).is_file(), "{} written: {stderr}", entry.path);
    }
    assert_eq!(mdview(&["info", cut.to_str().unwrap()]).status.code(), Some(1));
}

/// An extracted archive keeps its layout, and its models find their textures in it as they
/// did inside: `stexture/` at the archive's root is the folder above `models/`.
#[test]
fn extracted_models_find_their_textures_where_the_archive_kept_them() {
    let dir = theme("wad-extract-textures");
    let out_dir = dir.join("out");
    let wad = dir.join("data").join("jungle.wad");
    let out = mdview(&["extract", wad.to_str().unwrap(), "-o", out_dir.to_str().unwrap(), "--png"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let scene = mdview::formats::open(&out_dir.join("models").join("gate.MD2")).unwrap();
    let wood = scene.images.iter().find(|i| i.name.eq_ignore_ascii_case("gate_wood")).expect("gate_wood named");
    let found = wood.source.as_ref().map(|s| s.location()).unwrap_or_default();
    assert!(found.contains("stexture") && found.contains("gate_wood"), "gate_wood resolved to {found:?}");
    assert!(!scene.warnings.iter().any(|w| w.contains("gate_wood")), "{:?}", scene.warnings);
}

#[test]
fn a_damaged_archive_is_a_one_line_error_naming_it() {
    let dir = common::temp_dir("wad-damaged");
    let mut archive = write_wad(&[WadMember::stored("a.MD2", b"x"), WadMember::stored("b.MD2", b"y")]);
    archive.truncate(archive.len() - 1);
    let wad = dir.join("cut.wad");
    std::fs::write(&wad, &archive).unwrap();
    let out = mdview(&["info", wad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("cut.wad") && stderr.contains("entry[1].data") && stderr.contains("0x"), "{stderr}");
}

#[test]
fn scan_reads_every_model_in_every_archive() {
    let dir = theme("wad-scan");
    let out = mdview(&["scan", dir.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["files"], 3);
    assert_eq!(json["tpw_mesh_files"], 1);
    assert_eq!(json["tpw_animation_files"], 2);
    assert!(json["failed"].as_array().unwrap().is_empty(), "{}", json["failed"]);
}

#[test]
fn the_demo_archive_opens_every_model_with_textures_from_inside_it() {
    let dir = mdview::demo::extract().unwrap();
    let main = dir.join(mdview::demo::MAIN_MODEL);
    assert!(main.starts_with(dir.join(mdview::demo::ARCHIVE)), "the viewer opens the archive by default");
    let archive = dir.join(mdview::demo::ARCHIVE);
    let models = mdview::formats::vfs::list_files(&archive.join("models"));
    let loose_models = mdview::demo::files().iter().filter(|(n, _)| n.ends_with(".MD2")).count();
    assert_eq!(models.len(), loose_models, "every demo model is in the archive");
    for model in models {
        let scene = mdview::formats::open(&model).unwrap();
        assert!(scene.warnings.is_empty(), "{}: {:?}", model.display(), scene.warnings);
        let loose = mdview::formats::open(&dir.join(model.file_name().unwrap())).unwrap();
        assert_eq!(scene.clips.len(), loose.clips.len(), "{}", model.display());
        let search = texture_dirs(Some(&model), &[]);
        let mut assets = Assets::new();
        for material in &scene.materials {
            let name = material.texture.as_deref().unwrap();
            let found =
                assets.resolve_texture(name, &search).and_then(|a| a.path()).unwrap_or_else(|| panic!("{name}"));
            assert_eq!(found, archive.join("textures").join(format!("{name}.wct")));
            // The WCT is the PNG within the quantisation and chroma-subsampling error.
            let wct = load_image(&found);
            let png = load_image(&dir.join(format!("{name}.png")));
            assert_eq!(wct.dimensions(), png.dimensions());
            let error: u64 = wct.as_raw().iter().zip(png.as_raw()).map(|(a, b)| u64::from(a.abs_diff(*b))).sum();
            let mean = error as f64 / wct.as_raw().len() as f64;
            // Chroma at half resolution costs most on busy art (the fountain water: about 2.4).
            assert!(mean < 3.0, "{name}: mean error {mean}");
            assert_eq!(
                mdview::render::textures::classify_alpha(&wct),
                mdview::render::textures::classify_alpha(&png),
                "{name}: see-through kind"
            );
        }
    }
}

#[test]
fn the_viewer_browses_an_archive_as_a_tree() {
    use mdview::app::state::{Folder, Session};
    let dir = theme("wad-viewer");
    let wad = dir.join("data/jungle.wad");
    std::fs::write(
        dir.join("data/two.wad"),
        write_wad(&[
            WadMember::stored("b/z.MD2", &demo("gate.MD2")),
            WadMember::stored("a/y.MD2", &demo("gate.MD2")),
            WadMember::stored("top.MD2", &demo("gate.MD2")),
            WadMember::stored("a/x.MD2", &demo("gate.MD2")),
        ]),
    )
    .unwrap();
    let two = dir.join("data/two.wad");
    let folder = Folder::scan(&two).unwrap();
    let listed: Vec<String> =
        folder.entries.iter().map(|e| format!("{}|{}", folder.subdir_of(&e.path), e.name)).collect();
    assert_eq!(listed, ["|top.MD2", "a|x.MD2", "a|y.MD2", "b|z.MD2"], "root first, then each directory");

    // Opening the archive (Ctrl+O or a drop) browses it from its first model, animations grouped.
    let mut session = Session::default();
    let first = session.target_for(&wad).unwrap();
    assert_eq!(first, wad.join("models/gate.MD2"));
    let entries = &session.folder.as_ref().unwrap().entries;
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].animations, [wad.join("models/gateM1.MD2"), wad.join("models/gateM2.MD2")]);

    // A member path lists its whole archive, and PageDown steps through the tree.
    let mut session = Session::default();
    assert_eq!(session.target_for(&two.join("a/y.MD2")).unwrap(), two.join("a/y.MD2"));
    assert_eq!(session.folder.as_ref().unwrap().dir, two);
    assert_eq!(session.step(1), Some(two.join("b/z.MD2")));
    assert_eq!(session.step(1), None, "the last model");
    assert_eq!(session.step(-3), Some(two.join("top.MD2")));
}
