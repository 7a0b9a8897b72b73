//! The viewer's state that needs no window: the folder list (stepping, filtering, TPW sibling
//! grouping) and what is open; the timeline lives in [`super::playback`], recent files and
//! the remembered install in [`super::settings`], a park's clock in [`super::park`].
//! Everything here is plain data with pure methods, so it is tested without a GPU or a display.

use std::path::{Path, PathBuf};

use super::listing::{TreeListing, Wake};
use super::loader::Loaded;
use crate::archive::one_line;
use crate::formats::assets::io_wording;
use crate::formats::group_models;
use crate::info::Summary;
use crate::scene::{Scene, anim::Pose};

fn name_of(path: &Path) -> String {
    path.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
}

/// One model in the folder tree; TPW animation files (`<base>M<n>.md2`) hang under their base.
#[derive(Debug, Clone, PartialEq)]
pub struct FolderEntry {
    pub path: PathBuf,
    pub name: String,
    /// Sibling animation files, sorted by their number.
    pub animations: Vec<PathBuf>,
    /// The folder it is in, below the browsed folder, `/`-separated (`""` at its top).
    pub folder: String,
}

impl FolderEntry {
    /// Its path below the browsed folder (`players/male/tris.md2`), which the filter searches.
    pub fn relative_path(&self) -> String {
        if self.folder.is_empty() { self.name.clone() } else { format!("{}/{}", self.folder, self.name) }
    }
}

/// The models under one folder, at any depth, as a tree in display order
/// ([`crate::formats::listing`]: each folder's own models, then its sub-folders and archives
/// by name), with a filter and the current position. A folder browsed in the viewer is
/// listed in the background ([`Folder::browse`]) and fills in folder by folder.
#[derive(Debug, Default)]
pub struct Folder {
    pub dir: PathBuf,
    pub entries: Vec<FolderEntry>,
    /// Case-insensitive substring of the path below `dir` that limits which entries are
    /// shown and stepped through.
    pub filter: String,
    /// Index into `entries` of the model on screen (or being loaded).
    pub current: Option<usize>,
    /// Whether the whole tree is listed (a browsed folder fills in as it is listed).
    pub complete: bool,
    /// What could not be listed, by the folder it is in (below `dir`).
    pub problems: Vec<(String, String)>,
    /// Why `dir` itself could not be listed.
    pub error: Option<String>,
    /// The model to mark current once the listing reaches it.
    wanted: Option<PathBuf>,
    listing: Option<TreeListing>,
    /// Which listing this is: a folder listed again is another, even with as many entries.
    pub generation: u64,
}

/// The last [`Folder::generation`] given out.
static GENERATION: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

fn next_generation() -> u64 {
    GENERATION.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1
}

impl Folder {
    /// Lists every model under `dir` now, at any depth (a `.wad` archive is a folder, and so
    /// is each archive inside `dir`).
    pub fn scan(dir: &Path) -> std::io::Result<Folder> {
        let listed = crate::formats::listing::list(dir)?;
        let mut folder =
            Folder { dir: dir.to_path_buf(), complete: true, generation: next_generation(), ..Folder::default() };
        folder.add(listed);
        Ok(folder)
    }

    /// Starts listing `dir` in the background: the folder is empty at first and fills in as
    /// [`Folder::poll`] takes what the listing found; `wake` is called when there is some.
    pub fn browse(dir: &Path, wake: Option<Wake>) -> Folder {
        Folder {
            dir: dir.to_path_buf(),
            listing: Some(TreeListing::start(dir, wake)),
            generation: next_generation(),
            ..Folder::default()
        }
    }

    /// Takes what the background listing found since the last call; whether anything changed.
    pub fn poll(&mut self) -> bool {
        let Some(listing) = &self.listing else { return false };
        let polled = listing.poll();
        let changed = !polled.folders.is_empty() || polled.finished.is_some();
        self.add(polled.folders);
        if let Some(finished) = polled.finished {
            self.complete = true;
            self.error = finished.err();
            self.listing = None;
        }
        changed
    }

    /// Waits for the background listing to end (tests and scripted runs).
    pub fn wait(&mut self) {
        if let Some(listing) = self.listing.take() {
            let polled = listing.wait();
            self.add(polled.folders);
            self.complete = true;
            self.error = polled.finished.and_then(Result::err);
        }
    }

