//! Materials and images: one glTF material per scene material, its texture embedded as PNG
//! (or the fallback tile), samplers per wrap mode, and what a material cannot express
//! ([`write()`], which hands on a [`MaterialMap`]).

use std::collections::HashMap;

use glam::Vec4;
use gltf_json as json;
use json::validation::Checked::Valid;
use serde_json::json;

use super::document::Writer;
use super::index;
use super::uv::UvScroll;
use crate::scene::{AlphaMode, BlendMode, Channel, Scene, SeeThroughKind, TextureWrap};

/// What the materials part wrote, for meshes, layers and texture animation.
#[derive(Default)]
pub(super) struct MaterialMap {
    /// Per glTF material: whether its base colour texture carries KHR_texture_transform.
    pub(super) transformable: Vec<bool>,
    /// Per scene material: whether its own texture was embedded (not the fallback tile).
    pub(super) textured: Vec<bool>,
    /// The fallback tile's glTF image, once a material needed it.
    pub(super) fallback_image: Option<u32>,
    /// Per (mesh, scene material): the material's own copy for a mesh whose UVs scroll.
    pub(super) mesh_copies: HashMap<(usize, usize), u32>,
}

/// One glTF material per scene material, in order. A material whose UVs move (a texture
/// transform channel, or one of `scrolls`) gets `KHR_texture_transform`, and the fallback tile
/// where its own texture is missing, so its clip still plays.
pub(super) fn write(scene: &Scene, scrolls: &[UvScroll], out: &mut Writer) -> MaterialMap {
    let mut map = MaterialMap::default();
    // Per scene image: its glTF texture and how its alpha draws.
    let mut textures: HashMap<usize, Option<(u32, SeeThroughKind)>> = HashMap::new();
    let animated_uv: Vec<bool> = (0..scene.materials.len())
        .map(|m| {
            scene
                .clips
                .iter()
                .flat_map(|c| &c.channels)
                .any(|ch| matches!(ch, Channel::UvTransform { material, .. } if *material == m))
                || scrolls.iter().any(|s| mesh_uses_material(scene, s.mesh, m))
        })
        .collect();
    // One sampler per wrap mode pair, one texture per (image, wrap): the same pixels may
    // tile in one material and clamp in another (M2 texture flags).
    let mut samplers: HashMap<[TextureWrap; 2], u32> = HashMap::new();
    let mut wrapped: HashMap<(u32, [TextureWrap; 2]), u32> = HashMap::new();
    for (material_index, material) in scene.materials.iter().enumerate() {
        if let Some(layer) = &material.layer2 {
            let name = layer.texture.as_deref().unwrap_or("(unnamed)");
            let combine = layer.combine.label();
            out.note(format!(
                "material {material_index}: second texture {name} ({combine}) left out: glTF has no multitexture"
            ));
        }
        if let Some(cycle) = &material.image_cycle {
            out.note(format!(
                "material {material_index}: cycles through {} images (a skin group); glTF cannot swap images, so \
                 its first is exported",
                cycle.images.len()
            ));
        }
        // Texture access goes through the scene's images: the same pixels the renderer draws.
        let mut texture = None;
        let mut see_through = None;
        let mut own_texture = false;
        if let Some(image_index) = material.image {
            let embedded = match textures.get(&image_index) {
                Some(known) => *known,
                None => {
                    let made = embed_image(scene, image_index, out);
                    textures.insert(image_index, made);
                    made
                }
            };
            own_texture = embedded.is_some();
            // The viewer draws an image it could not load with the fallback tile and
            // scrolls it: a material whose UVs move gets the same tile, so its clip plays.
            let animated = animated_uv.get(material_index).copied().unwrap_or(false);
            let source = match embedded {
                None if animated => embed_fallback(&mut map.fallback_image, material_index, out),
                other => other,
            };
            if let Some((image, kind)) = source {
                let wrap = material.wrap;
                let sampler = *samplers.entry(wrap).or_insert_with(|| {
                    let mode = |w: TextureWrap| {
                        Valid(match w {
                            TextureWrap::Repeat => json::texture::WrappingMode::Repeat,
                            TextureWrap::Clamp => json::texture::WrappingMode::ClampToEdge,
                        })
                    };
                    out.root
                        .push(json::texture::Sampler {
                            mag_filter: Some(Valid(json::texture::MagFilter::Linear)),
                            min_filter: Some(Valid(json::texture::MinFilter::LinearMipmapLinear)),
                            wrap_s: mode(wrap[0]),
                            wrap_t: mode(wrap[1]),
                            ..Default::default()
                        })
                        .value() as u32
                });
                let made = *wrapped.entry((image, wrap)).or_insert_with(|| {
                    out.root
                        .push(json::Texture {
                            name: None,
                            sampler: Some(index(sampler)),
                            source: index(image),
                            extensions: None,
                            extras: None,
                        })
                        .value() as u32
                });
                texture = Some(made);
                see_through = Some(kind);
            }
        } else if let Some(name) = &material.texture {
            out.note(format!("material {material_index}: texture {name} not found"));
        }

        use json::material::AlphaMode as Gm;
        let (alpha_mode, cutoff, approximated) = match material.alpha {
            AlphaMode::Opaque => (Gm::Opaque, None, None),
            AlphaMode::Mask => (Gm::Mask, Some(0.5), None),
            AlphaMode::SeeThrough => match see_through {
                // As the renderer: an unresolved texture draws its cut-out fallback tile.
                Some(SeeThroughKind::Blended) => (Gm::Blend, None, None),
                Some(SeeThroughKind::CutOut) | None => (Gm::Mask, Some(0.5), None),
            },
            AlphaMode::Blend(mode) => match mode {
                BlendMode::Opaque => (Gm::Opaque, None, None),
                BlendMode::AlphaKey => (Gm::Mask, Some(0.5), None),
                BlendMode::Alpha => (Gm::Blend, None, None),
                other => (Gm::Blend, None, Some(format!("{other:?}"))),
            },
        };
        let second_set = samples_second_set(scene, material_index);
        if material.uv_set == 1 && texture.is_some() && !second_set {
            out.note(format!(
                    "material {material_index} samples a second UV set that a mesh drawing with it lacks; its first set is used"
                ));
        }
        let transform = (animated_uv.get(material_index).copied().unwrap_or(false) && texture.is_some()).then_some(
            json::extensions::texture::TextureTransform {
                offset: json::extensions::texture::TextureTransformOffset([0.0, 0.0]),
                rotation: json::extensions::texture::TextureTransformRotation(0.0),
                scale: json::extensions::texture::TextureTransformScale([1.0, 1.0]),
                // gltf-json writes `None` as null, which the validator rejects.
                tex_coord: Some(u32::from(second_set)),
                extras: None,
            },
        );
        if transform.is_some() {
            out.use_extension("KHR_texture_transform");
        }
        map.transformable.push(transform.is_some());
        map.textured.push(own_texture);
        let base_color_texture = texture.map(|t| json::texture::Info {
            index: index(t),
            tex_coord: u32::from(second_set),
            extensions: transform.map(|tt| json::extensions::texture::Info { texture_transform: Some(tt) }),
            extras: None,
        });
        let extras = approximated.map(|mode| {
            serde_json::value::to_raw_value(&json!({ "m2_blend_mode": mode, "approximated": true })).unwrap_or_default()
        });
        if material.unlit {
            out.use_extension("KHR_materials_unlit");
        }
        let c = material.base_color.clamp(Vec4::ZERO, Vec4::ONE);
        let gltf_material = json::Material {
            alpha_cutoff: cutoff.map(json::material::AlphaCutoff),
            alpha_mode: Valid(alpha_mode),
            double_sided: material.two_sided,
            name: Some(material.name.clone()),
            pbr_metallic_roughness: json::material::PbrMetallicRoughness {
                base_color_factor: json::material::PbrBaseColorFactor(c.to_array()),
                base_color_texture,
                metallic_factor: json::material::StrengthFactor(0.0),
                roughness_factor: json::material::StrengthFactor(1.0),
                metallic_roughness_texture: None,
                extensions: None,
                extras: None,
            },
            extensions: material
                .unlit
                .then_some(json::extensions::material::Material { unlit: Some(json::extensions::material::Unlit {}) }),
            extras,
            ..Default::default()
        };
        out.root.push(gltf_material);
    }
    map
}

