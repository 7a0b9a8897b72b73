//! The "Sheet" view: every model of the folder tree as a scrollable grid of thumbnails, under
//! a heading per sub-folder, in place of the 3D viewport; the models and their order are the
//! tree's, as `mdview render DIR --sheet` has them. Clicking a thumbnail opens that model in
//! the 3D view.
//!
//! Thumbnails are cached per file and modification time, so a model saved again is drawn
//! again and an unchanged one never is. The times are read on rayon's pool, never by the UI
//! thread, and read again every few seconds and whenever the folder is listed afresh. Models are decoded on rayon's pool; the UI thread
//! draws the decoded ones with a renderer of its own ([`crate::render::sheet::render_thumbnail`],
//! the same picture as a cell of `mdview render --sheet`) within a time budget per frame, so
//! the window stays responsive while a big folder fills in.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime};

use crate::render::Renderer;
use crate::render::sheet::{SheetOptions, render_thumbnail};
use crate::scene::Scene;

/// Thumbnail side in pixels.
pub const THUMBNAIL_PX: u32 = 160;
/// GPU time the UI thread spends on thumbnails per frame.
const FRAME_BUDGET: Duration = Duration::from_millis(40);
/// Thumbnails kept; the least recently shown go first beyond this (160² RGBA is 100 KiB).
const CACHE_CAPACITY: usize = 1500;
/// How long a file's modification time is trusted before it is read again.
const KEY_REFRESH: Duration = Duration::from_secs(3);

/// A model file as it was when its thumbnail was drawn.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ThumbnailKey {
    pub path: PathBuf,
    pub modified: Option<SystemTime>,
}

impl ThumbnailKey {
    /// The key of `path` as it is on disk now; a member of an archive takes the archive's
    /// modification time.
    pub fn of(path: &Path) -> ThumbnailKey {
        let modified = crate::formats::vfs::modified(path);
        ThumbnailKey { path: path.to_path_buf(), modified }
    }
}

/// Where one thumbnail stands.
#[derive(Clone)]
pub enum Thumbnail<T> {
    /// Asked for; decoding or waiting to be drawn.
    Pending,
    Ready(T),
    Failed(String),
}

/// Thumbnails by key, with the frame each was last shown in for eviction. Generic over the
/// picture so its rules are tested without a GPU.
pub struct ThumbnailCache<T> {
    entries: HashMap<ThumbnailKey, (Thumbnail<T>, u64)>,
    capacity: usize,
}

