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
    pub raw: Vec<RawField>,
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
            raw: Vec::new(),
        }
    }
}
