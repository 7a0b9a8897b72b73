//! The viewer's state that needs no window: the folder list (stepping, filtering, TPW sibling
//! grouping), the timeline (loop, once, ping-pong, speed), recent files and what is open.
//! Everything here is plain data with pure methods, so it is tested without a GPU or a display.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::loader::Loaded;
use crate::formats::{group_models, is_model_file};
use crate::info::Summary;
use crate::scene::{Scene, anim::Pose};

fn name_of(path: &Path) -> String {
    path.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
}

/// One model in the folder list; TPW animation files (`<base>M<n>.md2`) hang under their base.
#[derive(Debug, Clone, PartialEq)]
pub struct FolderEntry {
    pub path: PathBuf,
    pub name: String,
    /// Sibling animation files, sorted by their number.
    pub animations: Vec<PathBuf>,
}

/// The models of one folder, in name order, with a filter and the current position.
#[derive(Debug, Clone, Default)]
pub struct Folder {
    pub dir: PathBuf,
    pub entries: Vec<FolderEntry>,
    /// Case-insensitive substring that limits which entries are shown and stepped through.
    pub filter: String,
    /// Index into `entries` of the model on screen (or being loaded).
    pub current: Option<usize>,
}

impl Folder {
    /// Lists the model files of `dir` (not recursive). A `.wad` archive is listed whole, every
    /// directory in it, as a tree (entries sorted by directory, then name).
    pub fn scan(dir: &Path) -> std::io::Result<Folder> {
        if crate::formats::vfs::is_archive(dir) {
            crate::formats::vfs::archive(dir)?;
            let mut files = Vec::new();
            let mut dirs = vec![dir.to_path_buf()];
            while let Some(inner) = dirs.pop() {
                files.extend(crate::formats::vfs::list_files(&inner));
                dirs.extend(crate::formats::vfs::list_dirs(&inner));
            }
            return Ok(Folder::from_files(dir, files));
        }
        let files = std::fs::read_dir(dir)?
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.is_file() && is_model_file(p))
            .collect();
        Ok(Folder::from_files(dir, files))
    }

    /// The directory of `path` inside this folder (`""` at its top), for archives shown as trees.
    pub fn subdir_of(&self, path: &Path) -> String {
        path.strip_prefix(&self.dir)
            .ok()
            .and_then(Path::parent)
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .unwrap_or_default()
    }

    /// Groups `files` into entries: an animation file whose base model is among `files` goes
    /// under that model; an animation without its base stays a normal entry so it can still be
    /// opened (and reports what it needs).
    pub fn from_files(dir: &Path, files: Vec<PathBuf>) -> Folder {
        let mut entries: Vec<FolderEntry> = group_models(files)
            .into_iter()
            .map(|group| FolderEntry { name: name_of(&group.model), path: group.model, animations: group.animations })
            .collect();
        // By directory first, so an archive's tree lists (and steps) one directory at a time.
        let subdir = |p: &Path| p.parent().map(|d| d.to_string_lossy().to_lowercase()).unwrap_or_default();
        entries.sort_by_key(|e| subdir(&e.path));
        Folder { dir: dir.to_path_buf(), entries, filter: String::new(), current: None }
    }

    /// Whether entry `index` passes the filter.
    pub fn matches(&self, index: usize) -> bool {
        let Some(entry) = self.entries.get(index) else { return false };
        let needle = self.filter.trim().to_lowercase();
        needle.is_empty()
            || entry.name.to_lowercase().contains(&needle)
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

    /// The entry holding `path`, as the model itself or as one of its animations.
    pub fn index_of(&self, path: &Path) -> Option<usize> {
        let same = |p: &Path| p == path || p.file_name() == path.file_name() && same_file(p, path);
        self.entries.iter().position(|e| same(&e.path) || e.animations.iter().any(|a| same(a)))
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

/// What happens at the end of a clip.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PlayMode {
    Loop,
    Once,
    PingPong,
}

impl PlayMode {
    pub const ALL: [PlayMode; 3] = [PlayMode::Loop, PlayMode::Once, PlayMode::PingPong];

    pub fn label(self) -> &'static str {
        match self {
            PlayMode::Loop => "Loop",
            PlayMode::Once => "Once",
            PlayMode::PingPong => "Ping-pong",
        }
    }
}

