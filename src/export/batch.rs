//! Batch conversion: every model under a folder, in parallel, into an output folder that keeps
//! the directory structure. One bad file never stops the batch; the report counts converted,
//! warned and failed files with one line per failure. Animation-only files (TPW sibling clips)
//! are skipped: their base model's export carries them.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow};
use rayon::prelude::*;

use super::Options;
use crate::formats::assets::SharedListings;
use crate::scene::SceneKind;
use crate::scene::anim::Pose;

/// What each model becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BatchFormat {
    /// Binary glTF with every clip.
    Glb,
    /// glTF JSON with a .bin beside it.
    Gltf,
    /// Wavefront OBJ (+ MTL) of the rest pose, or the first frame of the default clip.
    Obj,
}

impl BatchFormat {
    pub fn extension(self) -> &'static str {
        match self {
            BatchFormat::Glb => "glb",
            BatchFormat::Gltf => "gltf",
            BatchFormat::Obj => "obj",
        }
    }
}

/// The outcome of one file.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Converted {
        output: PathBuf,
        warnings: usize,
    },
    /// An animation-only file.
    Skipped,
    Failed(String),
}

#[derive(Debug, Default)]
pub struct BatchReport {
    pub converted: usize,
    /// Converted files whose decode or export reported warnings.
    pub warned: usize,
    pub skipped: usize,
    /// `(input, reason)` per failure.
    pub failures: Vec<(PathBuf, String)>,
}

impl BatchReport {
    pub fn to_text(&self) -> String {
        let mut out = format!(
            "converted {}, warned {}, failed {}, skipped {} (animation-only files)\n",
            self.converted,
            self.warned,
            self.failures.len(),
            self.skipped
        );
        for (path, reason) in &self.failures {
            let shown = path.display().to_string();
            // Open errors already start with the path.
            let line = if reason.starts_with(&shown) { reason.clone() } else { format!("{shown}: {reason}") };
            out.push_str(&format!("failed: {}\n", line.replace('\n', " ")));
        }
        out
    }
}

/// Converts one model file to `output`, sharing folder listings with the other files of a
/// batch (a fresh [`SharedListings`] for a file on its own).
pub fn convert_file(
    input: &Path,
    output: &Path,
    format: BatchFormat,
    options: Options,
    listings: &SharedListings,
) -> Result<Outcome> {
    let scene = crate::formats::open_shared(input, listings).map_err(|e| anyhow!(e))?;
    if scene.kind == SceneKind::Animation {
        return Ok(Outcome::Skipped);
    }
    if let Some(parent) = output.parent() {
        std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    }
    // A glTF's own notes go into the file (`asset.extras`); the report counts the decode's, and
    // an OBJ's textures that could not be copied.
    let export_notes = match format {
        BatchFormat::Glb | BatchFormat::Gltf => {
            super::gltf::write_with(&scene, output, options.pointer_animation())?;
            0
        }
        BatchFormat::Obj => {
            let clip = scene.default_clip;
            let start = clip.and_then(|c| scene.clips.get(c)).map_or(0.0, |c| c.start);
            let pose = Pose::at(&scene, clip, start);
            super::obj::write(&scene, &pose, output, options.textures)
                .with_context(|| format!("writing {}", output.display()))?
                .len()
        }
    };
    Ok(Outcome::Converted { output: output.to_path_buf(), warnings: scene.warnings.len() + export_notes })
}

/// Converts every model under `input_dir` into `output_dir`, in parallel; a progress bar runs
/// when standard error is a terminal. `options` say what the outputs carry besides geometry.
pub fn convert_dir(input_dir: &Path, output_dir: &Path, format: BatchFormat, options: Options) -> Result<BatchReport> {
    let files = crate::scan::model_files(input_dir).with_context(|| format!("listing {}", input_dir.display()))?;
    let bar = indicatif::ProgressBar::new(files.len() as u64);
    if let Ok(style) = indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} {wide_msg}") {
        bar.set_style(style);
    }
    let listings = SharedListings::default();
    // Largest files first, one file per task: a large model started last would leave the
    // other threads idle at the end. The report keeps the sorted input order.
    let mut largest_first: Vec<(u64, usize)> =
        files.iter().enumerate().map(|(i, p)| (std::fs::metadata(p).map_or(0, |m| m.len()), i)).collect();
    largest_first.sort_by_key(|&(size, index)| (std::cmp::Reverse(size), index));
    let mut outcomes: Vec<(usize, PathBuf, Outcome)> = largest_first
        .par_iter()
        .with_max_len(1)
        .filter_map(|&(_, index)| files.get(index).map(|input| (index, input)))
        .map(|(index, input)| {
            let relative = input.strip_prefix(input_dir).unwrap_or(input);
            let mut output = output_dir.join(relative);
            // Keep the source extension in the name: `tris.md2` and `tris.mdr` stay apart.
            let file_name = output.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            output.set_file_name(format!("{file_name}.{}", format.extension()));
            let outcome = match convert_file(input, &output, format, options, &listings) {
                Ok(outcome) => outcome,
                Err(e) => Outcome::Failed(one_line(&e)),
            };
            bar.inc(1);
            (index, input.clone(), outcome)
        })
        .collect();
    bar.finish_and_clear();
    outcomes.sort_by_key(|(index, _, _)| *index);
    let mut report = BatchReport::default();
    for (_, input, outcome) in outcomes {
        match outcome {
            Outcome::Converted { warnings, .. } => {
                report.converted += 1;
                if warnings > 0 {
                    report.warned += 1;
                }
            }
            Outcome::Skipped => report.skipped += 1,
            Outcome::Failed(reason) => report.failures.push((input, reason)),
        }
    }
    Ok(report)
}

/// The error chain on one line, skipping causes a message already quotes.
fn one_line(error: &anyhow::Error) -> String {
    let mut message = String::new();
    for cause in error.chain().map(|c| c.to_string()) {
        if !message.contains(&cause) {
            message = if message.is_empty() { cause } else { format!("{message}: {cause}") };
        }
    }
    message.replace('\n', " ")
}