    fn add(&mut self, folders: Vec<crate::formats::listing::ListedFolder>) {
        for listed in folders {
            self.problems.extend(listed.problems.into_iter().map(|p| (listed.relative.clone(), p)));
            self.entries.extend(listed.models.into_iter().map(|group| FolderEntry {
                name: name_of(&group.model),
                path: group.model,
                animations: group.animations,
                folder: listed.relative.clone(),
            }));
        }
        if self.current.is_none()
            && let Some(wanted) = self.wanted.clone()
        {
            self.current = self.index_of(&wanted);
            if self.current.is_some() {
                self.wanted = None;
            }
        }
    }

    /// The directory of `path` inside this folder (`""` at its top), `/`-separated.
    pub fn subdir_of(&self, path: &Path) -> String {
        path.strip_prefix(&self.dir)
            .ok()
            .and_then(Path::parent)
            .map(|p| p.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/"))
            .unwrap_or_default()
    }

    /// Groups `files` (anywhere under `dir`) into entries, in the tree's order: an animation
    /// file whose base model is beside it goes under that model; an animation without its
    /// base stays a normal entry so it can still be opened (and reports what it needs).
    pub fn from_files(dir: &Path, files: Vec<PathBuf>) -> Folder {
        let mut folder =
            Folder { dir: dir.to_path_buf(), complete: true, generation: next_generation(), ..Folder::default() };
        let mut entries: Vec<FolderEntry> = group_models(files)
            .into_iter()
            .map(|group| FolderEntry {
                name: name_of(&group.model),
                folder: folder.subdir_of(&group.model),
                path: group.model,
                animations: group.animations,
            })
            .collect();
        // A folder's own models (already in name order) before its sub-folders'.
        entries.sort_by_cached_key(|e| {
            let mut key: Vec<(u8, String)> =
                e.folder.split('/').filter(|c| !c.is_empty()).map(|c| (1, c.to_lowercase())).collect();
            key.push((0, String::new()));
            key
        });
        folder.entries = entries;
        folder
    }

    /// Whether entry `index` passes the filter: a fragment of its path below the folder
    /// (`/` or `\` between folders), or of one of its animations' names.
    pub fn matches(&self, index: usize) -> bool {
        let Some(entry) = self.entries.get(index) else { return false };
        let needle = self.filter.trim().replace('\\', "/").to_lowercase();
        needle.is_empty()
            || entry.relative_path().to_lowercase().contains(&needle)
            || entry.animations.iter().any(|a| name_of(a).to_lowercase().contains(&needle))
    }

    /// Indices of the entries the filter lets through, in list order.
    pub fn visible(&self) -> Vec<usize> {
        (0..self.entries.len()).filter(|&i| self.matches(i)).collect()
    }

    /// The entry `delta` visible steps away from the current one, stopping at either end.
    /// With no current entry (or one the filter hides), stepping forward starts at the first
    /// visible entry after the current position and backward at the last one before it; with
    /// none that way, there is no step (never one the other way).
    pub fn step(&self, delta: i32) -> Option<usize> {
        let visible = self.visible();
        if visible.is_empty() || delta == 0 {
            return self.current.filter(|c| visible.contains(c));
        }
        let position = self.current.and_then(|c| visible.iter().position(|&v| v == c));
        let target = match position {
            Some(p) => (p as i64 + i64::from(delta)).clamp(0, visible.len() as i64 - 1) as usize,
            None => match self.current {
                None if delta > 0 => 0,
                None => visible.len() - 1,
                // On an entry the filter hides: the nearest visible one in the stepping direction.
                Some(here) if delta > 0 => visible.iter().position(|&v| v > here)?,
                Some(here) => visible.iter().rposition(|&v| v < here)?,
            },
        };
        visible.get(target).copied()
    }

    /// The entry holding `path`, as the model itself or as one of its animations: the same
    /// path, else (rarely: a path spelled another way) the same file on disk.
    pub fn index_of(&self, path: &Path) -> Option<usize> {
        let holds =
            |e: &FolderEntry, same: &dyn Fn(&Path) -> bool| same(&e.path) || e.animations.iter().any(|a| same(a));
        self.entries.iter().position(|e| holds(e, &|p| p == path)).or_else(|| {
            let same = |p: &Path| p.file_name() == path.file_name() && same_file(p, path);
            self.entries.iter().position(|e| holds(e, &same))
        })
    }

    /// The entry whose model is `path` as spelt (no file system call: for every frame).
    pub fn entry_of(&self, path: &Path) -> Option<&FolderEntry> {
        self.entries.iter().find(|e| e.path == path)
    }

    pub fn current_entry(&self) -> Option<&FolderEntry> {
        self.current.and_then(|c| self.entries.get(c))
    }
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

pub use super::playback::{MAX_SPEED, MILLISECOND_STEP, MIN_SPEED, PlayMode, TimeUnit, Timeline};

pub use super::settings::{RECENT_LIMIT, Recent};

/// The model on screen, with its animation state.
pub struct Document {
    pub path: PathBuf,
    pub scene: Scene,
    pub summary: Summary,
    /// The clip playing (or paused), if any.
    pub clip: Option<usize>,
    pub timeline: Timeline,
    pub pose: Pose,
    /// The node selected in the tree, highlighted in the viewport.
    pub selected: Option<usize>,
    /// For a scene with layers (a park), the one clock they all play on; the scene plays
    /// them while no single clip is chosen.
    pub layers: Option<super::park::LayerClock>,
    /// The model hung on a Quake 3 player's `tag_weapon` (asked again on every reopen).
    pub weapon: Option<PathBuf>,
}

impl Document {
    /// Opens on the file's own clip (an animation file), else the first sibling animation,
    /// playing, so that a model with animations shows them at once.
    pub fn new(path: PathBuf, scene: Scene, summary: Summary) -> Document {
        let clip = scene.first_clip();
        let pose = Pose::rest(&scene);
        let layers = (!scene.layers.is_empty()).then(|| super::park::LayerClock::new(&scene));
        let mut doc = Document {
            path,
            scene,
            summary,
            clip: None,
            timeline: Timeline::default(),
            pose,
            selected: None,
            layers,
            weapon: None,
        };
        doc.play_clip(clip);
        doc
    }

    /// Switches to `clip` (or the rest pose), from its start, playing; keeps speed and mode.
    pub fn play_clip(&mut self, clip: Option<usize>) {
        let (speed, mode, global_time) = (self.timeline.speed, self.timeline.mode, self.timeline.global_time);
        let found = clip.and_then(|c| self.scene.clips.get(c));
        // The rest pose of a scene with global-sequence channels (M2) keeps them moving, on a
        // clock in milliseconds as its clips are.
        let global_only = found.is_none() && !self.scene.global_channels.is_empty();
        self.timeline = match found {
            Some(c) => Timeline::new(c.start, c.end, c.rate),
            None if global_only => Timeline::new(0.0, 0.0, crate::scene::MILLISECONDS_PER_SECOND),
            None => Timeline::default(),
        };
        self.timeline.global_time = global_time;
        self.timeline.speed = speed;
        self.timeline.mode = mode;
        self.timeline.wrap = found.map_or(0.0, crate::scene::Clip::loop_blend);
        self.timeline.playing =
            found.is_some_and(|c| c.length() > 0.0) || global_only || self.scene.moves_on_global_clock();
        self.clip = found.and(clip);
        self.update_pose();
    }

    /// Shows the scene's "as built" pose: its construction clip, paused on the last frame.
    pub fn show_as_built(&mut self) {
        if let Some(clip) = self.scene.as_built {
            self.play_clip(Some(clip));
            self.timeline.playing = false;
            self.timeline.to_end();
            self.update_pose();
        }
    }

    /// Re-evaluates the pose at the timeline's time.
    pub fn update_pose(&mut self) {
        self.pose.global_time = Some(self.timeline.global_time);
        self.pose.looping = self.timeline.mode == PlayMode::Loop;
        if self.clip.is_none()
            && let Some(clock) = &self.layers
        {
            clock.evaluate(&self.scene, &mut self.pose);
            return;
        }
        self.pose.evaluate(&self.scene, self.clip, self.timeline.time);
        // A spinning item (Quake's EF_ROTATE) turns with the global clock, in seconds.
        if let Some(degrees_per_sec) = self.scene.spin_degrees_per_sec {
            let secs = self.timeline.global_time / self.timeline.fps;
            self.pose.turn_about_up((secs * degrees_per_sec).rem_euclid(360.0).to_radians());
        }
    }

    /// The layer clock, while it drives the pose (no single clip chosen).
    pub fn layered(&self) -> Option<&super::park::LayerClock> {
        self.layers.as_ref().filter(|_| self.clip.is_none())
    }

    /// Whether anything moves on its own: the layer clock or the timeline.
    pub fn is_playing(&self) -> bool {
        self.layered().map_or(self.timeline.playing, |clock| clock.playing)
    }

    /// Moves playback on by `dt` seconds of wall time.
    pub fn advance(&mut self, dt: f32) {
        self.timeline.advance(dt);
        if self.clip.is_none()
            && let Some(clock) = &mut self.layers
        {
            clock.advance(dt);
        }
    }

    /// Total vertex and triangle counts, for the status line.
    pub fn counts(&self) -> (usize, usize) {
        let vertices = self.scene.meshes.iter().map(|m| m.vertex_count()).sum();
        let triangles = self.scene.meshes.iter().map(|m| m.triangles.len()).sum();
        (vertices, triangles)
    }
}

/// What applying a loader result did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applied {
    /// The new model replaced the old one.
    Opened,
    /// The same model came back with other picks (skin profile, texture); the clip, time and
    /// selection carried over.
    Reopened,
    /// The file could not be opened; the previous model stays and `error` says why.
    Failed,
    /// A newer request is pending; this result was dropped.
    Stale,
}

/// Everything the viewer shows apart from GPU resources and widgets.
#[derive(Default)]
pub struct Session {
    pub doc: Option<Document>,
    pub folder: Option<Folder>,
    pub recent: Recent,
    /// Why the last open failed; cleared by the next successful open.
    pub error: Option<String>,
    /// The request in flight: its id and path.
    pub pending: Option<(u64, PathBuf)>,
    /// A folder was opened while its listing had no model yet: its first model opens when
    /// one arrives ([`Session::poll_listing`]).
    pub open_first_listed: bool,
}

impl Session {
    /// Works out which file to load for `path`: a folder is listed whole (every model under it)
    /// and browsed from its first model; a file is loaded with its folder listed around it,
    /// unless the folder browsed already holds it. An animation file opens its base model
    /// (playing that animation) when the base is beside it. Errors are for the UI.
    pub fn target_for(&mut self, path: &Path) -> Result<PathBuf, String> {
        match self.target(path, None)? {
            Some(file) => Ok(file),
            None => self.first_listed().unwrap_or_else(|| Err(format!("{}: still listing", path.display()))),
        }
    }

