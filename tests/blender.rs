//! What mdview shows is what Blender shows (#43): glTF files written by the `mdview` binary are
//! imported into Blender headless (`tests/blender/check.py`, all files in one Blender process),
//! and Blender's evaluated world-space vertices at two off-key times of every clip are compared
//! with the viewer's own pose (the OBJ export of that clip and time) within 1e-4 of the model's
//! size.
//!
//! Vertices are compared as point sets (each Blender vertex to its nearest OBJ vertex and each
//! OBJ vertex to its nearest Blender vertex: the symmetric Hausdorff distance). Blender's
//! importer and the OBJ writer number and split vertices differently (glTF primitives, shared
//! positions), so no index correspondence holds; a pose that is wrong anywhere moves some
//! vertex away from every vertex of the other set, which the distance catches.
//!
//! Needs `blender` (Debian 3.4.1) with numpy below 1.24 on its path: `.ci/run` installs both
//! (numpy into the git-ignored `.blender-py/`). Without Blender the test says SKIP, except in CI.

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use mdview::scene::Scene;
use mdview::scene::anim::Pose;

/// Off-key points of each clip, as shares of its span.
const SHARES: [f32; 2] = [0.37, 0.71];

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The demo gate with its doors swung a quarter turn between two plain (linear) keys: the
/// case where a component-wise blend strays most from the slerp (0.032 units mid-swing before
/// the exporter split such intervals).
fn linear_swing_gate() -> PathBuf {
    use mdview::formats::tpw::layout::NO_EASING;
    use mdview::writers::tpw::{AnimFile, RotationKeySpec, TrackSpec};
    let dir = repo().join("tests/out/blender-src");
    std::fs::create_dir_all(&dir).expect("source folder");
    std::fs::copy(repo().join("assets/demo/gate.MD2"), dir.join("gate.MD2")).expect("copy the gate");
    let half = std::f32::consts::FRAC_1_SQRT_2;
    let door = |target: u16, sign: f32| TrackSpec {
        target,
        rotation: vec![
            RotationKeySpec { frame: 0, curve: NO_EASING, quat: [0.0, 0.0, 0.0, 1.0] },
            RotationKeySpec { frame: 30, curve: NO_EASING, quat: [0.0, sign * half, 0.0, half] },
        ],
        ..TrackSpec::default()
    };
    let swing = AnimFile { last_frame: 30, tracks: vec![door(0, 1.0), door(1, -1.0)], ..AnimFile::default() };
    std::fs::write(dir.join("gateM1.MD2"), swing.to_bytes()).expect("write the swing");
    dir.join("gate.MD2")
}

/// The models: the demo gate (door rotation keys, the construction clip's hide list and the
/// sign's visibility track), the gate swung on linear keys, a Quake II corpus model, the MDR
/// sample and the corpus Rabbit.
fn models() -> Vec<(&'static str, PathBuf)> {
    let corpus = repo().join("../shared/corpus");
    let wanted = [
        ("gate", repo().join("assets/demo/gate.MD2")),
        ("gate-linear", linear_swing_gate()),
        ("hunter", corpus.join("md2/hunter/tris.md2")),
        ("arm", repo().join("assets/mdr/arm.mdr")),
        ("rabbit", corpus.join("m2/rabbit/Rabbit.m2")),
    ];
    wanted
        .into_iter()
        .filter(|(name, path)| {
            let present = path.exists();
            if !present {
                eprintln!("SKIP (part): {name}: {} is absent", path.display());
            }
            present
        })
        .collect()
}

/// Whether Blender runs; without it the test skips, except in CI.
fn blender_present() -> bool {
    let runs = Command::new("blender").arg("--version").output().is_ok_and(|o| o.status.success());
    if !runs {
        assert!(std::env::var_os("CI").is_none(), "CI must install blender (.ci/run)");
        eprintln!("SKIP: blender is not installed (apt-get install blender; .ci/run does it)");
    }
    runs
}

/// One pose to compare: clip, clip time, seconds into the glTF animation, Blender's output.
struct Sample {
    clip: usize,
    time: f32,
    frame: f32,
    out: PathBuf,
}

fn parse_points(text: &str, prefix: &str) -> Vec<[f64; 3]> {
    text.lines()
        .filter_map(|line| line.strip_prefix(prefix))
        .map(|rest| {
            let mut it = rest.split_whitespace().map(|v| v.parse::<f64>().expect("a number"));
            [it.next().expect("x"), it.next().expect("y"), it.next().expect("z")]
        })
        .collect()
}

