//! Materials: the texture a surface samples, how its alpha and blending work, its sides and
//! lighting, which UV set it reads and how coordinates outside 0..1 wrap.

use glam::Vec4;
use serde::Serialize;

use super::RawField;

/// How a material's alpha is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AlphaMode {
    /// Alpha ignored, even where the texture has it.
    Opaque,
    /// See-through; the renderer decides per texture between alpha test (cut-out art: mostly
    /// fully opaque or fully clear texels) and sorted blending (true gradients).
    SeeThrough,
    /// Alpha-tested at the given threshold.
    Mask,
    /// A fixed blend state (M2 blend modes).
    Blend(BlendMode),
}

impl AlphaMode {
    /// Whether the surface can be seen through at all (M2's opaque blend mode cannot).
    pub fn is_see_through(self) -> bool {
        !matches!(self, AlphaMode::Opaque | AlphaMode::Blend(BlendMode::Opaque))
    }
}

/// M2's eight blend modes, kept as such so the renderer maps each to a real blend state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BlendMode {
    Opaque,
    AlphaKey,
    Alpha,
    NoAlphaAdd,
    Add,
    Mod,
    Mod2x,
    BlendAdd,
}

#[derive(Debug, Clone)]
pub struct Material {
    pub name: String,
    /// The texture name as the file states it.
    pub texture: Option<String>,
    /// The image `texture` resolved to: an index into [`Scene::images`](super::Scene::images), set
    /// by the one resolver (`formats::assets`) when the scene is opened; `None` when the material
    /// has no texture or was never resolved.
    pub image: Option<usize>,
    pub alpha: AlphaMode,
    pub two_sided: bool,
    pub unlit: bool,
    pub depth_write: bool,
    pub base_color: Vec4,
    /// The format's raw flag word (TPW material flags, M2 render flags).
    pub flags: u32,
    /// Texture coordinates come from a sphere map of the view-space reflection (M2 environment
    /// mapping, texture coordinate combo −1) instead of the mesh's UVs.
    pub sphere_map: bool,
    /// Which texture coordinate set the texture samples: 0 for [`Mesh::uvs`](super::Mesh::uvs), 1
    /// for [`Mesh::uvs1`](super::Mesh::uvs1) (an M2 texture unit whose texture coordinate lookup
    /// says 1). A mesh with no second set samples its first.
    pub uv_set: u8,
    /// Draw order among a model's blended surfaces, lowest first (M2: priority plane × 65536 +
    /// material layer, so a layer-1 pass draws over its layer-0 base); 0 where the format has none.
    pub draw_order: i32,
    /// How texture coordinates outside 0..1 sample, along u and along v (M2 texture flags 0x1
    /// and 0x2 choose repeat; without them that axis clamps). The renderer picks the sampler.
    pub wrap: [TextureWrap; 2],
    /// A second texture drawn in the same pass over the first (M2 texture units with two
    /// textures), combined with the colour the first gives; `None` for one texture.
    pub layer2: Option<TextureLayer>,
    /// Images shown in turn in place of [`Material::image`] (Quake skin groups); `None` for a
    /// still texture. `image` stays the first, which is what a still picture (an export) shows.
    pub image_cycle: Option<ImageCycle>,
    pub raw: Vec<RawField>,
}

/// Images a material shows in turn on the global clock whatever clip plays, as Quake plays a
/// skin group: `images[k]` shows while `time % period` is below `ends[k]` and not below the end
/// before it, the period being the last end. Ends are cumulative, in the global clock's units
/// ([`Pose::global_time`](super::anim::Pose::global_time)).
#[derive(Debug, Clone, PartialEq)]
pub struct ImageCycle {
    /// Indices into [`Scene::images`](super::Scene::images).
    pub images: Vec<usize>,
    pub ends: Vec<f32>,
}

impl ImageCycle {
    /// The time one round takes (the last end), 0 when there are no ends.
    pub fn period(&self) -> f32 {
        self.ends.last().copied().unwrap_or(0.0)
    }

    /// The image shown at `time`: the first whose end is past `time % period` (the last when
    /// none is, as Quake's `R_AliasSetupSkin` falls through to it).
    pub fn image_at(&self, time: f32) -> Option<usize> {
        let period = self.period();
        let within = if period > 0.0 && time.is_finite() { time.rem_euclid(period) } else { 0.0 };
        let shown = self.ends.partition_point(|&end| end <= within);
        self.images.get(shown.min(self.images.len().saturating_sub(1))).copied()
    }