/// Scene image `image_index` as an embedded PNG: its glTF image index and how its alpha
/// draws, or `None` (with a note) when it did not resolve or decode.
fn embed_image(scene: &Scene, image_index: usize, out: &mut Writer) -> Option<(u32, SeeThroughKind)> {
    let scene_image = scene.images.get(image_index)?;
    let image = match scene_image.load() {
        Ok(image) => image,
        Err(e) => {
            out.note(format!("texture {} not embedded: {e}", scene_image.name));
            return None;
        }
    };
    let kind = crate::scene::classify_see_through(&image.rgba);
    let png = match crate::export::encode_png(&image) {
        Ok(png) => png,
        Err(e) => {
            out.note(format!("texture {} not embedded: {e}", scene_image.name));
            return None;
        }
    };
    let view = out.view(&png, None);
    let name = Some(scene_image.name.clone());
    let image_index = out
        .root
        .push(json::Image {
            buffer_view: Some(index(view)),
            mime_type: Some(json::image::MimeType("image/png".into())),
            name,
            uri: None,
            extensions: None,
            extras: None,
        })
        .value() as u32;
    Some((image_index, kind))
}

/// The fallback tile ([`crate::scene::fallback`]) as an embedded PNG, made once per
/// document (`fallback_image` remembers it), for material `material` whose own image could
/// not be embedded.
fn embed_fallback(
    fallback_image: &mut Option<u32>,
    material: usize,
    out: &mut Writer,
) -> Option<(u32, SeeThroughKind)> {
    let image = match *fallback_image {
        Some(image) => image,
        None => {
            let tile = crate::scene::fallback::fallback_tile();
            let png = match crate::export::encode_png(&tile) {
                Ok(png) => png,
                Err(e) => {
                    out.note(format!("the fallback tile not embedded: {e}"));
                    return None;
                }
            };
            let view = out.view(&png, None);
            let image = out
                .root
                .push(json::Image {
                    buffer_view: Some(index(view)),
                    mime_type: Some(json::image::MimeType("image/png".into())),
                    name: Some(crate::scene::fallback::FALLBACK_LOCATION.into()),
                    uri: None,
                    extensions: None,
                    extras: None,
                })
                .value() as u32;
            *fallback_image = Some(image);
            image
        }
    };
    out.note(format!(
        "material {material}: its texture is missing; the fallback tile embedded, as the viewer draws it"
    ));
    // The renderer draws the (opaque) tile cut-out.
    Some((image, SeeThroughKind::CutOut))
}

