//! The format-neutral scene every decoder produces and every consumer (renderer, UI, CLI,
//! exporters) reads. It is shaped like glTF: a node tree with local 4x4 matrices, meshes with
//! one submesh per material, materials, and animation clips made of channels.
//!
//! # Conventions
//! - Matrices are `glam::Mat4` in glam's column-vector convention (`world * v`). A file's
//!   row-major, row-vector matrix (translation in elements 12..14) loads as
//!   `Mat4::from_cols_array` unchanged, because that transpose is exactly the column-vector form.
//!   `world = parent_world * local`. Matrices are never decomposed (TPW nodes may be sheared).
//! - The scene is Y-up and right-handed; front faces wind counter-clockwise. Each decoder maps
//!   its own axes and winding in one place.
//! - A mesh keeps its *source* positions (as stored, which is what morphs and skins address)
//!   apart from its *render* vertices; `vertex_source[i]` names the source position of render
//!   vertex `i`. Formats whose render vertices are their stored vertices use the identity.
//!
//! # How each format maps onto it
//! - **TPW `.md2`**: mesh nodes and transform-only nodes, both [`Node`]s; the vertex-order table
//!   becomes `vertex_source`; a material per TPW material. Animation files become [`Clip`]s with
//!   [`Channel::NodeRotation`] / [`Channel::NodeRotationEased`] (local orientation keys),
//!   [`Channel::NodePosition`], [`Channel::NodeAxisScale`], [`Channel::NodeVisibility`],
//!   [`Channel::NodePathProgress`], [`Channel::VertexMorph`] (per-source-vertex keys in blocks
//!   sharing key times), [`Channel::VertexFrames`] and [`Channel::UvKeys`] (keyed UV slots).
//! - **Quake II `.md2`**: one mesh node; every frame is a [`Channel::PackedFrames`] sample of
//!   all source positions (kept quantised), grouped into clips by frame name.
//! - **Quake 3 `.mdr`**: one skinned mesh per surface ([`SkinWeights`], offsets per influence),
//!   bones as a [`Skeleton`] (frame 0 as its rest pose), per-frame bone matrices in
//!   [`Channel::BoneFrames`]; tags are nodes with [`NodeKind::Tag`] that follow their bone.
//!   Every LOD's surfaces are meshes, grouped per level in [`Scene::lods`].
//! - **WoW `.m2`**: skinned meshes per submesh, bones with pivots and TRS key tracks in
//!   [`Channel::BoneTracks`] (time in milliseconds), UV transforms and colour/alpha channels.

pub mod anim;
pub mod math;
pub mod validate;

pub use validate::SceneViolation;

use glam::{Mat4, Quat, Vec2, Vec3, Vec4};
use serde::Serialize;

/// Which decoder produced a scene.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum FormatKind {
    #[serde(rename = "tpw-md2")]
    TpwMd2,
    #[serde(rename = "quake2-md2")]
    Quake2Md2,
    #[serde(rename = "quake3-mdr")]
    Quake3Mdr,
    #[serde(rename = "wow-m2")]
    WowM2,
    #[serde(rename = "wow-skin")]
    WowSkin,
}

impl FormatKind {
    /// The short identifier used in `info --json` and error messages.
    pub fn id(self) -> &'static str {
        match self {
            FormatKind::TpwMd2 => "tpw-md2",
            FormatKind::Quake2Md2 => "quake2-md2",
            FormatKind::Quake3Mdr => "quake3-mdr",
            FormatKind::WowM2 => "wow-m2",
            FormatKind::WowSkin => "wow-skin",
        }
    }

    /// A human name for summaries.
    pub fn label(self) -> &'static str {
        match self {
            FormatKind::TpwMd2 => "Theme Park World MD2",
            FormatKind::Quake2Md2 => "Quake II MD2",
            FormatKind::Quake3Mdr => "Quake 3 MDR",
            FormatKind::WowM2 => "World of Warcraft M2",
            FormatKind::WowSkin => "World of Warcraft skin profile",
        }
    }
}

/// Whether the opened file held geometry or only animation for another file's geometry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SceneKind {
    Mesh,
    Animation,
}

/// A raw, not-yet-understood field kept for people reverse-engineering the format.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RawField {
    /// The field's name: most are fixed text, borrowed with no allocation of their own.
    pub name: std::borrow::Cow<'static, str>,
    /// Absolute file offset of the field.
    pub offset: u64,
    pub value: u64,
}

impl RawField {
    pub fn new(name: impl Into<std::borrow::Cow<'static, str>>, offset: u64, value: u64) -> Self {
        Self { name: name.into(), offset, value }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    /// A node that carries a mesh.
    Mesh,
    /// A transform-only node (TPW dummies).
    Transform,
    /// A skeleton joint.
    Bone,
    /// An attachment point (MDR tags, M2 attachments) that follows a bone.
    Tag,
}

#[derive(Debug, Clone)]
pub struct Node {
    pub name: String,
    pub kind: NodeKind,
    pub parent: Option<usize>,
    pub children: Vec<usize>,
    /// Transform relative to the parent (column-vector convention, see the module doc).
    pub local: Mat4,
    pub mesh: Option<usize>,
    /// For tags, attachments and bones: the (skeleton, joint) this node follows. When the pose
    /// has joint matrices, the node's world matrix is `joint_matrix * local` (its parent is
    /// ignored), so `local` is the offset from the joint.
    pub joint: Option<(usize, usize)>,
    /// A point on a face of the parent's mesh that this node rides while that mesh's vertices
    /// move. Boxed: few nodes have one, and every node would carry its size.
    pub anchor: Option<Box<FaceAnchor>>,
    pub raw: Vec<RawField>,
}

/// A node pinned to one face of its parent's mesh while an animation moves that mesh's
/// vertices (TPW's face anchors, engine notes §4): the node's local translation becomes
/// `lerp(lerp(c0, c1, u), c2, v) + normal · offset`, in the space of the mesh's node. At rest,
/// and in clips that leave the mesh's vertices alone, the node keeps its own matrix.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FaceAnchor {
    pub mesh: usize,
    /// The face's corners in the order the file stores them, as indices into the mesh's
    /// `source_positions`.
    pub corners: [u32; 3],
    /// From corner 0 towards corner 1.
    pub u: f32,
    /// From that point towards corner 2.
    pub v: f32,
    /// Distance along `normal`.
    pub offset: f32,
    /// The face's normal as the file stores it; moving the vertices does not change it.
    pub normal: Vec3,
}

impl FaceAnchor {
    /// The anchored point, with the mesh's source vertices at `positions`; `None` when a
    /// corner is not among them.
    pub fn point_on(&self, positions: &[Vec3]) -> Option<Vec3> {
        let [c0, c1, c2] = self.corners.map(|c| positions.get(c as usize).copied());
        Some(c0?.lerp(c1?, self.u).lerp(c2?, self.v) + self.normal * self.offset)
    }
}

impl Node {
    pub fn new(name: impl Into<String>, kind: NodeKind, local: Mat4) -> Self {
        Self {
            name: name.into(),
            kind,
            parent: None,
            children: Vec::new(),
            local,
            mesh: None,
            joint: None,
            anchor: None,
            raw: Vec::new(),
        }
    }
}

/// A contiguous range of a mesh's triangles drawn with one material.
#[derive(Debug, Clone, PartialEq)]
pub struct Submesh {
    pub material: Option<usize>,
    /// Range into `Mesh::triangles`.
    pub first_triangle: u32,
    pub triangle_count: u32,
    /// The render-vertex range the material covers, as the file states it (inclusive end).
    pub vertex_start: u32,
    pub vertex_end: u32,
}

