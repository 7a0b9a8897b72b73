//! The `mdview` command: the viewer when given no subcommand, and headless `info`, `export`,
//! `render` and `scan`. Errors print one line and exit with code 1.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result, anyhow};
use clap::{Args, Parser, Subcommand};

use mdview::formats;
use mdview::info::Summary;
use mdview::scene::{Scene, anim::Pose};

#[derive(Parser)]
#[command(
    name = "mdview",
    version,
    about = "Viewer and toolkit for classic game models (TPW .md2, Quake .mdl, Quake II .md2, Quake 3 .md3 and .mdr, WoW .m2)"
)]
#[command(args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// A model file, folder or `.wad` archive to open in the viewer (the built-in demo when
    /// omitted); a model inside an archive is addressed through it (`x.wad/models/a.MD2`).
    path: Option<PathBuf>,
    #[command(flatten)]
    viewer: ViewerArgs,
}

/// Options of the interactive viewer (scripted runs for tests and measurements).
#[derive(Args)]
struct ViewerArgs {
    /// Save a PNG of the whole window after the model has been on screen for N frames.
    #[arg(long, value_name = "PNG")]
    screenshot: Option<PathBuf>,
    /// Frames to wait before `--screenshot` (default 30).
    #[arg(long, value_name = "N")]
    screenshot_after_frames: Option<u32>,
    /// Quit after the screenshot or benchmark.
    #[arg(long)]
    exit: bool,
    /// Window size in pixels, as WIDTHxHEIGHT.
    #[arg(long, value_name = "WxH", value_parser = parse_size)]
    size: Option<[u32; 2]>,
    /// Step to the next model in the folder N times, printing how long each took to appear.
    #[arg(long, value_name = "N")]
    bench_steps: Option<u32>,
    /// Start in the sheet view: the folder's models as thumbnails.
    #[arg(long)]
    sheet_view: bool,
    /// Start with this text in the folder's filter (a fragment of a model's path below it).
    #[arg(long, value_name = "TEXT")]
    filter: Option<String>,
    /// When a scripted run exits, write the folder tree as the window has it (JSON).
    #[arg(long, value_name = "JSON")]
    dump_tree: Option<PathBuf>,
    #[command(flatten)]
    park: ParkArgs,
    /// Select a park's item by name once it is open (`"monkey #20"`; a fragment will do).
    #[arg(long, value_name = "NAME")]
    select: Option<String>,
    /// Frame the selected item once it is open (with --select).
    #[arg(long)]
    frame_selected: bool,
    /// When a scripted run exits, write what the view shows as JSON (parts, selection,
    /// camera, clock).
    #[arg(long, value_name = "JSON")]
    dump_view: Option<PathBuf>,
    /// Hang this model on the opened Quake 3 player's `tag_weapon` (the player opened as its
    /// folder), as the panel's "Attach weapon…" does.
    #[arg(long, value_name = "MODEL")]
    weapon: Option<PathBuf>,
}

fn parse_size(s: &str) -> Result<[u32; 2], String> {
    let (w, h) = s.split_once(['x', 'X']).ok_or("expected WIDTHxHEIGHT, e.g. 1280x800")?;
    let w: u32 = w.trim().parse().map_err(|_| format!("bad width '{w}'"))?;
    let h: u32 = h.trim().parse().map_err(|_| format!("bad height '{h}'"))?;
    if !(64..=8192).contains(&w) || !(64..=8192).contains(&h) {
        return Err("size must be between 64 and 8192 pixels".into());
    }
    Ok([w, h])
}

#[derive(Subcommand)]
enum Command {
    /// Print a summary of a model: format, node tree, meshes, materials, animations, warnings.
    Info(InfoArgs),
    /// Export a model as glTF 2.0 (`.glb`, or `.gltf` + `.bin`) with every clip (or the one
    /// `--anim` names), or as Wavefront OBJ (+ MTL and PNG textures) of one pose; a folder
    /// converts every model under it.
    Export(ExportArgs),
    /// Read every model under a folder and print corpus statistics.
    Scan(ScanArgs),
    /// Render the model to a PNG without a window (any wgpu adapter, software ones included).
    #[cfg(feature = "viewer")]
    Render(RenderArgs),
    /// Write every member of a TPW `.wad` archive, decompressed, directories kept.
    Extract(ExtractArgs),
}

#[derive(Args)]
struct ExtractArgs {
    archive: PathBuf,
    /// Folder to write into (created when missing).
    #[arg(short, long)]
    output: PathBuf,
    /// Also write each `.wct` texture as a PNG beside it.
    #[arg(long)]
    png: bool,
}

#[derive(Args)]
struct InfoArgs {
    file: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Also print how long opening took inside the process: the first open, and warm opens
    /// against decoding the same bytes alone.
    #[arg(long)]
    timing: bool,
    #[command(flatten)]
    park: ParkArgs,
}

/// Options for a park save (`.TPWS`, `.INTS`, `.TPWI`), for every command that opens one.
#[derive(Args, Clone)]
struct ParkArgs {
    /// The install whose items a park save names (the folder holding `data/levels/`); by
    /// default the first folder above the save that holds one.
    #[arg(long)]
    install: Option<PathBuf>,
}