    /// As [`Session::target_for`], listing folders in the background (the viewer): `None`
    /// while a folder's listing has no model yet, whose first model [`Session::poll_listing`]
    /// then gives.
    pub fn open_lazily(&mut self, path: &Path, wake: Wake) -> Result<Option<PathBuf>, String> {
        self.target(path, Some(wake))
    }

    /// Takes what the background listing found; when the folder was just opened, its first
    /// model once listed (or, when the listing ends with none, why there is nothing to open).
    pub fn poll_listing(&mut self) -> Option<Result<PathBuf, String>> {
        self.folder.as_mut()?.poll();
        self.first_listed()
    }

    fn target(&mut self, path: &Path, lazy: Option<Wake>) -> Result<Option<PathBuf>, String> {
        self.open_first_listed = false;
        // A Quake 3 player folder opens as one model, with the folder above it browsed.
        if crate::formats::md3::player::is_player_folder(path) {
            let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
            let listing_it = self.folder.as_ref().is_some_and(|f| f.dir == dir);
            if !listing_it {
                self.folder = match lazy {
                    Some(wake) => Some(Folder::browse(dir, Some(wake))),
                    None => Folder::scan(dir).ok(),
                };
            }
            self.set_current(path);
            return Ok(Some(path.to_path_buf()));
        }
        // A `.wad` archive is browsed like a folder; a member of one lists the whole archive.
        if path.is_dir() || crate::formats::vfs::is_archive(path) {
            let folder = match lazy {
                Some(wake) => Folder::browse(path, Some(wake)),
                None => Folder::scan(path).map_err(|e| {
                    format!("{}: cannot list the folder: {}", one_line(&path.display().to_string()), io_wording(&e))
                })?,
            };
            self.folder = Some(folder);
            self.open_first_listed = true;
            return match self.first_listed() {
                Some(Ok(first)) => Ok(Some(first)),
                Some(Err(e)) => Err(e),
                None => Ok(None),
            };
        }
        if !crate::formats::vfs::is_file(path) {
            return Err(format!("{}: no such file", path.display()));
        }
        let in_folder = self
            .folder
            .as_ref()
            .is_some_and(|f| f.entries.iter().any(|e| e.path == path || e.animations.iter().any(|a| a == path)));
        if !in_folder {
            let dir = match (crate::formats::wad::path::split_member_path(path), path.parent()) {
                (Some(member), _) => member.archive,
                (None, Some(d)) if !d.as_os_str().is_empty() => d.to_path_buf(),
                _ => PathBuf::from("."),
            };
            // The folder still being listed may not have reached the file yet; a listed one
            // that lacks it is listed again (the file is new).
            let listing_it = self.folder.as_ref().is_some_and(|f| f.dir == dir && !f.complete);
            if !listing_it {
                self.folder = match lazy {
                    Some(wake) => Some(Folder::browse(&dir, Some(wake))),
                    None => Folder::scan(&dir).ok(),
                };
            }
        }
        self.set_current(path);
        Ok(Some(path.to_path_buf()))
    }