/// Skinning influences of a mesh, per source vertex: `pos = Σ weight · (bone_matrix · offset)`.
/// Influences of source vertex `v` are `influences[ranges[v].0 .. ranges[v].0 + ranges[v].1]`.
#[derive(Debug, Clone, Default)]
pub struct SkinWeights {
    pub skeleton: usize,
    pub ranges: Vec<(u32, u32)>,
    pub influences: Vec<Influence>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Influence {
    pub joint: u32,
    pub weight: f32,
    /// Position in the joint's space (MDR offsets; for M2 the bind position).
    pub offset: Vec3,
    /// Normal in the joint's space.
    pub normal: Vec3,
}

#[derive(Debug, Clone)]
pub struct Mesh {
    pub name: String,
    /// The node that places this mesh.
    pub node: Option<usize>,
    /// Positions as stored in the file, before any reordering; what morphs and skins address.
    pub source_positions: Vec<Vec3>,
    /// Per render vertex: index into `source_positions`.
    pub vertex_source: Vec<u32>,
    /// Per render vertex.
    pub uvs: Vec<Vec2>,
    /// A second texture coordinate set, per render vertex, for materials whose
    /// [`Material::uv_set`] is 1 (M2 vertices carry two); empty when the format has one or no
    /// material samples it.
    pub uvs1: Vec<Vec2>,
    /// Per render vertex: the rest pose's normals (the file's own, or computed smooth ones).
    pub normals: Vec<Vec3>,
    /// The rest normals light every pose, however the vertices move: they are the file's
    /// stored normals and its animation never rewrites them (TPW's 0x64 table, engine notes
    /// §7). Otherwise moved vertices get normals recomputed from their faces.
    pub keep_rest_normals: bool,
    /// Triangles over render vertices, counter-clockwise front faces.
    pub triangles: Vec<[u32; 3]>,
    pub submeshes: Vec<Submesh>,
    /// Bounds of the source positions in the mesh's own space.
    pub bounds: Aabb,
    pub skin: Option<SkinWeights>,
    pub raw: Vec<RawField>,
    /// Per-triangle raw values the format stores but nobody understands yet (TPW's leading u16).
    pub raw_triangle_tags: Vec<u16>,
}

impl Mesh {
    /// Render-vertex positions for the rest pose.
    pub fn render_positions(&self) -> Vec<Vec3> {
        expand_positions(&self.source_positions, &self.vertex_source)
    }

    pub fn vertex_count(&self) -> usize {
        self.vertex_source.len()
    }

    /// Whether `material` draws this mesh with its second UV set: it asks for set 1 and the
    /// mesh has one (a validated second set is whole). Otherwise the first set is drawn, as the
    /// renderer does.
    pub fn samples_second_uv_set(&self, material: &Material) -> bool {
        material.uv_set == 1 && !self.uvs1.is_empty()
    }
}

/// Expands source positions to render vertices; out-of-range sources become the origin
/// (decoders validate them, so this is only a guard).
pub fn expand_positions(source: &[Vec3], vertex_source: &[u32]) -> Vec<Vec3> {
    vertex_source.iter().map(|&s| source.get(s as usize).copied().unwrap_or(Vec3::ZERO)).collect()
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aabb {
    pub min: Vec3,
    pub max: Vec3,
}

impl Aabb {
    pub const EMPTY: Aabb = Aabb { min: Vec3::splat(f32::INFINITY), max: Vec3::splat(f32::NEG_INFINITY) };

    /// The box of the finite points; a point with a NaN or infinite coordinate is left out.
    pub fn from_points(points: &[Vec3]) -> Aabb {
        use glam::Vec3A;
        // A branch, not a select: points are finite all but never, so it is always guessed
        // right, and it costs three instructions where building the select's mask cost eight.
        fn grow([min, max]: &mut [Vec3A; 2], p: Vec3) {
            let p = Vec3A::from(p);
            if p.is_finite() {
                *min = min.min(p);
                *max = max.max(p);
            }
        }
        // Four boxes grown side by side, then merged: a single box waited on its previous
        // point at every point. (Where +0 and -0 tie for a bound, which sign it keeps may
        // differ from a single box's; nothing reads the sign of a bound.)
        let mut boxes = [[Vec3A::from(Aabb::EMPTY.min), Vec3A::from(Aabb::EMPTY.max)]; 4];
        let (groups, rest) = points.as_chunks::<4>();
        for group in groups {
            for (bounds, &p) in boxes.iter_mut().zip(group) {
                grow(bounds, p);
            }
        }
        let [mut first, others @ ..] = boxes;
        for &p in rest {
            grow(&mut first, p);
        }
        let [min, max] =
            others.iter().fold(first, |[min, max], [other_min, other_max]| [min.min(*other_min), max.max(*other_max)]);
        Aabb { min: min.into(), max: max.into() }
    }

    pub fn include(&mut self, p: Vec3) {
        if p.is_finite() {
            self.min = self.min.min(p);
            self.max = self.max.max(p);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.min.x > self.max.x
    }

    pub fn center(&self) -> Vec3 {
        (self.min + self.max) * 0.5
    }

    pub fn size(&self) -> Vec3 {
        if self.is_empty() { Vec3::ZERO } else { self.max - self.min }
    }

    /// The box around this box's eight corners after `m`.
    pub fn transformed(&self, m: &Mat4) -> Aabb {
        if self.is_empty() {
            return *self;
        }
        let mut out = Aabb::EMPTY;
        for i in 0..8 {
            let c = Vec3::new(
                if i & 1 == 0 { self.min.x } else { self.max.x },
                if i & 2 == 0 { self.min.y } else { self.max.y },
                if i & 4 == 0 { self.min.z } else { self.max.z },
            );
            out.include(m.transform_point3(c));
        }
        out
    }

    pub fn union(&self, other: &Aabb) -> Aabb {
        Aabb { min: self.min.min(other.min), max: self.max.max(other.max) }
    }
}

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
    /// The image `texture` resolved to: an index into [`Scene::images`], set by the one
    /// resolver (`formats::assets`) when the scene is opened; `None` when the material has no
    /// texture or was never resolved.
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
    /// Which texture coordinate set the texture samples: 0 for [`Mesh::uvs`], 1 for
    /// [`Mesh::uvs1`] (an M2 texture unit whose texture coordinate lookup says 1). A mesh with
    /// no second set samples its first.
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

/// Decoded texture pixels: RGBA8, row-major, top row first, with where they came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
    /// Where the pixels were read from (a file path, or a member of an archive).
    pub location: String,
}

/// How a see-through texture should be drawn (the renderer and the exporters share this).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeeThroughKind {
    /// Alpha is (nearly) all fully clear or fully opaque: alpha test, depth write.
    CutOut,
    /// Alpha holds real gradients: sorted blending without depth write.
    Blended,
}

/// Share of texels with partial alpha above which a texture counts as a true gradient.
pub const GRADIENT_SHARE: f32 = 0.25;

/// Alpha values strictly between these count as partial (a little slack on both ends, since
/// compressed or resampled cut-out art rarely lands exactly on 0 and 255).
const PARTIAL_ALPHA: std::ops::RangeInclusive<u8> = 24..=231;

/// Decides between cut-out and blended drawing for a see-through (TPW bit 0x02) texture of
/// RGBA8 pixels.
///
/// The heuristic: cut-out art (palm fronds, grass, bats) is made of fully clear and fully
/// opaque texels, with partial alpha only along the antialiased rims of its shapes, a small
/// share of the image. Gradient art (ripple rings, sea, antenna cone) has partial alpha over
/// much of its area. So a texture is [`SeeThroughKind::Blended`] when more than
/// [`GRADIENT_SHARE`] of its texels have alpha in 24..=231, else [`SeeThroughKind::CutOut`].
/// A texture with no alpha at all is a cut-out that happens to hide nothing, which draws
/// exactly as opaque with correct depth.
pub fn classify_see_through(rgba: &[u8]) -> SeeThroughKind {
    let total = rgba.len() / 4;
    if total == 0 {
        return SeeThroughKind::CutOut;
    }
    let partial = rgba.chunks_exact(4).filter(|p| p.get(3).is_some_and(|a| PARTIAL_ALPHA.contains(a))).count();
    if partial as f32 > GRADIENT_SHARE * total as f32 { SeeThroughKind::Blended } else { SeeThroughKind::CutOut }
}

/// Where a [`SceneImage`]'s bytes live and how they decode. `formats::assets` implements it,
/// so the scene (and the renderer and exporters that read it) never touch files or codecs.
pub trait ImageSource: std::fmt::Debug + Send + Sync {
    /// The file (or archive member) the image comes from, as users should see it.
    fn location(&self) -> String;
    /// Reads and decodes the image.
    fn load(&self) -> Result<Image, String>;
}

/// One texture a scene's materials refer to ([`Material::image`]): the name as the model
/// states it, where the resolver found it, and its pixels, decoded on first use and kept.
/// Clones share the decoded pixels.
#[derive(Debug, Clone)]
pub struct SceneImage {
    /// The texture name as the model states it.
    pub name: String,
    /// Where it resolved; `None` when it was found nowhere.
    pub source: Option<std::sync::Arc<dyn ImageSource>>,
    loaded: std::sync::Arc<std::sync::OnceLock<Result<std::sync::Arc<Image>, String>>>,
}

impl SceneImage {
    pub fn new(name: impl Into<String>, source: Option<std::sync::Arc<dyn ImageSource>>) -> Self {
        Self { name: name.into(), source, loaded: Default::default() }
    }