impl MaterialMap {
    /// Why material `material` of `scene` cannot be drawn as a layer over a base in glTF, or
    /// `None` when it can (an opaque, cut-out or alpha-blended texture).
    pub(super) fn unexpressible_layer(&self, scene: &Scene, material: usize) -> Option<&'static str> {
        let m = scene.materials.get(material)?;
        if m.sphere_map {
            return Some("an environment map, which glTF cannot express");
        }
        if let AlphaMode::Blend(mode) = m.alpha
            && !matches!(mode, BlendMode::Opaque | BlendMode::AlphaKey | BlendMode::Alpha)
        {
            return Some("an additive or modulating blend, which glTF cannot express");
        }
        if !self.textured.get(material).copied().unwrap_or(false) {
            return Some("its texture is not available, and untextured it would paint the base flat");
        }
        None
    }
}

/// Whether material `index` samples its meshes' second texture coordinate set
/// ([`crate::scene::Mesh::samples_second_uv_set`]) in the export: only where every mesh drawing
/// with it has one, since a glTF primitive must carry the set its material names.
pub(super) fn samples_second_set(scene: &Scene, index: usize) -> bool {
    let Some(material) = scene.materials.get(index) else { return false };
    material.uv_set == 1
        && scene.meshes.iter().all(|mesh| {
            let draws_with_it = mesh.submeshes.iter().any(|sub| sub.material == Some(index));
            !draws_with_it || mesh.samples_second_uv_set(material)
        })
}

pub(super) fn mesh_uses_material(scene: &Scene, mesh: usize, material: usize) -> bool {
    scene.meshes.get(mesh).is_some_and(|m| m.submeshes.iter().any(|s| s.material == Some(material)))
}
