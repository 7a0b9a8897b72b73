//! Writes the fuzz targets' seed corpora under `fuzz/corpus/<target>/` (git-ignored):
//! the built-in demo, the fixture writers' files, and the real files of `../shared/corpus`
//! when present, read in place and never copied into the repository.
//! `cargo run --example fuzz_seeds`, then `cargo fuzz run <target>` in `fuzz/`.

use std::path::{Path, PathBuf};

fn main() -> std::io::Result<()> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = root.join("fuzz").join("corpus");
    let mut seeds: Vec<(&str, String, Vec<u8>)> = Vec::new();
    for (name, data) in mdview::demo::generate() {
        let lower = name.to_lowercase();
        if lower.ends_with(".md2") {
            let target = if lower.contains('m') && lower.trim_end_matches(".md2").ends_with(char::is_numeric) {
                "tpw_anim"
            } else {
                "tpw_mesh"
            };
            seeds.push((target, name, data));
        }
    }
    seeds.push(("tpw_mesh", "anim_base".into(), mdview::fuzzing::anim_base_mesh()));
    // The demo park's archive, and each texture inside it; small WCT files in both codings.
    let park = root.join("assets/demo/park.wad");
    if let Ok(data) = std::fs::read(&park) {
        if let Ok(index) = mdview::formats::wad::read_index(&data) {
            for entry in &index.entries {
                let Ok(bytes) = mdview::formats::wad::read_entry(&data, entry) else { continue };
                if mdview::formats::wct::looks_like_wct(&bytes) {
                    seeds.push(("wct", entry.path.replace(['/', '\\'], "_"), bytes));
                }
            }
        }
        seeds.push(("wad", "park.wad".into(), data));
    }
    {
        use mdview::formats::wct::chunk::ChunkCoding;
        use mdview::writers::wct as encoder;
        let rgba: Vec<u8> = (0..16 * 8 * 4).map(|i| (i * 37 % 251) as u8).collect();
        for (name, coding, alpha) in [("lzss_alpha", ChunkCoding::Lzss, true), ("bilz", ChunkCoding::Bilz, false)] {
            let options = encoder::WctOptions { coding, alpha, ..Default::default() };
            seeds.push(("wct", name.into(), encoder::encode(&rgba, 16, 8, options)));
        }
    }
    // Parks: the written fixture save, an empty one, and the fixture's payload alone with its
    // bare cells empty (small enough to mutate; the target reads a payload without a container).
    {
        use mdview::writers::park::{SaveSpec, fixture_install, fixture_save, payload, write_save};
        seeds.push(("park_save", "fixture".into(), write_save(&fixture_save())));
        seeds.push(("park_save", "empty".into(), write_save(&SaveSpec::default())));
        let mut small = fixture_save();
        small.bare_cell = mdview::formats::park::Cell::default();
        seeds.push(("park_save", "fixture_payload".into(), payload(&small)));
        for item in fixture_install().items {
            seeds.push(("sam", item.stem.clone(), item.sam.into_bytes()));
        }
        seeds.push((
            "sam",
            "peeps".into(),
            b"PeepTypes[0].PreferredExcitement.StartingCash\t80 300 # x\nInfo.Name \"A # B\"\n".to_vec(),
        ));
        seeds.push(("tct", "fixture".into(), mdview::writers::park_ground::fixture_tct().into_bytes()));
    }
    seeds.push(("mdr", "arm".into(), mdview::writers::mdr::arm(false).to_bytes()));
    seeds.push(("mdr", "arm_compressed".into(), mdview::writers::mdr::arm(true).to_bytes()));
    seeds.push(("md3", "sample".into(), mdview::writers::md3::write(&mdview::writers::md3::sample(3))));
    seeds.push(("mdl", "sample".into(), mdview::writers::mdl::write(&mdview::writers::mdl::sample())));

    let corpus = root.join("../shared/corpus");
    if corpus.is_dir() {
        for path in walk(&corpus) {
            let lower = path.to_string_lossy().to_lowercase();
            let Ok(data) = std::fs::read(&path) else { continue };
            let label = path.strip_prefix(&corpus).unwrap_or(&path).to_string_lossy().replace('/', "_");
            if lower.ends_with(".md2") && data.starts_with(b"IDP2") {
                seeds.push(("quake2", label, data));
            } else if lower.ends_with(".md3") && data.len() < 64 << 10 {
                seeds.push(("md3", label, data));
            } else if lower.ends_with(".mdl") && data.len() < 64 << 10 {
                seeds.push(("mdl", label, data));
            } else if lower.ends_with(".pcx") {
                seeds.push(("pcx", label, data));
            } else if lower.ends_with(".blp") {
                seeds.push(("blp", label, data));
            } else if lower.ends_with(".m2") {
                // The model with its first skin profile, joined as the m2_skin target splits them.
                let stem = path.with_extension("");
                let skin = std::fs::read(format!("{}00.skin", stem.display())).unwrap_or_default();
                seeds.push(("m2_skin", label, mdview::fuzzing::join_m2_skin(&data, &skin)));
            }
        }
    } else {
        println!("note: ../shared/corpus not found; seeding from the demo and the writers only");
    }
    for (target, name, data) in &seeds {
        let dir = out.join(target);
        std::fs::create_dir_all(&dir)?;
        std::fs::write(dir.join(name), data)?;
    }
    println!("wrote {} seeds under {}", seeds.len(), out.display());
    Ok(())
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() { pending.push(path) } else { out.push(path) }
        }
    }
    out.sort();
    out
}