    /// Where the image resolved, if anywhere.
    pub fn location(&self) -> Option<String> {
        self.source.as_ref().map(|s| s.location())
    }

    /// The decoded pixels (decoded once, then shared), or why there are none. The renderer's
    /// upload and the exporters both call this, so they show the same pixels. A panic in an
    /// image decoder (a bug: decoders return errors) is kept as this image's error, so the
    /// model still opens, with the fallback for this texture.
    pub fn load(&self) -> Result<std::sync::Arc<Image>, String> {
        self.loaded
            .get_or_init(|| match &self.source {
                Some(source) => std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| source.load()))
                    .unwrap_or_else(|_| {
                        Err(format!("{}: the image decoder crashed; please report this file", source.location()))
                    })
                    .map(std::sync::Arc::new),
                None => Err("not found".to_string()),
            })
            .clone()
    }
}

/// One choice of [`Scene::choices`].
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct OpenChoice {
    /// Stable key for picks ([`crate::formats::Pick`]), e.g. `skin_profile`.
    pub key: String,
    /// What the UI calls it, e.g. "Skin profile".
    pub label: String,
    pub options: Vec<String>,
    /// Per option: whether it can be picked (a declared skin file may be missing).
    pub available: Vec<bool>,
    /// The option in use.
    pub selected: Option<usize>,
}

/// A joint hierarchy for skinned meshes.
#[derive(Debug, Clone, Default)]
pub struct Skeleton {
    pub name: String,
    pub joints: Vec<Joint>,
    /// Model-space joint matrices of the rest pose (MDR: frame 0), so that tags and attachments
    /// sit on their joints when no clip plays. Empty when the format has none.
    pub rest_pose: Vec<Mat4>,
}

#[derive(Debug, Clone)]
pub struct Joint {
    pub name: String,
    pub parent: Option<usize>,
    /// M2 pivot point (rotation and scale happen about it).
    pub pivot: Vec3,
    /// Spherical billboard (M2 bone flag 0x8): the joint turns to face the camera, see
    /// [`anim::Pose::view_from_model`].
    pub billboard: bool,
}

/// A keyframe of type `T` at a (fractional) time in the clip's units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Key<T> {
    pub time: f32,
    pub value: T,
}

/// How a [`Curve`] moves between its keys. Step keys are stored as doubled linear keys by the
/// decoders, so they need no variant of their own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Interpolation {
    #[default]
    Linear,
    /// Cubic Hermite: `h00·v₀ + h01·v₁ + h10·out₀ + h11·in₁`, with `r` in 0..1 over the segment.
    Hermite,
    /// Cubic Bezier with control points `v₀, out₀, in₁, v₁`.
    Bezier,
}

/// A read-only run of elements that several owners may share: a view into one list held
/// behind an `Arc`, read as a slice. An M2 track decodes every sequence's keys into one list,
/// and each clip's curve views its sequence's run of it: opening a model with 140 bones and
/// 147 sequences allocates once per track instead of once per (track, sequence), and
/// building its clips moves views, not key lists.
pub struct SharedSlice<E> {
    /// `None` for an empty run, which then allocates nothing.
    list: Option<std::sync::Arc<Vec<E>>>,
    /// The run, `start..start + len`, always within `list` (see [`SharedSlice::view`]). Held
    /// here so that a run's length is known without reaching into the shared list: a clip
    /// built from 420 tracks asks each one whether it plays, and that should cost no extra
    /// cache miss.
    start: u32,
    len: u32,
}

impl<E> SharedSlice<E> {
    /// The run `range` of `list`; `None` where the range does not lie within the list (or
    /// past 2³² elements). An empty run does not hold on to the list.
    pub fn view(list: &std::sync::Arc<Vec<E>>, range: std::ops::Range<usize>) -> Option<Self> {
        list.get(range.clone())?;
        if range.is_empty() {
            return Some(Self::default());
        }
        let start = u32::try_from(range.start).ok()?;
        let len = u32::try_from(range.len()).ok()?;
        Some(Self { list: Some(list.clone()), start, len })
    }

    pub fn as_slice(&self) -> &[E] {
        // `view` checked the run and the list never changes behind the `Arc`.
        let (start, len) = (self.start as usize, self.len as usize);
        self.list.as_deref().and_then(|list| list.get(start..start.checked_add(len)?)).unwrap_or(&[])
    }

    /// The part `range` of this run (indices relative to it), sharing its list; `None` where
    /// the range does not lie within the run.
    pub fn subview(&self, range: std::ops::Range<usize>) -> Option<Self> {
        if range.start > range.end || range.end > self.len() {
            return None;
        }
        if range.is_empty() {
            return Some(Self::default());
        }
        let start = u32::try_from(range.start).ok()?.checked_add(self.start)?;
        Some(Self { list: self.list.clone(), start, len: u32::try_from(range.len()).ok()? })
    }

    /// The run's length, known without touching the shared list.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl<E> Default for SharedSlice<E> {
    fn default() -> Self {
        Self { list: None, start: 0, len: 0 }
    }
}

// By hand: a derive would ask `E: Clone`, and cloning a view never clones elements.
impl<E> Clone for SharedSlice<E> {
    fn clone(&self) -> Self {
        Self { list: self.list.clone(), start: self.start, len: self.len }
    }
}

impl<E> std::ops::Deref for SharedSlice<E> {
    type Target = [E];
    fn deref(&self) -> &[E] {
        self.as_slice()
    }
}

impl<'a, E> IntoIterator for &'a SharedSlice<E> {
    type Item = &'a E;
    type IntoIter = std::slice::Iter<'a, E>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

/// The whole list as one run. A run's bounds are `u32`s, so a list of 2³² elements or more
/// reads as empty: decoders check their lists' lengths before converting them.
impl<E> From<Vec<E>> for SharedSlice<E> {
    fn from(list: Vec<E>) -> Self {
        let len = list.len();
        Self::view(&std::sync::Arc::new(list), 0..len).unwrap_or_default()
    }
}

impl<E> FromIterator<E> for SharedSlice<E> {
    fn from_iter<I: IntoIterator<Item = E>>(items: I) -> Self {
        items.into_iter().collect::<Vec<E>>().into()
    }
}

impl<E: std::fmt::Debug> std::fmt::Debug for SharedSlice<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.as_slice().fmt(f)
    }
}