/// The slowest and fastest playback speeds offered.
pub const MIN_SPEED: f32 = 0.25;
pub const MAX_SPEED: f32 = 4.0;

/// What a timeline's units are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeUnit {
    /// TPW, Quake II, MDR: one unit per frame.
    Frames,
    /// M2: one unit per millisecond; stepping moves by one display frame at 30 fps.
    Milliseconds,
}

/// Milliseconds per step of an M2 timeline: one frame at 30 fps.
pub const MILLISECOND_STEP: f32 = 1000.0 / 30.0;

/// Playback position of one clip. Times are in the clip's units (frames for TPW and Quake II,
/// milliseconds for M2); `fps` is how many of those units play per second at speed 1.
#[derive(Debug, Clone, PartialEq)]
pub struct Timeline {
    pub start: f32,
    pub end: f32,
    pub time: f32,
    pub playing: bool,
    pub speed: f32,
    pub fps: f32,
    pub mode: PlayMode,
    pub unit: TimeUnit,
    /// The global clock in clip units (milliseconds for M2), which tracks tied to an M2 global
    /// sequence read: it starts at 0 when the model opens and runs while playback runs, through
    /// clip loops and clip changes, as WoW Model Viewer's global time does.
    pub global_time: f32,
    /// +1 forwards, -1 backwards (ping-pong's return leg).
    direction: f32,
    /// Clip units past `end` through which a loop blends back into the start
    /// ([`crate::scene::Clip::loop_blend`]): in loop mode time runs on through them.
    pub wrap: f32,
}

/// Where the global clock wraps (24 h in milliseconds).
const GLOBAL_CLOCK_WRAP: f32 = 86_400_000.0;

impl Default for Timeline {
    fn default() -> Self {
        Timeline::new(0.0, 0.0, 25.0)
    }
}

impl Timeline {
    /// A paused timeline at the clip's start. Non-finite or inverted ranges collapse to a point,
    /// and a useless rate falls back to 25 (TPW's), so a damaged clip cannot make time explode.
    pub fn new(start: f32, end: f32, rate: f32) -> Timeline {
        let start = if start.is_finite() { start } else { 0.0 };
        let end = if end.is_finite() && end >= start { end } else { start };
        let fps = if rate.is_finite() && rate > 0.0 { rate } else { 25.0 };
        let unit =
            if rate == crate::scene::MILLISECONDS_PER_SECOND { TimeUnit::Milliseconds } else { TimeUnit::Frames };
        Timeline {
            start,
            end,
            time: start,
            playing: false,
            speed: 1.0,
            fps,
            mode: PlayMode::Loop,
            unit,
            global_time: 0.0,
            direction: 1.0,
            wrap: 0.0,
        }
    }

    /// Where time ends: in loop mode, past `end` by the clip's wrap.
    pub fn loop_end(&self) -> f32 {
        match self.mode {
            PlayMode::Loop => self.end + self.wrap.max(0.0),
            _ => self.end,
        }
    }

    /// Clip units per step (the previous/next frame buttons): 1 frame, or a 30 fps frame of
    /// milliseconds.
    pub fn step_size(&self) -> f32 {
        match self.unit {
            TimeUnit::Frames => 1.0,
            TimeUnit::Milliseconds => MILLISECOND_STEP,
        }
    }

    pub fn length(&self) -> f32 {
        self.end - self.start
    }

