//! Decodes models, and the images they use, on a background thread so the window keeps
//! drawing while a file loads (and, for the first model, while the window and the device are
//! created); the renderer then only uploads.
//! Requests carry an id; when several arrive before the thread gets to them (PageDown held
//! down), only the newest is decoded, because the others would be thrown away on arrival.

use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::formats::{self, Pick};
use crate::info::Summary;
use crate::scene::Scene;

/// A decode request.
#[derive(Debug, Clone)]
pub struct Request {
    pub id: u64,
    pub path: PathBuf,
    /// When the user asked (the key press), for the open-latency figure.
    pub requested_at: Instant,
    /// Picks among the choices an earlier open offered (M2 skin profile, run-time texture).
    pub picks: Vec<Pick>,
    /// The same model again with other picks: the viewer keeps its camera, clip and time.
    pub reopen: bool,
    /// Where a park save's items are found.
    pub installs: Installs,
    /// A model to hang on a Quake 3 player's `tag_weapon` once the player is open.
    pub weapon: Option<PathBuf>,
}

/// A weapon the viewer hangs on the player at `player` (its folder) whenever it opens it, so
/// that a reopen with another skin holds it still.
#[derive(Debug, Clone, PartialEq)]
pub struct HeldWeapon {
    pub player: PathBuf,
    pub weapon: PathBuf,
}

/// The installs a park save may take its items from, by precedence: the one named on the
/// command line, then the one found above the save, then the one the viewer remembers.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Installs {
    pub explicit: Option<PathBuf>,
    pub remembered: Option<PathBuf>,
}

impl Installs {
    /// The install to open the save at `path` with; `None` lets the park find its own (the
    /// folder above it holding `data/levels/`) or go without.
    pub fn for_save(&self, path: &std::path::Path) -> Option<PathBuf> {
        self.explicit.clone().or_else(|| match crate::formats::park::find_install(path) {
            Some(_) => None,
            None => self.remembered.clone(),
        })
    }
}

impl Request {
    /// A plain open of `path`.
    pub fn new(id: u64, path: PathBuf, requested_at: Instant) -> Request {
        Request {
            id,
            path,
            requested_at,
            picks: Vec::new(),
            reopen: false,
            installs: Installs::default(),
            weapon: None,
        }
    }
}

/// A decoded model, or why it could not be opened.
pub struct Loaded {
    pub id: u64,
    pub path: PathBuf,
    pub requested_at: Instant,
    /// Decoding the model and its images.
    pub decode_time: Duration,
    pub result: Result<Box<(Scene, Summary)>, String>,
    /// See [`Request::reopen`].
    pub reopen: bool,
    /// The weapon asked for ([`Request::weapon`]), whether or not it could be attached.
    pub weapon: Option<PathBuf>,
}

/// The handle the UI keeps: send requests, poll results.
pub struct Loader {
    /// Given to every request from now on.
    pub installs: Installs,
    /// Given to every request for its player from now on.
    pub weapon: Option<HeldWeapon>,
    requests: Sender<Request>,
    results: Receiver<Loaded>,
    next_id: u64,
}

impl Loader {
    /// Starts the thread. `wake` is called after each result is sent, so the event loop can
    /// redraw without polling.
    pub fn spawn(wake: impl Fn() + Send + 'static) -> Loader {
        let (requests, request_rx) = mpsc::channel::<Request>();
        let (result_tx, results) = mpsc::channel::<Loaded>();
        let spawned = std::thread::Builder::new().name("mdview-loader".into()).spawn(move || {
            // A request that arrived while the previous one was decoding.
            let mut waiting: Option<Request> = None;
            while let Some(mut request) = waiting.take().or_else(|| request_rx.recv().ok()) {
                // Skip to the newest request: the older ones are already stale.
                while let Ok(newer) = request_rx.try_recv() {
                    request = newer;
                }
                // A model already superseded (PageDown held) skips decoding its images.
                let loaded = load_unless_superseded(request, || {
                    if waiting.is_none() {
                        waiting = request_rx.try_recv().ok();
                    }
                    waiting.is_some()
                });
                if result_tx.send(loaded).is_err() {
                    break;
                }
                wake();
            }
        });
        if let Err(e) = spawned {
            log::error!("could not start the loader thread: {e}");
        }
        Loader { installs: Installs::default(), weapon: None, requests, results, next_id: 1 }
    }

