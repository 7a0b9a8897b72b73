//! Helpers shared by the end-to-end render tests (`render_cli`, `pictures`): the demo files, a
//! fresh output folder per test, running the `mdview` binary, and the GPU-adapter rule (skip
//! without one, fail when `CI` is set).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn demo(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo").join(name)
}

/// An empty folder for one test's outputs: `mdview-<suite>-<test>` under cargo's temp folder
/// for tests (`target/tmp`), emptied at the start of each run rather than left behind in the
/// system's temp folder once per run.
pub fn out_dir(suite: &str, test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("mdview-{suite}-{test}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

pub fn mdview(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mdview")).args(args).output().expect("running mdview")
}

pub fn succeeded(out: &Output) {
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
}

/// Whether a GPU test can run here: an adapter exists, or CI demands one (then the test fails).
pub fn have_adapter() -> bool {
    match mdview::render::offscreen::HeadlessGpu::new() {
        Ok(_) => true,
        Err(e) if std::env::var_os("CI").is_none() => {
            eprintln!("SKIPPED: no wgpu adapter on this machine ({e:#}); set CI=1 to make this a failure");
            false
        }
        Err(e) => panic!("CI is set but no wgpu adapter was found: {e:#}"),
    }
}
