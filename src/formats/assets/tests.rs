//! Tests of the companion-file cache: resolving textures, listing and keeping folders,
//! reading members and decoding images.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::folders::{DirectoryStamp, SETTLED, kept_listing};
use super::textures::{IMAGE_SCAN_LIMIT, extracted_archive_dirs};
use super::*;
use crate::scene::{ImageSource, Scene};

/// Materials find their images the same way whether `attach_images` scans or hashes:
/// names equal without case (ASCII or not) share one image, and a name already among the
/// images takes the last image of that name.
#[test]
fn images_are_shared_by_name_without_case_in_both_lookups() {
    use crate::scene::{FormatKind, Material, SceneImage, SceneKind};
    let names = ["A.pcx", "a.PCX", "b.pcx", "\u{C9}t\u{C9}.pcx", "\u{E9}t\u{E9}.PCX", "c.pcx", "B.Pcx", "old.pcx"];
    let assign = |padding: usize| {
        let mut scene = Scene::new(FormatKind::Quake2Md2, SceneKind::Mesh);
        scene.images = vec![SceneImage::new("OLD.pcx", None), SceneImage::new("old.PCX", None)];
        for (i, name) in names.iter().chain(std::iter::repeat_n(&"pad.pcx", padding)).enumerate() {
            let mut material = Material::new(format!("m{i}"));
            material.texture = Some(name.to_string());
            scene.materials.push(material);
        }
        attach_images(&mut scene, &mut Assets::new(), &[]);
        let images: Vec<String> = scene.images.iter().map(|image| image.name.clone()).collect();
        let picked: Vec<Option<usize>> = scene.materials.iter().take(names.len()).map(|m| m.image).collect();
        (images, picked)
    };
    let (scanned_images, scanned) = assign(0);
    let (hashed_images, hashed) = assign(IMAGE_SCAN_LIMIT);
    assert_eq!(scanned, [Some(2), Some(2), Some(3), Some(4), Some(4), Some(5), Some(3), Some(1)]);
    assert_eq!(scanned, hashed);
    assert_eq!(scanned_images[..6], hashed_images[..6]);
    assert_eq!(scanned_images.len(), 6);
}

#[test]
fn candidates_try_known_extensions_case_insensitively() {
    assert_eq!(
        image_candidates("Palm01"),
        [
            "palm01.wct",
            "palm01.png",
            "palm01.tga",
            "palm01.bmp",
            "palm01.pcx",
            "palm01.jpg",
            "palm01.jpeg",
            "palm01.blp"
        ]
    );
    // A `.tga` name means the `.wct` of that name first.
    assert_eq!(image_candidates("Sea.TGA").first().map(String::as_str), Some("sea.wct"));
    let q2 = image_candidates("models/monsters/tank/Skin.PCX");
    assert_eq!(q2.first().map(String::as_str), Some("skin.pcx"));
    assert!(q2.contains(&"skin.png".to_string()));
    let wct = image_candidates("sea.wct");
    assert_eq!(wct.first().map(String::as_str), Some("sea.wct"));
    assert!(wct.contains(&"sea.png".to_string()));
    let other = image_candidates("sea.xyz");
    assert!(other.contains(&"sea.png".to_string()) && other.contains(&"sea.xyz.png".to_string()));
    assert!(image_candidates("").is_empty());
}