#[derive(Args, Clone)]
struct PoseArgs {
    /// Animation to pose: a clip name (`M1`), a sibling's file name, or a path.
    #[arg(long)]
    anim: Option<String>,
    /// Frame (fractional) within the animation; without --anim, the default clip (the one the
    /// viewer plays first), named on stderr. For a park, seconds on the park's clock from the
    /// moment the save recorded.
    #[arg(long)]
    frame: Option<f32>,
    #[command(flatten)]
    park: ParkArgs,
    /// A model to hang on a Quake 3 player's `tag_weapon` (the player opened as its folder),
    /// held as the game holds it.
    #[arg(long, value_name = "MODEL")]
    weapon: Option<PathBuf>,
}

#[derive(Args)]
struct ExportArgs {
    /// A model file, or a folder or `.wad` archive to convert every model under it.
    file: PathBuf,
    /// Output file (`.glb`, `.gltf` or `.obj`; an `.mtl` goes beside an OBJ), or the output
    /// folder when converting a folder.
    #[arg(short, long)]
    output: PathBuf,
    /// What a folder's models become (a single file's format follows its output extension).
    #[arg(long, value_enum, default_value = "glb")]
    format: mdview::export::batch::BatchFormat,
    /// OBJ: name the texture files where they were found instead of writing PNG copies
    /// beside the `.mtl`.
    #[arg(long)]
    no_textures: bool,
    /// glTF: leave out material colour, alpha and texture-transform animation, which needs
    /// the KHR_animation_pointer extension (assimp 5.2 cannot load a file that has it).
    #[arg(long)]
    no_material_animation: bool,
    #[command(flatten)]
    pose: PoseArgs,
}

#[derive(Args)]
struct ScanArgs {
    dir: PathBuf,
    /// Print JSON instead of tables.
    #[arg(long)]
    json: bool,
}

fn main() -> ExitCode {
    // Opening model after model reuses the heap rather than fault it in again (see `heap`).
    mdview::heap::keep_freed_memory();
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Info(args)) => run_info(&args),
        Some(Command::Export(args)) => run_export(&args),
        Some(Command::Scan(args)) => run_scan(&args),
        #[cfg(feature = "viewer")]
        Some(Command::Render(args)) => run_render(&args),
        Some(Command::Extract(args)) => run_extract(&args),
        None => run_viewer(cli.path.as_deref(), &cli.viewer),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // One line: the chain joined (skipping causes a message already quotes), so the
            // format/field/offset reason stays visible.
            let mut message = String::new();
            for cause in e.chain().map(|c| c.to_string()) {
                if !message.contains(&cause) {
                    message = if message.is_empty() { cause } else { format!("{message}: {cause}") };
                }
            }
            eprintln!("error: {}", message.replace('\n', " "));
            ExitCode::from(1)
        }
    }
}

/// Writes a report to stdout. A reader that stops early (`mdview info X | head`) ends the
/// output quietly instead of a panic, as `println!` would.
fn emit(text: &str) -> Result<()> {
    use std::io::Write;
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.context("writing to standard output"),
    }
}

fn open(path: &Path) -> Result<Scene> {
    formats::open(path).map_err(|e| anyhow!(e))
}

/// `--weapon`: the model opened and hung on the player's `tag_weapon`.
fn with_weapon(mut scene: Scene, weapon: Option<&Path>) -> Result<Scene> {
    if let Some(path) = weapon {
        let held = open(path)?;
        formats::md3::player::attach_weapon(&mut scene, held)
            .map_err(|e| anyhow!("--weapon {}: {e}", path.display()))?;
    }
    Ok(scene)
}

/// Opens a model, or a park save with the install `--install` names (the one found above the
/// save otherwise).
fn open_for_pose(path: &Path, park: &ParkArgs) -> Result<Scene> {
    match &park.install {
        Some(install) if is_park_save(path) => {
            let scene = formats::park::open_park_scene(path, Some(install)).map_err(|e| anyhow!(e))?;
            Ok(scene)
        }
        _ => open(path),
    }
}

fn run_info(args: &InfoArgs) -> Result<()> {
    if is_park_save(&args.file) {
        let park = mdview::formats::park::open_park(&args.file, args.park.install.as_deref())?;
        let summary = mdview::info::ParkSummary::of(&park);
        return if args.json {
            emit(&format!("{}\n", serde_json::to_string_pretty(&summary)?))
        } else {
            emit(&summary.to_text())
        };
    }
    if mdview::formats::vfs::is_archive(&args.file) {
        let archive = mdview::archive::open_archive(&args.file)?;
        let listing = mdview::archive::ArchiveListing::of(&args.file, &archive);
        return if args.json {
            emit(&format!("{}\n", serde_json::to_string_pretty(&listing)?))
        } else {
            emit(&listing.to_text())
        };
    }
    let started = Instant::now();
    let scene = open(&args.file)?;
    let elapsed = started.elapsed();
    let mut summary = Summary::of(&scene);
    if args.timing && formats::md3::player::is_player_folder(&args.file) {
        eprintln!("note: --timing times one file's decoding; a player folder opens three .md3 files: time each");
    } else if args.timing {
        let timing = open_timing(&args.file, elapsed)?;
        // Decoding the bytes alone, as its name says; the first open is in `open_timing`.
        summary.decode_ms = Some(timing.warm_decode_ms);
        summary.open_timing = Some(timing);
    }
    if args.json {
        emit(&format!("{}\n", serde_json::to_string_pretty(&summary)?))?;
    } else {
        emit(&summary.to_text())?;
    }
    Ok(())
}

