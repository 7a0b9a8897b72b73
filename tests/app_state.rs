//! The viewer's state logic without a window: folder listing and stepping, TPW sibling
//! grouping, the timeline's arithmetic, recent-files persistence, and what happens to the open
//! model when the next file is damaged.

mod common;

use std::path::{Path, PathBuf};
use std::time::Instant;

use mdview::app::loader::{self, Loader, Request};
use mdview::app::state::{Applied, Folder, PlayMode, RECENT_LIMIT, Recent, Session, TimeUnit, Timeline};
use mdview::writers::tpw::{AnimFile, RotationKeySpec, TrackSpec, quat_y};

fn paths(names: &[&str]) -> Vec<PathBuf> {
    names.iter().map(|n| Path::new("/models").join(n)).collect()
}

fn names(folder: &Folder) -> Vec<String> {
    folder.entries.iter().map(|e| e.name.clone()).collect()
}

/// `names` written into a fresh folder: the TPW animation files (`gateM1.MD2`) as animation
/// headers, since grouping reads them; the rest as a few bytes.
fn written(folder: &str, names: &[&str]) -> (PathBuf, Vec<PathBuf>) {
    let dir = common::temp_dir(folder);
    let clip = AnimFile { last_frame: 10, ..Default::default() }.to_bytes();
    let paths = names
        .iter()
        .map(|name| {
            let lower = name.to_lowercase();
            let animation = lower.ends_with(".md2") && lower.trim_end_matches(".md2").contains('m');
            common::write(&dir, name, if animation { &clip[..] } else { b"x" })
        })
        .collect();
    (dir, paths)
}

#[test]
fn animations_group_under_their_base_model() {
    let (dir, files) = written(
        "group-under-base",
        &[
            "gateM2.MD2",
            "GATE.MD2",
            "gatem10.md2",
            "gateM1.MD2",
            "droid.md2",
            "orphanM1.md2",
            "readme.txt",
            "tree.m2",
            "boss.mdr",
        ],
    );
    let folder = Folder::from_files(&dir, files);
    assert_eq!(names(&folder), ["boss.mdr", "droid.md2", "GATE.MD2", "orphanM1.md2", "tree.m2"]);
    let gate = &folder.entries[2];
    let anims: Vec<String> = gate.animations.iter().map(|p| mdview::app::file_name(p)).collect();
    // Numeric order, case-insensitive match on the base stem.
    assert_eq!(anims, ["gateM1.MD2", "gateM2.MD2", "gatem10.md2"]);
    // An animation without its base stays a normal entry (it still opens and reports why).
    assert!(folder.entries[3].animations.is_empty());
}

#[test]
fn an_m_suffix_on_a_non_md2_file_is_not_an_animation() {
    let folder = Folder::from_files(Path::new("/m"), paths(&["unit.m2", "unitM1.m2"]));
    assert_eq!(names(&folder), ["unit.m2", "unitM1.m2"]);
}

#[test]
fn stepping_stops_at_the_ends_and_follows_the_filter() {
    let mut folder = Folder::from_files(Path::new("/m"), paths(&["a.md2", "b.md2", "c.md2", "d.md2", "e.md2"]));
    assert_eq!(folder.step(1), Some(0), "nothing open: the first model");
    folder.current = Some(0);
    assert_eq!(folder.step(1), Some(1));
    assert_eq!(folder.step(-1), Some(0), "stays on the first");
    folder.current = Some(4);
    assert_eq!(folder.step(1), Some(4), "stays on the last");
    assert_eq!(folder.step(-2), Some(2));

    // The filter hides b and d; stepping skips them.
    folder.entries[1].name = "b_hidden.md2".into();
    folder.entries[3].name = "d_hidden.md2".into();
    folder.filter = "  ".into();
    assert_eq!(folder.visible().len(), 5, "a blank filter shows everything");
    folder.filter = "HIDDEN".into();
    assert_eq!(folder.visible(), [1, 3]);
    folder.filter = "!hidden".into();
    assert!(folder.visible().is_empty());
    assert_eq!(folder.step(1), None);

    let mut folder = Folder::from_files(Path::new("/m"), paths(&["a.md2", "b.md2", "c.md2", "d.md2", "e.md2"]));
    folder.filter = "[ace]".into();
    assert!(folder.visible().is_empty(), "the filter is a plain substring");
    folder.filter = String::new();
    folder.entries[0].name = "x_a".into();
    folder.entries[2].name = "x_c".into();
    folder.entries[4].name = "x_e".into();
    folder.filter = "x_".into();
    folder.current = Some(0);
    assert_eq!(folder.step(1), Some(2));
    // Current entry hidden by the filter: step to the nearest visible one in that direction.
    folder.current = Some(3);
    assert_eq!(folder.step(1), Some(4));
    assert_eq!(folder.step(-1), Some(2));
    // Nothing visible that way: no step, rather than one backwards (b open, filter "x_e").
    folder.filter = "x_e".into();
    folder.current = Some(1);
    assert_eq!(folder.step(-1), None, "PageUp never moves forwards");
    folder.current = Some(4);
    folder.filter = "x_a".into();
    assert_eq!(folder.step(1), None, "PageDown never moves backwards");
}

