//! Parks from saves: the container, the module walk, the ride system's channels, the
//! catalogue of a written install and the placement rule, over saves and installs the park
//! writers make. Positions in the placement test are worked out by hand, not by the code.

use std::path::{Path, PathBuf};

use glam::{Mat4, Vec3};
use mdview::formats::park::placement::{Hold, world_from_item};
use mdview::formats::park::{self, Catalogue, open_park, read_payload, read_save, read_save_with};
use mdview::writers::park::{
    SaveSpec, default_cell, fixture_catalogue, fixture_install, fixture_save, payload, plain_thing, write_container,
    write_install, write_save,
};

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mdview-park-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The fixture install and its save at `data/levels/jungle/fixture.TPWS`.
fn written_park(name: &str) -> (PathBuf, PathBuf) {
    let root = temp_dir(name);
    write_install(&root, &fixture_install()).unwrap();
    let save = root.join("data/levels/jungle/fixture.TPWS");
    std::fs::write(&save, write_save(&fixture_save())).unwrap();
    (root, save)
}

fn counts(id: u32) -> Option<u32> {
    static CATALOGUE: std::sync::OnceLock<Catalogue> = std::sync::OnceLock::new();
    CATALOGUE.get_or_init(fixture_catalogue).channel_count(id)
}

fn close(a: Vec3, b: Vec3) -> bool {
    (a - b).abs().max_element() < 1e-4
}

#[test]
fn placement_at_each_quarter_turn_matches_hand_worked_corners() {
    // A 2 × 2 item, authored from the origin to (20, 0, 20), anchored at cell (10, 20). Each
    // row: the angle, where model (0,0,0), (20,0,0), (0,0,20) and (20,0,20) land, worked out
    // from the turn (x, z) -> (x cos a + z sin a, z cos a - x sin a) about the anchor cell's
    // middle (105, 205) with the root at middle + R(-5, 0, -5).
    let cases: [(u32, [[f32; 3]; 4]); 4] = [
        (0, [[100.0, 0.0, 200.0], [120.0, 0.0, 200.0], [100.0, 0.0, 220.0], [120.0, 0.0, 220.0]]),
        (90, [[100.0, 0.0, 210.0], [100.0, 0.0, 190.0], [120.0, 0.0, 210.0], [120.0, 0.0, 190.0]]),
        (180, [[110.0, 0.0, 210.0], [90.0, 0.0, 210.0], [110.0, 0.0, 190.0], [90.0, 0.0, 190.0]]),
        (270, [[110.0, 0.0, 200.0], [110.0, 0.0, 220.0], [90.0, 0.0, 200.0], [90.0, 0.0, 220.0]]),
    ];
    let corners = [Vec3::ZERO, Vec3::new(20.0, 0.0, 0.0), Vec3::new(0.0, 0.0, 20.0), Vec3::new(20.0, 0.0, 20.0)];
    for (angle, expected) in cases {
        let m = world_from_item([10, 20], angle, 0.0);
        for (corner, want) in corners.iter().zip(expected) {
            let got = m.transform_point3(*corner);
            assert!(close(got, Vec3::from_array(want)), "{angle}°: {corner} -> {got}, want {want:?}");
        }
        let up = m.transform_vector3(Vec3::Y);
        assert!(close(up, Vec3::Y), "{angle}°: up stays up");
    }
    // saves.md's check: the 2 × 2 staff room anchored at (58, 16) at 90° covers cells
    // (58, 15)-(59, 16), world X 580..600 and Z 150..170.
    let m = world_from_item([58, 16], 90, 0.0);
    let a = m.transform_point3(Vec3::ZERO);
    let b = m.transform_point3(Vec3::new(20.0, 0.0, 20.0));
    assert!(close(a.min(b), Vec3::new(580.0, 0.0, 150.0)) && close(a.max(b), Vec3::new(600.0, 0.0, 170.0)));
}

