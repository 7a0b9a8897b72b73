//! Contact sheets: every model of a folder in one grid image, each cell framed on its model
//! and labelled with its file name; a model that failed to decode shows its error in red.
//!
//! Models are decoded on a thread pool of their own while this thread draws and reads back
//! the cells in the order they arrive (the pool is separate from rayon's global one because
//! [`Renderer::load_scene`] decodes textures on the global pool, which must stay free).
//! A bounded channel between the two keeps at most a few decoded scenes waiting.
//!
//! [`render_thumbnail`] is the one picture of one model that sheets, and the viewer's sheet
//! view, are made of.

use std::path::{Path, PathBuf};
use std::sync::mpsc;

use anyhow::{Result, bail};
use image::{Rgba, RgbaImage};
use rayon::prelude::*;
use serde::Serialize;

use super::offscreen::{HeadlessGpu, unpremultiply};
use super::{Camera, Renderer, SceneReport, ViewParams, label};
use crate::formats;
use crate::scene::Scene;
use crate::scene::anim::Pose;

/// The largest sheet drawn, in bytes of RGBA pixels, so a huge folder at a big cell size
/// fails with advice instead of exhausting memory.
pub const MAX_SHEET_BYTES: u64 = 2 << 30;

/// Text colours: file names, and the errors of cells whose model failed.
const NAME_COLOR: [u8; 4] = [235, 235, 235, 255];
const ERROR_COLOR: [u8; 4] = [255, 90, 80, 255];
/// The background of a cell whose model failed: dark red, opaque even on transparent sheets.
const FAILED_CELL_COLOR: [u8; 4] = [60, 20, 20, 255];

/// How to draw a sheet.
#[derive(Debug, Clone)]
pub struct SheetOptions {
    /// Side of a square cell in pixels.
    pub cell: u32,
    /// Cells per row; `None` for a square-ish grid (`ceil(sqrt(n))` columns).
    pub columns: Option<u32>,
    /// sRGB with straight alpha; alpha 0 keeps the cells transparent.
    pub background: [f32; 4],
    pub yaw_deg: f32,
    pub pitch_deg: f32,
    /// Moves the camera closer (2 = half the framing distance).
    pub zoom: f32,
    pub overlays: super::Overlays,
    pub lit: bool,
    pub textures: bool,
    /// Draw only materials with these flag bits (TPW), as `render --flag-bits` does.
    pub flag_bits: Option<u32>,
    /// The clip each model is posed in, by name, index or id ([`crate::scene::resolve_clip`]);
    /// a model without it keeps its default pose and its cell says so
    /// ([`SheetCell::missing_clip`]).
    pub clip: Option<String>,
    /// Clip units from the clip's start; with no `clip`, in the model's first clip.
    pub frame: Option<f32>,
}

impl Default for SheetOptions {
    fn default() -> Self {
        Self {
            cell: 256,
            columns: None,
            background: super::DEFAULT_BACKGROUND,
            yaw_deg: 30.0,
            pitch_deg: 20.0,
            zoom: 1.0,
            overlays: super::Overlays::default(),
            lit: true,
            textures: true,
            flag_bits: None,
            clip: None,
            frame: None,
        }
    }
}

/// The clip and time a model is drawn at on a sheet, and whether the clip asked for was
/// missing from it. As `render` poses one model: a frame number without a clip name poses
/// the first clip; neither keeps the model's own default clip at its start.
pub fn sheet_pose(scene: &Scene, options: &SheetOptions) -> (Option<usize>, f32, bool) {
    let named = options.clip.as_deref().map(|name| crate::scene::resolve_clip(scene, name).ok());
    let (clip, frame) = match named {
        Some(Some(found)) => (Some(found), options.frame),
        // Without the clip asked for: the default pose, not a frame of some other clip.
        Some(None) => (scene.default_clip, None),
        None if options.frame.is_some() => (scene.first_clip(), options.frame),
        None => (scene.default_clip, None),
    };
    let start = clip.and_then(|c| scene.clips.get(c)).map_or(0.0, |c| c.start);
    let frame = frame.filter(|f| f.is_finite()).unwrap_or(0.0);
    (clip, start + frame, matches!(named, Some(None)))
}

/// One model to place on a sheet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SheetItem {
    /// The text under the picture.
    pub label: String,
    /// Where the model lives (a file, or a member path through an archive).
    pub path: PathBuf,
}