    /// Advances by `dt_secs` of wall time when playing.
    pub fn advance(&mut self, dt_secs: f32) {
        if !self.playing || !dt_secs.is_finite() || dt_secs <= 0.0 {
            return;
        }
        let delta = dt_secs * self.fps * self.speed;
        // Wrapped at a day of milliseconds so that f32 keeps sub-millisecond steps; any global
        // period divides into it only approximately, a jump once a day at most. It runs in the
        // rest pose too, where an M2's global-sequence tracks still play.
        self.global_time = (self.global_time + delta).rem_euclid(GLOBAL_CLOCK_WRAP);
        let length = self.length();
        if length <= 0.0 {
            self.time = self.start;
            return;
        }
        match self.mode {
            PlayMode::Loop => {
                self.direction = 1.0;
                let period = length + self.wrap.max(0.0);
                self.time = self.start + (self.time - self.start + delta).rem_euclid(period);
            }
            PlayMode::Once => {
                self.direction = 1.0;
                self.time += delta;
                if self.time >= self.end {
                    self.time = self.end;
                    self.playing = false;
                }
            }
            PlayMode::PingPong => {
                // Unfold the bounce onto a line of period 2·length, then fold it back.
                let phase = if self.direction >= 0.0 {
                    self.time - self.start
                } else {
                    2.0 * length - (self.time - self.start)
                };
                let phase = (phase + delta).rem_euclid(2.0 * length);
                if phase <= length {
                    self.direction = 1.0;
                    self.time = self.start + phase;
                } else {
                    self.direction = -1.0;
                    self.time = self.start + 2.0 * length - phase;
                }
            }
        }
    }

    /// Starts or pauses; starting a finished "once" clip replays it from the start.
    pub fn toggle_play(&mut self) {
        if !self.playing && self.mode == PlayMode::Once && self.time >= self.end {
            self.time = self.start;
        }
        self.playing = !self.playing;
    }

    /// Moves to `time`, clamped to the clip (in loop mode, through its wrap).
    pub fn seek(&mut self, time: f32) {
        if time.is_finite() {
            self.time = time.clamp(self.start, self.loop_end());
        }
    }

    /// Pauses and moves by whole steps ([`Timeline::step_size`]); wraps in loop mode.
    pub fn step_frames(&mut self, frames: i32) {
        self.playing = false;
        let step = self.step_size();
        // From between two steps, "next" lands on the next whole step, not one past it.
        let steps = (self.time - self.start) / step;
        let whole = if frames > 0 { (steps + 1e-3).floor() } else { (steps - 1e-3).ceil() };
        let mut target = self.start + (whole + frames as f32) * step;
        if (target - self.end).abs() < step * 1e-3 {
            target = self.end;
        }
        if self.mode == PlayMode::Loop && self.length() >= step {
            if target > self.end {
                self.time = self.start;
                return;
            }
            if target < self.start {
                self.time = self.end;
                return;
            }
        }
        self.seek(target);
    }

    pub fn to_start(&mut self) {
        self.time = self.start;
        self.direction = 1.0;
    }

    pub fn to_end(&mut self) {
        self.time = self.end;
    }

    pub fn set_speed(&mut self, speed: f32) {
        if speed.is_finite() {
            self.speed = speed.clamp(MIN_SPEED, MAX_SPEED);
        }
    }

    /// The current frame, counted from the clip's start.
    pub fn frame(&self) -> f32 {
        self.time - self.start
    }
}

/// How many recent files and folders are remembered.
pub const RECENT_LIMIT: usize = 12;

/// Recently opened files and folders, newest first; persisted as JSON.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Recent {
    pub files: Vec<PathBuf>,
    pub folders: Vec<PathBuf>,
}

impl Recent {
    /// The settings file: `$MDVIEW_CONFIG_DIR/recent.json` when set (tests, portable installs),
    /// otherwise `<platform config dir>/mdview/recent.json`.
    pub fn default_path() -> Option<PathBuf> {
        let dir = match std::env::var_os("MDVIEW_CONFIG_DIR") {
            Some(d) if !d.is_empty() => PathBuf::from(d),
            _ => dirs::config_dir()?.join("mdview"),
        };
        Some(dir.join("recent.json"))
    }

    /// Reads the list; a missing or damaged file gives an empty list (it is only a convenience).
    pub fn load(path: &Path) -> Recent {
        std::fs::read(path).ok().and_then(|bytes| serde_json::from_slice(&bytes).ok()).unwrap_or_default()
    }