#[test]
fn the_written_save_reads_back_field_for_field() {
    let spec = fixture_save();
    let bytes = write_save(&spec);
    assert!(park::is_save(&bytes));
    let save = read_save_with(&bytes, &counts).unwrap();
    assert_eq!(save.version, 500);
    assert_eq!(save.world.header, spec.header);
    assert_eq!(save.clock, spec.clock);
    assert_eq!(save.recording_len, 12);
    // The thing list in chain order, each record sized by its model (the ride's rings by their counts).
    let ids: Vec<u32> = save.world.things.iter().map(|t| t.id).collect();
    assert_eq!(ids, spec.things.iter().map(|t| t.id).collect::<Vec<_>>());
    let ape = save.world.things.iter().find(|t| t.id == 20).unwrap();
    let object = ape.object.as_ref().unwrap();
    assert_eq!(object.ring_entries, [30, 30, 2, 30, 45, 30]);
    assert_eq!((object.item, object.angle, object.mesh_instance), (1101, 0, 1));
    let next = &save.world.things[save.world.things.iter().position(|t| t.id == 20).unwrap() + 1];
    // 1,099 bytes with six rings of 30; this one holds 2 and 45 in two of them.
    assert_eq!(u64::from(next.offset - ape.offset), 1099 - 28 * 4 + 15 * 4);
    assert!(save.warnings.is_empty(), "{:?}", save.warnings);
    // The cells: every one read, the path and queue cells as written.
    assert_eq!(save.world.cells.len(), 128 * 128);
    for (index, cell) in &spec.cells {
        assert_eq!(&save.world.cells[*index], cell);
    }
    assert_eq!(save.world.cells[0], default_cell());
    // The ride system: every present slot, in slot order, channels by the catalogue's counts.
    let system = &save.ride_system;
    assert_eq!((system.present, system.empty, system.cursor), (11, 1, 9));
    assert_eq!(system.stopped, None);
    for (i, slot) in spec.slots.iter().enumerate() {
        let got = system.slot_of_instance(i as u32 + 1);
        match slot {
            None => assert!(got.is_none()),
            Some(want) => {
                assert_eq!(got.unwrap(), &mdview::formats::park::RideSlot { index: i as u32, ..want.clone() })
            }
        }
    }
    assert_eq!(system.slot_of_instance(2).unwrap().channels.len(), 3);
}

#[test]
fn cells_are_walked_by_their_status_bits() {
    let mut spec = SaveSpec::default();
    let mut with_effects = default_cell();
    with_effects.status |= 0x4;
    with_effects.effects = Some([1, -2, 3, 20, 5]);
    let mut map_only = default_cell();
    map_only.status = 0x1;
    map_only.track = None;
    let empty = mdview::formats::park::Cell::default();
    spec.cells.insert(5, with_effects);
    spec.cells.insert(6, map_only);
    spec.cells.insert(7, empty);
    let save = read_save(&write_save(&spec)).unwrap();
    assert_eq!(save.world.cells[5], with_effects);
    assert_eq!(save.world.cells[6], map_only);
    assert_eq!(save.world.cells[7], empty);
    assert_eq!(save.world.cells[8], default_cell());
    // A cell one byte long where its bits say more: the next status byte is not one.
    let mut data = payload(&spec);
    let status_at = 8 + 12 + 64 + 150 * 32 + 6 + 32 * 20 + 76;
    assert_eq!(data[status_at], 3);
    data[status_at] = 7; // claims an effects record that is not there
    let err = read_save(&write_container(500, &data)).unwrap_err().to_string();
    assert!(err.contains("WRLD cell[") && err.contains("did not end on this cell's status byte"), "{err}");
}

fn rfind(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).rposition(|w| w == needle)
}

#[test]
fn an_unknown_thing_model_ends_the_walk_naming_it() {
    let spec = SaveSpec { things: vec![plain_thing(2, 9), plain_thing(1, 18)], ..SaveSpec::default() };
    let data = payload(&spec);
    let err = read_save(&write_container(500, &data)).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("WRLD thing[1] (id 1) thingmodel") && text.contains("unknown thing model 18"), "{text}");
    // The model sits 4 bytes into the second record, 103 bytes (model 9) after the first.
    let head = rfind(&data, &2u32.to_le_bytes()).unwrap();
    assert_eq!(err.offset, (head + 4 + 103 + 4) as u64);
}