#[test]
fn the_filter_matches_animation_names_too() {
    let (dir, files) = written("filter-animations", &["gate.md2", "gateM1.md2", "tree.md2"]);
    let mut folder = Folder::from_files(&dir, files);
    folder.filter = "m1".into();
    assert_eq!(folder.visible(), [0]);
}

#[test]
fn timeline_loops_wraps_and_clamps() {
    let mut t = Timeline::new(0.0, 40.0, 25.0);
    assert!(!t.playing);
    t.advance(1.0);
    assert_eq!(t.time, 0.0, "paused: time stands still");
    t.toggle_play();
    t.advance(1.0);
    assert_eq!(t.time, 25.0);
    t.advance(1.0);
    assert!((t.time - 10.0).abs() < 1e-4, "loop wraps 50 to 10, got {}", t.time);

    t.set_speed(2.0);
    t.advance(0.2);
    assert!((t.time - 20.0).abs() < 1e-4, "2x speed: 0.2 s is 10 frames, got {}", t.time);
    t.set_speed(100.0);
    assert_eq!(t.speed, 4.0);
    t.set_speed(0.01);
    assert_eq!(t.speed, 0.25);
    t.set_speed(f32::NAN);
    assert_eq!(t.speed, 0.25);
}

#[test]
fn timeline_once_stops_at_the_end_and_replays() {
    let mut t = Timeline::new(0.0, 10.0, 10.0);
    t.mode = PlayMode::Once;
    t.toggle_play();
    t.advance(0.5);
    assert_eq!(t.time, 5.0);
    t.advance(5.0);
    assert_eq!(t.time, 10.0);
    assert!(!t.playing);
    t.toggle_play();
    assert!(t.playing);
    assert_eq!(t.time, 0.0, "playing a finished clip starts it again");
}

#[test]
fn timeline_ping_pong_bounces() {
    let mut t = Timeline::new(10.0, 20.0, 10.0);
    t.mode = PlayMode::PingPong;
    t.toggle_play();
    t.advance(0.8);
    assert!((t.time - 18.0).abs() < 1e-4);
    t.advance(0.4);
    assert!((t.time - 18.0).abs() < 1e-4, "out 2 past the end, back to 18: {}", t.time);
    t.advance(0.3);
    assert!((t.time - 15.0).abs() < 1e-4, "still on the way back: {}", t.time);
    t.advance(0.7);
    assert!((t.time - 12.0).abs() < 1e-4, "bounced off the start: {}", t.time);
    // A long jump folds correctly too (3 full round trips plus 4 frames).
    t.advance(6.4);
    assert!((t.time - 16.0).abs() < 1e-3, "{}", t.time);
}

#[test]
fn frame_steps_and_seeks() {
    let mut t = Timeline::new(0.0, 5.0, 25.0);
    t.playing = true;
    t.step_frames(1);
    assert!(!t.playing, "stepping pauses");
    assert_eq!(t.time, 1.0);
    t.time = 4.6;
    t.step_frames(1);
    assert_eq!(t.time, 5.0, "from between frames, the next whole frame");
    t.step_frames(1);
    assert_eq!(t.time, 0.0, "loop mode wraps past the end");
    t.step_frames(-1);
    assert_eq!(t.time, 5.0);
    t.mode = PlayMode::Once;
    t.step_frames(3);
    assert_eq!(t.time, 5.0, "once mode clamps");
    t.seek(-3.0);
    assert_eq!(t.time, 0.0);
    t.seek(f32::NAN);
    assert_eq!(t.time, 0.0);
    t.to_end();
    assert_eq!(t.frame(), 5.0);
    t.to_start();
    assert_eq!(t.frame(), 0.0);
}

/// M2 clips are timed in milliseconds: the timeline plays them in real time and steps by one
/// 30 fps frame.
#[test]
fn millisecond_timelines_play_in_real_time_and_step_by_30_fps_frames() {
    let mut t = Timeline::new(0.0, 1000.0, 1000.0);
    assert_eq!(t.unit, TimeUnit::Milliseconds);
    assert_eq!(Timeline::new(0.0, 10.0, 25.0).unit, TimeUnit::Frames);
    t.playing = true;
    t.advance(0.25);
    assert!((t.time - 250.0).abs() < 1e-3, "a quarter second is 250 ms: {}", t.time);
    t.step_frames(1);
    assert!((t.time - 8.0 * 1000.0 / 30.0).abs() < 1e-3, "next 30 fps frame after 250 ms: {}", t.time);
    t.step_frames(-2);
    assert!((t.time - 6.0 * 1000.0 / 30.0).abs() < 1e-3, "{}", t.time);
    t.time = 990.0;
    t.step_frames(1);
    assert_eq!(t.time, 1000.0, "the last step lands on the end");
    t.step_frames(1);
    assert_eq!(t.time, 0.0, "loop mode wraps past the end");
}