/// Where one model landed on the sheet, for the `--json` map.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SheetCell {
    pub index: usize,
    pub column: u32,
    pub row: u32,
    /// Top-left pixel of the cell.
    pub x: u32,
    pub y: u32,
    pub path: String,
    pub label: String,
    /// Why the model has no picture; `None` when it was drawn.
    pub error: Option<String>,
    /// Materials drawn with the fallback tile because their texture was not found.
    pub fallback_textures: usize,
    /// The model has no clip of the name asked for ([`SheetOptions::clip`]); drawn in its
    /// default pose.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub missing_clip: bool,
}

/// A drawn sheet and its cell map.
#[derive(Debug, Clone, Serialize)]
pub struct Sheet {
    #[serde(skip)]
    pub image: RgbaImage,
    pub cell: u32,
    pub columns: u32,
    pub rows: u32,
    pub cells: Vec<SheetCell>,
}

impl Sheet {
    pub fn failed(&self) -> usize {
        self.cells.iter().filter(|c| c.error.is_some()).count()
    }
}

/// Columns and rows for `count` cells: `columns` when given (at least 1), else the smallest
/// square that holds them all.
pub fn grid(count: usize, columns: Option<u32>) -> (u32, u32) {
    let count = u32::try_from(count).unwrap_or(u32::MAX).max(1);
    let columns = match columns {
        Some(c) => c.clamp(1, count),
        None => (1..=count).find(|c| c.saturating_mul(*c) >= count).unwrap_or(count),
    };
    (columns, count.div_ceil(columns))
}

/// The models under `dir` at any depth, in the order the viewer's tree and sheet view show
/// them ([`formats::listing`]): one per model (a TPW animation file goes with its base model
/// and gets no cell), each folder's own models before its sub-folders'.
pub fn models_under(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    Ok(formats::listing::models_under(dir)?.into_iter().map(|g| g.model).collect())
}

