//! Regenerates the README's pictures under `assets/readme/` with mdview itself
//! (`cargo run --example readme_pictures`): the window on the demo park (`--screenshot` under
//! `xvfb-run`), a contact sheet of the demo archive (`render --sheet`) and a turntable GIF of
//! the demo fountain (`render --turntable`).
//!
//! It runs the built `mdview` binary, `target/release/mdview` when present, else
//! `target/debug/mdview` (build one first: `cargo build --release`), or the one `MDVIEW_BIN`
//! names. It needs `xvfb-run` and a wgpu adapter (lavapipe is fine), and fails when a picture
//! is over [`MAX_BYTES`], so the repository stays small. Look at the pictures before
//! committing them.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, anyhow, bail};

/// The most a checked-in picture may weigh.
const MAX_BYTES: u64 = 300 * 1024;
/// The window's size: large enough for the panels to read, small enough for the README.
const WINDOW: (u32, u32) = (1200, 720);

fn main() -> Result<()> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mdview = binary(root)?;
    let out = root.join("assets").join("readme");
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    let scratch = std::env::temp_dir().join(format!("mdview-readme-pictures-{}", std::process::id()));
    std::fs::create_dir_all(&scratch)?;
    println!("mdview: {}", mdview.display());

    // The window on the demo park, as `cargo run` opens it: its save beside its install, every
    // item playing its saved clip, the Park panel listing them by kind.
    let demo = root.join("assets").join("demo");
    let viewer = out.join("viewer.png");
    window_screenshot(&mdview, &demo.join(mdview::demo::PARK_SAVE), &scratch, &viewer)?;
    recompress_png(&viewer)?;

    // The sheet's labels are paths below the folder given, so it is run on the demo archive.
    let sheet = out.join("sheet.png");
    run(Command::new(&mdview).args(["render"]).arg(demo.join("park.wad")).arg("--sheet").arg(&sheet).args([
        "--cell",
        "200",
        "--columns",
        "3",
        "--yaw",
        "35",
        "--pitch",
        "25",
    ]))?;
    recompress_png(&sheet)?;

    // The fountain turns while its water ripples (its clip M1 plays once over the turn). The
    // sea of the island or the gate's wood are dearer in GIF: this size keeps it under 300 KB.
    let turntable = out.join("turntable.gif");
    run(Command::new(&mdview)
        .args(["render"])
        .arg(demo.join("fountain.MD2"))
        .args(["--anim", "M1", "--turntable", "20", "--size", "288x216", "--pitch", "30", "-o"])
        .arg(&turntable))?;

    std::fs::remove_dir_all(&scratch).ok();
    for picture in [&viewer, &sheet, &turntable] {
        let bytes = std::fs::metadata(picture)?.len();
        println!("{} ({} KB)", picture.display(), bytes / 1024);
        if bytes > MAX_BYTES {
            bail!(
                "{} is {} KB, over the {} KB a README picture may take",
                picture.display(),
                bytes / 1024,
                MAX_BYTES / 1024
            );
        }
    }
    Ok(())
}

/// The `mdview` binary to run: `MDVIEW_BIN`, else the release build, else the debug build.
fn binary(root: &Path) -> Result<PathBuf> {
    if let Some(path) = std::env::var_os("MDVIEW_BIN") {
        return Ok(PathBuf::from(path));
    }
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    let name = format!("mdview{}", std::env::consts::EXE_SUFFIX);
    ["release", "debug"]
        .iter()
        .map(|profile| target.join(profile).join(&name))
        .find(|path| path.is_file())
        .ok_or_else(|| anyhow!("no mdview binary under {}; run `cargo build --release` first", target.display()))
}

/// The whole window on `model`, in a fresh virtual display, with no recent files.
fn window_screenshot(mdview: &Path, model: &Path, scratch: &Path, png: &Path) -> Result<()> {
    let (width, height) = WINDOW;
    let runtime = scratch.join("runtime");
    std::fs::create_dir_all(&runtime)?;
    // The clip plays in real time for 90 frames before the picture, so the timeline is not at
    // zero.
    let mut command = Command::new("xvfb-run");
    command
        .args(["-a", "-s", &format!("-screen 0 {width}x{height}x24")])
        .arg(mdview)
        .arg(model)
        .arg("--screenshot")
        .arg(png)
        .args(["--screenshot-after-frames", "90", "--exit", "--size", &format!("{width}x{height}")])
        .env("MDVIEW_CONFIG_DIR", scratch)
        .env("XDG_RUNTIME_DIR", &runtime);
    run(&mut command).context("the window screenshot (needs xvfb-run: apt-get install xvfb xauth)")
}

/// Runs `command`, failing with its stderr when it fails.
fn run(command: &mut Command) -> Result<()> {
    let shown = format!("{command:?}");
    let output = command.output().with_context(|| format!("starting {shown}"))?;
    if !output.status.success() {
        bail!("{shown} failed ({}):\n{}", output.status, String::from_utf8_lossy(&output.stderr));
    }
    Ok(())
}

/// Rewrites a PNG with the strongest compression and adaptive filtering, and without an alpha
/// channel when every pixel is opaque: the README's pictures are downloaded by every visitor.
fn recompress_png(path: &Path) -> Result<()> {
    use image::codecs::png::{CompressionType, FilterType, PngEncoder};
    use image::{ExtendedColorType, ImageEncoder};
    let picture = image::open(path).with_context(|| format!("reading {}", path.display()))?.to_rgba8();
    let (width, height) = picture.dimensions();
    let opaque = picture.pixels().all(|p| p.0[3] == 255);
    let (bytes, colour) = if opaque {
        // The lowest two bits of each channel go: no eye misses them in a screenshot, and the
        // textured ground of a park compresses a good deal better without them.
        let rgb: Vec<u8> = picture.pixels().flat_map(|p| [p.0[0], p.0[1], p.0[2]].map(|c| c & 0xFC)).collect();
        (rgb, ExtendedColorType::Rgb8)
    } else {
        (picture.into_raw(), ExtendedColorType::Rgba8)
    };
    let mut encoded = Vec::new();
    PngEncoder::new_with_quality(&mut encoded, CompressionType::Best, FilterType::Adaptive)
        .write_image(&bytes, width, height, colour)
        .with_context(|| format!("encoding {}", path.display()))?;
    std::fs::write(path, encoded).with_context(|| format!("writing {}", path.display()))
}