#[test]
fn a_zero_length_clip_stays_put() {
    let mut t = Timeline::new(3.0, 3.0, 25.0);
    t.playing = true;
    for mode in PlayMode::ALL {
        t.mode = mode;
        t.advance(0.5);
        assert_eq!(t.time, 3.0);
    }
}

#[test]
fn recent_files_persist_newest_first() {
    let dir = common::temp_dir("recent");
    let file = dir.join("sub").join("recent.json");
    let mut recent = Recent::default();
    recent.add_file(Path::new("/a/one.md2"));
    recent.add_file(Path::new("/b/two.md2"));
    recent.add_file(Path::new("/a/one.md2"));
    recent.add_folder(Path::new("/c"));
    recent.save(&file).expect("save");
    let loaded = Recent::load(&file);
    assert_eq!(loaded, recent);
    assert_eq!(loaded.files, [PathBuf::from("/a/one.md2"), PathBuf::from("/b/two.md2")]);
    assert_eq!(loaded.folders, [PathBuf::from("/c"), PathBuf::from("/a"), PathBuf::from("/b")]);

    // A member of an archive remembers the archive as its folder: its directory inside the
    // archive (`park.wad/models`) does not open on its own.
    let wad = dir.join("park.wad");
    std::fs::write(&wad, b"DWFB").unwrap();
    let mut with_member = Recent::default();
    with_member.add_file(&wad.join("models").join("gate.MD2"));
    assert_eq!(with_member.folders, [wad]);

    for i in 0..(RECENT_LIMIT + 5) {
        recent.add_file(&PathBuf::from(format!("/x/{i}.md2")));
    }
    assert_eq!(recent.files.len(), RECENT_LIMIT);
    assert_eq!(recent.files[0], PathBuf::from(format!("/x/{}.md2", RECENT_LIMIT + 4)));

    // A damaged or missing settings file is not an error: the list just starts empty.
    std::fs::write(&file, b"{ not json").expect("write");
    assert_eq!(Recent::load(&file), Recent::default());
    assert_eq!(Recent::load(&dir.join("missing.json")), Recent::default());
    let leftovers: Vec<_> = std::fs::read_dir(dir.join("sub")).expect("dir").filter_map(|e| e.ok()).collect();
    assert_eq!(leftovers.len(), 1, "no temporary files left behind");
}

fn gate_anim(radians: f32) -> AnimFile {
    AnimFile {
        last_frame: 20,
        tracks: vec![TrackSpec {
            target: 0,
            rotation: vec![
                RotationKeySpec { frame: 0, curve: 0xFFFF, quat: quat_y(0.0) },
                RotationKeySpec { frame: 20, curve: 0xFFFF, quat: quat_y(radians) },
            ],
            ..Default::default()
        }],
        ..Default::default()
    }
}

/// A folder with the island model, two animations of it, and a damaged file.
fn model_folder(name: &str) -> PathBuf {
    let dir = common::temp_dir(name);
    common::write(&dir, "island.md2", &common::island().to_bytes());
    common::write(&dir, "islandM1.md2", &gate_anim(1.5).to_bytes());
    common::write(&dir, "islandM2.md2", &gate_anim(-1.5).to_bytes());
    let mut damaged = common::island().to_bytes();
    damaged.truncate(damaged.len() / 3);
    common::write(&dir, "junk.md2", &damaged);
    common::write(&dir, "notes.txt", b"not a model");
    dir
}

fn load_now(session: &mut Session, id: u64, path: &Path) -> Applied {
    session.begin(id, path.to_path_buf());
    session.apply(loader::load(Request::new(id, path.to_path_buf(), Instant::now())))
}

/// A skin or texture pick reopens the model, unless another file is loading to replace it
/// (PageDown): the reopen would supersede that load.
#[test]
fn picks_wait_while_another_model_loads() {
    let dir = model_folder("picks-wait");
    let mut session = Session::default();
    assert!(session.may_reopen());
    let first = session.target_for(&dir).expect("folder has models");
    assert_eq!(load_now(&mut session, 1, &first), Applied::Opened);
    assert!(session.may_reopen(), "nothing loading");
    session.begin(2, first.clone());
    assert!(session.may_reopen(), "reloading the same model");
    let next = session.step(1).expect("a next model");
    session.begin(3, next);
    assert!(!session.may_reopen(), "stepping on: the pick would cancel the step");
}