impl<E: PartialEq> PartialEq for SharedSlice<E> {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<E: PartialEq> PartialEq<Vec<E>> for SharedSlice<E> {
    fn eq(&self, other: &Vec<E>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

/// Keys and how to interpolate them. Hermite and Bezier curves carry one `[in, out]` tangent
/// pair per key; a curve whose tangents do not match its keys plays linearly. Both lists may
/// be views shared with other curves ([`SharedSlice`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Curve<T> {
    pub keys: SharedSlice<Key<T>>,
    pub interpolation: Interpolation,
    pub tangents: SharedSlice<[T; 2]>,
}

impl<T> Default for Curve<T> {
    fn default() -> Self {
        Self { keys: SharedSlice::default(), interpolation: Interpolation::Linear, tangents: SharedSlice::default() }
    }
}

impl<T> Curve<T> {
    pub fn linear(keys: Vec<Key<T>>) -> Self {
        Self { keys: keys.into(), interpolation: Interpolation::Linear, tangents: SharedSlice::default() }
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

/// Morph keys for a set of source vertices that share key times (one TPW morph record):
/// `positions[key * vertices.len() + k]` is the absolute position of source vertex
/// `vertices[k]` at `times[key]`. Sharing the times lets a frame find its segment once per
/// block instead of once per vertex.
#[derive(Debug, Clone, PartialEq)]
pub struct MorphBlock {
    pub times: Vec<f32>,
    pub vertices: Vec<u32>,
    pub positions: Vec<Vec3>,
}

/// One UV slot's keys (TPW UV animation): render vertex `slot` takes `(u, v)` from `keys`,
/// blended linearly between the keys around the time and held at the first and last key
/// outside them. The value replaces the stored UV.
#[derive(Debug, Clone, PartialEq)]
pub struct UvSlotKeys {
    pub slot: u32,
    pub keys: Vec<Key<Vec2>>,
}

/// An easing curve for one segment of rotation keys (TPW): a 10-point ramp
/// `0, c[0]/255, ..., c[7]/255, 1` over 9 equal steps of the even fraction. Curves may dip
/// (not monotonic); they are played as stored. See [`EaseRamp::apply`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EaseRamp(pub [u8; 8]);

impl EaseRamp {
    /// The engine's step count, just under 9 so that `t = 1` stays in the 9th segment and
    /// returns 1 (an exact 9 would fall into a 10th and jump back to `c[7]`).
    pub const STEPS: f32 = 8.999_995;
    /// The engine's byte scale, the f32 nearest 1/255 (0.003921568859368563; f32 division rounds to nearest).
    pub const BYTE_SCALE: f32 = 1.0 / 255.0;

    /// Maps the even fraction `t` (0..=1) between two keys onto the ramp:
    /// `x = t * STEPS`, `s = trunc(x)`, `r = x - s`; the segment `(a, b)` is `(0, c0)` for
    /// s = 0, `(c[s-1], c[s])` for 1 <= s <= 7 and `(c7, 1)` for s >= 8; the result is
    /// `a + (b - a) * r`.
    pub fn apply(&self, t: f32) -> f32 {
        let x = t * Self::STEPS;
        let step = x.trunc();
        let r = x - step;
        let byte = |i: usize| f32::from(self.0.get(i).copied().unwrap_or(0)) * Self::BYTE_SCALE;
        let (a, b) = match step as i32 {
            i32::MIN..=0 => (0.0, byte(0)),
            s @ 1..=7 => (byte(s as usize - 1), byte(s as usize)),
            _ => (byte(7), 1.0),
        };
        a + (b - a) * r
    }
}

/// How a [`Path`] runs through its points (TPW path type bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PathKind {
    /// Cubic Bezier: segment `s` uses points `3s, 3s+1, 3s+2, 3s+3`, indices wrapping modulo
    /// the point count; `points / 3` segments (minus 1 when open).
    Bezier,
    /// Straight lines: segment `s` runs from point `s` to `s + 1`; `points` segments (minus 1
    /// when open).
    Straight,
    /// Uniform Catmull-Rom through points `s-1, s, s+1, s+2` (wrapping when closed, clamped
    /// when open); `points` segments (minus 1 when open). The engine has this sampler but no
    /// shipped path uses it, so its exact form is ours.
    CatmullRom,
}

/// A path a node can travel along, in the space of its path node (the follower's parent).
#[derive(Debug, Clone, PartialEq)]
pub struct Path {
    pub kind: PathKind,
    /// The last segment returns to point 0.
    pub closed: bool,
    pub points: Vec<Vec3>,
}

impl Path {
    /// The number of segments the engine divides the path into.
    pub fn segments(&self) -> usize {
        let n = self.points.len();
        let whole = match self.kind {
            PathKind::Bezier => n / 3,
            PathKind::Straight | PathKind::CatmullRom => n,
        };
        if self.closed { whole } else { whole.saturating_sub(1) }
    }