/// Sheet items for `paths`, labelled with their path below `root` (`/`-separated).
pub fn items_below(root: &Path, paths: Vec<PathBuf>) -> Vec<SheetItem> {
    paths
        .into_iter()
        .map(|path| {
            let label = path
                .strip_prefix(root)
                .ok()
                .filter(|p| !p.as_os_str().is_empty())
                .map(|p| p.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/"))
                .unwrap_or_else(|| path.display().to_string());
            SheetItem { label, path }
        })
        .collect()
}

/// The camera of a thumbnail: the posed model framed from the given angles in a square.
pub fn thumbnail_view(scene: &Scene, pose: &Pose, cell: u32, yaw_deg: f32, pitch_deg: f32) -> ViewParams {
    ViewParams::new([cell, cell], Camera::framing(&pose.bounds(scene), yaw_deg, pitch_deg, 1.0))
}

/// One model's picture on `renderer`, posed as [`sheet_pose`] says (by default the default
/// clip's first frame, else the rest pose), framed in a `view.size` image with the options'
/// overlays, lighting and textures. Replaces the renderer's loaded scene.
pub fn render_thumbnail(
    renderer: &mut Renderer,
    scene: &Scene,
    options: &SheetOptions,
) -> Result<(RgbaImage, SceneReport)> {
    let report = renderer.load_scene(scene);
    let (clip, time, _) = sheet_pose(scene, options);
    let mut pose = Pose::default();
    // Global-sequence tracks read the frame number too, as `render` poses them.
    pose.global_time = Some(options.frame.filter(|f| f.is_finite()).unwrap_or(0.0));
    pose.evaluate(scene, clip, time);
    let mut view = thumbnail_view(scene, &pose, options.cell, options.yaw_deg, options.pitch_deg);
    if options.zoom.is_finite() && options.zoom > 0.0 {
        view.camera.distance /= options.zoom;
    }
    view.background = options.background;
    view.overlays = options.overlays;
    view.lit = options.lit;
    view.textures = options.textures;
    view.flag_bits = options.flag_bits;
    // Billboard bones face this camera.
    pose.view_from_model = Some(view.camera.view_from_world());
    pose.evaluate(scene, clip, time);
    renderer.draw(scene, &pose, &view);
    let mut image = renderer.read_pixels()?;
    if view.background[3] <= 0.0 {
        unpremultiply(&mut image);
    }
    Ok((image, report))
}

/// Draws the sheet of `items` on `gpu`. `decode` turns an item into a scene (it runs on the
/// decode pool); `progress` is called on this thread with the number of cells done so far.
pub fn render_sheet<D>(
    gpu: &HeadlessGpu,
    items: &[SheetItem],
    decode: D,
    options: &SheetOptions,
    mut progress: impl FnMut(usize),
) -> Result<Sheet>
where
    D: Fn(&SheetItem) -> Result<Scene, String> + Sync,
{
    let cell = options.cell.max(16);
    let options = SheetOptions { cell, ..options.clone() };
    let (columns, rows) = grid(items.len(), options.columns);
    let bytes = u64::from(columns * cell) * u64::from(rows * cell) * 4;
    if bytes > MAX_SHEET_BYTES {
        bail!("a {columns}x{rows} sheet of {cell}-pixel cells needs {} MiB; use a smaller --cell", bytes >> 20);
    }
    let [r, g, b, a] = options.background.map(|c| (c.clamp(0.0, 1.0) * 255.0).round() as u8);
    let mut image = RgbaImage::from_pixel(columns * cell, rows * cell, Rgba([r, g, b, a]));
    let mut cells: Vec<SheetCell> = items
        .iter()
        .enumerate()
        .map(|(index, item)| {
            let (column, row) = ((index as u32) % columns, (index as u32) / columns);
            SheetCell {
                index,
                column,
                row,
                x: column * cell,
                y: row * cell,
                path: item.path.display().to_string(),
                label: item.label.clone(),
                error: None,
                fallback_textures: 0,
                missing_clip: false,
            }
        })
        .collect();

    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("mdview-sheet-decode-{i}"))
        .build()?;
    let mut renderer = gpu.renderer();
    std::thread::scope(|scope| -> Result<()> {
        let (sender, receiver) = mpsc::sync_channel::<(usize, Result<Scene, String>)>(threads * 2);
        let decode = &decode;
        let pool = &pool;
        scope.spawn(move || {
            pool.install(|| {
                items.par_iter().enumerate().for_each_with(sender, |sender, (index, item)| {
                    // A closed channel means the drawing side stopped; the rest is not needed.
                    let _ = sender.send((index, decode(item)));
                });
            });
        });
        for (done, (index, decoded)) in receiver.into_iter().enumerate() {
            let Some(cell_info) = cells.get_mut(index) else { continue };
            let picture = decoded.and_then(|scene| {
                cell_info.missing_clip = sheet_pose(&scene, &options).2;
                render_thumbnail(&mut renderer, &scene, &options).map_err(|e| format!("render: {e:#}"))
            });
            let mut tile = match picture {
                Ok((tile, report)) => {
                    cell_info.fallback_textures = report.fallback_count();
                    tile
                }
                Err(message) => {
                    cell_info.error = Some(message);
                    RgbaImage::from_pixel(cell, cell, Rgba(FAILED_CELL_COLOR))
                }
            };
            label_cell(&mut tile, &cell_info.label, cell_info.error.as_deref());
            image::imageops::replace(&mut image, &tile, i64::from(cell_info.x), i64::from(cell_info.y));
            progress(done + 1);
        }
        Ok(())
    })?;
    Ok(Sheet { image, cell, columns, rows, cells })
}

/// The label size for a cell: about a tenth of the cell, readable at 128 pixels.
pub fn label_size(cell: u32) -> f32 {
    (cell as f32 * 0.09).clamp(10.0, 18.0)
}