#[test]
fn a_damaged_file_keeps_the_previous_model() {
    let dir = model_folder("session");
    let mut session = Session::default();
    let first = session.target_for(&dir).expect("folder has models");
    assert_eq!(mdview::app::file_name(&first), "island.md2");
    let folder = session.folder.as_ref().expect("folder listed");
    assert_eq!(names(folder), ["island.md2", "junk.md2"]);
    assert_eq!(folder.entries[0].animations.len(), 2);

    assert_eq!(load_now(&mut session, 1, &first), Applied::Opened);
    let doc = session.doc.as_ref().expect("opened");
    assert_eq!(doc.scene.clips.len(), 2, "sibling animations attached");
    assert_eq!(doc.clip, Some(0), "the first animation plays at once");
    assert!(doc.timeline.playing);
    assert_eq!(doc.timeline.fps, 30.0, "TPW plays at the engine's 30 frames per second");

    let next = session.step(1).expect("a next model");
    assert_eq!(mdview::app::file_name(&next), "junk.md2");
    assert_eq!(load_now(&mut session, 2, &next), Applied::Failed);
    let error = session.error.clone().expect("error recorded");
    assert!(error.contains("junk.md2"), "{error}");
    let doc = session.doc.as_ref().expect("previous model still open");
    assert_eq!(mdview::app::file_name(&doc.path), "island.md2");
    assert_eq!(session.step(1), None, "junk is the last model");
    assert_eq!(session.step(-1).as_deref(), Some(first.as_path()), "stepping goes on from the failed file");

    // Unknown formats and missing files fail the same way.
    let text = dir.join("notes.txt");
    assert_eq!(load_now(&mut session, 3, &text), Applied::Failed);
    assert!(session.error.as_deref().is_some_and(|e| e.contains("not a known model format")), "{:?}", session.error);
    assert_eq!(load_now(&mut session, 4, &dir.join("gone.md2")), Applied::Failed);
    assert!(session.doc.is_some());
    assert!(session.target_for(&dir.join("gone.md2")).is_err());
}

#[test]
fn opening_an_animation_plays_it_on_its_base_model() {
    let dir = model_folder("anim-open");
    let mut session = Session::default();
    let anim = dir.join("islandM2.md2");
    let target = session.target_for(&anim).expect("exists");
    assert_eq!(session.folder.as_ref().and_then(|f| f.current), Some(0), "the base model's entry is current");
    assert_eq!(load_now(&mut session, 1, &target), Applied::Opened);
    let doc = session.doc.as_ref().expect("opened");
    assert_eq!(doc.clip.and_then(|c| doc.scene.clips.get(c)).map(|c| c.name.as_str()), Some("M2"));
}

#[test]
fn stale_results_are_dropped() {
    let dir = model_folder("stale");
    let mut session = Session::default();
    let model = dir.join("island.md2");
    session.begin(7, model.clone());
    let old = loader::load(Request::new(6, model.clone(), Instant::now()));
    assert_eq!(session.apply(old), Applied::Stale);
    assert!(session.doc.is_none());
    let new = loader::load(Request::new(7, model, Instant::now()));
    assert_eq!(session.apply(new), Applied::Opened);
}

#[test]
fn the_loader_thread_answers_the_newest_request() {
    let dir = model_folder("loader");
    let (tx, rx) = std::sync::mpsc::channel();
    let mut loader = Loader::spawn(move || {
        let _ = tx.send(());
    });
    let mut last = 0;
    for _ in 0..20 {
        last = loader.request(dir.join("island.md2"), Instant::now());
    }
    let mut seen = Vec::new();
    while let Some(loaded) = loader.wait(std::time::Duration::from_secs(10)) {
        assert!(loaded.result.is_ok());
        seen.push(loaded.id);
        if loaded.id == last {
            break;
        }
    }
    assert_eq!(seen.last(), Some(&last));
    assert!(seen.len() < 20, "queued requests are skipped, decoded {}", seen.len());
    assert!(rx.recv_timeout(std::time::Duration::from_secs(1)).is_ok(), "the wake callback ran");
}

#[test]
fn as_built_shows_the_construction_clips_last_frame() {
    let dir = mdview::demo::extract().unwrap();
    let scene = mdview::formats::open(&dir.join("gate.MD2")).unwrap();
    let summary = mdview::info::Summary::of(&scene);
    let built_clip = scene.as_built.expect("gateC.MD2 is the construction clip");
    assert_eq!(scene.clips[built_clip].name, "C");
    let mut doc = mdview::app::state::Document::new(dir.join("gate.MD2"), scene, summary);
    doc.show_as_built();
    assert_eq!(doc.clip, Some(built_clip));
    assert!(!doc.timeline.playing);
    assert_eq!(doc.timeline.time, doc.scene.clips[built_clip].end);
    // The last frame of C is the finished gate: every node shown (the sign too, which the hide
    // list hid at the start).
    assert!(doc.pose.visible.iter().all(|&v| v));
}