    /// Writes the list, creating the folder; written to a temporary file first so that two
    /// viewers closing at once cannot leave half a file.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let json = serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?;
        let tmp = path.with_extension(format!("json.{}.tmp", std::process::id()));
        std::fs::write(&tmp, json)?;
        std::fs::rename(&tmp, path)
    }

    /// Remembers an opened file and its folder: for a member of an archive, the archive,
    /// which opens as a folder (its directory inside the archive does not open on its own).
    pub fn add_file(&mut self, path: &Path) {
        let path = absolute(path);
        push_front(&mut self.files, path.clone());
        let folder = match crate::formats::wad::path::split_member_path(&path) {
            Some(member) => Some(member.archive),
            None => path.parent().map(Path::to_path_buf),
        };
        if let Some(dir) = folder {
            push_front(&mut self.folders, dir);
        }
    }

    /// Remembers a browsed folder.
    pub fn add_folder(&mut self, dir: &Path) {
        push_front(&mut self.folders, absolute(dir));
    }
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

fn push_front(list: &mut Vec<PathBuf>, item: PathBuf) {
    list.retain(|p| p != &item);
    list.insert(0, item);
    list.truncate(RECENT_LIMIT);
}

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
}

impl Document {
    /// Opens on the file's own clip (an animation file), else the first sibling animation,
    /// playing, so that a model with animations shows them at once.
    pub fn new(path: PathBuf, scene: Scene, summary: Summary) -> Document {
        let clip = scene.first_clip();
        let pose = Pose::rest(&scene);
        let mut doc =
            Document { path, scene, summary, clip: None, timeline: Timeline::default(), pose, selected: None };
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
        self.timeline.playing = found.is_some_and(|c| c.length() > 0.0) || global_only;
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
        self.pose.evaluate(&self.scene, self.clip, self.timeline.time);
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
}

impl Session {
    /// Works out which file to load for `path`: a folder is browsed from its first model; a
    /// file is loaded with its folder listed around it. An animation file opens its base model
    /// (playing that animation) when the base is beside it. Errors are for the UI.
    pub fn target_for(&mut self, path: &Path) -> Result<PathBuf, String> {
        // A `.wad` archive is browsed like a folder; a member of one lists the whole archive.
        if path.is_dir() || crate::formats::vfs::is_archive(path) {
            let folder = Folder::scan(path).map_err(|e| format!("{}: {e}", path.display()))?;
            let first = folder.visible().first().copied();
            let Some(first) = first.and_then(|i| folder.entries.get(i)).map(|e| e.path.clone()) else {
                return Err(format!(
                    "{}: no models here (looking for .{})",
                    path.display(),
                    crate::formats::MODEL_EXTENSIONS.join(", .")
                ));
            };
            self.recent.add_folder(path);
            self.folder = Some(folder);
            self.set_current(&first);
            return Ok(first);
        }
        if !crate::formats::vfs::is_file(path) {
            return Err(format!("{}: no such file", path.display()));
        }
        let dir = match (crate::formats::wad::path::split_member_path(path), path.parent()) {
            (Some(member), _) => member.archive,
            (None, Some(d)) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let same_dir = self.folder.as_ref().is_some_and(|f| f.dir == dir);
        if !same_dir {
            self.folder = Folder::scan(&dir).ok();
        }
        self.set_current(path);
        Ok(path.to_path_buf())
    }

    fn set_current(&mut self, path: &Path) {
        if let Some(folder) = &mut self.folder {
            folder.current = folder.index_of(path);
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
                let Some(previous) = previous else {
                    self.recent.add_file(&doc.path);
                    self.doc = Some(doc);
                    return Applied::Opened;
                };
                // Clips of the same model keep their names whatever the picks.
                let clip_name = previous.clip.and_then(|c| previous.scene.clips.get(c)).map(|c| c.name.clone());
                doc.clip = clip_name.and_then(|name| doc.scene.clips.iter().position(|c| c.name == name));
                // The rest pose of a model with global-sequence channels plays too.
                let playing =
                    previous.timeline.playing && (doc.clip.is_some() || !doc.scene.global_channels.is_empty());
                doc.timeline = Timeline { playing, ..previous.timeline };
                doc.selected = previous.selected.filter(|&n| n < doc.scene.nodes.len());
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

    #[test]
    fn model_extensions_are_case_insensitive() {
        assert!(is_model_file(Path::new("a/GATE.MD2")));
        assert!(is_model_file(Path::new("x.m2")));
        assert!(is_model_file(Path::new("x.Mdr")));
        assert!(!is_model_file(Path::new("x.skin")));
        assert!(!is_model_file(Path::new("md2")));
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