    /// The first model of a folder just opened, once the listing has one; why there is none
    /// once the listing has ended without one.
    fn first_listed(&mut self) -> Option<Result<PathBuf, String>> {
        if !self.open_first_listed {
            return None;
        }
        let folder = self.folder.as_mut()?;
        if let Some(first) = folder.visible().first().copied()
            && let Some(path) = folder.entries.get(first).map(|e| e.path.clone())
        {
            folder.current = Some(first);
            self.open_first_listed = false;
            self.recent.add_folder(&folder.dir);
            return Some(Ok(path));
        }
        if !folder.complete {
            return None;
        }
        self.open_first_listed = false;
        let why = folder.error.clone().unwrap_or_else(|| {
            format!(
                "{}: no models here or in any folder below (looking for .{})",
                folder.dir.display(),
                crate::formats::MODEL_EXTENSIONS.join(", .")
            )
        });
        Some(Err(why))
    }

    fn set_current(&mut self, path: &Path) {
        if let Some(folder) = &mut self.folder {
            folder.current = folder.index_of(path);
            folder.wanted = folder.current.is_none().then(|| path.to_path_buf());
        }
    }

    /// The file `delta` models away in the folder, marking it current.
    pub fn step(&mut self, delta: i32) -> Option<PathBuf> {
        let folder = self.folder.as_mut()?;
        let next = folder.step(delta)?;
        if Some(next) == folder.current {
            return None;
        }
        folder.current = Some(next);
        folder.entries.get(next).map(|e| e.path.clone())
    }

