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
#[command(name = "mdview", version, about = "Viewer and toolkit for classic game models (TPW .md2, Quake II .md2, Quake 3 .mdr, WoW .m2)")]
#[command(args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// A model file or folder to open in the viewer (the built-in demo when omitted).
    path: Option<PathBuf>,
}

#[derive(Subcommand)]
enum Command {
    /// Print a summary of a model: format, node tree, meshes, materials, animations, warnings.
    Info(InfoArgs),
    /// Write the posed, world-space geometry as Wavefront OBJ (+ MTL).
    Export(ExportArgs),
    /// Read every model under a folder and print corpus statistics.
    Scan(ScanArgs),
}

#[derive(Args)]
struct InfoArgs {
    file: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Also print how long the decode took inside the process.
    #[arg(long)]
    timing: bool,
}

#[derive(Args, Clone)]
struct PoseArgs {
    /// Animation to pose: a clip name (`M1`), a sibling's file name, or a path.
    #[arg(long)]
    anim: Option<String>,
    /// Frame (fractional) within the animation.
    #[arg(long, default_value_t = 0.0)]
    frame: f32,
}

#[derive(Args)]
struct ExportArgs {
    file: PathBuf,
    /// Output .obj path (an .mtl is written beside it).
    #[arg(short, long)]
    output: PathBuf,
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
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Info(args)) => run_info(&args),
        Some(Command::Export(args)) => run_export(&args),
        Some(Command::Scan(args)) => run_scan(&args),
        None => run_viewer(cli.path.as_deref()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // One line: the chain joined, so the format/field/offset reason stays visible.
            let chain: Vec<String> = e.chain().map(|c| c.to_string()).collect();
            eprintln!("error: {}", chain.join(": "));
            ExitCode::from(1)
        }
    }
}

fn open(path: &Path) -> Result<Scene> {
    formats::open(path).map_err(|e| anyhow!(e))
}

fn run_info(args: &InfoArgs) -> Result<()> {
    let started = Instant::now();
    let scene = open(&args.file)?;
    let elapsed = started.elapsed();
    let mut summary = Summary::of(&scene);
    if args.timing {
        summary.decode_ms = Some(elapsed.as_secs_f64() * 1000.0);
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        print!("{}", summary.to_text());
    }
    Ok(())
}

/// Opens `file` and evaluates the pose the options ask for.
fn posed(file: &Path, pose: &PoseArgs) -> Result<(Scene, Pose)> {
    let scene = open(file)?;
    let clip = match &pose.anim {
        Some(wanted) => Some(mdview::scene::resolve_clip(&scene, wanted).map_err(|e| anyhow!(e))?),
        None => scene.default_clip,
    };
    let evaluated = Pose::at(&scene, clip, pose.frame);
    Ok((scene, evaluated))
}

fn run_export(args: &ExportArgs) -> Result<()> {
    let (scene, pose) = posed(&args.file, &args.pose)?;
    mdview::export::obj::write(&scene, &pose, &args.output)
        .with_context(|| format!("writing {}", args.output.display()))?;
    for w in &scene.warnings {
        eprintln!("warning: {w}");
    }
    Ok(())
}

fn run_scan(args: &ScanArgs) -> Result<()> {
    let report = mdview::scan::scan_dir(&args.dir)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report.to_text());
    }
    Ok(())
}

fn run_viewer(path: Option<&Path>) -> Result<()> {
    let _ = path;
    Err(anyhow!("the interactive viewer is not built yet; use `mdview info|export|scan`"))
}
