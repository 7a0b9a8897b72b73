//! Playback of one clip: the [`Timeline`] (loop, once, ping-pong, speed, stepping by frames
//! or milliseconds) and the global clock that M2 global sequences run on.

use serde::{Deserialize, Serialize};

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