/// Whether `path` is a park save, by its content (the container magic and `BILZ`).
fn is_park_save(path: &Path) -> bool {
    use std::io::Read;
    let mut head = Vec::new();
    std::fs::File::open(path).and_then(|f| f.take(0x611).read_to_end(&mut head)).is_ok()
        && mdview::formats::park::is_save(&head)
}

/// The first open against a warm open and a warm decode of the same bytes alone (each the
/// faster of a few runs), so that `info --timing` shows what opening adds to decoding.
fn open_timing(path: &Path, first_open: std::time::Duration) -> Result<mdview::info::OpenTiming> {
    const RUNS: usize = 5;
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1000.0;
    let mut warm_open = f64::INFINITY;
    let mut warm_decode = f64::INFINITY;
    let mut warm_read = f64::INFINITY;
    // Read ahead as `open` reads them (an M2 with its skin), so decoding alone is timed without
    // reading or copying.
    let inputs = formats::read_decode_inputs(path).with_context(|| format!("reading {}", path.display()))?;
    for _ in 0..RUNS {
        let started = Instant::now();
        drop(std::hint::black_box(open(path)?));
        warm_open = warm_open.min(ms(started.elapsed()));
        let started = Instant::now();
        drop(std::hint::black_box(formats::decode_inputs(&inputs)));
        warm_decode = warm_decode.min(ms(started.elapsed()));
        let started = Instant::now();
        // The model file alone, as `open` reads it first (an M2's skin search is not counted).
        let model = formats::vfs::read_shared(path).with_context(|| format!("reading {}", path.display()))?;
        drop(std::hint::black_box(model));
        warm_read = warm_read.min(ms(started.elapsed()));
    }
    Ok(mdview::info::OpenTiming {
        first_open_ms: ms(first_open),
        warm_open_ms: warm_open,
        warm_decode_ms: warm_decode,
        warm_read_ms: warm_read,
    })
}

/// Opens `file` and evaluates the pose the options ask for. `frames_asked`: a frame number
/// was given (`--frame`, `--frames`), so without `--anim` the default clip plays, and its
/// name goes to stderr.
fn posed(file: &Path, pose: &PoseArgs, frames_asked: bool) -> Result<(Scene, Pose, Option<usize>, f32)> {
    let scene = with_weapon(open_for_pose(file, &pose.park)?, pose.weapon.as_deref())?;
    let (clip, time) = pose_time(&scene, pose, frames_asked)?;
    if pose.anim.is_none()
        && frames_asked
        && let Some(c) = clip.and_then(|c| scene.clips.get(c))
    {
        eprintln!("posing the default clip '{}' (name another with --anim)", c.name);
    }
    let mut evaluated = Pose::default();
    // Global-sequence tracks read the frame number too, so output stays reproducible.
    evaluated.global_time = Some(pose.frame.unwrap_or(0.0));
    evaluated.evaluate(&scene, clip, time);
    Ok((scene, evaluated, clip, time))
}

/// `--frame` as given, refused when it is not a number (NaN, infinity).
fn checked_frame(pose: &PoseArgs) -> Result<Option<f32>> {
    match pose.frame {
        Some(frame) if !frame.is_finite() => Err(anyhow!("--frame {frame} is not a number of frames")),
        frame => Ok(frame),
    }
}

/// The clip and clip time the options ask for; `--frame` counts from the clip's first frame
/// (Quake II clips start mid-file). Without `--anim`, a frame number poses the scene's first
/// clip ([`Scene::first_clip`], the viewer's); with neither, the file's own clip or the rest pose.
fn pose_time(scene: &Scene, pose: &PoseArgs, frames_asked: bool) -> Result<(Option<usize>, f32)> {
    let clip = match &pose.anim {
        Some(wanted) => Some(mdview::scene::resolve_clip(scene, wanted).map_err(|e| anyhow!(e))?),
        None if frames_asked => scene.first_clip(),
        None => scene.default_clip,
    };
    let found = clip.and_then(|c| scene.clips.get(c));
    if let Some(frame) = checked_frame(pose)? {
        // Past either end the clip holds its first or last pose: say so rather than pose it
        // silently (Quake II clips count from their own first frame, not the file's).
        if let Some(c) = found.filter(|c| frame < 0.0 || frame > c.length()) {
            eprintln!(
                "note: --frame {frame} is outside clip '{}' (0 to {} from its start); it holds its {} pose",
                c.name,
                c.length(),
                if frame < 0.0 { "first" } else { "last" }
            );
        }
    }
    let start = found.map_or(0.0, |c| c.start);
    // Held, as the note says: a Quake II loop's blend back into its first frame lies past the
    // end too, and is the viewer's to play, not a pose to ask for by number.
    let frame = pose.frame.unwrap_or(0.0);
    let frame = found.map_or(frame, |c| frame.clamp(0.0, c.length()));
    Ok((clip, start + frame))
}