    /// Whether every end is finite and after the one before, one per image.
    pub fn is_well_formed(&self) -> bool {
        let rising = self.ends.iter().zip(self.ends.iter().skip(1)).all(|(a, b)| a < b);
        !self.images.is_empty()
            && self.images.len() == self.ends.len()
            && rising
            && self.ends.iter().all(|e| e.is_finite() && *e > 0.0)
    }
}

/// A material's second texture: what it samples and how it combines with the first.
#[derive(Debug, Clone, PartialEq)]
pub struct TextureLayer {
    /// The texture name as the file states it.
    pub texture: Option<String>,
    /// The image `texture` resolved to (as [`Material::image`]); `None` leaves the layer out of
    /// the drawing, so the surface shows its first texture alone.
    pub image: Option<usize>,
    /// The texture coordinate set it samples (0 or 1, as [`Material::uv_set`]).
    pub uv_set: u8,
    /// Coordinates from the sphere map instead of a UV set (as [`Material::sphere_map`]).
    pub sphere_map: bool,
    pub wrap: [TextureWrap; 2],
    pub combine: LayerCombine,
}

/// How a second texture `t` combines with the colour `c` (rgb, alpha) the first one gave.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LayerCombine {
    /// `c.rgb × t.rgb`, alpha kept.
    Opaque,
    /// `c × t`, alpha too.
    Mod,
    /// `c + t`, alpha too.
    Add,
    /// `c × t × 2`, alpha too.
    Mod2x,
    /// `c.rgb × t.rgb × 2`, alpha kept.
    Mod2xNoAlpha,
    /// `c.rgb + t.rgb`, alpha kept.
    AddNoAlpha,
    /// `c.rgb + t.rgb × t.a`, alpha kept (a reflection added by its own alpha).
    AddByAlpha,
}

impl LayerCombine {
    /// The number the renderer's shader reads (1..=7; 0 there means no second layer).
    pub fn shader_code(self) -> u32 {
        match self {
            LayerCombine::Opaque => 1,
            LayerCombine::Mod => 2,
            LayerCombine::Add => 3,
            LayerCombine::Mod2x => 4,
            LayerCombine::Mod2xNoAlpha => 5,
            LayerCombine::AddNoAlpha => 6,
            LayerCombine::AddByAlpha => 7,
        }
    }

    /// A short name, as `info` shows it (`mod2x`).
    pub fn label(self) -> &'static str {
        match self {
            LayerCombine::Opaque => "opaque",
            LayerCombine::Mod => "mod",
            LayerCombine::Add => "add",
            LayerCombine::Mod2x => "mod2x",
            LayerCombine::Mod2xNoAlpha => "mod2x, alpha kept",
            LayerCombine::AddNoAlpha => "add, alpha kept",
            LayerCombine::AddByAlpha => "add by its alpha",
        }
    }
}

/// How a texture axis treats coordinates outside 0..1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
pub enum TextureWrap {
    /// Tile the texture (what TPW, Quake II and MDR textures always do).
    #[default]
    Repeat,
    /// Hold the edge texel.
    Clamp,
}

impl Material {
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            texture: None,
            image: None,
            alpha: AlphaMode::Opaque,
            two_sided: false,
            unlit: false,
            depth_write: true,
            base_color: Vec4::ONE,
            flags: 0,
            sphere_map: false,
            uv_set: 0,
            draw_order: 0,
            wrap: [TextureWrap::Repeat; 2],
            layer2: None,
            image_cycle: None,
            raw: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_image_cycle_shows_each_image_until_its_end_and_repeats() {
        let cycle = ImageCycle { images: vec![4, 7, 9], ends: vec![1.0, 1.5, 3.0] };
        let shown: Vec<_> = [0.0, 0.99, 1.0, 1.49, 1.5, 2.99, 3.0, 4.2, -0.5].map(|t| cycle.image_at(t)).into();
        let expected = [4, 4, 7, 7, 9, 9, 4, 7, 9].map(Some);
        assert_eq!(shown, expected);
        assert!(cycle.is_well_formed());
        assert!(!ImageCycle { images: vec![1, 2], ends: vec![1.0, 1.0] }.is_well_formed());
        assert_eq!(ImageCycle { images: vec![], ends: vec![] }.image_at(1.0), None);
    }
}