/// The viewer's pose at `sample`, as `mdview export --anim CLIP --frame F -o x.obj` writes it.
fn viewer_points(scene: &Scene, sample: &Sample) -> Vec<[f64; 3]> {
    let mut pose = Pose::default();
    pose.global_time = Some(sample.frame);
    pose.evaluate(scene, Some(sample.clip), sample.time);
    let (obj, _) = mdview::export::obj::to_obj(scene, &pose, "x.mtl");
    parse_points(&obj, "v ")
}

/// The largest distance from a point of `from` to the nearest point of `to`.
fn directed(from: &[[f64; 3]], to: &[[f64; 3]]) -> f64 {
    from.iter()
        .map(|p| to.iter().map(|q| (0..3).map(|k| (p[k] - q[k]).powi(2)).sum::<f64>()).fold(f64::INFINITY, f64::min))
        .fold(0.0, f64::max)
        .sqrt()
}

#[test]
fn blender_plays_what_the_viewer_shows() {
    if !blender_present() {
        return;
    }
    let started = Instant::now();
    let out = repo().join("tests/out/gltf-blender");
    std::fs::create_dir_all(&out).expect("output folder");
    let mut job = Vec::new();
    let mut plans = Vec::new();
    for (name, path) in models() {
        let gltf = out.join(format!("{name}.glb"));
        let exported = Command::new(env!("CARGO_BIN_EXE_mdview"))
            .args([std::ffi::OsStr::new("export"), path.as_os_str(), "-o".as_ref(), gltf.as_os_str()])
            .output()
            .expect("run mdview");
        assert!(exported.status.success(), "{name}: {}", String::from_utf8_lossy(&exported.stderr));
        let scene = mdview::formats::open(&path).expect("the model opens");
        assert!(!scene.clips.is_empty(), "{name} has clips");
        let mut samples = Vec::new();
        let mut json_samples = Vec::new();
        for (c, clip) in scene.clips.iter().enumerate() {
            let rate = if clip.rate.is_finite() && clip.rate > 0.0 { clip.rate } else { 1.0 };
            for (k, share) in SHARES.iter().enumerate() {
                let frame = (clip.end - clip.start).max(0.0) * share;
                let sample_out = out.join(format!("{name}-{c}-{k}.txt"));
                json_samples.push(serde_json::json!({
                    "animation": clip.name,
                    "seconds": frame / rate,
                    "out": sample_out,
                }));
                samples.push(Sample { clip: c, time: clip.start + frame, frame, out: sample_out });
            }
        }
        job.push(serde_json::json!({ "gltf": gltf, "samples": json_samples }));
        plans.push((name, scene, samples));
    }
    let job_path = out.join("job.json");
    std::fs::write(&job_path, serde_json::to_vec_pretty(&job).expect("json")).expect("write the job");
    let python_path = repo().join(".blender-py");
    let run = Command::new("blender")
        .args(["-b", "--factory-startup", "--python"])
        .arg(repo().join("tests/blender/check.py"))
        .arg("--")
        .arg(&job_path)
        .env("PYTHONPATH", &python_path)
        .output()
        .expect("run blender");
    let log = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success() && log.contains("CHECK: done"),
        "blender failed (its glTF importer needs numpy below 1.24 in .blender-py; .ci/run installs it):\n{log}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(!log.contains("CHECK: no action"), "an animation did not import:\n{log}");
    let mut failures = Vec::new();
    for (name, scene, samples) in &plans {
        let size = f64::from(scene.bounds().size().max_element().max(1e-3));
        let tolerance = 1e-4 * size;
        let mut worst = (0.0f64, String::new());
        for sample in samples {
            let clip = &scene.clips[sample.clip].name;
            let viewer = viewer_points(scene, sample);
            let text = std::fs::read_to_string(&sample.out).expect("blender's vertices");
            let blender = parse_points(&text.lines().map(|l| format!("v {l}\n")).collect::<String>(), "v ");
            assert!(!viewer.is_empty() && !blender.is_empty(), "{name} {clip} at {}: no vertices", sample.frame);
            let error = directed(&blender, &viewer).max(directed(&viewer, &blender));
            if error > worst.0 {
                worst = (error, format!("{clip} frame {}", sample.frame));
            }
            if error > tolerance {
                failures.push(format!(
                    "{name} {clip} frame {}: Blender is {error:.3e} from the viewer (tolerance {tolerance:.3e}; {} vs {} vertices)",
                    sample.frame,
                    blender.len(),
                    viewer.len()
                ));
            }
        }
        eprintln!(
            "{name}: {} samples, worst {:.3e} ({:.2e} of the model's size {size:.3}) at {}",
            samples.len(),
            worst.0,
            worst.0 / size,
            worst.1
        );
    }
    eprintln!("blender check took {:.1} s", started.elapsed().as_secs_f64());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