/// Issue 12: the viewer's global clock (what M2 global-sequence tracks read) starts when the
/// model opens and runs while playback runs, through clip loops; the clip's own time wraps.
#[test]
fn the_global_clock_runs_through_clip_loops() {
    let mut t = Timeline::new(0.0, 100.0, 1000.0);
    t.playing = true;
    assert_eq!(t.global_time, 0.0);
    t.advance(0.06);
    t.advance(0.09);
    assert!((t.time - 50.0).abs() < 1e-3, "the clip looped: {}", t.time);
    assert!((t.global_time - 150.0).abs() < 1e-3, "the global clock did not: {}", t.global_time);
    t.playing = false;
    t.advance(0.5);
    assert!((t.global_time - 150.0).abs() < 1e-3, "paused: the global clock holds");
}

/// In the rest pose the global clock still runs (an M2's global-sequence tracks play there),
/// while the clip time stays put.
#[test]
fn the_global_clock_runs_in_the_rest_pose() {
    let mut t = Timeline::new(0.0, 0.0, 1000.0);
    t.playing = true;
    t.advance(0.25);
    assert_eq!(t.time, 0.0);
    assert!((t.global_time - 250.0).abs() < 1e-3, "the global clock stood still: {}", t.global_time);
}

/// A Quake II loop plays its last frame back into its first: in loop mode time runs one frame
/// past the end (the period is the clip's frame count), and stepping wraps as before; other
/// modes stop at the last frame.
#[test]
fn a_wrapping_loop_runs_one_frame_past_the_end() {
    let mut t = Timeline::new(10.0, 15.0, 10.0);
    t.wrap = 1.0;
    t.playing = true;
    t.advance(0.55);
    assert!((t.time - 15.5).abs() < 1e-4, "into the blend back: {}", t.time);
    t.advance(0.1);
    assert!((t.time - 10.5).abs() < 1e-4, "a 6-frame loop lasts 6 frames: {}", t.time);
    t.seek(99.0);
    assert_eq!(t.time, 16.0);
    assert_eq!(t.loop_end(), 16.0);
    t.time = 15.5;
    t.step_frames(1);
    assert_eq!(t.time, 10.0, "next from the blend is the first frame");
    t.mode = PlayMode::Once;
    t.seek(99.0);
    assert_eq!(t.time, 15.0, "a clip played once ends on its last frame");
    // Opening a Quake II model sets the wrap; a TPW model's clips have none.
    let q2 = mdview::writers::quake2::Md2Spec {
        skin_width: 8,
        skin_height: 8,
        skins: Vec::new(),
        st: vec![[0, 0], [8, 0], [0, 8]],
        triangles: vec![([0, 1, 2], [0, 1, 2])],
        frames: ["run1", "run2"]
            .iter()
            .map(|name| mdview::writers::quake2::FrameSpec {
                name: (*name).into(),
                scale: [1.0; 3],
                translate: [0.0; 3],
                vertices: vec![[0, 0, 0, 0], [9, 0, 0, 0], [0, 9, 0, 0]],
            })
            .collect(),
    };
    let scene = mdview::formats::quake2::decode(&q2.to_bytes()).expect("decodes");
    let summary = mdview::info::Summary::of(&scene);
    let doc = mdview::app::state::Document::new("tris.md2".into(), scene, summary);
    assert_eq!((doc.timeline.wrap, doc.timeline.loop_end()), (1.0, 2.0));
    assert!(doc.pose.looping, "the pose plays the blend only in loop mode, which the viewer starts in");
}