fn run_export(args: &ExportArgs) -> Result<()> {
    // A Quake 3 player folder exported to one file is the player; to a folder, a batch.
    let one_player = formats::md3::player::is_player_folder(&args.file)
        && mdview::export::is_export_path(&args.output)
        && !args.output.is_dir();
    if (args.file.is_dir() && !one_player) || formats::vfs::is_archive_folder(&args.file) {
        if args.pose.anim.is_some() || args.pose.frame.is_some() {
            return Err(anyhow!(
                "--anim and --frame pose one file; a folder's OBJs are each model's default clip at its \
                 start, and its glTFs carry every clip"
            ));
        }
        let report = mdview::export::batch::convert_dir(&args.file, &args.output, args.format, export_options(args))?;
        emit(&report.to_text())?;
        return if report.failures.is_empty() {
            Ok(())
        } else {
            Err(anyhow!("{} files failed", report.failures.len()))
        };
    }
    if !mdview::export::is_export_path(&args.output) || args.output.is_dir() {
        return Err(anyhow!(
            "{}: name the output file .glb, .gltf or .obj (the format follows the extension)",
            args.output.display()
        ));
    }
    let (scene, pose) = if mdview::export::is_gltf_path(&args.output) {
        let mut scene = with_weapon(open_for_pose(&args.file, &args.pose.park)?, args.pose.weapon.as_deref())?;
        if let Some(wanted) = &args.pose.anim {
            let clip = mdview::scene::resolve_clip(&scene, wanted).map_err(|e| anyhow!(e))?;
            scene.keep_only_clip(clip);
        }
        if args.pose.frame.is_some() && scene.layers.is_empty() {
            eprintln!("note: --frame poses an OBJ; a glTF keeps every frame of its clips");
        }
        // A park (clips playing at once) is written as its save has it, each item posed: the
        // glTF holds that still scene, with no animations. Layers that offer a choice of clips
        // (a Quake 3 player's legs and torso) keep every clip as an animation instead.
        if !scene.layers.is_empty() && scene.layers.iter().all(|l| l.choices.is_empty()) {
            let seconds = checked_frame(&args.pose)?.unwrap_or(0.0);
            scene = scene.frozen(&Pose::at(&scene, None, seconds));
        }
        let pose = Pose::rest(&scene);
        (scene, pose)
    } else {
        let (scene, pose, _, _) = posed(&args.file, &args.pose, args.pose.frame.is_some())?;
        (scene, pose)
    };
    let notes = mdview::export::write_file(&scene, &pose, &args.output, export_options(args))?;
    for w in scene.warnings.iter().chain(&notes) {
        eprintln!("warning: {w}");
    }
    Ok(())
}

fn export_options(args: &ExportArgs) -> mdview::export::Options {
    let textures = if args.no_textures {
        mdview::export::obj::Textures::LeaveInPlace
    } else {
        mdview::export::obj::Textures::CopyAsPng
    };
    mdview::export::Options { textures, material_animation: !args.no_material_animation }
}

fn run_extract(args: &ExtractArgs) -> Result<()> {
    let archive = mdview::archive::open_archive_salvaging(&args.archive)?;
    for warning in &archive.index.warnings {
        eprintln!("warning: {}", mdview::archive::one_line(warning));
    }
    let report = mdview::archive::extract(&args.archive, &archive, &args.output, args.png)?;
    for failure in &report.failures {
        eprintln!("error: {failure}");
    }
    eprintln!("{}", report.summary(&args.output, args.png));
    if report.failures.is_empty() {
        Ok(())
    } else {
        let total = archive.index.entries.len();
        let noun = if total == 1 { "member" } else { "members" };
        Err(anyhow!("{} of {total} {noun} failed", report.failures.len()))
    }
}

/// Saves `image` in the format `path`'s extension names, encoded in memory first: a format
/// that cannot hold RGBA (JPEG) then fails before the file is touched, rather than leaving it
/// empty.
#[cfg(feature = "viewer")]
fn save_image(image: &image::RgbaImage, path: &Path) -> Result<()> {
    let written = image::ImageFormat::from_path(path).and_then(|format| {
        let mut bytes = std::io::Cursor::new(Vec::new());
        image.write_to(&mut bytes, format)?;
        Ok(bytes.into_inner())
    });
    let bytes = written.with_context(|| format!("writing {}", path.display()))?;
    std::fs::write(path, bytes).with_context(|| format!("writing {}", path.display()))
}

fn run_scan(args: &ScanArgs) -> Result<()> {
    let report = mdview::scan::scan_dir(&args.dir).with_context(|| format!("scanning {}", args.dir.display()))?;
    if args.json {
        emit(&format!("{}\n", serde_json::to_string_pretty(&report)?))?;
    } else {
        emit(&report.to_text())?;
    }
    // A survey: files that failed to open are rows of the report, not a failure of the scan.
    Ok(())
}

#[cfg(not(feature = "viewer"))]
fn run_viewer(_path: Option<&Path>, _args: &ViewerArgs) -> Result<()> {
    Err(anyhow!("this mdview was built without the viewer; use the info, export or scan subcommand"))
}

#[cfg(feature = "viewer")]
fn run_viewer(path: Option<&Path>, args: &ViewerArgs) -> Result<()> {
    mdview::app::run(mdview::app::ViewerOptions {
        path: path.map(Path::to_path_buf),
        screenshot: args.screenshot.clone(),
        screenshot_after_frames: args.screenshot_after_frames,
        exit: args.exit,
        size: args.size,
        bench_steps: args.bench_steps,
        sheet: args.sheet_view,
        filter: args.filter.clone(),
        dump_tree: args.dump_tree.clone(),
        install: args.park.install.clone(),
        select: args.select.clone(),
        frame_selected: args.frame_selected,
        dump_view: args.dump_view.clone(),
        weapon: args.weapon.clone(),
    })
}