    /// Whether the open model may be reopened with other picks (a skin, a texture) now: not
    /// while another file is loading to replace it (stepping on with PageDown), as the reopen
    /// would supersede that load and the model would not change.
    pub fn may_reopen(&self) -> bool {
        match (&self.pending, &self.doc) {
            (Some((_, loading)), Some(doc)) => *loading == doc.path,
            (Some(_), None) => false,
            (None, _) => true,
        }
    }

    /// Notes that request `id` for `path` is in flight.
    pub fn begin(&mut self, id: u64, path: PathBuf) {
        self.pending = Some((id, path));
    }

    /// Takes a loader result: a success replaces the document, a failure keeps it and records
    /// the error, and a result older than the newest request is dropped.
    pub fn apply(&mut self, loaded: Loaded) -> Applied {
        if self.pending.as_ref().is_some_and(|(id, _)| loaded.id < *id) {
            return Applied::Stale;
        }
        self.pending = None;
        match loaded.result {
            Ok(boxed) => {
                let (scene, summary) = *boxed;
                self.error = None;
                let previous = self.doc.take().filter(|d| loaded.reopen && d.path == loaded.path);
                let mut doc = Document::new(loaded.path, scene, summary);
                doc.weapon = loaded.weapon;
                let Some(previous) = previous else {
                    // A model of the folder browsed: that folder is the one to reopen, not
                    // the sub-folder the model sits in.
                    let browsed =
                        self.folder.as_ref().filter(|f| f.index_of(&doc.path).is_some()).map(|f| f.dir.clone());
                    match browsed {
                        Some(root) => self.recent.add_browsed_file(&doc.path, &root),
                        None => self.recent.add_file(&doc.path),
                    }
                    self.doc = Some(doc);
                    return Applied::Opened;
                };
                // Clips of the same model keep their names whatever the picks.
                let clip_name = previous.clip.and_then(|c| previous.scene.clips.get(c)).map(|c| c.name.clone());
                doc.clip = clip_name.and_then(|name| doc.scene.clips.iter().position(|c| c.name == name));
                // The rest pose of a model with global-sequence channels plays too.
                let playing =
                    previous.timeline.playing && (doc.clip.is_some() || !doc.scene.global_channels.is_empty());
                doc.timeline = previous.timeline;
                doc.timeline.playing = playing;
                // A park reopened with its install may hold other nodes: the selection stays
                // only where it is still the same item.
                let part_name = |scene: &Scene, node: usize| {
                    scene.part_of_node(node).and_then(|p| scene.parts.get(p)).map(|p| p.name.clone())
                };
                doc.selected = previous
                    .selected
                    .filter(|&n| n < doc.scene.nodes.len())
                    .filter(|&n| part_name(&previous.scene, n) == part_name(&doc.scene, n));
                // Layers the user switched to other clips (a player's torso and legs) keep them,
                // where the same clip is there by the same name.
                let clip_name =
                    |scene: &Scene, clip: Option<usize>| clip.and_then(|c| scene.clips.get(c)).map(|c| c.name.clone());
                let clip_names: Vec<Option<String>> =
                    previous.scene.layers.iter().map(|before| clip_name(&doc.scene, before.clip)).collect();
                for ((layer, before), name) in doc.scene.layers.iter_mut().zip(&previous.scene.layers).zip(clip_names) {
                    let same = (&layer.name, &layer.choices, layer.part)
                        == (&before.name, &before.choices, before.part)
                        && name == clip_name(&previous.scene, before.clip);
                    if same && !before.choices.is_empty() {
                        *layer = before.clone();
                    }
                }
                // The same park reopened (with its install, say) keeps its clock.
                if let (Some(clock), Some(before)) = (&mut doc.layers, previous.layers) {
                    (clock.seconds, clock.playing, clock.speed) = (before.seconds, before.playing, before.speed);
                }
                doc.pose.lod = previous.pose.lod;
                doc.update_pose();
                self.doc = Some(doc);
                Applied::Reopened
            }
            Err(message) => {
                self.error = Some(message);
                Applied::Failed
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::is_model_file;

    #[test]
    fn model_extensions_are_case_insensitive() {
        assert!(is_model_file(Path::new("a/GATE.MD2")));
        assert!(is_model_file(Path::new("x.m2")));
        assert!(is_model_file(Path::new("x.Mdr")));
        assert!(!is_model_file(Path::new("x.skin")));
        assert!(!is_model_file(Path::new("md2")));
    }

    /// A folder that cannot be listed (here a damaged `.wad` browsed as one) is one line in
    /// our words naming it, with a line break in its name escaped.
    #[test]
    fn a_folder_that_cannot_be_listed_is_one_line_naming_it() {
        let dir = std::env::temp_dir().join(format!("mdview-unlistable-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let archive = dir.join("broken\npark.wad");
        // The archive's magic, then a header cut short.
        std::fs::write(&archive, b"DWFB\xff\xff\xff").unwrap();
        let error = Session::default().target_for(&archive).unwrap_err();
        assert!(!error.contains('\n'), "{error:?}");
        assert!(error.contains("broken\\npark.wad: cannot list the folder: "), "{error}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn timeline_rejects_garbage() {
        let t = Timeline::new(f32::NAN, -5.0, 0.0);
        assert_eq!((t.start, t.end, t.fps), (0.0, 0.0, 25.0));
        let mut t = Timeline::new(0.0, 10.0, 10.0);
        t.playing = true;
        t.advance(f32::INFINITY);
        assert_eq!(t.time, 0.0);
    }
}