fn temp_root(tag: &str) -> PathBuf {
    let root = std::env::temp_dir().join(format!("mdview-assets-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    root
}

fn tiny_png(path: &Path) {
    image::RgbaImage::from_pixel(2, 2, image::Rgba([10, 20, 30, 255])).save(path).unwrap();
}

#[test]
fn resolver_searches_folders_in_order() {
    let root = temp_root("order");
    let textures = root.join("textures");
    let extra = root.join("extra");
    std::fs::create_dir_all(&textures).unwrap();
    std::fs::create_dir_all(&extra).unwrap();
    tiny_png(&textures.join("Grass.TGA.png"));
    std::fs::rename(textures.join("Grass.TGA.png"), textures.join("Grass.TGA")).unwrap();
    tiny_png(&extra.join("grass.png"));
    tiny_png(&extra.join("rock.bmp.png"));
    std::fs::rename(extra.join("rock.bmp.png"), extra.join("rock.bmp")).unwrap();
    let model = root.join("island.md2");
    let search = texture_dirs(Some(&model), std::slice::from_ref(&extra));
    let mut assets = Assets::new();
    assert_eq!(assets.resolve_texture("GRASS", &search).and_then(|a| a.path()), Some(textures.join("Grass.TGA")));
    assert_eq!(assets.resolve_texture("rock", &search).and_then(|a| a.path()), Some(extra.join("rock.bmp")));
    assert_eq!(assets.resolve_texture("missing", &search), None);
    // The content decides: a PNG named .TGA still decodes.
    let found = assets.resolve_texture("grass", &search).unwrap();
    let image = ImageSource::load(&found).unwrap();
    assert_eq!((image.width, image.height), (2, 2));
    assert_eq!(image.rgba.get(..4), Some(&[10, 20, 30, 255][..]));
    std::fs::remove_dir_all(&root).ok();
}

#[test]
fn written_paths_resolve_from_folders_above_with_either_slash() {
    let root = temp_root("paths");
    let sub = root.join("Players").join("DrFreak");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(sub.join("Weapon.PCX"), b"x").unwrap();
    std::fs::write(sub.join("other.png"), b"x").unwrap();
    let search = texture_dirs(Some(&sub.join("tris.md2")), &[]);
    let mut assets = Assets::new();
    let found = |assets: &mut Assets, name: &str| assets.resolve_texture(name, &search).and_then(|a| a.path());
    assert_eq!(found(&mut assets, "players\\drfreak\\weapon.pcx"), Some(sub.join("Weapon.PCX")));
    assert_eq!(found(&mut assets, "players/drfreak/weapon.pcx"), Some(sub.join("Weapon.PCX")));
    // Not under any folder above: the base name beside the model, another extension.
    assert_eq!(found(&mut assets, "players/x/other.pcx"), Some(sub.join("other.png")));
    assert_eq!(found(&mut assets, "missing.pcx"), None);
    std::fs::remove_dir_all(&root).ok();
}

/// An extracted TPW model looks in `textures/` and `stexture/` at the archive's root: the
/// folder above its own, or its own at the root; `.` and `..` are stepped over, not cut.
#[test]
fn extracted_models_search_the_archive_roots_texture_folders() {
    let dirs = |model: &str| {
        let mut search = texture_dirs(Some(Path::new(model)), &[]);
        extracted_archive_dirs(Some(Path::new(model)), &mut search);
        search
    };
    let p = PathBuf::from;
    assert_eq!(
        dirs("out/models/gate.MD2"),
        [p("out/models"), p("out/models/textures"), p("out/models/stexture"), p("out/textures"), p("out/stexture")]
    );
    assert_eq!(dirs("models/gate.MD2")[3..], [p("./textures"), p("./stexture")]);
    assert_eq!(dirs("gate.MD2")[3..], [p("./../textures"), p("./../stexture")]);
    assert_eq!(dirs("../gate.MD2")[3..], [p("../../textures"), p("../../stexture")]);
    assert_eq!(dirs("a/../gate.MD2")[3..], [p("a/../../textures"), p("a/../../stexture")]);
}

#[test]
fn a_textures_folder_beside_the_model_is_found_in_any_case() {
    let root = temp_root("textures-case");
    std::fs::create_dir_all(root.join("Textures")).unwrap();
    std::fs::write(root.join("Textures").join("Hull.png"), b"x").unwrap();
    let search = texture_dirs(Some(&root.join("ship.md2")), &[]);
    let mut assets = Assets::new();
    // The model's folder is listed first; `textures` then answers from that listing.
    assert!(assets.resolve_texture("absent.png", &search).is_none());
    let found = assets.resolve_texture("hull.PNG", &search).and_then(|a| a.path());
    assert_eq!(found, Some(root.join("Textures").join("Hull.png")));
    // With no such folder, the search folder lists nothing.
    let bare = temp_root("textures-none");
    std::fs::write(bare.join("a.png"), b"x").unwrap();
    let mut assets = Assets::new();
    let dirs = texture_dirs(Some(&bare.join("m.md2")), &[]);
    assert!(assets.folder(&dirs[0]).file("a.png").is_some());
    assert_eq!(assets.folder(&dirs[1]).files().count(), 0);
    std::fs::remove_dir_all(&root).ok();
    std::fs::remove_dir_all(&bare).ok();
}

#[test]
fn written_paths_off_the_models_path_need_their_spelling_and_list_no_folder_above() {
    let root = temp_root("walk");
    let model_dir = root.join("Models").join("Tank");
    let shared = root.join("players").join("male");
    std::fs::create_dir_all(&model_dir).unwrap();
    std::fs::create_dir_all(&shared).unwrap();
    std::fs::write(shared.join("Grunt.PCX"), b"x").unwrap();
    std::fs::write(model_dir.join("skin.pcx"), b"x").unwrap();
    let search = texture_dirs(Some(&model_dir.join("tris.md2")), &[]);
    // Each name resolved by a fresh cache; also says whether a folder above was listed.
    let found = |name: &str| {
        let mut assets = Assets::new();
        let path = assets.resolve_texture(name, &search).and_then(|a| a.path());
        let listed_above =
            root.ancestors().any(|above| assets.folders.contains_key(&FolderSource::Directory(above.to_path_buf())));
        (path, listed_above)
    };
    // `players` is spelled as on disk: found above the model (the file's case ignored)
    // with one `stat` per folder above, none listed.
    assert_eq!(found("players/male/grunt.pcx"), (Some(shared.join("Grunt.PCX")), false));
    // Off the model's path and spelled otherwise: not looked for above, so the base name
    // beside the model answers, or nothing.
    assert_eq!(found("PLAYERS/male/grunt.pcx"), (None, false));
    assert_eq!(found("other/skin.pcx"), (Some(model_dir.join("skin.pcx")), false));
    // The written path's last folder is named like the model's (`Tank`): the file in the
    // model's folder answers, before any folder above is tried or listed.
    assert_eq!(found("models/tank/SKIN.pcx"), (Some(model_dir.join("skin.pcx")), false));
    // Named like it but not there: the folders above are still tried. `models` lies on
    // the model's own path (`Models`): matched ignoring case, which lists the folder that
    // holds it.
    std::fs::write(root.join("Models").join("tank.pcx"), b"x").unwrap();
    assert_eq!(found("models/tank.pcx"), (Some(root.join("Models").join("tank.pcx")), true));
    std::fs::create_dir_all(root.join("players").join("tank")).unwrap();
    std::fs::write(root.join("players").join("tank").join("extra.pcx"), b"x").unwrap();
    assert_eq!(found("players/tank/extra.pcx"), (Some(root.join("players").join("tank").join("extra.pcx")), false));
    // The model's own folder is matched ignoring case, as its images are.
    std::fs::create_dir_all(model_dir.join("Skins")).unwrap();
    std::fs::write(model_dir.join("Skins").join("Red.pcx"), b"x").unwrap();
    assert_eq!(found("skins/red.PCX"), (Some(model_dir.join("Skins").join("Red.pcx")), false));
    // A written `./name` is the file's name spelled as written in a folder above the
    // model, before the base name beside it with another extension.
    std::fs::write(root.join("Models").join("coat.pcx"), b"x").unwrap();
    std::fs::write(model_dir.join("coat.png"), b"x").unwrap();
    assert_eq!(found("./coat.pcx"), (Some(root.join("Models").join("coat.pcx")), false));
    std::fs::remove_dir_all(&root).ok();
}

#[test]
fn shared_reads_give_the_bytes_of_files_and_archive_members() {
    use crate::writers::wad::{WadMember, write_wad};
    let root = temp_root("shared-read");
    std::fs::write(root.join("Weapon.MD2"), b"loose bytes").unwrap();
    let wad = root.join("pak.wad");
    std::fs::write(&wad, write_wad(&[WadMember::compressed("models/weapon.md2", b"packed bytes packed")])).unwrap();
    let mut assets = Assets::new();
    let loose = assets.file(&root, "weapon.md2").unwrap();
    assert_eq!(&*loose.read_shared().unwrap(), b"loose bytes");
    let member = assets.file(&wad.join("models"), "WEAPON.md2").unwrap();
    assert_eq!(&*member.read_shared().unwrap(), b"packed bytes packed");
    assert_eq!(*member.read_shared().unwrap(), *member.read().unwrap());
    std::fs::remove_dir_all(&root).ok();
}

#[test]
fn a_folder_is_listed_once_per_cache() {
    let root = temp_root("cache");
    std::fs::write(root.join("a.png"), b"x").unwrap();
    let mut assets = Assets::new();
    assert!(assets.file(&root, "A.PNG").is_some());
    std::fs::write(root.join("b.png"), b"x").unwrap();
    assert!(assets.file(&root, "b.png").is_none(), "the cached listing is used");
    assert!(Assets::new().file(&root, "b.png").is_some(), "a new cache lists again");
    let names: Vec<String> = Assets::new().folder(&root).images().map(|a| a.name).collect();
    assert_eq!(names, ["a.png", "b.png"]);
    std::fs::remove_dir_all(&root).ok();
}

#[test]
#[cfg(unix)]
fn an_unchanged_directory_keeps_its_listing_between_opens() {
    use std::time::{Duration, SystemTime};
    let root = temp_root("kept");
    std::fs::write(root.join("a.png"), b"x").unwrap();
    let source = FolderSource::Directory(root.clone());
    let now = SystemTime::now();
    // Changed just now: listed every time, never kept.
    assert!(!Arc::ptr_eq(&kept_listing(&source, now), &kept_listing(&source, now)));
    // Its times set an hour back and seen later on: kept, and answered from what was kept.
    std::fs::File::open(&root).unwrap().set_modified(now - Duration::from_secs(3600)).unwrap();
    let later = now + Duration::from_secs(3600);
    let kept = kept_listing(&source, later);
    assert!(Arc::ptr_eq(&kept, &kept_listing(&source, later)));
    assert!(Assets::new().file(&root, "A.png").is_some());
    // A file added moves the directory's times: listed again, with the new file.
    std::fs::write(root.join("b.png"), b"x").unwrap();
    let relisted = kept_listing(&source, later);
    assert!(!Arc::ptr_eq(&kept, &relisted));
    assert!(relisted.file("B.PNG").is_some());
    // A directory that is gone lists nothing.
    std::fs::remove_dir_all(&root).unwrap();
    assert!(kept_listing(&source, later).file("a.png").is_none());
    assert!(Assets::new().file(&root, "a.png").is_none());
}

#[test]
#[cfg(unix)]
fn a_listing_with_links_is_not_kept() {
    use std::time::{Duration, SystemTime};
    let root = temp_root("kept-links");
    std::fs::write(root.join("a.png"), b"x").unwrap();
    std::os::unix::fs::symlink(root.join("a.png"), root.join("b.png")).unwrap();
    let now = SystemTime::now();
    std::fs::File::open(&root).unwrap().set_modified(now - Duration::from_secs(3600)).unwrap();
    let source = FolderSource::Directory(root.clone());
    let later = now + Duration::from_secs(3600);
    let first = kept_listing(&source, later);
    assert!(first.file("B.png").is_some(), "a link is listed");
    assert!(!Arc::ptr_eq(&first, &kept_listing(&source, later)), "but the listing is not kept");
    std::fs::remove_dir_all(&root).ok();
}

#[test]
fn a_directory_is_settled_only_when_both_its_times_are_old_enough() {
    use std::time::{Duration, SystemTime, UNIX_EPOCH};
    let now = UNIX_EPOCH + Duration::from_secs(1_000_000);
    let stamp = |modified: Option<SystemTime>, changed_secs: i64| DirectoryStamp {
        modified,
        changed: (changed_secs, 0),
        identity: (1, 2),
    };
    let old = Some(now - SETTLED);
    assert!(stamp(old, 1_000_000 - 3).settled_by(now));
    assert!(!stamp(old, 1_000_000 - 2).settled_by(now), "changed too recently");
    assert!(!stamp(Some(now - Duration::from_secs(1)), 0).settled_by(now), "modified too recently");
    assert!(!stamp(Some(now + Duration::from_secs(60)), 0).settled_by(now), "modified in the future");
    assert!(!stamp(None, 0).settled_by(now), "no modification time");
    // A change time that cannot be read does not block a modification time that can.
    assert!(stamp(old, -5).settled_by(now));
}

#[test]
fn pcx_decodes_runs_and_palette() {
    // 4x2 image: row 0 is a run of four index-1 texels, row 1 is literal 0,1,2,3.
    let mut bytes = vec![0u8; 128];
    let header = [(0, 0x0a), (1, 5), (2, 1), (3, 8), (8, 3), (10, 1), (65, 1), (66, 4)];
    for (at, value) in header {
        if let Some(b) = bytes.get_mut(at) {
            *b = value;
        }
    }
    bytes.extend([0xc4, 1, 0, 1, 2, 3]);
    bytes.push(0x0c);
    let mut palette = vec![0u8; 768];
    palette.splice(3..9, [255, 0, 0, 0, 255, 0]);
    bytes.extend(palette);
    let image = decode_image(&bytes, "x.pcx", "x.pcx".into()).unwrap();
    assert_eq!((image.width, image.height), (4, 2));
    let texel = |x: usize, y: usize| image.rgba.get((y * 4 + x) * 4..(y * 4 + x) * 4 + 4).unwrap().to_vec();
    assert_eq!(texel(3, 0), [255, 0, 0, 255]);
    assert_eq!(texel(2, 1), [0, 255, 0, 255]);
    // Truncations fail cleanly.
    for len in 0..bytes.len() {
        let _ = decode_image(bytes.get(..len).unwrap(), "x.pcx", String::new());
    }
}