#[test]
fn a_damaged_tag_is_one_line_naming_the_module() {
    let data = payload(&fixture_save());
    for (tag, module) in
        [(&b"DLRW"[..], "WRLD tag"), (b"SSEM", "SSEM tag"), (b"KOLC", "KOLC tag"), (b"SYSR", "SYSR tag")]
    {
        let mut damaged = data.clone();
        let at = rfind(&damaged, tag).unwrap();
        damaged[at] ^= 0x20;
        let err = read_save_with(&write_container(500, &damaged), &counts).unwrap_err();
        let text = err.to_string();
        assert!(text.contains(module) && !text.contains('\n'), "{text}");
        assert_eq!(err.offset, at as u64);
    }
    // The ride system's length one short: the slots no longer end where it says.
    let mut damaged = data.clone();
    let sysr = rfind(&damaged, b"SYSG").unwrap() + 4;
    let length = u32::from_le_bytes(damaged[sysr..sysr + 4].try_into().unwrap());
    damaged[sysr..sysr + 4].copy_from_slice(&(length - 1).to_le_bytes());
    let text = read_save_with(&write_container(500, &damaged), &counts).unwrap_err().to_string();
    assert!(text.contains("SYSR"), "{text}");
}

#[test]
fn an_unknown_channel_count_stops_the_ride_system_cleanly() {
    let bytes = write_save(&fixture_save());
    let save = read_save(&bytes).unwrap();
    let system = &save.ride_system;
    assert_eq!(system.slots.len(), 0);
    let stopped = system.stopped.as_deref().unwrap();
    assert!(stopped.contains("slot 0 (item 1101)") && stopped.contains("NumSimultAnims"), "{stopped}");
    assert!(save.warnings.iter().any(|w| w.contains("ride system walk stopped")));
    // With the catalogue's counts but one item unknown, the slots before it are kept.
    let partial = read_save_with(&bytes, &|id| if id == 1402 { None } else { counts(id) }).unwrap();
    assert_eq!(partial.ride_system.slots.len(), 3);
}

#[test]
fn container_checks_refuse_what_the_game_would() {
    let data = payload(&SaveSpec::default());
    let good = write_container(500, &data);
    assert!(read_save(&good).is_ok());
    assert!(read_save(&write_container(400, &data)).unwrap().warnings.is_empty());
    let older = read_save(&write_container(300, &data)).unwrap();
    assert!(older.warnings[0].contains("container version 300"));
    let err = read_save(&write_container(501, &data)).unwrap_err().to_string();
    assert!(err.contains("version") && err.contains("newer than 500"), "{err}");
    let damage = |at: usize, bytes: &[u8]| {
        let mut d = good.clone();
        d[at..at + bytes.len()].copy_from_slice(bytes);
        read_save(&d).unwrap_err().to_string()
    };
    assert!(damage(0x605, &[0, 0, 0, 0]).contains("magic"));
    assert!(damage(0x609, &1u32.to_le_bytes()).contains("online flag"));
    assert!(damage(0x60D, b"ZLIB").contains("BILZ"));
    let block = u32::from_le_bytes(good[0x615..0x619].try_into().unwrap());
    assert!(damage(0x615, &(block + 1).to_le_bytes()).contains("block size"));
    let inflated = u32::from_le_bytes(good[0x611..0x615].try_into().unwrap());
    assert!(damage(0x611, &(inflated - 1).to_le_bytes()).contains("inflates to more than"));
    assert!(damage(0x611, &(inflated + 1).to_le_bytes()).contains(&format!("inflates to {inflated} bytes")));
    assert!(damage(0x611, &u32::MAX.to_le_bytes()).contains("more than the"));
    assert!(damage(0x629, &[0, 0]).contains("zlib stream"));
    let mut cut = good.clone();
    cut.truncate(good.len() - 1);
    assert!(read_save(&cut).unwrap_err().to_string().contains("block size"));
    assert!(!park::is_save(&good[..0x610]));
}

