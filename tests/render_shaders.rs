//! Every WGSL shader under `shaders/` parses and validates with naga (the shader compiler wgpu
//! itself uses), has the entry points the renderer asks for, and declares uniform structs the
//! same size as their Rust mirrors in `mdview::render::gpu`.

use std::path::Path;

use mdview::render::gpu::{DrawUniforms, FrameUniforms, MaterialUniforms};
use mdview::render::{LINES_WGSL, MESH_WGSL};

fn validate(name: &str, source: &str) -> naga::Module {
    let module = naga::front::wgsl::parse_str(source)
        .unwrap_or_else(|e| panic!("{name} does not parse:\n{}", e.emit_to_string(source)));
    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::default())
        .validate(&module)
        .unwrap_or_else(|e| panic!("{name} does not validate:\n{}", e.emit_to_string(source)));
    module
}

fn shader_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders")
}

fn struct_size(module: &naga::Module, name: &str) -> Option<u32> {
    module.types.iter().find(|(_, ty)| ty.name.as_deref() == Some(name)).and_then(|(_, ty)| match &ty.inner {
        naga::TypeInner::Struct { span, .. } => Some(*span),
        _ => None,
    })
}

/// Every .wgsl file under `shaders/` is part of a shader the renderer compiles, and each of
/// those parses and validates.
#[test]
fn every_shader_validates() {
    let compiled = [("mesh", MESH_WGSL), ("lines", LINES_WGSL)];
    for (name, source) in compiled {
        validate(name, source);
    }
    let mut count = 0;
    for entry in std::fs::read_dir(shader_dir()).expect("shaders/ exists") {
        let path = entry.expect("directory entry").path();
        if path.extension().is_some_and(|e| e == "wgsl") {
            let text = std::fs::read_to_string(&path).expect("readable shader");
            assert!(compiled.iter().any(|(_, s)| s.contains(&text)), "{} is compiled nowhere", path.display());
            count += 1;
        }
    }
    assert!(count >= 3, "expected frame.wgsl, mesh.wgsl and lines.wgsl, found {count} shaders");
}

#[test]
fn shaders_have_the_renderer_entry_points_and_layouts() {
    let mesh = validate("mesh", MESH_WGSL);
    let lines = validate("lines", LINES_WGSL);
    let names = |m: &naga::Module| m.entry_points.iter().map(|e| e.name.clone()).collect::<Vec<_>>();
    let mesh_entries = names(&mesh);
    for wanted in
        ["vs_mesh", "fs_opaque", "fs_cutout", "fs_cutout_coverage", "fs_blend", "vs_wire", "fs_wire", "fs_highlight"]
    {
        assert!(mesh_entries.iter().any(|n| n == wanted), "mesh.wgsl lacks {wanted}");
    }
    let line_entries = names(&lines);
    assert!(line_entries.iter().any(|n| n == "vs_line") && line_entries.iter().any(|n| n == "fs_line"));

    for module in [&mesh, &lines] {
        assert_eq!(struct_size(module, "Frame"), Some(size_of::<FrameUniforms>() as u32), "Frame size");
    }
    assert_eq!(struct_size(&mesh, "Draw"), Some(size_of::<DrawUniforms>() as u32), "Draw size");
    assert_eq!(struct_size(&mesh, "Material"), Some(size_of::<MaterialUniforms>() as u32), "Material size");
}