impl<T> ThumbnailCache<T> {
    pub fn new(capacity: usize) -> Self {
        Self { entries: HashMap::new(), capacity: capacity.max(1) }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The thumbnail of `key` if known, marking it shown in `frame`.
    pub fn get(&mut self, key: &ThumbnailKey, frame: u64) -> Option<&Thumbnail<T>> {
        let (thumbnail, shown) = self.entries.get_mut(key)?;
        *shown = frame;
        Some(thumbnail)
    }

    /// Records that `key` was asked for; `false` when it already was (or is done). Older
    /// versions of the same file are dropped: a file saved again is a new key.
    pub fn request(&mut self, key: &ThumbnailKey, frame: u64) -> bool {
        if self.entries.contains_key(key) {
            return false;
        }
        self.entries.retain(|k, _| k.path != key.path);
        self.entries.insert(key.clone(), (Thumbnail::Pending, frame));
        self.evict();
        true
    }

    /// Stores a finished thumbnail, unless its request was dropped meanwhile.
    pub fn finish(&mut self, key: &ThumbnailKey, thumbnail: Thumbnail<T>) {
        if let Some((slot, _)) = self.entries.get_mut(key) {
            *slot = thumbnail;
        }
    }

    pub fn pending(&self) -> usize {
        self.entries.values().filter(|(t, _)| matches!(t, Thumbnail::Pending)).count()
    }

    /// Drops the least recently shown finished thumbnails beyond the capacity.
    fn evict(&mut self) {
        let excess = self.entries.len().saturating_sub(self.capacity);
        if excess == 0 {
            return;
        }
        let mut done: Vec<(u64, ThumbnailKey)> = self
            .entries
            .iter()
            .filter(|(_, (t, _))| !matches!(t, Thumbnail::Pending))
            .map(|(k, (_, shown))| (*shown, k.clone()))
            .collect();
        done.sort_by_key(|(shown, _)| *shown);
        for (_, key) in done.into_iter().take(excess) {
            self.entries.remove(&key);
        }
    }
}

/// The sheet view's state: whether it is shown, the cache, and the work in flight.
pub struct SheetView {
    pub open: bool,
    pub cache: ThumbnailCache<egui::TextureHandle>,
    /// Keys the last UI pass showed without a thumbnail, in display order.
    wanted: Vec<ThumbnailKey>,
    sender: mpsc::Sender<(ThumbnailKey, Result<Scene, String>)>,
    receiver: mpsc::Receiver<(ThumbnailKey, Result<Scene, String>)>,
    /// Decoded scenes waiting for the GPU.
    decoded: Vec<(ThumbnailKey, Result<Scene, String>)>,
    renderer: Option<Renderer>,
    frame: u64,
    /// Each file's key as last read, when it was read, and whether a read is on its way.
    keys: HashMap<PathBuf, KnownKey>,
    key_sender: mpsc::Sender<ThumbnailKey>,
    key_receiver: mpsc::Receiver<ThumbnailKey>,
}

/// A file's [`ThumbnailKey`] as the sheet knows it.
struct KnownKey {
    key: Option<ThumbnailKey>,
    read_at: Instant,
    reading: bool,
}

impl Default for SheetView {
    fn default() -> Self {
        let (sender, receiver) = mpsc::channel();
        let (key_sender, key_receiver) = mpsc::channel();
        Self {
            open: false,
            cache: ThumbnailCache::new(CACHE_CAPACITY),
            wanted: Vec::new(),
            sender,
            receiver,
            decoded: Vec::new(),
            renderer: None,
            frame: 0,
            keys: HashMap::new(),
            key_sender,
            key_receiver,
        }
    }
}

impl SheetView {
    /// Whether thumbnails are still on their way (the window keeps redrawing until not).
    pub fn busy(&self) -> bool {
        self.open
            && (self.cache.pending() > 0 || !self.wanted.is_empty() || self.keys.values().any(|k| k.key.is_none()))
    }

    /// Forgets the files' times, so that each is read again (a folder listed afresh).
    pub fn forget_keys(&mut self) {
        self.keys.clear();
    }

    /// The key of `path` as last read; asks for it to be read (again) off the UI thread when
    /// unknown or older than [`KEY_REFRESH`]. `None` until first read.
    fn key_for(&mut self, path: &Path) -> Option<ThumbnailKey> {
        let known = self.keys.entry(path.to_path_buf()).or_insert_with(|| KnownKey {
            key: None,
            read_at: Instant::now(),
            reading: false,
        });
        if !known.reading && (known.key.is_none() || known.read_at.elapsed() > KEY_REFRESH) {
            known.reading = true;
            let sender = self.key_sender.clone();
            let path = path.to_path_buf();
            rayon::spawn(move || {
                let _ = sender.send(ThumbnailKey::of(&path));
            });
        }
        known.key.clone()
    }

