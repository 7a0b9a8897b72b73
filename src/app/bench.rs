//! Scripted stepping (`--bench-steps`): pressing "PageDown" once the window is idle, timing
//! each model from the press to its first presented frame, and `--dump-tree` on exit.

use std::time::{Duration, Instant};

use winit::event_loop::ActiveEventLoop;

use super::state::Session;
use super::window::App;
use super::{OpenTiming, ViewerOptions, tree};

/// How long the benchmark waits between a model appearing and the next key press.
const BENCH_PAUSE: Duration = Duration::from_millis(400);

impl App {
    /// Benchmark mode: "PageDown", wrapping to the first model so any step count works.
    pub(super) fn bench_press(&mut self, pressed_at: Instant) {
        if self.viewer.session.folder.as_ref().is_some_and(|f| !f.complete) {
            // Steps go through the whole tree: wait for it.
            self.bench_press_at = Instant::now().checked_add(Duration::from_millis(20));
            return;
        }
        let next = self.viewer.session.step(1).or_else(|| {
            let folder = self.viewer.session.folder.as_mut()?;
            folder.current = None;
            self.viewer.session.step(1)
        });
        match next {
            Some(file) => self.request(file, pressed_at),
            None => self.bench_left = Some(0),
        }
    }

    /// `--dump-tree`: the folder tree as the window has it.
    pub(super) fn dump_tree(options: &ViewerOptions, session: &Session) {
        let Some(path) = &options.dump_tree else { return };
        let json = session.folder.as_ref().map(tree::dump).unwrap_or(serde_json::Value::Null);
        let written =
            serde_json::to_vec_pretty(&json).map_err(std::io::Error::other).and_then(|b| std::fs::write(path, b));
        if let Err(e) = written {
            eprintln!("mdview: could not write {}: {e}", path.display());
        }
    }

    /// Benchmark mode: record the time, then schedule the next "PageDown".
    pub(super) fn bench_step(&mut self, timing: OpenTiming, event_loop: &ActiveEventLoop) {
        // The path below the folder browsed: models of a tree share names (tris.md2).
        let file = self.viewer.session.doc.as_ref().map(|d| self.viewer.shown_name(&d.path)).unwrap_or_default();
        let (vertices, triangles) = self.viewer.session.doc.as_ref().map(|d| d.counts()).unwrap_or((0, 0));
        println!(
            "open {file}: {vertices} vertices, {triangles} triangles, decode {:.1} ms, on screen {:.1} ms",
            timing.decode_ms, timing.on_screen_ms
        );
        // The first open (from the command line) includes start-up; only steps count.
        if self.bench_left != self.options.bench_steps {
            self.bench_times.push(timing.on_screen_ms);
        }
        match &mut self.bench_left {
            Some(0) => {
                let mut times = self.bench_times.clone();
                times.sort_by(f64::total_cmp);
                if let (Some(first), Some(last)) = (times.first(), times.last()) {
                    let median = times.get(times.len() / 2).copied().unwrap_or(*last);
                    println!("steps {}: min {first:.1} ms, median {median:.1} ms, max {last:.1} ms", times.len());
                }
                self.bench_left = None;
                if self.options.exit {
                    Self::dump_tree(&self.options, &self.viewer.session);
                    self.dump_view();
                    event_loop.exit();
                }
            }
            Some(n) => {
                *n -= 1;
                // Press the key once the window is idle, as a person would: pressing it while
                // the last frame is still being rasterised would time that frame too.
                self.bench_press_at = Instant::now().checked_add(BENCH_PAUSE);
            }
            None => {}
        }
    }
}