/// A model whose rest pose has global-sequence channels (M2) plays them on opening, with a
/// clock in milliseconds; one without stays still.
#[test]
fn a_rest_pose_with_global_channels_plays_in_milliseconds() {
    use mdview::scene::{Channel, FormatKind, Key, Node, NodeKind, Scene, SceneKind};
    let mut scene = Scene::new(FormatKind::WowM2, SceneKind::Mesh);
    scene.nodes.push(Node::new("root", NodeKind::Transform, glam::Mat4::IDENTITY));
    let still = scene.clone();
    scene.global_channels.push(Channel::NodeVisibility { node: 0, keys: vec![Key { time: 0.0, value: true }] });
    let summary = mdview::info::Summary::of(&scene);
    let mut doc = mdview::app::state::Document::new("x.m2".into(), scene, summary);
    assert_eq!(doc.clip, None);
    assert!(doc.timeline.playing);
    assert_eq!(doc.timeline.unit, TimeUnit::Milliseconds);
    doc.timeline.advance(0.1);
    assert!((doc.timeline.global_time - 100.0).abs() < 1e-3, "{}", doc.timeline.global_time);
    // Reopened with other picks (a skin, a texture), the rest pose keeps playing.
    let reopened = doc.scene.clone();
    let mut session = Session { doc: Some(doc), ..Session::default() };
    session.begin(7, "x.m2".into());
    let loaded = loader::Loaded {
        id: 7,
        path: "x.m2".into(),
        requested_at: Instant::now(),
        decode_time: std::time::Duration::ZERO,
        result: Ok(Box::new((reopened.clone(), mdview::info::Summary::of(&reopened)))),
        reopen: true,
        weapon: None,
    };
    assert_eq!(session.apply(loaded), Applied::Reopened);
    assert!(session.doc.as_ref().is_some_and(|d| d.timeline.playing), "the global clock still runs");
    let summary = mdview::info::Summary::of(&still);
    let doc = mdview::app::state::Document::new("y.m2".into(), still, summary);
    assert!(!doc.timeline.playing);
}

/// …and through clip changes: switching clips keeps the global clock, and the pose reads it.
#[test]
fn the_global_clock_survives_clip_changes() {
    let dir = model_folder("global-clock");
    let mut session = Session::default();
    let anim = dir.join("islandM2.md2");
    let target = session.target_for(&anim).expect("exists");
    assert_eq!(load_now(&mut session, 1, &target), Applied::Opened);
    let doc = session.doc.as_mut().expect("opened");
    assert_eq!(doc.timeline.global_time, 0.0, "starts when the model opens");
    doc.timeline.playing = true;
    doc.timeline.advance(0.2);
    let global = doc.timeline.global_time;
    assert!(global > 0.0);
    doc.play_clip(None);
    doc.play_clip(Some(0));
    assert_eq!(doc.timeline.global_time, global);
    assert_eq!(doc.pose.global_time, Some(global));
}

/// A game folder laid out as installs are: a model at the top, one two folders down with an
/// animation, an archive with a model inside, an empty folder and one with no models.
fn nested_folder(name: &str) -> PathBuf {
    use mdview::writers::wad::{WadMember, write_wad};
    let dir = common::temp_dir(name);
    let island = common::island().to_bytes();
    common::write(&dir, "top.md2", &island);
    std::fs::create_dir_all(dir.join("a/b")).expect("a/b");
    common::write(&dir.join("a/b"), "deep.md2", &island);
    common::write(&dir.join("a/b"), "deepM1.md2", &gate_anim(1.0).to_bytes());
    std::fs::write(dir.join("park.wad"), write_wad(&[WadMember::stored("models/gate.MD2", &island)])).expect("wad");
    std::fs::create_dir_all(dir.join("empty/deeper")).expect("empty");
    std::fs::create_dir_all(dir.join("textures")).expect("textures");
    common::write(&dir.join("textures"), "sand.png", b"not read");
    dir
}

fn relative_paths(folder: &Folder) -> Vec<String> {
    folder.entries.iter().map(|e| e.relative_path()).collect()
}

fn visible_paths(folder: &Folder) -> Vec<String> {
    folder.visible().into_iter().map(|i| folder.entries[i].relative_path()).collect()
}

#[test]
fn a_folder_opens_as_a_tree_of_every_model_under_it() {
    let dir = nested_folder("tree-open");
    let mut session = Session::default();
    let first = session.target_for(&dir).expect("models below");
    assert_eq!(first, dir.join("top.md2"));
    let folder = session.folder.as_ref().expect("listed");
    // The folder's own model, then its sub-folders and archives by name; none from the folders
    // without models.
    assert_eq!(relative_paths(folder), ["top.md2", "a/b/deep.md2", "park.wad/models/gate.MD2"]);
    assert_eq!(folder.entries[1].animations, [dir.join("a/b/deepM1.md2")], "siblings under their model");
    assert_eq!(folder.entries[2].path, dir.join("park.wad").join("models").join("gate.MD2"));
    // The tree as the panel shows it: a heading per folder on the way, models indented.
    let rows = mdview::app::tree::dump(folder)["rows"].clone();
    let rows: Vec<String> = serde_json::from_value(rows).expect("rows");
    assert_eq!(
        rows,
        ["top.md2", "a/", "  b/", "    deep.md2", "      ↪ deepM1.md2", "park.wad/", "  models/", "    gate.MD2"]
    );

    // PageDown goes through the tree in order, across folders and into the archive.
    assert_eq!(session.step(1), Some(dir.join("a/b/deep.md2")));
    assert_eq!(session.step(1), Some(dir.join("park.wad").join("models").join("gate.MD2")));
    assert_eq!(session.step(1), None, "the last model");
    assert_eq!(session.step(-2), Some(dir.join("top.md2")));

    // Clicking a model deep in the tree keeps the tree (it does not list the model's folder).
    assert_eq!(session.target_for(&dir.join("a/b/deep.md2")), Ok(dir.join("a/b/deep.md2")));
    let folder = session.folder.as_mut().expect("listed");
    assert_eq!((folder.dir.clone(), folder.current), (dir.clone(), Some(1)));

    // The filter searches the path below the folder, either slash, any case.
    folder.filter = "A\\B".into();
    assert_eq!(visible_paths(folder), ["a/b/deep.md2"]);
    folder.filter = "park.wad/".into();
    assert_eq!(visible_paths(folder), ["park.wad/models/gate.MD2"]);
    folder.filter = "deepm1".into();
    assert_eq!(visible_paths(folder), ["a/b/deep.md2"], "animation names still match");
    folder.filter = "models/".into();
    folder.current = Some(0);
    assert_eq!(folder.step(1), Some(2), "stepping follows the filter across folders");
}