    /// After the UI pass: starts decoding what it asked for, and draws decoded models into
    /// thumbnails until the frame's budget is spent.
    pub fn pump(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, sample_count: u32, ctx: &egui::Context) {
        self.frame += 1;
        for key in self.key_receiver.try_iter() {
            if let Some(known) = self.keys.get_mut(&key.path) {
                known.read_at = Instant::now();
                known.reading = false;
                known.key = Some(key);
            }
        }
        if !self.open {
            return;
        }
        for key in std::mem::take(&mut self.wanted) {
            if self.cache.request(&key, self.frame) {
                let sender = self.sender.clone();
                rayon::spawn(move || {
                    // A panic in a decoder (a bug: decoders return errors) would abort the whole
                    // viewer from a rayon task; it becomes this thumbnail's error, as in the loader.
                    let opened = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        crate::formats::open(&key.path).map_err(|e| e.reason())
                    }));
                    let scene = opened.unwrap_or_else(|_| Err("the decoder crashed; please report this file".into()));
                    let _ = sender.send((key, scene));
                });
            }
        }
        self.decoded.extend(self.receiver.try_iter());
        let started = Instant::now();
        let renderer = self.renderer.get_or_insert_with(|| Renderer::with_sample_count(device, queue, sample_count));
        let options = SheetOptions { cell: THUMBNAIL_PX, ..SheetOptions::default() };
        while started.elapsed() < FRAME_BUDGET && !self.decoded.is_empty() {
            let (key, decoded) = self.decoded.remove(0);
            let drawn =
                decoded.and_then(|scene| render_thumbnail(renderer, &scene, &options).map_err(|e| format!("{e:#}")));
            let thumbnail = match drawn {
                Ok((image, _)) => {
                    let size = [image.width() as usize, image.height() as usize];
                    let pixels = egui::ColorImage::from_rgba_unmultiplied(size, image.as_raw());
                    let name = format!("thumbnail {}", key.path.display());
                    Thumbnail::Ready(ctx.load_texture(name, pixels, egui::TextureOptions::LINEAR))
                }
                Err(message) => Thumbnail::Failed(message),
            };
            self.cache.finish(&key, thumbnail);
        }
        if self.busy() || !self.decoded.is_empty() {
            ctx.request_repaint_after(Duration::from_millis(30));
        }
    }
}

/// One band of the sheet: a folder's heading, or a row of its thumbnails.
enum Band {
    Heading(String),
    Cells(Vec<usize>),
}

/// The bands for the entries the filter shows: a heading where the folder changes, then the
/// folder's thumbnails `columns` to a row. A folder with no models below its own has no
/// heading: the folder panel names it.
fn bands(folder: &super::state::Folder, columns: usize) -> Vec<Band> {
    let mut bands = Vec::new();
    let flat = folder.entries.iter().all(|e| e.folder.is_empty());
    let mut shown: Option<&str> = None;
    for index in folder.visible() {
        let Some(entry) = folder.entries.get(index) else { continue };
        if !flat && shown != Some(entry.folder.as_str()) {
            let root = super::file_name(&folder.dir);
            let heading = if entry.folder.is_empty() { format!("{root}/") } else { format!("{}/", entry.folder) };
            bands.push(Band::Heading(heading));
            shown = Some(entry.folder.as_str());
        }
        match bands.last_mut() {
            Some(Band::Cells(row)) if row.len() < columns => row.push(index),
            _ => bands.push(Band::Cells(vec![index])),
        }
    }
    bands
}