    /// Position and direction of travel (unnormalised, zero where the path stalls) at fraction
    /// `r` (0..=1) of segment `segment`.
    pub fn sample(&self, segment: usize, r: f32) -> Option<(Vec3, Vec3)> {
        let n = self.points.len();
        if n == 0 {
            return None;
        }
        let wrap = |i: usize| self.points.get(i % n).copied();
        match self.kind {
            PathKind::Bezier => {
                let first = segment.checked_mul(3)?;
                let [p0, p1, p2, p3] = [wrap(first)?, wrap(first + 1)?, wrap(first + 2)?, wrap(first + 3)?];
                let s = 1.0 - r;
                let position = p0 * (s * s * s) + p1 * (3.0 * s * s * r) + p2 * (3.0 * s * r * r) + p3 * (r * r * r);
                let direction = (p1 - p0) * (3.0 * s * s) + (p2 - p1) * (6.0 * s * r) + (p3 - p2) * (3.0 * r * r);
                Some((position, direction))
            }
            PathKind::Straight => {
                let (a, b) = (wrap(segment)?, wrap(segment + 1)?);
                Some((a.lerp(b, r), b - a))
            }
            PathKind::CatmullRom => {
                let at = |i: isize| -> Option<Vec3> {
                    let i = if self.closed { i.rem_euclid(n as isize) } else { i.clamp(0, n as isize - 1) };
                    self.points.get(i as usize).copied()
                };
                let s = segment as isize;
                let [p0, p1, p2, p3] = [at(s - 1)?, at(s)?, at(s + 1)?, at(s + 2)?];
                let (r2, r3) = (r * r, r * r * r);
                let position = (p1 * 2.0
                    + (p2 - p0) * r
                    + (p0 * 2.0 - p1 * 5.0 + p2 * 4.0 - p3) * r2
                    + (p1 * 3.0 - p0 - p2 * 3.0 + p3) * r3)
                    * 0.5;
                let direction = ((p2 - p0)
                    + (p0 * 2.0 - p1 * 5.0 + p2 * 4.0 - p3) * (2.0 * r)
                    + (p1 * 3.0 - p0 - p2 * 3.0 + p3) * (3.0 * r2))
                    * 0.5;
                Some((position, direction))
            }
        }
    }
}

/// One animated property of one target.
#[derive(Debug, Clone)]
pub enum Channel {
    /// The node's absolute local orientation (TPW rotation): the animated local matrix is
    /// `local · U⁻¹ · R(q)` in column-vector terms, where `U` is the orthonormal polar factor
    /// of the authored 3x3 made a proper rotation (`-U` for a mirrored node, so the mirror
    /// stays; [`crate::scene::math::authored_orientation_inverse`]), and `authored_inverse`
    /// stores `U⁻¹` padded to 4x4. Scale, shear and
    /// translation stay exactly as authored. An identity `authored_inverse` composes the key
    /// with the authored rotation instead (TPW additive models: `local · R(q)`). Slerp between
    /// keys; outside them the nearest key holds.
    NodeRotation { node: usize, authored_inverse: Mat4, keys: Vec<Key<Quat>> },
    /// Like [`Channel::NodeRotation`], with an easing curve per segment (TPW rotation keys
    /// with a curve id): between keys `i` and `i + 1` the even fraction `t` first goes through
    /// `ease[i]` ([`EaseRamp::apply`]; `None` leaves it even), then drives the slerp. The lower
    /// key's curve governs; the last key's entry is unused. Outside the keys the nearest key holds.
    NodeRotationEased { node: usize, authored_inverse: Mat4, keys: Vec<Key<Quat>>, ease: Vec<Option<EaseRamp>> },
    /// The node's translation relative to its parent from a curve (TPW position, linear or
    /// Bezier with the tangents as inner control points). Before the first key the node is left
    /// as it is; after the last key the last value holds. The value replaces the translation, or
    /// under `additive` is added to the authored translation.
    NodePosition { node: usize, curve: Curve<Vec3>, additive: bool },
    /// Sets the lengths of the node's three basis axes (the local matrix's first three columns,
    /// each rescaled along its own direction; translation and directions stay) to a linear blend
    /// of the keys around the time; the nearest key holds outside them (TPW scale).
    NodeAxisScale { node: usize, keys: Vec<Key<Vec3>> },
    /// Moves the node along `path` (TPW path progress). `values[i]` is a percentage of the path
    /// at time `start + i`; the channel acts only for times in `start..=start + values.len() - 1`
    /// and leaves the node alone outside. Between two values the blend is linear, the short way
    /// round the 100 % wrap when they are more than 50 apart. The percentage wraps into 0..100
    /// (`(v + 1000) mod 100`), becomes `p * segments / 100`, whose whole part is the segment
    /// (clamped to the last) and fraction the place in it ([`Path::sample`]). The point replaces
    /// the node's translation (added to it under `additive`); under `face_along` the node's
    /// basis turns so that +Z points along the direction of travel and +X stays horizontal
    /// (`Y × Z`), each axis keeping its length (the notes don't state the engine's frame; this
    /// one is ours).
    NodePathProgress { node: usize, path: Path, start: f32, values: Vec<f32>, face_along: bool, additive: bool },
    /// Node visibility switches: the last key at or before the time decides; before the first key
    /// the node keeps what it had. Hiding a node hides its own mesh only, not its children.
    NodeVisibility { node: usize, keys: Vec<Key<bool>> },
    /// Per-source-vertex positions, linearly interpolated (TPW vertex morph).
    VertexMorph { mesh: usize, blocks: Vec<MorphBlock> },
    /// Whole frames of source positions (TPW raw vertex frames): frame `f` holds
    /// `positions[f * vertex_count..][..vertex_count]` at `times[f]`, blended linearly between
    /// neighbouring frames and held outside them. The positions replace the source positions, or
    /// under `additive` are added to them.
    VertexFrames { mesh: usize, times: Vec<f32>, vertex_count: usize, positions: Vec<Vec3>, additive: bool },
    /// Whole-mesh keyframes kept quantised as the file stores them (Quake II): see
    /// [`PackedFrames`]. Linearly interpolated between neighbouring frames.
    PackedFrames(PackedFrames),
    /// Keyed UVs of render vertices (TPW UV animation), see [`UvSlotKeys`].
    UvKeys { mesh: usize, slots: Vec<UvSlotKeys> },
    /// Per-frame joint matrices (MDR), `frames[f][joint]` in model space, blended linearly.
    BoneFrames { skeleton: usize, times: Vec<f32>, frames: Vec<Vec<Mat4>> },
    /// Keyed joint TRS about the joint's pivot (M2), times in the clip's units.
    BoneTracks { skeleton: usize, joints: Vec<JointTracks> },
    /// A material's RGB replaced by keyed values (M2 colour tracks); see [`anim::Pose::material_colors`].
    MaterialColor { material: usize, keys: Curve<Vec3>, time: TrackTime },
    /// A material's alpha from keyed values in 0..=1 (M2 colour alpha and transparency tracks):
    /// the product of a clip's alpha channels on one material replaces its base alpha.
    MaterialAlpha { material: usize, keys: Curve<f32>, time: TrackTime },
    /// A material's texture-coordinate transform (M2 texture animation): translation, then
    /// rotation and scale about the texture centre (0.5, 0.5); see [`anim::Pose::uv_transforms`].
    UvTransform {
        material: usize,
        translation: Curve<Vec3>,
        rotation: Curve<Quat>,
        scale: Curve<Vec3>,
        /// Timing of translation, rotation and scale.
        time: [TrackTime; 3],
    },
}

/// How a keyed track reads time. M2 tracks tied to a global sequence loop on their own period
/// on the global clock ([`anim::Pose::global_time`]), whatever clip plays, as the spec's track
/// section, WoW Model Viewer and wow.export have it (`globalTime % period`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum TrackTime {
    /// The clip's time.
    #[default]
    Clip,
    /// `time % period` (a zero period samples time 0).
    Loop { period: f32 },
}

impl TrackTime {
    /// The time at which to sample a track with this timing when the clip is at `clip_time`
    /// and the global clock at `global_time`.
    pub fn apply(self, clip_time: f32, global_time: f32) -> f32 {
        match self {
            TrackTime::Clip => clip_time,
            TrackTime::Loop { period } if period > 0.0 && period.is_finite() => global_time.rem_euclid(period),
            TrackTime::Loop { .. } => 0.0,
        }
    }
}

/// The frames of one file, shared by every clip that plays them: per frame its time (its
/// index), scale and translate (scene axes) and name. Built once per decode, so clips allocate
/// nothing per frame.
#[derive(Debug, Clone, Default)]
pub struct FrameTable {
    pub times: Vec<f32>,
    pub transforms: Vec<(Vec3, Vec3)>,
    /// Frame `f` is named `name_text[name_ranges[f]]`; empty when the file names no frames.
    pub name_text: String,
    pub name_ranges: Vec<(u32, u32)>,
}

impl FrameTable {
    /// The name of table frame `frame`, if the file names its frames.
    pub fn name(&self, frame: usize) -> Option<&str> {
        let &(start, end) = self.name_ranges.get(frame)?;
        self.name_text.get(start as usize..end as usize)
    }
}

/// A file's bytes, shared between whoever read them and the scene views that keep them (Quake
/// II frames). A `Vec` inside, so a file is read straight into it: `std::fs::read` fills a
/// buffer's spare capacity without zeroing it first, where an `Arc<[u8]>` would have to be
/// zeroed (or copied into) before a safe read.
pub type SharedBytes = std::sync::Arc<Vec<u8>>;

/// Quantised whole-mesh frames: source vertex `v` of frame `f` sits at
/// `scale[f] * (p[lanes[0]], p[lanes[1]], p[lanes[2]]) + translate[f]` where `p` is its packed
/// record, and its normal is `normal_table[p[3]]` (scene axes). The records stay where the file
/// keeps them, 4 bytes per vertex, in one buffer every clip shares (for Quake II the file's own
/// bytes, checked at decode): table frame `f` starts at byte `first + f × frame_stride`. A clip
/// plays table frames `frames`, a view into the shared [`FrameTable`]. Only the two frames being
/// blended are ever unpacked.
#[derive(Debug, Clone, Default)]
pub struct PackedFrames {
    pub mesh: usize,
    pub table: std::sync::Arc<FrameTable>,
    /// The table frames this clip plays; the clip's frame `i` is table frame `frames.start + i`.
    pub frames: std::ops::Range<usize>,
    /// The bytes holding the packed records (shared by every clip of the file).
    pub records: SharedBytes,
    /// Byte offset of table frame 0's records in `records`.
    pub first: usize,
    /// Bytes from one frame's records to the next.
    pub frame_stride: usize,
    pub vertex_count: usize,
    /// Which packed byte (0 to 3) feeds scene x, y and z (the axis mapping folded into the
    /// layout).
    pub lanes: [u8; 3],
    /// The table that normal indices point into (for Quake II its 162 normals, built once per
    /// process), borrowed for the process, so a clip's copy counts no reference.
    pub normal_table: &'static [Vec3],
    /// Whether a loop blends the last frame back into the first over one more frame, as the
    /// Quake II engine plays a looping animation (its frames are evenly spaced, one unit
    /// apart): a clip of N frames loops in N frames, not N − 1. Only a looping pose plays the
    /// blend ([`anim::Pose::looping`]); otherwise past the end holds the last frame.
    pub wraps: bool,
}

impl PackedFrames {
    /// The clip's key times, one per frame.
    pub fn times(&self) -> &[f32] {
        self.table.times.get(self.frames.clone()).unwrap_or(&[])
    }

    /// The table frame behind the clip's frame `index`, if the clip has it.
    pub fn table_frame(&self, index: usize) -> Option<usize> {
        let frame = self.frames.start.checked_add(index)?;
        (frame < self.frames.end).then_some(frame)
    }

    /// Frame `index` of the clip: its scale, translate and packed records.
    pub fn frame(&self, index: usize) -> Option<(Vec3, Vec3, &[[u8; 4]])> {
        let frame = self.table_frame(index)?;
        let (scale, translate) = *self.table.transforms.get(frame)?;
        Some((scale, translate, self.records_at(index)?))
    }

    /// The packed records of frame `index` of the clip.
    pub fn records_at(&self, index: usize) -> Option<&[[u8; 4]]> {
        let start = self.first.checked_add(self.table_frame(index)?.checked_mul(self.frame_stride)?)?;
        let bytes = self.records.get(start..start.checked_add(self.vertex_count.checked_mul(4)?)?)?;
        Some(bytes.as_chunks::<4>().0)
    }

    /// Whether the file names its frames.
    pub fn has_names(&self) -> bool {
        !self.table.name_ranges.is_empty()
    }

    /// The name of frame `index` of the clip, if the file names its frames.
    pub fn name(&self, index: usize) -> Option<&str> {
        self.table.name(self.table_frame(index)?)
    }

    /// Scene-space position of packed record `p` under `scale` and `translate`.
    #[inline]
    pub fn position(&self, scale: Vec3, translate: Vec3, p: [u8; 4]) -> Vec3 {
        // A lane names one of the record's 4 bytes: taken modulo 4, each read is in bounds with
        // no check per vertex (this runs for every vertex of two frames on every animated frame).
        let [x, y, z] = self.lanes.map(|lane| usize::from(lane % 4));
        let byte = |at: usize| f32::from(p.get(at).copied().unwrap_or(0));
        Vec3::new(byte(x), byte(y), byte(z)) * scale + translate
    }

