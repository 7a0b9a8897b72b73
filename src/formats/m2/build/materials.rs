//! Materials: one per skin texture unit (texture, blend mode, render flags, wrap, draw order,
//! the rest colour, the UV set or sphere map its lookup names), the second texture layer of a
//! two-texture unit and its combiner, and the lookups from a unit to its colour, transparency
//! and coordinate set that clips and the info tables share.

use glam::{Vec3, Vec4};

use super::BuildOptions;
use super::keys::{fallback_sequence, value_at_start};
use crate::formats::m2::layout::*;
use crate::formats::m2::model::{ColorAnim, M2Model};
use crate::formats::m2::skin::{Skin, TextureUnit};
use crate::formats::m2::tracks::Track;
use crate::scene::{AlphaMode, BlendMode, LayerCombine, Material, RawField, Scene, Submesh, TextureLayer, TextureWrap};

/// The blend mode of render-flags entry `mode`, or `None` outside 0..=7.
pub fn blend_mode(mode: u16) -> Option<BlendMode> {
    Some(match mode {
        0 => BlendMode::Opaque,
        1 => BlendMode::AlphaKey,
        2 => BlendMode::Alpha,
        3 => BlendMode::NoAlphaAdd,
        4 => BlendMode::Add,
        5 => BlendMode::Mod,
        6 => BlendMode::Mod2x,
        7 => BlendMode::BlendAdd,
        _ => return None,
    })
}

/// Texture flags 0x1 (wrap X) and 0x2 (wrap Y) choose repeat on that axis; without them the
/// axis clamps, as WoW Model Viewer sets `GL_CLAMP_TO_EDGE` and wow.export `CLAMP_TO_EDGE`.
pub fn texture_wrap(flags: u32) -> [TextureWrap; 2] {
    let axis = |bit: u32| if flags & bit != 0 { TextureWrap::Repeat } else { TextureWrap::Clamp };
    [axis(TEXTURE_FLAG_WRAP_X), axis(TEXTURE_FLAG_WRAP_Y)]
}

/// A texture unit's colour animation, by its index; `None` for -1 or an index that points
/// nowhere.
#[inline]
pub(super) fn unit_color<'a>(model: &'a M2Model, unit: &TextureUnit) -> Option<&'a ColorAnim> {
    usize::try_from(unit.color).ok().and_then(|c| model.colors.get(c))
}

/// A texture unit's transparency track, through the transparency lookup; `None` where either
/// points nowhere.
#[inline]
pub(super) fn unit_transparency<'a>(model: &'a M2Model, unit: &TextureUnit) -> Option<&'a Track<f32>> {
    model
        .transparency_lookup
        .get(usize::from(unit.weight_combo))
        .and_then(|&t| model.transparencies.get(usize::from(t)))
}

/// A texture unit's texture coordinate set through the lookup: 0 or 1, negative for a sphere
/// map; `None` where the lookup points nowhere.
#[inline]
pub(super) fn unit_coord_set(model: &M2Model, unit: &TextureUnit) -> Option<i16> {
    model.texcoord_lookup.get(usize::from(unit.texcoord_combo)).copied()
}

/// The coordinate set of a unit's second texture: the lookup's next entry after its first.
#[inline]
pub(super) fn second_coord_set(model: &M2Model, unit: &TextureUnit) -> Option<i16> {
    usize::from(unit.texcoord_combo).checked_add(1).and_then(|i| model.texcoord_lookup.get(i)).copied()
}

/// A unit's rest colour: WMV's answer for sequence 0 at its start (rgb and colour alpha from
/// the colour, times the transparency weight), white and opaque where nothing is keyed there.
pub(super) fn rest_color(model: &M2Model, unit: &TextureUnit) -> Vec4 {
    let first = fallback_sequence(model);
    let color = unit_color(model, unit);
    let rgb = color.map_or(Vec3::ONE, |c| value_at_start(&c.rgb, first, Vec3::ONE));
    let alpha = color.map_or(1.0, |c| value_at_start(&c.alpha, first, 1.0))
        * unit_transparency(model, unit).map_or(1.0, |t| value_at_start(t, first, 1.0));
    rgb.extend(alpha.clamp(0.0, 1.0))
}

