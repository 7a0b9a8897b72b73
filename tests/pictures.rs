//! `mdview render` pictures of many frames and many models: turntables and frame ranges as
//! animated GIF and APNG (frame counts, delays and transparency read back with the `image`
//! and `png` decoders), and contact sheets of folders with their `--json` cell map, up to a
//! synthetic park of 2,300 models. Skips without a wgpu adapter unless `CI` is set.

use std::path::Path;
use std::process::Command;

mod render_common;
use render_common::*;

use image::AnimationDecoder;

/// Frames of a GIF with each delay in milliseconds.
fn gif_frames(path: &Path) -> Vec<(image::RgbaImage, u32)> {
    let file = std::io::BufReader::new(std::fs::File::open(path).expect("gif written"));
    let decoder = image::codecs::gif::GifDecoder::new(file).expect("a GIF");
    decoder
        .into_frames()
        .map(|f| {
            let f = f.expect("frame");
            let (num, den) = f.delay().numer_denom_ms();
            (f.into_buffer(), num / den)
        })
        .collect()
}

#[test]
fn twelve_step_turntable_gif_has_twelve_frames_a_quarter_second_apart() {
    if !have_adapter() {
        return;
    }
    let dir = out_dir("pictures", "turntable");
    let gif = dir.join("spin.gif");
    let out = mdview(&[
        "render",
        &demo("gate.MD2").to_string_lossy(),
        "--turntable",
        "12",
        "--size",
        "96x64",
        "-o",
        &gif.to_string_lossy(),
    ]);
    succeeded(&out);
    let frames = gif_frames(&gif);
    assert_eq!(frames.len(), 12);
    // No clip sets the pace: one turn in 3 s, so 250 ms (25 hundredths) a frame.
    assert!(frames.iter().all(|(_, ms)| *ms == 250), "{:?}", frames.iter().map(|f| f.1).collect::<Vec<_>>());
    assert!(frames.iter().all(|(f, _)| f.dimensions() == (96, 64)));
    // A quarter turn later the gate is seen from the side: the picture changes; a whole turn
    // is not repeated (frame 12 would equal frame 0).
    assert_ne!(frames[0].0.as_raw(), frames[3].0.as_raw());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn turntable_while_a_clip_plays_is_timed_by_the_clip() {
    if !have_adapter() {
        return;
    }
    let dir = out_dir("pictures", "turntable-clip");
    let gif = dir.join("doors.gif");
    let gate = demo("gate.MD2");
    let out = mdview(&[
        "render",
        &gate.to_string_lossy(),
        "--turntable",
        "10",
        "--anim",
        "M1",
        "--size",
        "64x48",
        "-o",
        &gif.to_string_lossy(),
    ]);
    succeeded(&out);
    let scene = mdview::formats::open(&gate).expect("gate");
    let clip = &scene.clips[mdview::scene::resolve_clip(&scene, "M1").expect("M1")];
    // The clip plays once over the turn at its own rate: length / rate / steps seconds a frame.
    let expected_ms = clip.length() / clip.rate / 10.0 * 1000.0;
    let expected_cs = (expected_ms / 10.0).round().max(2.0) as u32;
    let frames = gif_frames(&gif);
    assert_eq!(frames.len(), 10);
    assert!(
        frames.iter().all(|(_, ms)| *ms == expected_cs * 10),
        "want {expected_cs} cs: {:?}",
        frames.iter().map(|f| f.1).collect::<Vec<_>>()
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn frame_range_to_apng_keeps_transparency_and_the_clip_rate() {
    if !have_adapter() {
        return;
    }
    let dir = out_dir("pictures", "apng");
    let png_path = dir.join("doors.png");
    let gate = demo("gate.MD2");
    let out = mdview(&[
        "render",
        &gate.to_string_lossy(),
        "--anim",
        "M1",
        "--frames",
        "0..30",
        "--size",
        "80x60",
        "--background",
        "transparent",
        "-o",
        &png_path.to_string_lossy(),
    ]);
    succeeded(&out);
    let scene = mdview::formats::open(&gate).expect("gate");
    let rate = scene.clips[mdview::scene::resolve_clip(&scene, "M1").expect("M1")].rate;
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&png_path).expect("written")));
    let mut reader = decoder.read_info().expect("a PNG");
    let control = reader.info().animation_control.expect("an APNG (acTL chunk)");
    assert_eq!(control.num_frames, 30, "frames 0..30, the end excluded");
    assert_eq!(control.num_plays, 0, "loops forever");
    let fc = reader.info().frame_control.expect("fcTL");
    let delay_ms = f32::from(fc.delay_num) * 1000.0 / f32::from(fc.delay_den.max(1));
    assert!((delay_ms - 1000.0 / rate).abs() < 0.6, "one clip frame at {rate}/s: {delay_ms} ms");
    let mut buffer = vec![0; reader.output_buffer_size().expect("size")];
    let mut firsts = Vec::new();
    for _ in 0..30 {
        let info = reader.next_frame(&mut buffer).expect("frame");
        assert_eq!((info.width, info.height), (80, 60));
        firsts.push(buffer[..info.buffer_size()].to_vec());
    }
    let first = &firsts[0];
    assert_eq!(first[3], 0, "the corner stays transparent");
    assert!(first.chunks(4).any(|p| p[3] == 255), "the gate is opaque");
    assert_ne!(firsts[0], firsts[29], "the doors move");
    // Still images are unchanged: no frames option, a plain PNG.
    let still = dir.join("still.png");
    succeeded(&mdview(&["render", &gate.to_string_lossy(), "--size", "32x32", "-o", &still.to_string_lossy()]));
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&still).expect("written")));
    assert!(decoder.read_info().expect("png").info().animation_control.is_none());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn many_frames_need_a_pattern_or_an_animated_format() {
    let out = Command::new(env!("CARGO_BIN_EXE_mdview"))
        .args(["render", &demo("gate.MD2").to_string_lossy(), "--turntable", "4", "-o", "spin.jpg"])
        .output()
        .expect("run");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("{frame}") && stderr.contains(".gif"), "{stderr}");
    let out = mdview(&["render", &demo("gate.MD2").to_string_lossy(), "--sheet", "x.png"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("needs a folder"));
}