#[test]
fn a_folder_lists_in_the_background_and_opens_its_first_model_when_listed() {
    let dir = nested_folder("tree-lazy");
    let mut session = Session::default();
    let woken = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = woken.clone();
    let wake: mdview::app::listing::Wake = std::sync::Arc::new(move || {
        counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    });
    assert_eq!(session.open_lazily(&dir, wake), Ok(None), "nothing listed yet: the window draws on");
    let started = Instant::now();
    let first = loop {
        if let Some(first) = session.poll_listing() {
            break first;
        }
        assert!(started.elapsed().as_secs() < 30, "the listing never delivered");
        std::thread::sleep(std::time::Duration::from_millis(2));
    };
    assert_eq!(first, Ok(dir.join("top.md2")));
    session.folder.as_mut().expect("folder").wait();
    let folder = session.folder.as_ref().expect("folder");
    assert!(folder.complete && folder.error.is_none());
    assert_eq!(relative_paths(folder), relative_paths(&Folder::scan(&dir).expect("scan")));
    assert!(woken.load(std::sync::atomic::Ordering::Relaxed) >= 2, "the window is woken as folders arrive");
    assert_eq!(session.poll_listing(), None, "the first model opens once");
    assert_eq!(session.recent.folders.first(), Some(&std::path::absolute(&dir).unwrap()));

    // A tree with no models says so once the listing ends.
    let bare = common::temp_dir("tree-lazy-empty");
    std::fs::create_dir_all(bare.join("x/y")).expect("empty tree");
    let wake: mdview::app::listing::Wake = std::sync::Arc::new(|| {});
    assert_eq!(session.open_lazily(&bare, wake), Ok(None));
    session.folder.as_mut().expect("folder").wait();
    let error = session.poll_listing().expect("an answer").expect_err("no models");
    assert!(error.contains("no models here or in any folder below") && error.contains(".md2, .mdr, .m2"), "{error}");
}

#[test]
fn a_folder_reopened_after_a_change_on_disk_shows_the_change() {
    let dir = nested_folder("tree-reopen");
    let mut session = Session::default();
    session.target_for(&dir).expect("models");
    // Within the 10 s a directory listing may be kept for (formats::assets), and with the
    // folders' times unchanged where they can be.
    common::write(&dir.join("a/b"), "added.md2", &common::island().to_bytes());
    std::fs::create_dir_all(dir.join("empty/deeper/now")).expect("dir");
    common::write(&dir.join("empty/deeper/now"), "new.m2", b"MD20");
    std::fs::remove_file(dir.join("top.md2")).expect("removed");
    assert_eq!(session.target_for(&dir), Ok(dir.join("a/b/added.md2")));
    let folder = session.folder.as_ref().expect("listed");
    assert_eq!(
        relative_paths(folder),
        ["a/b/added.md2", "a/b/deep.md2", "empty/deeper/now/new.m2", "park.wad/models/gate.MD2"]
    );
}

#[test]
fn a_model_opened_from_a_tree_remembers_the_tree_as_its_recent_folder() {
    let dir = nested_folder("tree-recent");
    let mut session = Session::default();
    session.target_for(&dir).expect("models");
    let deep = session.step(1).expect("a/b/deep.md2");
    assert_eq!(load_now(&mut session, 1, &deep), Applied::Opened);
    let root = std::path::absolute(&dir).unwrap();
    assert_eq!(session.recent.files.first(), Some(&std::path::absolute(&deep).unwrap()));
    assert_eq!(session.recent.folders, std::slice::from_ref(&root), "the tree browsed, not a/b");
    // A file opened on its own remembers its own folder.
    let mut session = Session::default();
    let lone = dir.join("a/b/deep.md2");
    session.target_for(&lone).expect("exists");
    assert_eq!(session.folder.as_ref().map(|f| f.dir.clone()), Some(dir.join("a/b")));
    assert_eq!(load_now(&mut session, 1, &lone), Applied::Opened);
    assert_eq!(session.recent.folders, [root.join("a/b")]);
}