    /// Queues `path`; returns the request id (the newest id wins).
    pub fn request(&mut self, path: PathBuf, requested_at: Instant) -> u64 {
        self.request_with(path, requested_at, Vec::new(), false)
    }

    /// Queues `path` with picks among its choices; see [`Request`].
    pub fn request_with(&mut self, path: PathBuf, requested_at: Instant, picks: Vec<Pick>, reopen: bool) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        let installs = self.installs.clone();
        let weapon = self.weapon.as_ref().filter(|held| held.player == path).map(|held| held.weapon.clone());
        if self.requests.send(Request { id, path, requested_at, picks, reopen, installs, weapon }).is_err() {
            log::error!("the loader thread has stopped");
        }
        id
    }

    /// Results that have arrived since the last call.
    pub fn poll(&self) -> Vec<Loaded> {
        self.results.try_iter().collect()
    }

    /// Waits up to `timeout` for the next result (tests and scripted runs).
    pub fn wait(&self, timeout: Duration) -> Option<Loaded> {
        self.results.recv_timeout(timeout).ok()
    }
}

/// Opens `path` as [`formats::open_with`] does; a park save with the install `installs` gives.
fn open(path: &std::path::Path, picks: &[Pick], installs: &Installs) -> Result<Scene, formats::OpenError> {
    if installs.explicit.is_some() || installs.remembered.is_some() {
        let is_save = formats::vfs::read(path).is_ok_and(|bytes| formats::park::is_save(&bytes));
        if is_save && let Some(install) = installs.for_save(path) {
            return formats::park::open_park_scene(path, Some(&install));
        }
    }
    formats::open_with(path, picks)
}

/// Decodes one file and its images. A panic in a decoder (a bug: decoders must return errors)
/// is caught and reported like any other failure, so a bad file can never take the viewer down.
pub fn load(request: Request) -> Loaded {
    load_unless_superseded(request, || false)
}

/// As [`load`], skipping the images when `superseded` says a newer request is waiting (the
/// result will be discarded, so only the model's own errors matter).
fn load_unless_superseded(request: Request, mut superseded: impl FnMut() -> bool) -> Loaded {
    let started = Instant::now();
    let path = request.path.clone();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        open(&path, &request.picks, &request.installs)
            .map(|scene| hold_weapon(scene, request.weapon.as_deref()))
            .inspect(|scene| {
                if superseded() {
                    return;
                }
                // Each image decodes once and is kept by the scene, so the upload finds it ready.
                // A failure is kept too, and reported by the renderer as it is today.
                scene.images.par_iter().for_each(|image| {
                    let _ = image.load();
                });
            })
    }))
    .map_err(|panic| {
        let what = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "unknown panic".into());
        format!("{}: the decoder crashed ({what}); please report this file", path.display())
    })
    .and_then(|r| r.map_err(|e| e.to_string()))
    .map(|scene| {
        let summary = Summary::of(&scene);
        Box::new((scene, summary))
    });
    Loaded {
        id: request.id,
        path: request.path,
        requested_at: request.requested_at,
        decode_time: started.elapsed(),
        result,
        reopen: request.reopen,
        weapon: request.weapon,
    }
}

/// `scene` with `weapon` hung on its player's `tag_weapon`; a weapon that cannot be opened
/// or held is a warning, and the player opens without it.
fn hold_weapon(mut scene: Scene, weapon: Option<&std::path::Path>) -> Scene {
    let Some(path) = weapon else { return scene };
    let held = formats::open(path)
        .map_err(|e| e.to_string())
        .and_then(|weapon| formats::md3::player::attach_weapon(&mut scene, weapon));
    if let Err(why) = held {
        scene.warnings.push(format!("weapon {} not held: {why}", path.display()));
    }
    scene
}