#[derive(serde::Deserialize)]
struct SheetMap {
    cell: u32,
    columns: u32,
    rows: u32,
    cells: Vec<CellMap>,
}

#[derive(serde::Deserialize)]
struct CellMap {
    index: usize,
    column: u32,
    row: u32,
    x: u32,
    y: u32,
    path: String,
    label: String,
    error: Option<String>,
    #[serde(default)]
    fallback_textures: usize,
}

#[test]
fn sheet_of_a_synthetic_park_of_2300_models_at_128_pixels() {
    if !have_adapter() {
        return;
    }
    let dir = out_dir("pictures", "park");
    let models = dir.join("park");
    std::fs::create_dir_all(&models).expect("park dir");
    let park = mdview::demo::synthetic_park(2300);
    for (name, data) in &park {
        std::fs::write(models.join(name), data).expect("model");
    }
    for (name, data) in mdview::demo::files().iter().filter(|(n, _)| n.ends_with(".png")) {
        std::fs::write(models.join(name), data).expect("texture");
    }
    std::fs::write(models.join("synth_0005.MD2"), b"not a model").expect("damaged");
    let sheet = dir.join("park.png");
    let out =
        mdview(&["render", &models.to_string_lossy(), "--sheet", &sheet.to_string_lossy(), "--cell", "128", "--json"]);
    succeeded(&out);
    let map: SheetMap = serde_json::from_slice(&out.stdout).expect("JSON cell map on stdout");
    // ceil(sqrt(2300)) = 48 columns, 48 rows.
    assert_eq!((map.cell, map.columns, map.rows, map.cells.len()), (128, 48, 48, 2300));
    for (i, cell) in map.cells.iter().enumerate() {
        let i32 = i as u32;
        assert_eq!((cell.index, cell.column, cell.row), (i, i32 % 48, i32 / 48));
        assert_eq!((cell.x, cell.y), (cell.column * 128, cell.row * 128));
        assert_eq!(cell.label, park[i].0);
        assert!(cell.path.ends_with(&park[i].0));
        assert_eq!(cell.error.is_some(), i == 5, "cell {i}: {:?}", cell.error);
    }
    let image = image::open(&sheet).expect("sheet written").to_rgba8();
    assert_eq!(image.dimensions(), (48 * 128, 48 * 128));
    // Every drawn cell holds its model (lit stone and wood differ from the flat background)
    // and the damaged one shows red text.
    for cell in map.cells.iter().step_by(97) {
        let background = *image.get_pixel(cell.x + 2, cell.y + 2);
        assert!((50..=70).contains(&background.0[0]), "cell {}: the corner shows the background", cell.index);
        let centre = (cell.x..cell.x + 128).flat_map(|x| (cell.y + 20..cell.y + 100).map(move |y| (x, y)));
        let model_pixels = centre.filter(|&(x, y)| *image.get_pixel(x, y) != background).count();
        assert!(model_pixels > 500, "cell {} is drawn: {model_pixels} pixels", cell.index);
    }
    let broken = &map.cells[5];
    let red = (broken.x..broken.x + 128)
        .flat_map(|x| (broken.y..broken.y + 100).map(move |y| (x, y)))
        .filter(|&(x, y)| {
            let p = image.get_pixel(x, y).0;
            p[0] > 150 && p[1] < 130
        })
        .count();
    assert!(red > 40, "the error is written in red: {red} pixels");
    std::fs::remove_dir_all(&dir).ok();
}

/// A `.wad` is a folder for `--sheet` too: one cell per model inside the archive, labelled with
/// its path in the archive, drawn with the archive's own `.wct` textures (no fallback tiles).
#[test]
fn sheet_of_an_archive_has_a_cell_per_member_model() {
    if !have_adapter() {
        return;
    }
    let dir = out_dir("pictures", "archive");
    let sheet = dir.join("park.png");
    let archive = demo("park.wad");
    let out =
        mdview(&["render", &archive.to_string_lossy(), "--sheet", &sheet.to_string_lossy(), "--cell", "96", "--json"]);
    succeeded(&out);
    let map: SheetMap = serde_json::from_slice(&out.stdout).expect("JSON cell map on stdout");
    let labels: Vec<&str> = map.cells.iter().map(|c| c.label.as_str()).collect();
    assert_eq!(labels, ["models/fountain.MD2", "models/gate.MD2", "models/island.MD2"]);
    for cell in &map.cells {
        assert!(cell.error.is_none(), "{}: {:?}", cell.label, cell.error);
        assert_eq!(cell.fallback_textures, 0, "{}: textures come from the archive", cell.label);
        assert!(cell.path.starts_with(&archive.to_string_lossy().into_owned()), "{}", cell.path);
    }
    let image = image::open(&sheet).expect("sheet written").to_rgba8();
    assert_eq!(image.dimensions(), (2 * 96, 2 * 96));
}
