//! The info tables of a built scene: the model summary, one row per texture unit (blend,
//! flags, textures, second layer, colour, transparency, UV animation and set), the textures,
//! sequences (and whether their `.anim` files were found), global sequences and markers.

use super::BuildOptions;
use super::clips::anim_file_suffix;
use super::materials::{layer_combine, second_coord_set, unit_coord_set};
use crate::formats::m2::model::{M2Model, MarkerKind};
use crate::formats::m2::names;
use crate::formats::m2::skin::{Skin, TextureUnit};
use crate::scene::{DetailRow, DetailSection, LayerCombine, Scene};

/// The unit table's "second texture" cell: the texture index, its coordinates and combiner
/// (`1 uv0 add`), `-` for a unit with one texture.
fn second_texture_cell(model: &M2Model, unit: &TextureUnit) -> String {
    if unit.texture_count < 2 {
        return "-".into();
    }
    let next = |combo: u16| usize::from(combo).checked_add(1);
    let texture = next(unit.texture_combo)
        .and_then(|i| model.texture_lookup.get(i))
        .map_or_else(|| "none".into(), |t| t.to_string());
    let coords = match second_coord_set(model, unit) {
        _ if unit.shader_id & 0x8000 != 0 => "env".to_string(),
        Some(c) if c < 0 => "env".into(),
        Some(c) => format!("uv{c}"),
        None => "uv?".into(),
    };
    let combine = layer_combine(unit.shader_id, model.version).map_or("not drawn", LayerCombine::label);
    format!("{texture} {coords} {combine}")
}

pub(super) fn model_details(model: &M2Model, skin: Option<&Skin>, options: &BuildOptions, scene: &mut Scene) {
    let mut sections = Vec::new();
    let row = DetailRow::default;
    sections.push(DetailSection {
        title: "Model".into(),
        rows: vec![
            row()
                .with("name", &model.name)
                .with("version", model.version)
                .with("flags", format_args!("{:#x}", model.flags))
                .with("vertices", model.vertices.len())
                .with("bones", model.bones.len())
                .with("submeshes", skin.map(|s| s.submeshes.len()).unwrap_or(0))
                .with("texture units", skin.map(|s| s.units.len()).unwrap_or(0))
                .with("skin profiles declared", model.skin_profile_count),
        ],
    });
    if let Some(skin) = skin {
        let rows = skin
            .units
            .iter()
            .enumerate()
            .map(|(i, u)| {
                let (flags, blend) = model.render_flags.get(usize::from(u.render_flags)).copied().unwrap_or((0, 0));
                let texture = model.texture_lookup.get(usize::from(u.texture_combo)).copied();
                let coord_set = unit_coord_set(model, u);
                let env = coord_set.is_some_and(|c| c < 0);
                row()
                    .with("unit", i)
                    .with("submesh", u.submesh)
                    .with("priority", u.priority)
                    .with("layer", u.layer)
                    .with("blend", format_args!("{blend} {}", names::blend_mode_name(blend)))
                    .with("flags", format_args!("{flags:#x} {}", names::render_flag_names(flags)))
                    .with("texture", texture.map(|t| t.to_string()).unwrap_or_else(|| "-".into()))
                    .with("textures", u.texture_count)
                    .with("second texture", second_texture_cell(model, u))
                    .with("color", u.color)
                    .with("transparency", u.weight_combo)
                    .with(
                        "uv anim",
                        model.texture_anim_lookup.get(usize::from(u.transform_combo)).copied().unwrap_or(-1),
                    )
                    .with("env map", if env { "yes" } else { "no" })
                    .with("uv set", coord_set.filter(|&c| c >= 0).map_or_else(|| "-".into(), |c| c.to_string()))
            })
            .collect();
        sections.push(DetailSection { title: "Texture units".into(), rows });
    }
    let rows = model
        .textures
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let file = if t.kind == 0 {
                t.name.clone()
            } else {
                match &options.replaceable_texture {
                    Some(f) => format!("{f} (chosen: no name in the model)"),
                    None => "(no name in the model)".into(),
                }
            };
            row()
                .with("texture", i)
                .with("type", format_args!("{} {}", t.kind, names::texture_type_name(t.kind)))
                .with("flags", format_args!("{:#x}", t.flags))
                .with("file", file)
        })
        .collect();
    sections.push(DetailSection { title: "Textures".into(), rows });
    let rows = model
        .sequences
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let keys = match model.anim_present.get(i).copied().flatten() {
                None if s.is_alias() => format!("alias of {}", s.alias_next),
                None => "in file".into(),
                Some(true) => format!("{} present", anim_file_suffix(s.id, s.variation)),
                Some(false) => format!("{} MISSING", anim_file_suffix(s.id, s.variation)),
            };
            row()
                .with("index", i)
                .with("id", s.id)
                .with("name", names::animation_name(s.id))
                .with("variation", s.variation)
                .with("duration ms", s.duration_ms)
                .with("flags", format_args!("{:#x}", s.flags))
                .with("keyframes", keys)
                .with("next variation", s.next_variation)
        })
        .collect();
    sections.push(DetailSection { title: "Sequences".into(), rows });
    let rows = model
        .global_periods
        .iter()
        .enumerate()
        .map(|(i, p)| row().with("global sequence", i).with("duration ms", p))
        .collect();
    sections.push(DetailSection { title: "Global sequences".into(), rows });
    let rows = model
        .markers
        .iter()
        .map(|m| {
            row()
                .with("kind", m.kind.label())
                .with("name", &m.label)
                .with("bone", if m.kind == MarkerKind::Camera { "-".to_string() } else { m.bone.to_string() })
                .with("position", format_args!("({:.3}, {:.3}, {:.3})", m.position.x, m.position.y, m.position.z))
        })
        .collect();
    sections.push(DetailSection { title: "Attachments, events, lights, cameras, emitters".into(), rows });
    scene.details.extend(sections);
}