/// Per texture unit: the material made for it (`None` when the unit was dropped).
pub(super) fn build_materials(
    model: &M2Model,
    skin: &Skin,
    mesh_of_submesh: &[Option<usize>],
    options: &BuildOptions,
    scene: &mut Scene,
) -> Vec<Option<usize>> {
    let mut out = Vec::with_capacity(skin.units.len());
    let mut per_mesh: Vec<Vec<(i32, usize)>> = vec![Vec::new(); scene.meshes.len()];
    for (ui, unit) in skin.units.iter().enumerate() {
        let Some(mesh) = mesh_of_submesh.get(usize::from(unit.submesh)).copied().flatten() else {
            scene.warnings.push(format!(
                "texture unit {ui}: submesh {} does not exist (or was dropped); unit ignored",
                unit.submesh
            ));
            out.push(None);
            continue;
        };
        let (flags, blend) = match model.render_flags.get(usize::from(unit.render_flags)) {
            Some(&rf) => rf,
            None => {
                scene.warnings.push(format!(
                    "texture unit {ui}: render flags {} out of range ({} entries); drawn opaque",
                    unit.render_flags,
                    model.render_flags.len()
                ));
                (0, 0)
            }
        };
        let mode = blend_mode(blend).unwrap_or_else(|| {
            scene.warnings.push(format!("texture unit {ui}: blend mode {blend} is not 0..=7; drawn opaque"));
            BlendMode::Opaque
        });
        let texture_index = model.texture_lookup.get(usize::from(unit.texture_combo)).map(|&t| usize::from(t));
        let texture = match texture_index.and_then(|t| model.textures.get(t)) {
            Some(t) if t.kind == 0 => Some(t.name.clone()).filter(|n| !n.is_empty()),
            Some(_) => options.replaceable_texture.clone(),
            None => {
                scene.warnings.push(format!(
                    "texture unit {ui}: texture combo {} names no texture; drawn untextured",
                    unit.texture_combo
                ));
                None
            }
        };
        let label = texture
            .as_deref()
            .map(|t| t.rsplit(['\\', '/']).next().unwrap_or(t).to_string())
            .unwrap_or_else(|| "untextured".into());
        let mut material = Material::new(format!("unit {ui} {label}"));
        material.texture = texture;
        material.alpha = AlphaMode::Blend(mode);
        material.unlit = flags & RF_UNLIT != 0;
        material.two_sided = flags & RF_TWO_SIDED != 0;
        material.depth_write = flags & RF_NO_DEPTH_WRITE == 0;
        material.flags = u32::from(flags);
        if let Some(t) = texture_index.and_then(|t| model.textures.get(t)) {
            material.wrap = texture_wrap(t.flags);
        }
        material.draw_order = i32::from(unit.priority) * 65536 + i32::from(unit.layer);
        if unit.color >= 0 && unit_color(model, unit).is_none() {
            scene.warnings.push(format!("texture unit {ui}: colour {} out of range; white", unit.color));
        }
        material.base_color = rest_color(model, unit);
        // The lookup names the coordinate set: 0 or 1, or negative for a sphere map.
        let coord_set = unit_coord_set(model, unit);
        let env_map = coord_set.is_some_and(|c| c < 0);
        material.sphere_map = env_map;
        material.uv_set = u8::from(coord_set == Some(1));
        if let Some(set) = coord_set.filter(|&c| c > 1) {
            scene.warnings.push(format!(
                "texture unit {ui}: texture coordinate set {set} does not exist (a vertex has 0 and 1); set 0 used"
            ));
        }
        if unit.texture_count >= 2 {
            material.layer2 = second_layer(model, unit, ui, options, &mut scene.warnings);
        }
        material.raw = vec![
            RawField::new("blend mode", unit.offset + UNIT_MATERIAL, u64::from(blend)),
            RawField::new("priority plane", unit.offset + UNIT_PRIORITY, unit.priority as u64),
            RawField::new("material layer", unit.offset + UNIT_LAYER, u64::from(unit.layer)),
            RawField::new("shader id", unit.offset + UNIT_SHADER, u64::from(unit.shader_id)),
            RawField::new("unit flags", unit.offset + UNIT_FLAGS, u64::from(unit.flags)),
            RawField::new("texture count", unit.offset + UNIT_TEXTURE_COUNT, u64::from(unit.texture_count)),
            RawField::new("environment mapped", unit.offset + UNIT_TEXCOORD_COMBO, u64::from(env_map)),
            RawField::new("texture coordinate set", unit.offset + UNIT_TEXCOORD_COMBO, u64::from(material.uv_set)),
        ];
        let index = scene.materials.len();
        if let Some(list) = per_mesh.get_mut(mesh) {
            list.push((material.draw_order, index));
        }
        scene.materials.push(material);
        out.push(Some(index));
    }
    // Each mesh draws its units in priority-plane, then layer order: same triangles, one pass each.
    for (mesh, mut units) in scene.meshes.iter_mut().zip(per_mesh) {
        if units.is_empty() {
            continue;
        }
        units.sort_by_key(|&(order, _)| order);
        let template = mesh.submeshes.first().cloned();
        if let Some(template) = template {
            mesh.submeshes =
                units.iter().map(|&(_, material)| Submesh { material: Some(material), ..template.clone() }).collect();
        }
    }
    out
}