#[test]
fn malformed_saves_never_panic() {
    let bytes = write_save(&fixture_save());
    let data = payload(&fixture_save());
    // Container truncations and flips.
    for len in (0..bytes.len()).step_by(97).chain([0x604, 0x60C, 0x628, 0x629]) {
        let _ = read_save_with(&bytes[..len.min(bytes.len())], &counts);
    }
    for at in (0..0x640.min(bytes.len())).step_by(3) {
        let mut d = bytes.clone();
        d[at] ^= 0xA5;
        let _ = read_save_with(&d, &counts);
    }
    // Payload truncations and flips, read as the payload the container inflates to: the
    // fixture as written, and with its bare cells empty (status 0), which keeps each read short
    // enough to flip every third byte after the map.
    let catalogue = fixture_catalogue();
    let step = data.len() / 100;
    // The reader stops at the SYSR tag; any cut before its end fails.
    let sysr_end = rfind(&data, b"SYSR").unwrap() + 4;
    for len in (0..sysr_end).step_by(step).chain([sysr_end - 1]) {
        assert!(read_payload(&data[..len], &counts).is_err(), "cut at {len}");
    }
    let mut small = fixture_save();
    small.bare_cell = park::Cell::default();
    let small = payload(&small);
    let map_end = 8 + 12 + 64 + 150 * 32 + 6 + 32 * 20 + 76 + 16_384;
    for len in (map_end..rfind(&small, b"SYSR").unwrap() + 4).step_by(7) {
        assert!(read_payload(&small[..len], &counts).is_err(), "cut at {len}");
    }
    for (data, positions) in [
        (&data, (0..data.len()).step_by(step).collect::<Vec<_>>()),
        (&small, (map_end - 2_000..small.len()).step_by(3).collect()),
    ] {
        for at in positions {
            for flip in [0xFF, 0x80] {
                let mut d = data.clone();
                d[at] ^= flip;
                if let Ok(save) = read_payload(&d, &counts) {
                    let _ = park::Park::assemble(save, &catalogue, None);
                }
            }
        }
    }
}