#[cfg(feature = "viewer")]
#[derive(Args)]
struct RenderArgs {
    /// A model file or park save; with --sheet, a folder, archive or park save (a cell per item).
    file: PathBuf,
    /// Output PNG. With --frames or --turntable, `{frame}` in the name is replaced by each
    /// frame number; without it, a .gif or .png name gets an animated GIF or APNG.
    #[arg(short, long, required_unless_present = "sheet")]
    output: Option<PathBuf>,
    /// Draw every model under the folder into one grid image (a contact sheet) at this path.
    #[arg(long, value_name = "PNG", conflicts_with_all = ["output", "frames", "turntable", "select", "repeat"])]
    sheet: Option<PathBuf>,
    /// Side of a sheet cell in pixels.
    #[arg(long, value_name = "PX", default_value_t = 256, value_parser = clap::value_parser!(u32).range(16..=4096))]
    cell: u32,
    /// Sheet cells per row (default: a square grid).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    columns: Option<u32>,
    /// With --sheet, also print the cell-to-file map as JSON.
    #[arg(long, requires = "sheet")]
    json: bool,
    /// Orbit the camera once around the model in N steps (with --anim, while the clip plays once).
    #[arg(long, value_name = "N", conflicts_with = "frames", value_parser = clap::value_parser!(u32).range(1..=3600))]
    turntable: Option<u32>,
    /// Image size in pixels, as WIDTHxHEIGHT.
    #[arg(long, value_name = "WxH", value_parser = parse_render_size, default_value = "1280x720")]
    size: [u32; 2],
    #[command(flatten)]
    pose: PoseArgs,
    /// Render a frame sequence of the animation: `A..B` (B excluded) or `A..=B`.
    #[arg(long, value_name = "A..B", value_parser = parse_frames)]
    frames: Option<(u32, u32)>,
    /// Camera angle around the vertical axis, in degrees (0 looks along -Z).
    #[arg(long, default_value_t = 30.0, allow_negative_numbers = true, value_parser = parse_finite)]
    yaw: f32,
    /// Camera elevation in degrees (positive looks down on the model).
    #[arg(long, default_value_t = 20.0, allow_negative_numbers = true, value_parser = parse_finite)]
    pitch: f32,
    /// Move the camera closer (2 = half the framing distance).
    #[arg(long, default_value_t = 1.0, value_parser = parse_zoom)]
    zoom: f32,
    /// Background colour as RRGGBB, or `transparent`.
    #[arg(long, value_name = "RRGGBB|transparent", value_parser = parse_background, default_value = "33383f")]
    background: [f32; 4],
    /// Draw every edge over the surfaces.
    #[arg(long)]
    wireframe: bool,
    /// Draw vertex normals.
    #[arg(long)]
    normals: bool,
    /// Draw each mesh node's bounding box.
    #[arg(long)]
    bounds: bool,
    /// Draw every node's local axes.
    #[arg(long)]
    axes: bool,
    /// Draw a ground grid under the model.
    #[arg(long)]
    grid: bool,
    /// Draw the bones of skinned models (MDR, M2) as lines between their origins.
    #[arg(long)]
    skeleton: bool,
    /// Draw a marker at every tag, attachment point and emitter.
    #[arg(long)]
    markers: bool,
    /// Show texture colours without lighting.
    #[arg(long)]
    unlit: bool,
    /// Draw surfaces plain grey instead of textured.
    #[arg(long)]
    no_textures: bool,
    /// Tint meshes whose material flag word has any of these bits (e.g. 0x02) and dim the rest.
    #[arg(long, value_name = "MASK", value_parser = parse_mask)]
    flag_bits: Option<u32>,
    /// Highlight a node, by index or name.
    #[arg(long, value_name = "NODE")]
    select: Option<String>,
    /// Another folder to search for textures (after the model's folder and its `textures/`).
    #[arg(long = "texture-dir", value_name = "DIR")]
    texture_dirs: Vec<PathBuf>,
    /// Print the adapter, where each texture came from, and timings.
    #[arg(long)]
    verbose: bool,
    /// Also render the same view N more times and print the median and fastest frame time
    /// (draw plus readback), for measuring an adapter.
    #[arg(long, value_name = "N")]
    repeat: Option<u32>,
}

#[cfg(feature = "viewer")]
fn parse_render_size(s: &str) -> Result<[u32; 2], String> {
    let (w, h) = s.split_once(['x', 'X']).ok_or("expected WIDTHxHEIGHT, e.g. 1280x720")?;
    let w: u32 = w.trim().parse().map_err(|_| format!("bad width '{w}'"))?;
    let h: u32 = h.trim().parse().map_err(|_| format!("bad height '{h}'"))?;
    if !(1..=16384).contains(&w) || !(1..=16384).contains(&h) {
        return Err("size must be between 1 and 16384 pixels".into());
    }
    Ok([w, h])
}

/// A number that is not NaN or infinite (camera angles).
#[cfg(feature = "viewer")]
fn parse_finite(s: &str) -> Result<f32, String> {
    match s.trim().parse::<f32>() {
        Ok(value) if value.is_finite() => Ok(value),
        _ => Err(format!("'{s}' is not a finite number")),
    }
}

