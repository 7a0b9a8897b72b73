//! A model named like another model's animation: `towers.md2` splits by name as `tower` + role
//! `S`, but it is a mesh. Opening `tower.md2`, `scan`, and the folder listing the viewer and
//! `render --sheet` share must all take only the real animation file `towerM1.md2` as
//! tower's, and keep `towers.md2` a model of its own.

mod common;

use mdview::formats::{self, listing};

fn demo(name: &str) -> Vec<u8> {
    mdview::demo::files().iter().find(|(n, _)| *n == name).map(|(_, d)| d.to_vec()).unwrap()
}

#[test]
fn a_model_named_like_an_animation_stands_alone_everywhere() {
    let dir = common::temp_dir("siblings-towers");
    std::fs::write(dir.join("tower.md2"), demo("gate.MD2")).unwrap();
    std::fs::write(dir.join("towers.md2"), demo("gate.MD2")).unwrap();
    std::fs::write(dir.join("towerM1.md2"), demo("gateM1.MD2")).unwrap();

    let scene = formats::open(&dir.join("tower.md2")).unwrap();
    let clips: Vec<&str> = scene.clips.iter().map(|c| c.name.as_str()).collect();
    assert!(clips.contains(&"M1") && !clips.iter().any(|c| c.starts_with('S')), "{clips:?}");
    // Before, towers.md2 was bound as clip S and failed: "a mesh file named like an animation".
    assert!(!scene.warnings.iter().any(|w| w.contains("towers") || w.contains("mesh file")), "{:?}", scene.warnings);

    let shown = |groups: Vec<formats::ModelGroup>| -> Vec<(String, Vec<String>)> {
        let name = |p: &std::path::Path| p.file_name().unwrap().to_string_lossy().into_owned();
        groups.iter().map(|g| (name(&g.model), g.animations.iter().map(|a| name(a)).collect())).collect()
    };
    let expected = [("tower.md2".to_string(), vec!["towerM1.md2".to_string()]), ("towers.md2".to_string(), vec![])];
    assert_eq!(shown(listing::models_under(&dir).unwrap()), expected);

    let report = mdview::scan::scan_dir(&dir).unwrap();
    assert!(report.animations_without_base.is_empty(), "{:?}", report.animations_without_base);
    assert_eq!(report.failed.len(), 0, "{:?}", report.failed.iter().map(|f| &f.error).collect::<Vec<_>>());
}