    /// Scene-space normal of packed record `p` (up when the index is past the table).
    pub fn normal(&self, p: [u8; 4]) -> Vec3 {
        self.normal_table.get(usize::from(p[3])).copied().unwrap_or(Vec3::Y)
    }

    /// Every source position of frame `index`, unpacked.
    pub fn unpack(&self, index: usize) -> Vec<Vec3> {
        self.frame(index)
            .map(|(s, t, records)| records.iter().map(|&p| self.position(s, t, p)).collect())
            .unwrap_or_default()
    }
}

#[derive(Debug, Clone, Default)]
pub struct JointTracks {
    pub joint: usize,
    pub translation: Curve<Vec3>,
    pub rotation: Curve<Quat>,
    pub scale: Curve<Vec3>,
    /// Timing of translation, rotation and scale (M2 global sequences).
    pub timing: [TrackTime; 3],
}

impl Channel {
    /// The node whose local matrix this channel moves (rotation, position, scale and path
    /// channels; visibility only hides the node's mesh), if any.
    pub fn moved_node(&self) -> Option<usize> {
        match self {
            Channel::NodeRotation { node, .. }
            | Channel::NodeRotationEased { node, .. }
            | Channel::NodePosition { node, .. }
            | Channel::NodeAxisScale { node, .. }
            | Channel::NodePathProgress { node, .. } => Some(*node),
            _ => None,
        }
    }

    /// A short name of the kind of motion, for the UI and `info`.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Channel::NodeRotation { .. } => "rotation",
            Channel::NodeRotationEased { .. } => "eased-rotation",
            Channel::NodePosition { .. } => "position",
            Channel::NodeAxisScale { .. } => "scale",
            Channel::NodePathProgress { .. } => "path-progress",
            Channel::VertexFrames { .. } => "vertex-frames",
            Channel::NodeVisibility { .. } => "visibility",
            Channel::VertexMorph { .. } => "morph",
            Channel::PackedFrames(_) => "frame-morph",
            Channel::UvKeys { .. } => "uv",
            Channel::BoneFrames { .. } => "bone-frames",
            Channel::BoneTracks { .. } => "bone-tracks",
            Channel::MaterialColor { .. } => "material-color",
            Channel::MaterialAlpha { .. } => "material-alpha",
            Channel::UvTransform { .. } => "uv-transform",
        }
    }
}

/// What the file said about one track, whether or not it became channels; for `info` and
/// the panel.
#[derive(Debug, Clone, Serialize)]
pub struct TrackReport {
    pub index: u32,
    /// Target index as stored.
    pub target: u32,
    /// Shared with the skeleton: a model reports each bone once per clip.
    pub target_name: Option<std::sync::Arc<str>>,
    /// Channel kinds present: `rotation`, `morph`, `uv`, or `0x…` for undecoded flag bits.
    /// Borrowed where the kind is a fixed word, and up to three held inline (a bone's
    /// translation, rotation and scale): a character's 20,000 (bone, clip) reports allocate
    /// nothing for their lists.
    pub channels: smallvec::SmallVec<[std::borrow::Cow<'static, str>; 3]>,
    pub flags: u32,
    /// Raw slot pointers, by slot name.
    pub slots: Vec<(String, u32)>,
    /// Keys per kind, held inline as `channels` is.
    pub key_counts: smallvec::SmallVec<[(std::borrow::Cow<'static, str>, u32); 3]>,
    /// Each channel that could not play, as `kind: reason`.
    pub reasons: Vec<String>,
    /// Why the track (or one of its channels) was not played; `None` when everything decoded.
    pub skipped: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Clip {
    pub name: String,
    /// Where the clip came from (TPW sibling files).
    pub source: Option<std::path::PathBuf>,
    /// Clip start and end time in the clip's units (frames, or milliseconds for M2).
    pub start: f32,
    pub end: f32,
    /// Suggested playback rate in units per second.
    pub rate: f32,
    pub channels: Vec<Channel>,
    pub tracks: Vec<TrackReport>,
    pub warnings: Vec<String>,
}

/// [`Clip::rate`] of clips timed in milliseconds (M2).
pub const MILLISECONDS_PER_SECOND: f32 = 1000.0;

impl Clip {
    pub fn length(&self) -> f32 {
        (self.end - self.start).max(0.0)
    }

    /// Clip units past [`Clip::end`] through which a loop blends back into the start: one
    /// frame where a channel wraps ([`PackedFrames::wraps`]), else none. A looping clip's
    /// period is its length plus this.
    pub fn loop_blend(&self) -> f32 {
        let wraps = self.channels.iter().any(|c| matches!(c, Channel::PackedFrames(p) if p.wraps));
        if wraps { 1.0 } else { 0.0 }
    }

    /// Whether the clip's times are milliseconds (M2) rather than frames.
    pub fn in_milliseconds(&self) -> bool {
        self.rate == MILLISECONDS_PER_SECOND
    }
}

/// One level of detail (MDR LODs): the meshes drawn at that level and the transform-only
/// node that groups them. [`anim::Pose::lod`] picks the level; the others are hidden.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LodLevel {
    pub name: String,
    pub node: Option<usize>,
    pub meshes: Vec<usize>,
}

/// A decoded model, ready for the renderer and the UI.
#[derive(Debug, Clone)]
pub struct Scene {
    pub format: FormatKind,
    pub kind: SceneKind,
    pub version: u32,
    /// The file this scene was opened from.
    pub path: Option<std::path::PathBuf>,
    pub nodes: Vec<Node>,
    pub meshes: Vec<Mesh>,
    pub materials: Vec<Material>,
    pub skeletons: Vec<Skeleton>,
    pub clips: Vec<Clip>,
    /// The clip to play first (the opened animation file, for instance).
    pub default_clip: Option<usize>,
    /// Header fields kept raw for reverse engineers.
    pub raw: Vec<RawField>,
    pub warnings: Vec<String>,
    /// Levels of detail, finest first; empty when the format has none (every mesh is drawn).
    pub lods: Vec<LodLevel>,
    /// Format-specific tables for `info` and the panel (M2 skins, texture units, sequences...).
    pub details: Vec<DetailSection>,
    /// Extra names that select a clip in [`resolve_clip`] (M2: `id:5`, `id:0.1` for animation
    /// id and variation), checked after clip names.
    pub clip_aliases: Vec<(String, usize)>,
    /// Choices the opener made among sibling files that the user may change (M2: the skin
    /// profile, the image used for run-time texture slots); [`crate::formats::open_with`]
    /// reopens the file with other picks.
    pub choices: Vec<OpenChoice>,
    /// A pose the viewer offers as "as built": the last frame of this clip is how the finished
    /// item looks (TPW: the construction clip, role C).
    pub as_built: Option<usize>,
    /// The textures materials refer to, one per distinct name ([`Material::image`]).
    pub images: Vec<SceneImage>,
    /// The folders the texture resolver searched, in order (for the UI's "where did it look").
    pub image_search: Vec<String>,
    /// Channels that play on the global clock when no clip is chosen (M2 tracks tied to a
    /// global sequence, which clips also carry): the rest pose keeps them moving.
    pub global_channels: Vec<Channel>,
}

/// A titled table of a format's own facts: rows of named values, in order.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DetailSection {
    pub title: String,
    pub rows: Vec<DetailRow>,
}

/// One row of a [`DetailSection`]: `(column, value)` pairs, serialised as an ordered JSON object.
/// Column names are fixed words; the values are written one after another into one string,
/// each cell keeping where its value ends, so a row costs two allocations however many
/// columns it has (a string per value made the detail tables a tenth of an M2 decode).
#[derive(Clone, PartialEq)]
pub struct DetailRow {
    text: String,
    /// (column, end of its value in `text`), in column order.
    ends: Vec<(&'static str, usize)>,
}

impl Default for DetailRow {
    fn default() -> Self {
        // Sized for the longest rows the formats write, so that they do not regrow.
        Self { text: String::with_capacity(96), ends: Vec::with_capacity(12) }
    }
}

impl std::fmt::Debug for DetailRow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.cells()).finish()
    }
}

impl DetailRow {
    /// Adds a column (builder style). Pass `format_args!` rather than `format!` to format the
    /// value once, straight into the row.
    pub fn with(mut self, key: &'static str, value: impl std::fmt::Display) -> Self {
        self.push(key, value);
        self
    }