/// The second texture of a unit with two (texture count 2): the next entries of the texture
/// and coordinate lookups after the unit's own, combined as its shader id says.
///
/// How the 3.3.5a client combines two textures (the shader id it gives a batch as the skin
/// loads): ids with bit 0x8000 name three programs over a sphere-mapped second texture (1
/// multiplies it in 2x keeping alpha, 2 and 3 add it by its own alpha; v272 files number them
/// 0..=2); otherwise the low bits
/// pick the second stage's combiner: 0 multiplies the colour keeping alpha (opaque), 3 adds,
/// 4 multiplies 2x, 6 and 7 the same keeping alpha, any other multiplies. A v264 file's stored
/// id has no low bits for that (the client fills them from a combiner table only under global
/// flag 0x8, which we do not read), so its second texture multiplies; a v272 file stores the
/// id whole. `None` (with a warning) where the lookups name nothing or the id draws no second
/// texture.
fn second_layer(
    model: &M2Model,
    unit: &TextureUnit,
    ui: usize,
    options: &BuildOptions,
    warnings: &mut Vec<String>,
) -> Option<TextureLayer> {
    let next = |combo: u16| usize::from(combo).checked_add(1);
    let Some(texture) = next(unit.texture_combo)
        .and_then(|i| model.texture_lookup.get(i))
        .and_then(|&t| model.textures.get(usize::from(t)))
    else {
        warnings.push(format!(
            "texture unit {ui}: second texture (combo {} + 1) names no texture; drawn with its first alone",
            unit.texture_combo
        ));
        return None;
    };
    let combine = layer_combine(unit.shader_id, model.version);
    let Some(combine) = combine else {
        warnings.push(format!(
            "texture unit {ui}: shader id {:#06x} draws no second texture; drawn with its first alone",
            unit.shader_id
        ));
        return None;
    };
    let coord_set = second_coord_set(model, unit);
    let sphere_map = unit.shader_id & 0x8000 != 0 || coord_set.is_some_and(|c| c < 0);
    if !sphere_map && coord_set.is_none_or(|c| c > 1) {
        warnings.push(format!(
            "texture unit {ui}: second texture's coordinate set ({}) is not 0 or 1; set 0 used",
            coord_set.map_or_else(|| "none".into(), |c| c.to_string())
        ));
    }
    Some(TextureLayer {
        texture: if texture.kind == 0 {
            Some(texture.name.clone()).filter(|n| !n.is_empty())
        } else {
            options.replaceable_texture.clone()
        },
        image: None,
        uv_set: u8::from(!sphere_map && coord_set == Some(1)),
        sphere_map,
        wrap: texture_wrap(texture.flags),
        combine,
    })
}