/// A zoom factor: a finite number above zero.
#[cfg(feature = "viewer")]
fn parse_zoom(s: &str) -> Result<f32, String> {
    match parse_finite(s) {
        Ok(value) if value > 0.0 => Ok(value),
        _ => Err(format!("'{s}' is not a zoom factor (a number above 0; 2 is twice as close)")),
    }
}

#[cfg(feature = "viewer")]
fn parse_frames(s: &str) -> Result<(u32, u32), String> {
    let (start, end, inclusive) = match s.split_once("..=") {
        Some((a, b)) => (a, b, true),
        None => {
            let (a, b) = s.split_once("..").ok_or("expected A..B or A..=B, e.g. 0..100")?;
            (a, b, false)
        }
    };
    let start: u32 = start.trim().parse().map_err(|_| format!("bad start frame '{start}'"))?;
    let end: u32 = end.trim().parse().map_err(|_| format!("bad end frame '{end}'"))?;
    let last = if inclusive { Some(end) } else { end.checked_sub(1) };
    match last {
        Some(last) if last >= start => Ok((start, last)),
        _ => Err(format!("frame range '{s}' is empty")),
    }
}

#[cfg(feature = "viewer")]
fn parse_background(s: &str) -> Result<[f32; 4], String> {
    if s.eq_ignore_ascii_case("transparent") {
        return Ok([0.0; 4]);
    }
    let hex = s.trim_start_matches('#');
    let value = u32::from_str_radix(hex, 16).ok().filter(|_| hex.len() == 6).ok_or("expected RRGGBB or transparent")?;
    let channel = |shift: u32| ((value >> shift) & 0xff) as f32 / 255.0;
    Ok([channel(16), channel(8), channel(0), 1.0])
}

#[cfg(feature = "viewer")]
fn parse_mask(s: &str) -> Result<u32, String> {
    let parsed = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u32::from_str_radix(hex, 16),
        None => s.parse(),
    };
    parsed.map_err(|_| format!("bad bit mask '{s}' (e.g. 0x02)"))
}

#[cfg(feature = "viewer")]
fn run_render(args: &RenderArgs) -> Result<()> {
    use mdview::render::{Camera, ViewParams, offscreen::OffscreenRenderer};
    let started = Instant::now();
    if let Some(sheet) = &args.sheet {
        return run_sheet(args, sheet);
    }
    let output = args.output.clone().ok_or_else(|| anyhow!("-o/--output or --sheet is needed"))?;
    let numbered = output.to_string_lossy().contains("{frame}");
    let animated = mdview::render::animated::AnimatedFormat::for_path(&output);
    if (args.frames.is_some() || args.turntable.is_some()) && !numbered && animated.is_none() {
        return Err(anyhow!(
            "--frames and --turntable need `{{frame}}` in the output name (out_{{frame}}.png), \
             or a .gif or .png name for an animation"
        ));
    }
    let frames_asked = args.pose.frame.is_some() || args.frames.is_some();
    let (mut scene, mut first_pose, first_clip, first_time) = posed(&args.file, &args.pose, frames_asked)?;
    if !args.texture_dirs.is_empty() {
        formats::resolve_images(&mut scene, &args.texture_dirs);
    }
    let selected_node = match &args.select {
        None => None,
        Some(wanted) => Some(
            wanted
                .parse::<usize>()
                .ok()
                .filter(|&i| i < scene.nodes.len())
                .or_else(|| scene.nodes.iter().position(|n| n.name.eq_ignore_ascii_case(wanted)))
                .ok_or_else(|| anyhow!("node '{wanted}' not found"))?,
        ),
    };
    // Framed on the model as posed, so a bent or walking model stays in the picture.
    let mut view = ViewParams::new(
        args.size,
        Camera::framing(&first_pose.bounds(&scene), args.yaw, args.pitch, args.size[0] as f32 / args.size[1] as f32),
    );
    if args.zoom.is_finite() && args.zoom > 0.0 {
        view.camera.distance /= args.zoom;
    }
    // Billboard bones face this camera.
    first_pose.view_from_model = Some(view.camera.view_from_world());
    first_pose.evaluate(&scene, first_clip, first_time);
    view.background = args.background;
    view.overlays = overlays_of(args);
    view.lit = !args.unlit;
    view.textures = !args.no_textures;
    view.flag_bits = args.flag_bits;
    view.selected_node = selected_node;

    let mut offscreen = OffscreenRenderer::new(&scene)?;
    for m in &offscreen.report.materials {
        if let mdview::render::TextureSource::Fallback { reason } = &m.source {
            let name = m.texture.as_deref().unwrap_or("");
            eprintln!("warning: texture '{name}' of material {}: {reason}; drawn with the fallback tile", m.material);
        }
    }
    if args.verbose {
        eprintln!("adapter: {} ({} samples)", offscreen.gpu.adapter_name(), offscreen.renderer.sample_count());
        eprint!("{}", offscreen.report.to_text());
        eprintln!("setup: {:.1} ms", started.elapsed().as_secs_f64() * 1000.0);
    }
    // A format that cannot hold RGBA (JPEG) fails after the file is created: leave no empty file.
    let save = |image: &image::RgbaImage, path: &Path| save_image(image, path);
    let many = args.frames.is_some() || args.turntable.is_some();
    if !many {
        let render_started = Instant::now();
        let image = offscreen.render(&scene, &first_pose, &view)?;
        let save_started = Instant::now();
        save(&image, &output)?;
        if args.verbose {
            let ms = |from: Instant, to: Instant| (to - from).as_secs_f64() * 1000.0;
            eprintln!("render and readback: {:.1} ms", ms(render_started, save_started));
            eprintln!("png: {:.1} ms", ms(save_started, Instant::now()));
        }
        if let Some(n) = args.repeat.filter(|&n| n > 0) {
            let mut times = Vec::with_capacity(n as usize);
            for _ in 0..n {
                let t = Instant::now();
                std::hint::black_box(offscreen.render(&scene, &first_pose, &view)?);
                times.push(t.elapsed().as_secs_f64() * 1000.0);
            }
            times.sort_by(f64::total_cmp);
            let median = times.get(times.len() / 2).copied().unwrap_or(0.0);
            let fastest = times.first().copied().unwrap_or(0.0);
            println!(
                "{}x{}: {n} frames, median {median:.2} ms, fastest {fastest:.2} ms per frame (draw + readback) on {}",
                args.size[0],
                args.size[1],
                offscreen.gpu.adapter_name()
            );
        }
    } else {
        let plan = frame_plan(args, &scene, &first_pose.bounds(&scene), first_clip, first_time, &view);
        let mut writer = match (numbered, animated) {
            (false, Some(format)) => Some(mdview::render::animated::AnimationWriter::create(
                &output,
                format,
                args.size,
                plan.frames.len() as u32,
                plan.delay,
            )?),
            _ => None,
        };
        let pattern = output.to_string_lossy().into_owned();
        let mut pose = first_pose;
        for &(number, camera, time) in &plan.frames {
            view.camera = camera;
            pose.view_from_model = Some(view.camera.view_from_world());
            // Global-sequence tracks read the frame's time in the clip too, so output stays
            // reproducible.
            pose.global_time = Some(time - plan.clip_start);
            pose.evaluate(&scene, first_clip, time);
            let image = offscreen.render(&scene, &pose, &view)?;
            match &mut writer {
                Some(writer) => writer.push(&image)?,
                None => save(&image, Path::new(&pattern.replace("{frame}", &number.to_string())))?,
            }
        }
        if let Some(writer) = writer {
            writer.finish().with_context(|| format!("writing {}", output.display()))?;
        }
        if args.verbose {
            eprintln!("{} frames, {} ms each", plan.frames.len(), plan.delay.ms);
        }
    }
    if args.verbose {
        eprintln!("total: {:.1} ms", started.elapsed().as_secs_f64() * 1000.0);
    }
    Ok(())
}