/// The central area in sheet mode: the folder's visible models as a grid of thumbnails, under
/// a heading per folder. Only the bands in view are drawn.
pub fn sheet_ui(ui: &mut egui::Ui, viewer: &mut super::Viewer) {
    use egui::{Color32, RichText, Sense, Vec2};
    egui::CentralPanel::default().show(ui, |ui| {
        let Some(folder) = &viewer.session.folder else {
            ui.weak("Open a folder to see its models as a sheet.");
            return;
        };
        let current = viewer.session.doc.as_ref().map(|d| d.path.clone());
        let ppp = ui.ctx().pixels_per_point();
        let side = THUMBNAIL_PX as f32 / ppp;
        let label_height = ui.text_style_height(&egui::TextStyle::Small) + 4.0;
        let heading_height = ui.text_style_height(&egui::TextStyle::Body) + 8.0;
        let spacing = ui.spacing().item_spacing;
        let columns = (((ui.available_width() + spacing.x) / (side + spacing.x)).floor() as usize).max(1);
        let bands = bands(folder, columns);
        if bands.is_empty() {
            ui.weak(if folder.complete { "No model matches the filter." } else { "Listing…" });
            return;
        }
        let cell_height = side + label_height + spacing.y;
        let tops: Vec<f32> = bands
            .iter()
            .scan(0.0, |y, band| {
                let top = *y;
                *y += match band {
                    Band::Heading(_) => heading_height,
                    Band::Cells(_) => cell_height,
                };
                Some(top)
            })
            .collect();
        let total = tops.last().copied().unwrap_or(0.0) + cell_height;
        let entries = &folder.entries;
        let sheet = &mut viewer.sheet;
        let frame = sheet.frame;
        let mut open = None;
        egui::ScrollArea::vertical().auto_shrink([false, false]).show_viewport(ui, |ui, viewport| {
            ui.set_height(total);
            let origin = ui.max_rect().min;
            let width = ui.max_rect().width();
            for (band, top) in bands.iter().zip(&tops) {
                let height = match band {
                    Band::Heading(_) => heading_height,
                    Band::Cells(_) => cell_height,
                };
                if *top + height < viewport.min.y || *top > viewport.max.y {
                    continue;
                }
                let rect = egui::Rect::from_min_size(origin + Vec2::new(0.0, *top), Vec2::new(width, height));
                let cells = match band {
                    Band::Heading(text) => {
                        let colour = ui.visuals().strong_text_color();
                        let font = egui::TextStyle::Body.resolve(ui.style());
                        let at = rect.left_bottom() + Vec2::new(2.0, -4.0);
                        ui.painter().text(at, egui::Align2::LEFT_BOTTOM, format!("🗀 {text}"), font, colour);
                        continue;
                    }
                    Band::Cells(cells) => cells,
                };
                for (column, index) in cells.iter().enumerate() {
                    let Some(entry) = entries.get(*index) else { continue };
                    let path = &entry.path;
                    let min = rect.min + Vec2::new(column as f32 * (side + spacing.x), 0.0);
                    let cell = egui::Rect::from_min_size(min, Vec2::new(side, side + label_height));
                    let response = ui.interact(cell, ui.scope_id().with(("sheet cell", *index)), Sense::click());
                    let picture = egui::Rect::from_min_size(cell.min, Vec2::splat(side));
                    let painter = ui.painter_at(cell);
                    let key = sheet.key_for(path);
                    let thumbnail = key.as_ref().and_then(|k| sheet.cache.get(k, frame));
                    match thumbnail {
                        Some(Thumbnail::Ready(texture)) => {
                            let uv = egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0));
                            painter.image(texture.id(), picture, uv, Color32::WHITE);
                        }
                        Some(Thumbnail::Failed(message)) => {
                            painter.rect_filled(picture, 2.0, Color32::from_rgb(60, 20, 20));
                            let galley = painter.layout(
                                message.clone(),
                                egui::FontId::proportional(10.0),
                                Color32::from_rgb(255, 110, 100),
                                side - 8.0,
                            );
                            painter.galley(picture.min + Vec2::splat(4.0), galley, Color32::WHITE);
                        }
                        Some(Thumbnail::Pending) | None => {
                            painter.rect_filled(picture, 2.0, Color32::from_gray(45));
                            egui::Spinner::new()
                                .paint_at(ui, egui::Rect::from_center_size(picture.center(), Vec2::splat(20.0)));
                            if let Some(key) = key {
                                sheet.wanted.push(key);
                            }
                        }
                    }
                    let selected = current.as_deref() == Some(path.as_path());
                    if selected || response.hovered() {
                        let colour = if selected { Color32::from_rgb(90, 160, 255) } else { Color32::from_gray(160) };
                        painter.rect_stroke(picture, 2.0, egui::Stroke::new(2.0, colour), egui::StrokeKind::Inside);
                    }
                    let label_rect = egui::Rect::from_min_size(picture.left_bottom(), Vec2::new(side, label_height));
                    ui.put(label_rect, egui::Label::new(RichText::new(&entry.name).small()).truncate());
                    if response.on_hover_text(entry.relative_path()).clicked() {
                        open = Some(path.clone());
                    }
                }
            }
        });
        if let Some(path) = open {
            viewer.sheet.open = false;
            viewer.actions.push(super::Action::Open(path));
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(name: &str, secs: u64) -> ThumbnailKey {
        ThumbnailKey { path: PathBuf::from(name), modified: Some(SystemTime::UNIX_EPOCH + Duration::from_secs(secs)) }
    }

    #[test]
    fn a_thumbnail_is_requested_once_per_file_version() {
        let mut cache: ThumbnailCache<u32> = ThumbnailCache::new(10);
        assert!(cache.request(&key("a.md2", 1), 0));
        assert!(!cache.request(&key("a.md2", 1), 1), "asked for already");
        cache.finish(&key("a.md2", 1), Thumbnail::Ready(7));
        assert!(matches!(cache.get(&key("a.md2", 1), 2), Some(Thumbnail::Ready(7))));
        assert!(!cache.request(&key("a.md2", 1), 3), "drawn already");
        // Saved again: a new key, and the old picture is dropped.
        assert!(cache.get(&key("a.md2", 2), 4).is_none());
        assert!(cache.request(&key("a.md2", 2), 4));
        assert!(cache.get(&key("a.md2", 1), 5).is_none());
        assert_eq!(cache.len(), 1);
        assert_eq!(cache.pending(), 1);
    }

    #[test]
    fn the_least_recently_shown_go_first() {
        let mut cache: ThumbnailCache<u32> = ThumbnailCache::new(2);
        for (i, name) in ["a", "b"].iter().enumerate() {
            cache.request(&key(name, 0), i as u64);
            cache.finish(&key(name, 0), Thumbnail::Ready(i as u32));
        }
        cache.get(&key("a", 0), 5);
        cache.request(&key("c", 0), 6);
        assert!(cache.get(&key("b", 0), 7).is_none(), "b was shown longest ago");
        assert!(cache.get(&key("a", 0), 7).is_some());
        assert_eq!(cache.len(), 2);
    }

    #[test]
    fn a_finish_for_a_dropped_request_is_ignored() {
        let mut cache: ThumbnailCache<u32> = ThumbnailCache::new(4);
        cache.request(&key("a", 1), 0);
        cache.request(&key("a", 2), 1);
        cache.finish(&key("a", 1), Thumbnail::Failed("old".into()));
        assert!(cache.get(&key("a", 1), 2).is_none());
        assert!(matches!(cache.get(&key("a", 2), 2), Some(Thumbnail::Pending)));
    }

    #[test]
    fn the_sheet_has_a_heading_per_folder_and_rows_of_its_models() {
        let files = ["/g/top.md2", "/g/a/one.md2", "/g/a/two.md2", "/g/a/three.md2", "/g/b/c/four.m2"];
        let folder = crate::app::state::Folder::from_files(Path::new("/g"), files.iter().map(PathBuf::from).collect());
        let shown: Vec<String> = bands(&folder, 2)
            .iter()
            .map(|band| match band {
                Band::Heading(text) => text.clone(),
                Band::Cells(cells) => {
                    cells.iter().map(|&i| folder.entries[i].name.as_str()).collect::<Vec<_>>().join(" ")
                }
            })
            .collect();
        assert_eq!(shown, ["g/", "top.md2", "a/", "one.md2 three.md2", "two.md2", "b/c/", "four.m2"]);
        // A folder with no sub-folders needs no heading.
        let flat = crate::app::state::Folder::from_files(Path::new("/g"), vec![PathBuf::from("/g/x.md2")]);
        assert!(matches!(bands(&flat, 4).as_slice(), [Band::Cells(cells)] if cells == &[0]));
    }

    #[test]
    fn keys_follow_the_modification_time() {
        let dir = std::env::temp_dir().join(format!("mdview-thumbkey-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("m.md2");
        std::fs::write(&path, b"one").unwrap();
        let first = ThumbnailKey::of(&path);
        assert!(first.modified.is_some());
        let later = std::fs::File::options().write(true).open(&path).unwrap();
        later.set_modified(SystemTime::now() + Duration::from_secs(60)).unwrap();
        assert_ne!(ThumbnailKey::of(&path), first);
        assert_eq!(ThumbnailKey::of(&dir.join("missing.md2")).modified, None);
        std::fs::remove_dir_all(&dir).ok();
    }
}