/// The second stage's combiner for a unit's shader id (see `second_layer`); `None` where the
/// id draws one texture.
pub fn layer_combine(shader_id: u16, version: u32) -> Option<LayerCombine> {
    if shader_id & 0x8000 != 0 {
        // 3.3.5a numbers the three sphere-mapped programs 1..=3 (0 draws nothing); later files
        // index a table whose rows 0..=2 are the same three (Combiners_Opaque_Mod2xNA_Alpha,
        // _AddAlpha, _AddAlpha_Alpha over Diffuse_T1_Env).
        let row = (shader_id & 0x7FFF).checked_sub(u16::from(version < 272));
        return match row {
            Some(0) => Some(LayerCombine::Mod2xNoAlpha),
            Some(1 | 2) => Some(LayerCombine::AddByAlpha),
            _ => None,
        };
    }
    let low = if version >= 272 { shader_id & 0x7 } else { 0 };
    Some(match low {
        0 => LayerCombine::Opaque,
        3 => LayerCombine::Add,
        4 => LayerCombine::Mod2x,
        6 => LayerCombine::Mod2xNoAlpha,
        7 => LayerCombine::AddNoAlpha,
        _ => LayerCombine::Mod,
    })
}

#[cfg(test)]
mod tests {
    use super::super::test_models::one_triangle_skin;
    use super::super::{BuildOptions, build};
    use super::*;
    use crate::formats::m2::model::Vertex;
    use glam::Vec2;

    /// A texture unit's texture coordinate lookup picks the set it samples: 0 the vertices'
    /// first UVs, 1 their second (vertex 0x28), negative a sphere map; a set past 1 warns and
    /// samples the first.
    #[test]
    fn each_unit_samples_the_uv_set_its_lookup_names() {
        use crate::formats::m2::model::Texture;
        let vertex = |i: u8| Vertex {
            position: Vec3::new(f32::from(i), 0.0, 0.0),
            weights: [255, 0, 0, 0],
            bones: [0; 4],
            normal: Vec3::Z,
            uv: [f32::from(i) * 0.1, 0.5],
            uv1: [0.9, f32::from(i) * 0.2],
        };
        let model = M2Model {
            version: 264,
            vertices: (0..3).map(vertex).collect(),
            textures: vec![Texture { kind: 0, flags: 0, name: "a.blp".into() }],
            texture_lookup: vec![0],
            render_flags: vec![(0, 0)],
            texcoord_lookup: vec![0, 1, -1, 2],
            ..M2Model::default()
        };
        let unit =
            |texcoord_combo: u16| TextureUnit { texcoord_combo, color: -1, texture_count: 1, ..TextureUnit::default() };
        let skin = one_triangle_skin((0..4).map(unit).collect());
        let mut scene = build(&model, Some(&skin), &BuildOptions::default(), 1 << 16);
        let mesh = &scene.meshes[0];
        assert_eq!(mesh.uvs, [Vec2::new(0.0, 0.5), Vec2::new(0.1, 0.5), Vec2::new(0.2, 0.5)]);
        assert_eq!(mesh.uvs1, [Vec2::new(0.9, 0.0), Vec2::new(0.9, 0.2), Vec2::new(0.9, 0.4)]);
        let sets: Vec<(u8, bool)> = scene.materials.iter().map(|m| (m.uv_set, m.sphere_map)).collect();
        assert_eq!(sets, [(0, false), (1, false), (0, true), (0, false)]);
        assert!(
            scene.warnings.iter().any(|w| w.contains("texture unit 3: texture coordinate set 2")),
            "{:?}",
            scene.warnings
        );
        assert_eq!(scene.validate(), Ok(()));
    }