/// The frames of a sequence, turntable or animation: per frame its number, camera and clip
/// time, and how long each is shown.
#[cfg(feature = "viewer")]
struct FramePlan {
    frames: Vec<(u32, mdview::render::Camera, f32)>,
    delay: mdview::render::animated::FrameDelay,
    /// The clip time of frame 0.
    clip_start: f32,
}

/// `--frames A..B` steps the clip one unit a frame, shown at the clip's rate. `--turntable N`
/// orbits once in N steps; with `--anim` the clip plays once over the turn at its own rate,
/// else the turn takes [`DEFAULT_TURN_SECONDS`](mdview::render::animated::DEFAULT_TURN_SECONDS).
#[cfg(feature = "viewer")]
fn frame_plan(
    args: &RenderArgs,
    scene: &Scene,
    bounds: &mdview::scene::Aabb,
    clip: Option<usize>,
    first_time: f32,
    view: &mdview::render::ViewParams,
) -> FramePlan {
    use mdview::render::animated::{DEFAULT_TURN_SECONDS, FrameDelay, turntable_cameras};
    let clip_info = clip.and_then(|c| scene.clips.get(c));
    // Frames count from the clip's first frame, as --frame does.
    let clip_start = first_time - args.pose.frame.unwrap_or(0.0);
    let rate = clip_info.map(|c| c.rate).filter(|r| r.is_finite() && *r > 0.0);
    if let Some(steps) = args.turntable {
        let cameras = turntable_cameras(bounds, &view.camera, steps, view.aspect());
        let playing = args.pose.anim.as_ref().and(clip_info).filter(|c| c.length() > 0.0);
        let (time_step, delay) = match (playing, rate) {
            (Some(c), Some(rate)) => (c.length() / steps as f32, c.length() / rate / steps as f32),
            _ => (0.0, DEFAULT_TURN_SECONDS / steps as f32),
        };
        let frames = cameras.into_iter().enumerate().map(|(i, c)| (i as u32, c, first_time + time_step * i as f32));
        return FramePlan { frames: frames.collect(), delay: FrameDelay::from_seconds(delay), clip_start };
    }
    let (first, last) = args.frames.unwrap_or((0, 0));
    let frames = (first..=last).map(|f| (f, view.camera, clip_start + f as f32)).collect();
    FramePlan { frames, delay: FrameDelay::from_seconds(1.0 / rate.unwrap_or(15.0)), clip_start }
}

/// The overlays the options ask for.
#[cfg(feature = "viewer")]
fn overlays_of(args: &RenderArgs) -> mdview::render::Overlays {
    mdview::render::Overlays {
        wireframe: args.wireframe,
        normals: args.normals,
        bounds: args.bounds,
        axes: args.axes,
        grid: args.grid,
        skeleton: args.skeleton,
        markers: args.markers,
    }
}