    /// Adds a column at the end.
    pub fn push(&mut self, key: &'static str, value: impl std::fmt::Display) {
        use std::fmt::Write;
        // Writing to a String cannot fail; a `Display` that reports an error leaves what it wrote.
        let _ = write!(self.text, "{value}");
        self.ends.push((key, self.text.len()));
    }

    /// The `(column, value)` pairs, in order.
    pub fn cells(&self) -> impl Iterator<Item = (&'static str, &str)> + '_ {
        let mut start = 0usize;
        self.ends.iter().map(move |&(key, end)| {
            let value = self.text.get(start..end).unwrap_or("");
            start = end;
            (key, value)
        })
    }
}

impl Serialize for DetailRow {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.ends.len()))?;
        for (k, v) in self.cells() {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl Scene {
    pub fn new(format: FormatKind, kind: SceneKind) -> Self {
        Self {
            format,
            kind,
            version: 0,
            path: None,
            nodes: Vec::new(),
            meshes: Vec::new(),
            materials: Vec::new(),
            skeletons: Vec::new(),
            clips: Vec::new(),
            default_clip: None,
            raw: Vec::new(),
            warnings: Vec::new(),
            lods: Vec::new(),
            details: Vec::new(),
            clip_aliases: Vec::new(),
            choices: Vec::new(),
            as_built: None,
            images: Vec::new(),
            image_search: Vec::new(),
            global_channels: Vec::new(),
        }
    }

    /// Drops every clip but `clip` (which becomes clip 0), for an export of one animation; the
    /// default clip, the as-built pose and the aliases follow it or go.
    pub fn keep_only_clip(&mut self, clip: usize) {
        let kept = std::mem::take(&mut self.clips).into_iter().nth(clip);
        let follows = |c: Option<usize>| c.filter(|&c| c == clip).map(|_| 0);
        self.default_clip = follows(self.default_clip).filter(|_| kept.is_some());
        self.as_built = follows(self.as_built).filter(|_| kept.is_some());
        self.clip_aliases.retain(|(_, c)| *c == clip && kept.is_some());
        self.clip_aliases.iter_mut().for_each(|(_, c)| *c = 0);
        self.clips.extend(kept);
    }

    /// Drops every channel that animates a material (colour, alpha, texture transform) from the
    /// clips and the global channels, for an export to readers that cannot take them; returns
    /// how many clips' channels went.
    pub fn drop_material_animation(&mut self) -> usize {
        let animates_material = |c: &Channel| {
            matches!(c, Channel::MaterialColor { .. } | Channel::MaterialAlpha { .. } | Channel::UvTransform { .. })
        };
        self.global_channels.retain(|c| !animates_material(c));
        let mut dropped = 0;
        for clip in &mut self.clips {
            let before = clip.channels.len();
            clip.channels.retain(|c| !animates_material(c));
            dropped += before - clip.channels.len();
        }
        dropped
    }

    /// The materials whose colour or alpha a clip or a global channel animates, in order.
    pub fn animated_materials(&self) -> Vec<usize> {
        let mut materials: Vec<usize> = (self.clips.iter().flat_map(|c| &c.channels))
            .chain(&self.global_channels)
            .filter_map(|c| match c {
                Channel::MaterialColor { material, .. } | Channel::MaterialAlpha { material, .. } => Some(*material),
                _ => None,
            })
            .collect();
        materials.sort_unstable();
        materials.dedup();
        materials
    }

    /// Per scene image, whether some face draws with it (through its submesh's material); a
    /// Quake II model's other skins, for one, are named but not drawn.
    pub fn drawn_images(&self) -> Vec<bool> {
        let mut drawn = vec![false; self.images.len()];
        for sub in self.meshes.iter().flat_map(|m| &m.submeshes) {
            let image = sub.material.and_then(|m| self.materials.get(m)).and_then(|m| m.image);
            if let Some(slot) = image.and_then(|i| drawn.get_mut(i)) {
                *slot = true;
            }
        }
        drawn
    }

    /// The image material `material` draws with, if it has one.
    pub fn material_image(&self, material: usize) -> Option<&SceneImage> {
        self.materials.get(material).and_then(|m| m.image).and_then(|i| self.images.get(i))
    }

    /// The clip the viewer plays first, and `--frame` without `--anim` poses: the file's own
    /// clip ([`Scene::default_clip`]) when valid, else the first clip, else none (rest pose).
    pub fn first_clip(&self) -> Option<usize> {
        self.default_clip.filter(|&c| c < self.clips.len()).or((!self.clips.is_empty()).then_some(0))
    }

    /// Indices of root nodes, in order.
    pub fn roots(&self) -> impl Iterator<Item = usize> + '_ {
        self.nodes.iter().enumerate().filter(|(_, n)| n.parent.is_none()).map(|(i, _)| i)
    }

    /// World matrices for the given local matrices (one per node), parents first.
    /// Parent links are acyclic in every decoded scene ([`Scene::validate`]); for a scene built
    /// by hand and never validated, a cycle is broken by treating the
    /// node as a root, so this always terminates.
    pub fn world_matrices(&self, locals: &[Mat4]) -> Vec<Mat4> {
        let n = self.nodes.len();
        let mut world: Vec<Option<Mat4>> = vec![None; n];
        let mut chain = Vec::new();
        for start in 0..n {
            // Walk up to the first resolved ancestor, then resolve back down.
            chain.clear();
            let mut cursor = Some(start);
            while let Some(i) = cursor {
                if world.get(i).copied().flatten().is_some() || chain.contains(&i) || chain.len() > n {
                    break;
                }
                chain.push(i);
                cursor = self.nodes.get(i).and_then(|node| node.parent);
            }
            let mut parent_world = cursor.and_then(|i| world.get(i).copied().flatten()).unwrap_or(Mat4::IDENTITY);
            for &i in chain.iter().rev() {
                let local = locals.get(i).copied().unwrap_or(Mat4::IDENTITY);
                parent_world *= local;
                if let Some(slot) = world.get_mut(i) {
                    *slot = Some(parent_world);
                }
            }
        }
        world.into_iter().map(|m| m.unwrap_or(Mat4::IDENTITY)).collect()
    }

    /// World matrices of the rest pose.
    pub fn rest_world_matrices(&self) -> Vec<Mat4> {
        let locals: Vec<Mat4> = self.nodes.iter().map(|n| n.local).collect();
        self.world_matrices(&locals)
    }

    /// The bounding box of every mesh in world space, in the rest pose.
    pub fn bounds(&self) -> Aabb {
        let world = self.rest_world_matrices();
        let mut out = Aabb::EMPTY;
        for mesh in &self.meshes {
            let m = mesh.node.and_then(|n| world.get(n)).copied().unwrap_or(Mat4::IDENTITY);
            out = out.union(&mesh.bounds.transformed(&m));
        }
        out
    }
}

/// Finds the clip a user asked for: a clip name (`M1`, `run`), a clip's source file name
/// (`gateM1.MD2`), or a path to that file; all case-insensitive. The error lists the choices.
pub fn resolve_clip(scene: &Scene, wanted: &str) -> Result<usize, String> {
    if let Some(i) = scene.clips.iter().position(|c| c.name.eq_ignore_ascii_case(wanted)) {
        return Ok(i);
    }
    let wanted_path = std::path::Path::new(wanted);
    let wanted_file = wanted_path.file_name().map(|n| n.to_string_lossy().to_lowercase());
    let wanted_canonical = wanted_path.canonicalize().ok();
    for (i, clip) in scene.clips.iter().enumerate() {
        let Some(source) = &clip.source else { continue };
        if wanted_canonical.is_some() && source.canonicalize().ok() == wanted_canonical {
            return Ok(i);
        }
        let file = source.file_name().map(|n| n.to_string_lossy().to_lowercase());
        if wanted_file.is_some() && file == wanted_file && wanted_path.components().count() == 1 {
            return Ok(i);
        }
    }
    if let Ok(i) = wanted.parse::<usize>()
        && i < scene.clips.len()
    {
        return Ok(i);
    }
    if let Some(&(_, i)) = scene.clip_aliases.iter().find(|(alias, _)| alias.eq_ignore_ascii_case(wanted))
        && i < scene.clips.len()
    {
        return Ok(i);
    }
    let names: Vec<&str> = scene.clips.iter().map(|c| c.name.as_str()).collect();
    Err(if names.is_empty() {
        format!("animation '{wanted}' not found: this model has no animations")
    } else {
        format!("animation '{wanted}' not found; this model has: {}", names.join(", "))
    })
}