/// Writes the file name along the bottom of a cell on a darkened strip, and for a failed
/// model the error, wrapped, in red above it.
pub fn label_cell(tile: &mut RgbaImage, name: &str, error: Option<&str>) {
    let (width, height) = tile.dimensions();
    let size = label_size(width);
    let line = label::line_height(size).ceil();
    let margin = (size * 0.3).round();
    let strip = (line + margin).min(height as f32) as u32;
    let strip_top = height.saturating_sub(strip);
    label::shade_rect(tile, 0, strip_top, width, strip, [0, 0, 0, 255], 0.6);
    let max_width = width as f32 - 2.0 * margin;
    let shown = label::fit_text(name, size, max_width);
    let text_x = ((width as f32 - label::text_width(&shown, size)) * 0.5).max(margin);
    label::draw_text(tile, text_x, strip_top as f32 + margin * 0.5, size, NAME_COLOR, &shown);
    if let Some(error) = error {
        let lines = label::wrap_text(error, size, max_width);
        let fits = ((strip_top as f32 - margin) / line).floor().max(0.0) as usize;
        for (i, text) in lines.iter().take(fits).enumerate() {
            let text = if i + 1 == fits && lines.len() > fits {
                label::fit_text(&format!("{text}…"), size, max_width)
            } else {
                text.clone()
            };
            label::draw_text(tile, margin, margin + i as f32 * line, size, ERROR_COLOR, &text);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sheet poses each model as `render` poses one: the named clip where the model has it
    /// (its default pose, flagged, where not), a frame number counting from the clip's start,
    /// and by default the model's own default clip at its start.
    #[test]
    fn sheet_poses_follow_the_clip_and_frame_asked_for() {
        use crate::scene::{Clip, FormatKind, SceneKind};
        let clip = |name: &str, start: f32| Clip {
            name: name.into(),
            source: None,
            start,
            end: start + 10.0,
            rate: 10.0,
            channels: Vec::new(),
            tracks: Vec::new(),
            warnings: Vec::new(),
        };
        let mut scene = Scene::new(FormatKind::Quake2Md2, SceneKind::Mesh);
        scene.clips = vec![clip("stand", 0.0), clip("run", 40.0)];
        let with = |scene: &Scene, name: Option<&str>, frame: Option<f32>| {
            sheet_pose(scene, &SheetOptions { clip: name.map(String::from), frame, ..SheetOptions::default() })
        };
        assert_eq!(with(&scene, None, None), (None, 0.0, false), "no default clip: the rest pose");
        assert_eq!(with(&scene, Some("run"), Some(3.0)), (Some(1), 43.0, false));
        assert_eq!(with(&scene, None, Some(2.0)), (Some(0), 2.0, false), "a frame poses the first clip");
        assert_eq!(with(&scene, Some("jump"), None), (None, 0.0, true));
        assert_eq!(with(&scene, Some("jump"), Some(3.0)), (None, 0.0, true), "no frame of another clip");
        scene.default_clip = Some(1);
        assert_eq!(with(&scene, None, None), (Some(1), 40.0, false));
        assert_eq!(with(&scene, Some("jump"), None), (Some(1), 40.0, true));
        assert_eq!(with(&scene, Some("jump"), Some(3.0)), (Some(1), 40.0, true));
    }

    #[test]
    fn grids_are_square_unless_columns_are_given() {
        assert_eq!(grid(4, None), (2, 2));
        assert_eq!(grid(5, None), (3, 2));
        assert_eq!(grid(2300, None), (48, 48));
        assert_eq!(grid(1, None), (1, 1));
        assert_eq!(grid(0, None), (1, 1));
        assert_eq!(grid(10, Some(4)), (4, 3));
        assert_eq!(grid(3, Some(10)), (3, 1), "no empty columns");
        assert_eq!(grid(3, Some(0)), (1, 3));
    }

    #[test]
    fn animation_files_with_a_base_get_no_cell() {
        let dir = std::env::temp_dir().join(format!("mdview-sheet-models-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        // The animations as TPW animation files (grouping reads their headers).
        let clip = crate::writers::tpw::AnimFile::default().to_bytes();
        for name in ["gate.MD2", "gateM1.MD2", "lonelyM1.md2", "sub/gateM2.md2", "tank.m2", "notes.txt"] {
            std::fs::write(dir.join(name), if name.contains("M1") || name.contains("M2.") { &clip[..] } else { b"x" })
                .unwrap();
        }
        let names: Vec<String> = items_below(&dir, models_under(&dir).unwrap()).into_iter().map(|i| i.label).collect();
        // gateM1 hangs under gate; lonelyM1 and sub/gateM2 have no base beside them. The
        // folder's own models come before its sub-folder's.
        assert_eq!(names, ["gate.MD2", "lonelyM1.md2", "tank.m2", "sub/gateM2.md2"]);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn failed_cells_show_red_text_and_every_cell_a_name_strip() {
        let mut tile = RgbaImage::from_pixel(128, 128, Rgba([40, 40, 40, 255]));
        label_cell(&mut tile, "broken.md2", Some("tpw: mesh count at 0x10: 99999 meshes do not fit in 64 bytes"));
        let red = tile.pixels().filter(|p| p.0[0] > 150 && p.0[1] < 120).count();
        let white = tile.pixels().filter(|p| p.0[0] > 150 && p.0[1] > 150 && p.0[2] > 150).count();
        assert!(red > 50, "error text in red: {red} pixels");
        assert!(white > 20, "the name in white: {white} pixels");
        // The name strip is darker than the cell above it.
        assert!(tile.get_pixel(1, 126).0[0] < 40);
    }
}