/// `render DIR --sheet out.png`: every model under the folder in one grid image.
#[cfg(feature = "viewer")]
/// A folder's or archive's models, in the viewer's tree order, for a contact sheet.
fn folder_sheet_items(folder: &Path) -> Result<Vec<mdview::render::sheet::SheetItem>> {
    if !folder.is_dir() && !formats::vfs::is_archive_folder(folder) {
        return Err(anyhow!("{}: --sheet needs a folder, a .wad archive or a park save", folder.display()));
    }
    // The viewer's tree lists the folder with the same function, in the same order.
    let listed = formats::listing::list(folder).with_context(|| format!("listing {}", folder.display()))?;
    for problem in listed.iter().flat_map(|f| &f.problems) {
        eprintln!("warning: {problem}");
    }
    let paths: Vec<PathBuf> = listed.into_iter().flat_map(|f| f.models).map(|g| g.model).collect();
    if paths.is_empty() {
        return Err(anyhow!(
            "{}: no model files (.{}) in this folder or below it",
            folder.display(),
            formats::MODEL_EXTENSIONS.join(", .")
        ));
    }
    Ok(mdview::render::sheet::items_below(folder, paths))
}

/// A park's placed items (not its ground), one sheet cell each, labelled with the item's name.
#[cfg(feature = "viewer")]
fn park_sheet_items(save: &Path, park: &Scene) -> Vec<mdview::render::sheet::SheetItem> {
    park.parts
        .iter()
        .filter(|p| p.group != mdview::scene::GROUND)
        .map(|p| mdview::render::sheet::SheetItem { label: p.name.clone(), path: save.to_path_buf() })
        .collect()
}

#[cfg(feature = "viewer")]
fn run_sheet(args: &RenderArgs, sheet_path: &Path) -> Result<()> {
    use mdview::render::offscreen::HeadlessGpu;
    use mdview::render::sheet::{self, SheetOptions};
    use std::io::IsTerminal;
    let started = Instant::now();
    // A park's sheet has a cell per placed item, each alone as it stands in the park.
    let park = if is_park_save(&args.file) { Some(open_for_pose(&args.file, &args.pose.park)?) } else { None };
    let items = match &park {
        Some(park) => park_sheet_items(&args.file, park),
        None => folder_sheet_items(&args.file)?,
    };
    let part_of: std::collections::HashMap<&str, usize> = match &park {
        Some(park) => park.parts.iter().enumerate().map(|(i, p)| (p.name.as_str(), i)).collect(),
        None => Default::default(),
    };
    let options = SheetOptions {
        cell: args.cell,
        columns: args.columns,
        background: args.background,
        yaw_deg: args.yaw,
        pitch_deg: args.pitch,
        zoom: args.zoom,
        overlays: overlays_of(args),
        lit: !args.unlit,
        textures: !args.no_textures,
        flag_bits: args.flag_bits,
        clip: args.pose.anim.clone(),
        frame: checked_frame(&args.pose)?,
    };
    let gpu = HeadlessGpu::new()?;
    if args.verbose {
        eprintln!("adapter: {}; {} models", gpu.adapter_name(), items.len());
    } else {
        // A missing texture is counted per cell and summed below, not logged per model.
        log::set_max_level(log::LevelFilter::Error);
    }
    let bar = if std::io::stderr().is_terminal() {
        indicatif::ProgressBar::new(items.len() as u64)
    } else {
        indicatif::ProgressBar::hidden()
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} models, {elapsed} ({eta} left)")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let drawn = sheet::render_sheet(
        &gpu,
        &items,
        |item| {
            if let Some(park) = &park {
                let part = part_of.get(item.label.as_str()).copied();
                return part.and_then(|p| park.part_alone(p)).ok_or_else(|| format!("{}: not in the park", item.label));
            }
            let mut scene = formats::open(&item.path).map_err(|e| e.reason())?;
            if !args.texture_dirs.is_empty() {
                formats::resolve_images(&mut scene, &args.texture_dirs);
            }
            Ok(scene)
        },
        &options,
        |done| bar.set_position(done as u64),
    )?;
    bar.finish_and_clear();
    let encode_started = Instant::now();
    save_image(&drawn.image, sheet_path)?;
    let fallbacks = drawn.cells.iter().filter(|c| c.fallback_textures > 0).count();
    let without_clip = drawn.cells.iter().filter(|c| c.missing_clip).count();
    if let (Some(name), 1..) = (&args.pose.anim, without_clip) {
        eprintln!("note: {without_clip} models have no clip '{name}'; they are drawn in their default pose");
    }
    eprintln!(
        "{}: {} models in {}x{} cells of {} px, {} failed, {} with missing textures; {:.1} s",
        sheet_path.display(),
        drawn.cells.len(),
        drawn.columns,
        drawn.rows,
        drawn.cell,
        drawn.failed(),
        fallbacks,
        started.elapsed().as_secs_f64()
    );
    if args.verbose {
        eprintln!("png: {:.1} s", encode_started.elapsed().as_secs_f64());
    }
    if args.json {
        emit(&format!("{}\n", serde_json::to_string_pretty(&drawn)?))?;
    }
    Ok(())
}