/// Smooth vertex normals: each triangle's unit face normal is accumulated on its three render
/// vertices, then normalised (as the TPW spec and OpenTPW do). Degenerate triangles add
/// nothing; vertices on no triangle get +Y.
pub fn compute_normals(positions: &[Vec3], triangles: &[[u32; 3]]) -> Vec<Vec3> {
    let mut normals = Vec::new();
    compute_normals_into(positions, triangles, &mut normals);
    normals
}

/// [`compute_normals`] into a buffer the caller keeps (the renderer, for every animated frame).
pub fn compute_normals_into(positions: &[Vec3], triangles: &[[u32; 3]], normals: &mut Vec<Vec3>) {
    normals.clear();
    normals.resize(positions.len(), Vec3::ZERO);
    for tri in triangles {
        let [a, b, c] = tri.map(|i| positions.get(i as usize).copied());
        if let (Some(a), Some(b), Some(c)) = (a, b, c) {
            let Some(face) = (b - a).cross(c - a).try_normalize() else { continue };
            for &i in tri {
                if let Some(n) = normals.get_mut(i as usize) {
                    *n += face;
                }
            }
        }
    }
    for n in normals.iter_mut() {
        *n = n.try_normalize().unwrap_or(Vec3::Y);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keeping one clip moves it to 0 and with it what pointed at it; what pointed elsewhere goes.
    #[test]
    fn keeping_one_clip_follows_it_with_the_default_aliases_and_as_built() {
        let clip = |name: &str| Clip {
            name: name.into(),
            source: None,
            start: 0.0,
            end: 1.0,
            rate: 10.0,
            channels: Vec::new(),
            tracks: Vec::new(),
            warnings: Vec::new(),
        };
        let mut scene = Scene::new(FormatKind::TpwMd2, SceneKind::Mesh);
        scene.clips = vec![clip("C"), clip("M1"), clip("M2")];
        scene.default_clip = Some(1);
        scene.as_built = Some(0);
        scene.clip_aliases = vec![("first".into(), 0), ("open".into(), 1)];
        scene.keep_only_clip(1);
        assert_eq!(scene.clips.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["M1"]);
        assert_eq!((scene.default_clip, scene.as_built), (Some(0), None));
        assert_eq!(scene.clip_aliases, [("open".to_string(), 0)]);
        // A clip that is not there leaves none.
        scene.keep_only_clip(5);
        assert!(scene.clips.is_empty() && scene.default_clip.is_none() && scene.clip_aliases.is_empty());
    }

    /// The four-box bounds equal a one-point-at-a-time fold that leaves out non-finite points,
    /// at every length (whole groups of four and the rest) and wherever the odd points fall.
    #[test]
    fn bounds_match_a_plain_fold_and_skip_non_finite_points() {
        let odd = [0.5, -3.0, f32::NAN, 7.25, -0.0, f32::INFINITY, 2.0, -1e30, f32::NEG_INFINITY, 4.0, 0.0];
        let points: Vec<Vec3> = (0..40)
            .map(|i| Vec3::new(odd[i % odd.len()], odd[(i * 3 + 1) % odd.len()], odd[(i * 7 + 4) % odd.len()]))
            .collect();
        for length in 0..=points.len() {
            let slice = &points[..length];
            let mut want = Aabb::EMPTY;
            for p in slice.iter().filter(|p| p.is_finite()) {
                want.min = want.min.min(*p);
                want.max = want.max.max(*p);
            }
            let got = Aabb::from_points(slice);
            // `==` counts +0 and -0 as equal: which one a tied bound keeps is left open.
            assert!(got.min == want.min && got.max == want.max, "{length}: {got:?} against {want:?}");
        }
        assert!(Aabb::from_points(&[]).is_empty());
    }

    #[test]
    fn detail_rows_keep_their_cells_in_order() {
        let mut row =
            DetailRow::default().with("name", "tank").with("empty", "").with("flags", format_args!("{:#x}", 255));
        row.push("é", 3.5);
        let cells: Vec<(&str, &str)> = row.cells().collect();
        assert_eq!(cells, [("name", "tank"), ("empty", ""), ("flags", "0xff"), ("é", "3.5")]);
        // Debug shows the cells, not the joined text.
        assert_eq!(format!("{row:?}"), r#"{"name": "tank", "empty": "", "flags": "0xff", "é": "3.5"}"#);
        // Serialised as an ordered object, as before.
        assert_eq!(serde_json::to_string(&row).unwrap(), r#"{"name":"tank","empty":"","flags":"0xff","é":"3.5"}"#);
        // Rows written alike are equal, whatever their capacity.
        let again = DetailRow::default().with("name", "tank").with("empty", "").with("flags", "0xff").with("é", "3.5");
        assert_eq!(row, again);
        assert_ne!(row, DetailRow::default().with("name", "tankempty").with("flags", "0xff").with("é", "3.5"));
    }

    #[test]
    fn shared_slices_view_runs_of_one_list() {
        let list = std::sync::Arc::new(vec![1, 2, 3, 4, 5]);
        let middle = SharedSlice::view(&list, 1..4).unwrap();
        assert_eq!(&*middle, &[2, 3, 4]);
        assert_eq!(middle, vec![2, 3, 4]);
        assert_eq!(middle.clone(), middle);
        assert_eq!(middle.iter().sum::<i32>(), 9);
        assert_eq!((&middle).into_iter().count(), 3);
        // Views hold the list; an empty run does not.
        assert_eq!(std::sync::Arc::strong_count(&list), 2);
        let empty = SharedSlice::view(&list, 5..5).unwrap();
        assert!(empty.is_empty());
        assert_eq!(std::sync::Arc::strong_count(&list), 2);
        // Runs outside the list, or reversed, are refused.
        assert!(SharedSlice::view(&list, 4..6).is_none());
        #[allow(clippy::reversed_empty_ranges)]
        let reversed = SharedSlice::view(&list, 3..2);
        assert!(reversed.is_none());
        drop(middle);
        assert_eq!(std::sync::Arc::strong_count(&list), 1);
        let owned: SharedSlice<i32> = vec![7, 8].into();
        assert_eq!(owned, vec![7, 8]);
        let collected: SharedSlice<i32> = (0..3).collect();
        assert_eq!(&*collected, &[0, 1, 2]);
        assert_eq!(format!("{collected:?}"), "[0, 1, 2]");
        assert!(SharedSlice::<i32>::from(Vec::new()).is_empty());
    }

    /// An image decoder that panics stands for a decoder bug.
    #[derive(Debug)]
    struct PanickingSource;

    impl ImageSource for PanickingSource {
        fn location(&self) -> String {
            "bad.pcx".into()
        }
        fn load(&self) -> Result<Image, String> {
            panic!("decoder bug")
        }
    }

    #[test]
    fn a_panicking_image_decoder_is_that_image_s_error_kept_for_every_caller() {
        let image = SceneImage::new("bad", Some(std::sync::Arc::new(PanickingSource)));
        for _ in 0..2 {
            let error = image.load().expect_err("no pixels");
            assert_eq!(error, "bad.pcx: the image decoder crashed; please report this file");
        }
    }

    fn node(parent: Option<usize>, t: Vec3) -> Node {
        let mut n = Node::new("n", NodeKind::Transform, Mat4::from_translation(t));
        n.parent = parent;
        n
    }

    #[test]
    fn world_is_parent_times_local() {
        let mut scene = Scene::new(FormatKind::TpwMd2, SceneKind::Mesh);
        scene.nodes = vec![node(None, Vec3::X), node(Some(0), Vec3::Y), node(Some(1), Vec3::Z)];
        let world = scene.rest_world_matrices();
        assert_eq!(world[2].transform_point3(Vec3::ZERO), Vec3::new(1.0, 1.0, 1.0));
    }

    #[test]
    fn world_matrices_survive_a_cycle() {
        let mut scene = Scene::new(FormatKind::TpwMd2, SceneKind::Mesh);
        scene.nodes = vec![node(Some(1), Vec3::X), node(Some(0), Vec3::Y)];
        let world = scene.rest_world_matrices();
        assert_eq!(world.len(), 2);
    }

    #[test]
    fn normals_of_a_ccw_triangle_face_the_viewer() {
        let p = [Vec3::ZERO, Vec3::X, Vec3::Y];
        let n = compute_normals(&p, &[[0, 1, 2]]);
        assert_eq!(n, vec![Vec3::Z; 3]);
    }
}