/// A Quake 3 player folder (`lower`, `upper` and `head.md3`, `upper` with a `tag_weapon`)
/// beside a gun, under `players/`.
fn md3_player_folder(name: &str) -> (PathBuf, PathBuf) {
    use mdview::writers::md3::{sample, write};
    let root = std::env::temp_dir().join(format!("mdview-app-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let player = root.join("players").join("sarge");
    std::fs::create_dir_all(&player).unwrap();
    let mut upper = sample(2);
    upper.tag_names = vec!["tag_weapon".into()];
    upper.tags.iter_mut().flatten().for_each(|tag| tag.name = "tag_weapon".into());
    std::fs::write(player.join("lower.md3"), write(&sample(2))).unwrap();
    std::fs::write(player.join("upper.md3"), write(&upper)).unwrap();
    std::fs::write(player.join("head.md3"), write(&sample(2))).unwrap();
    // Every animation two frames, looping whole.
    std::fs::write(player.join("animation.cfg"), "0 2 2 10\n".repeat(25)).unwrap();
    let gun = root.join("players").join("gun.md3");
    std::fs::write(&gun, write(&sample(1))).unwrap();
    (player, gun)
}

/// A player folder opens as the player (the folder itself is the model), with the folder
/// above it browsed; a weapon asked for with it hangs on `tag_weapon`, and the document
/// remembers it.
#[test]
fn a_player_folder_opens_as_the_player_holding_its_weapon() {
    let (player, gun) = md3_player_folder("player");
    let mut session = Session::default();
    let target = session.target_for(&player).expect("the player opens");
    assert_eq!(target, player, "the folder is the model");
    assert_eq!(session.folder.as_ref().map(|f| f.dir.clone()), player.parent().map(Path::to_path_buf));
    let mut request = Request::new(1, target.clone(), Instant::now());
    request.weapon = Some(gun.clone());
    session.begin(1, target);
    assert_eq!(session.apply(loader::load(request)), Applied::Opened);
    let doc = session.doc.as_ref().expect("open");
    let groups: Vec<&str> = doc.scene.parts.iter().map(|p| p.group.as_str()).collect();
    assert_eq!(groups, ["player", "player", "player", "weapon"], "{:?}", doc.scene.warnings);
    assert_eq!(doc.scene.parts.last().map(|p| p.name.as_str()), Some("gun.md3"));
    assert_eq!(doc.weapon.as_deref(), Some(gun.as_path()));
    assert!(mdview::app::weapon::holds_weapons(&doc.scene));

    // Another skin reopens the player: it holds the weapon still, and a layer switched to
    // another clip keeps it.
    let mut session_doc = session.doc.take().expect("open");
    let legs = session_doc.scene.layers.iter().position(|l| l.name == "legs").expect("a legs layer");
    let other = session_doc.scene.layers[legs]
        .choices
        .iter()
        .copied()
        .rfind(|&c| Some(c) != session_doc.scene.layers[legs].clip);
    let other = other.expect("another legs clip");
    let mut layer = session_doc.scene.layers[legs].clone();
    assert!(layer.choose(&session_doc.scene, other, 0.0));
    session_doc.scene.layers[legs] = layer;
    session.doc = Some(session_doc);
    let mut request = Request::new(3, player.clone(), Instant::now());
    (request.weapon, request.reopen) = (Some(gun.clone()), true);
    session.begin(3, player.clone());
    assert_eq!(session.apply(loader::load(request)), Applied::Reopened);
    let doc = session.doc.as_ref().expect("open");
    assert_eq!(doc.scene.parts.len(), 4, "the weapon is held again");
    assert_eq!(doc.scene.layers[legs].clip, Some(other), "the legs clip chosen stays");

    // A weapon that cannot be held is a warning; the player still opens.
    let mut request = Request::new(2, player.clone(), Instant::now());
    request.weapon = Some(player.join("missing.md3"));
    session.begin(2, player.clone());
    assert_eq!(session.apply(loader::load(request)), Applied::Opened);
    let doc = session.doc.as_ref().expect("open");
    assert_eq!(doc.scene.parts.len(), 3);
    assert!(doc.scene.warnings.iter().any(|w| w.contains("missing.md3 not held")), "{:?}", doc.scene.warnings);
    std::fs::remove_dir_all(player.parent().unwrap().parent().unwrap()).unwrap();
}
