//! Export speed. `gltf/hunter`: the hunter player model (198 frames, with its weapon) from
//! the decoded scene to the bytes of its `.glb`. `batch_obj`: every Quake II corpus model
//! (the malformed one left out) converted to OBJ by one `mdview export DIR --format obj`
//! process, against one `assimp export` process per file, measured in the same run.
//!
//! Run: `cargo bench --bench export -- --warm-up-time 1 --measurement-time 3`
//! (the assimp side needs `assimp-utils`; it is skipped without it).

#[macro_use]
mod kept_heap;

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;

use criterion::{Criterion, criterion_group};
use mdview::export::gltf;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/md2")
}

/// A folder of links to every well-formed Quake II corpus model (outside the project).
fn linked_models() -> Option<(PathBuf, Vec<PathBuf>)> {
    let files: Vec<PathBuf> = mdview::scan::model_files(&corpus())
        .ok()?
        .into_iter()
        .filter(|p| !p.ends_with("malformed_zero_numvertices.md2"))
        .collect();
    let dir = std::env::temp_dir().join(format!("mdview-bench-batch-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut linked = Vec::new();
    for (i, file) in files.iter().enumerate() {
        let name = format!("{i:02}_{}", file.file_name()?.to_string_lossy());
        let link = dir.join(format!("{i:02}")).join(name);
        std::fs::create_dir_all(link.parent()?).ok()?;
        std::os::unix::fs::symlink(file, &link).ok()?;
        linked.push(link);
    }
    Some((dir, linked))
}

fn export(c: &mut Criterion) {
    let hunter = corpus().join("hunter/tris.md2");
    if let Ok(scene) = mdview::formats::open(&hunter) {
        let doc = gltf::build(&scene).expect("hunter exports");
        let bytes = gltf::to_glb(&doc).expect("glb");
        eprintln!("hunter.glb: {} bytes", bytes.len());
        let mut group = c.benchmark_group("gltf");
        group.sample_size(10);
        group.bench_function("hunter", |b| {
            b.iter(|| gltf::to_glb(&gltf::build(black_box(&scene)).expect("export")).expect("glb").len())
        });
        group.finish();
    } else {
        eprintln!("SKIP gltf/hunter: {} is absent", hunter.display());
    }

    let Some((input, files)) = linked_models() else {
        eprintln!("SKIP batch_obj: corpus absent");
        return;
    };
    eprintln!("batch_obj: {} models", files.len());
    let out = input.with_extension("out");
    std::fs::create_dir_all(&out).expect("output folder");
    let mut group = c.benchmark_group("batch_obj");
    group.sample_size(10);
    group.bench_function("mdview_one_process", |b| {
        b.iter(|| {
            let status = Command::new(env!("CARGO_BIN_EXE_mdview"))
                .args(["export"])
                .arg(&input)
                .arg("-o")
                .arg(&out)
                // assimp converts no image, so textures stay in place here too.
                .args(["--format", "obj", "--no-textures"])
                .output()
                .expect("mdview runs");
            assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stdout));
        })
    });
    let assimp = Command::new("assimp").arg("version").output().is_ok_and(|o| o.status.success());
    if assimp {
        group.bench_function("assimp_process_per_file", |b| {
            b.iter(|| {
                for (i, file) in files.iter().enumerate() {
                    let target = out.join(format!("assimp_{i}.obj"));
                    let status = Command::new("assimp")
                        .arg("export")
                        .arg(file)
                        .arg(&target)
                        // The heap settings the mdview process gives itself.
                        .env("GLIBC_TUNABLES", mdview::heap::GLIBC_TUNABLES)
                        .output()
                        .expect("assimp runs");
                    assert!(status.status.success(), "assimp failed on {}", file.display());
                }
            })
        });
    } else {
        eprintln!("SKIP batch_obj/assimp_process_per_file: assimp is not installed");
    }
    group.finish();
    let _ = std::fs::remove_dir_all(&input);
    let _ = std::fs::remove_dir_all(&out);
}

criterion_group!(benches, export);

main_with_kept_heap!(benches);