#[test]
fn a_park_from_a_written_install() {
    let (root, save_path) = written_park("open");
    let found = park::find_install(&save_path).unwrap();
    assert_eq!(found.canonicalize().unwrap(), root.canonicalize().unwrap());
    let catalogue = Catalogue::scan(&root);
    assert_eq!(catalogue.entries.len(), 9, "{:?}", catalogue.warnings);
    let junspray = catalogue.entry(1303, None).unwrap();
    assert_eq!((junspray.num_simult_anims, junspray.footprint), (Some(3), Some([3, 3])));
    assert_eq!(catalogue.entry(1405, None).unwrap().footprint, Some([2, 2]));
    assert!(catalogue.entry(1600, None).unwrap().dont_apply_offset);
    assert_eq!(catalogue.entry(1101, None).unwrap().model.as_deref(), Some("monkey.md2"));

    let park = open_park(&save_path, None).unwrap();
    assert_eq!(park.theme.as_deref(), Some("jungle"));
    assert!(park.is_open());
    assert_eq!(park.items.len(), 10);
    let item = |thing: u32| park.items.iter().find(|i| i.thing == thing).unwrap();
    // The Crazy Ape plays role 2 (I), clip 0, 1,376 ms in, looping at 1.1.
    let ape = item(20);
    assert_eq!(ape.name(), Some("monkey"));
    let channel = &ape.pose.channels[0];
    assert_eq!((channel.role, channel.clip_name.as_str(), channel.time_ms), ('I', "I1", 1376));
    assert!((channel.frame - 41.28).abs() < 1e-9 && channel.looping && channel.hold == Hold::Playing);
    assert!((channel.speed - 1.1).abs() < 1e-6);
    assert!(close(ape.world_matrix().transform_point3(Vec3::ZERO), Vec3::new(400.0, 0.0, 300.0)));
    // Three lanes on the sideshow; the staff room idle, so as built, with node 1 hidden.
    assert_eq!(item(21).pose.channels.len(), 3);
    let staff_room = item(22);
    assert!(staff_room.pose.as_built && staff_room.pose.channels.is_empty());
    assert_eq!(staff_room.pose.hidden_nodes, vec![1]);
    assert_eq!(item(23).pose.channels[0].hold, Hold::HeldLast);
    // The bus: fixed, at the origin as authored, frozen on its first frame.
    let bus = item(25);
    assert_eq!(bus.world_matrix(), Mat4::IDENTITY);
    assert!(!bus.replaces_root_translation && bus.cell.is_none());
    assert_eq!(bus.pose.channels[0].hold, Hold::FrozenFirst);
    // The rock's mTopLeft agrees with its map offset turned by 180°; no warnings at all.
    assert_eq!(item(24).top_left, Some([30, 31]));
    assert!(park.warnings.is_empty(), "{:?}", park.warnings);
    // Paths and queues by cell; the queue piece no cell names is counted.
    assert_eq!(park.paths.iter().map(|p| p.cell).collect::<Vec<_>>(), vec![[43, 31], [44, 31]]);
    assert_eq!(park.queues.len(), 1);
    assert_eq!((park.queues[0].piece, park.queues[0].slot), (Some("questra"), Some(10)));
    assert_eq!(park.unnamed_slots, 1);
    // What cannot be shown, and why.
    let reason = |item: u32| park.unshown.iter().find(|u| u.item == item).map(|u| u.reason.clone()).unwrap_or_default();
    assert!(reason(1299).contains("no item WAD"), "{:?}", park.unshown);
    assert!(reason(1181).contains("track ride"));
    assert!(reason(1190).contains("roller coaster"));
    assert!(reason(1250).contains("holds no nomodel.md2"));
    assert_eq!(park.unshown.len(), 4);
    // The model the catalogue names opens as a TPW model with its construction clip.
    let scene = mdview::formats::open(&ape.entry.as_ref().unwrap().model_path().unwrap()).unwrap();
    assert!(scene.clips.iter().any(|c| c.name.starts_with('C')));
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_park_without_an_install_names_items_by_id_and_says_why() {
    let dir = temp_dir("alone");
    let path = dir.join("alone.TPWS");
    std::fs::write(&path, write_save(&fixture_save())).unwrap();
    let park = open_park(&path, None).unwrap();
    assert!(park.install.is_none());
    assert!(park.warnings[0].contains("no install found"));
    // The ride system stopped at the first item, so every object shows as built, and says so.
    assert!(park.items.iter().filter(|i| i.slot.is_none() && i.item != 1299).all(|i| i.pose.as_built));
    assert!(park.unshown.iter().filter(|u| u.reason.contains("no item WAD")).count() >= 9);
    let err = open_park(Path::new("/nonexistent/park.TPWS"), None).unwrap_err().to_string();
    assert!(err.contains("/nonexistent/park.TPWS"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn info_prints_a_park_as_text_and_json() {
    let (root, save_path) = written_park("info");
    let bin = env!("CARGO_BIN_EXE_mdview");
    let out = std::process::Command::new(bin).arg("info").arg(&save_path).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    for needle in [
        "version 500",
        "game tick 755",
        "park open",
        "1101 monkey",
        "(40, 30)",
        "I1 at 1376 ms",
        "questra",
        "no item WAD",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in:\n{text}");
    }
    let out = std::process::Command::new(bin)
        .args(["info", "--json", "--install"])
        .arg(&root)
        .arg(&save_path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["header"]["game_tick"], 755);
    assert_eq!(json["objects"].as_array().unwrap().len(), 10);
    assert_eq!(json["unshown"].as_array().unwrap().len(), 4);
    let _ = std::fs::remove_dir_all(&root);
}
