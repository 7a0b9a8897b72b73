//! Lists a folder's tree for the viewer on a thread of its own, so that the window shows the
//! tree at once and fills it in folder by folder, and never waits on a slow disk. The walk
//! is [`crate::formats::listing::walk`], the one `render DIR --sheet` uses too.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver};

use crate::archive::one_line;
use crate::formats::assets::io_wording;
use crate::formats::listing::{self, ListedFolder};

/// Called from the listing thread after each message, so the event loop can redraw.
pub type Wake = Arc<dyn Fn() + Send + Sync>;

/// What the listing thread sends.
enum Message {
    Folder(ListedFolder),
    /// The walk ended: why the root could not be listed, if it could not.
    Done(Result<(), String>),
}

/// A listing in progress; dropping it stops the walk at its next folder.
pub struct TreeListing {
    receiver: Receiver<Message>,
    cancelled: Arc<AtomicBool>,
}

impl std::fmt::Debug for TreeListing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TreeListing")
    }
}

/// What [`TreeListing::poll`] found.
#[derive(Debug, Default)]
pub struct Polled {
    pub folders: Vec<ListedFolder>,
    /// The walk is over: `Err` when the root itself could not be listed.
    pub finished: Option<Result<(), String>>,
}

impl TreeListing {
    /// Starts listing `root`; `wake` is called whenever something arrives.
    pub fn start(root: &Path, wake: Option<Wake>) -> TreeListing {
        let (sender, receiver) = mpsc::channel();
        let cancelled = Arc::new(AtomicBool::new(false));
        let stop = cancelled.clone();
        let root: PathBuf = root.to_path_buf();
        let send = move |message: Message| {
            let sent = sender.send(message).is_ok();
            if let Some(wake) = &wake {
                wake();
            }
            sent
        };
        let spawned = std::thread::Builder::new().name("mdview-listing".into()).spawn({
            let send = send.clone();
            move || {
                let walked = listing::walk(&root, |folder| {
                    if stop.load(Ordering::Relaxed) || !send(Message::Folder(folder)) {
                        ControlFlow::Break(())
                    } else {
                        ControlFlow::Continue(())
                    }
                });
                send(Message::Done(walked.map_err(|e| {
                    format!("{}: cannot list the folder: {}", one_line(&root.display().to_string()), io_wording(&e))
                })));
            }
        });
        if let Err(e) = spawned {
            send(Message::Done(Err(format!("could not start listing the folder: {e}"))));
        }
        TreeListing { receiver, cancelled }
    }

    /// What arrived since the last call.
    pub fn poll(&self) -> Polled {
        let mut polled = Polled::default();
        for message in self.receiver.try_iter() {
            match message {
                Message::Folder(folder) => polled.folders.push(folder),
                Message::Done(result) => polled.finished = Some(result),
            }
        }
        polled
    }

    /// Everything, waiting for the walk to end (tests and one-shot listings).
    pub fn wait(self) -> Polled {
        let mut polled = Polled::default();
        for message in self.receiver.iter() {
            match message {
                Message::Folder(folder) => polled.folders.push(folder),
                Message::Done(result) => {
                    polled.finished = Some(result);
                    break;
                }
            }
        }
        polled
    }
}

impl Drop for TreeListing {
    fn drop(&mut self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }
}