    /// A unit with two textures gets a second layer from the lookups' next entries, combined
    /// as its shader id says; one whose lookup names nothing or whose id draws one texture
    /// keeps its first alone, with a warning.
    #[test]
    fn a_unit_with_two_textures_gets_a_second_layer() {
        use crate::formats::m2::model::Texture;
        let vertex = |i: u8| Vertex {
            position: Vec3::new(f32::from(i), f32::from(i * i), 0.0),
            weights: [255, 0, 0, 0],
            bones: [0; 4],
            normal: Vec3::Z,
            uv: [0.0; 2],
            uv1: [0.25, f32::from(i)],
        };
        let model = M2Model {
            version: 264,
            vertices: (0..3).map(vertex).collect(),
            textures: vec![
                Texture { kind: 0, flags: 0, name: "base.blp".into() },
                Texture { kind: 0, flags: 3, name: "second.blp".into() },
            ],
            texture_lookup: vec![0, 1, 0],
            texcoord_lookup: vec![0, 1, 0, -1],
            render_flags: vec![(0, 0)],
            ..M2Model::default()
        };
        let unit = |texture_combo: u16, texcoord_combo: u16, shader_id: u16| TextureUnit {
            texture_combo,
            texcoord_combo,
            shader_id,
            color: -1,
            texture_count: 2,
            ..TextureUnit::default()
        };
        let skin = one_triangle_skin(vec![unit(0, 0, 0), unit(0, 2, 0x8001), unit(2, 0, 0), unit(0, 0, 0x8000)]);
        let mut scene = build(&model, Some(&skin), &BuildOptions::default(), 1 << 16);
        let layer = |m: usize| scene.materials[m].layer2.clone();
        let first = layer(0).expect("unit 0: a second layer");
        assert_eq!(first.texture.as_deref(), Some("second.blp"));
        assert_eq!((first.uv_set, first.sphere_map, first.combine), (1, false, LayerCombine::Opaque));
        assert_eq!(first.wrap, [TextureWrap::Repeat; 2]);
        assert_eq!(scene.meshes[0].uvs1.len(), 3, "the second layer's set 1 keeps the mesh's second UVs");
        let env = layer(1).expect("unit 1: a sphere-mapped layer");
        assert_eq!((env.sphere_map, env.combine), (true, LayerCombine::Mod2xNoAlpha));
        assert_eq!(layer(2), None, "texture lookup 3 does not exist");
        assert_eq!(layer(3), None, "3.3.5a shader id 0x8000 draws no second texture");
        assert_eq!(scene.warnings.len(), 2, "{:?}", scene.warnings);
        assert_eq!(scene.validate(), Ok(()));
        // The combiner rule: v264 ids carry no second-stage bits; v272 ids do.
        assert_eq!(layer_combine(0x13, 264), Some(LayerCombine::Opaque));
        let v272: Vec<_> = [0x10, 0x11, 0x13, 0x14, 0x16, 0x17].map(|id| layer_combine(id, 272)).into();
        use LayerCombine::*;
        assert_eq!(v272, [Opaque, Mod, Add, Mod2x, Mod2xNoAlpha, AddNoAlpha].map(Some));
        assert_eq!(layer_combine(0x8000, 272), Some(Mod2xNoAlpha));
        assert_eq!(layer_combine(0x8002, 272), Some(AddByAlpha));
        assert_eq!(layer_combine(0x8003, 264), Some(AddByAlpha));
        assert_eq!(layer_combine(0x8004, 264), None);
    }
}
