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
//!
//! # Where each part lives
//! Every type is used as `scene::X`; the files behind them: `model` (the [`Scene`], its
//! [`FormatKind`] and [`LodLevel`]s), `node`, `mesh` (with smooth normals), `bounds`, `material`,
//! `texture` (images, their sources, see-through classification), `skeleton`, `curve` and
//! `shared_slice` (keys), `path`, `packed_frames`, `channel`, `clip` (with [`resolve_clip`]) and
//! `details` (raw fields, detail tables, open choices), `layers` (parts of an assembled scene and
//! clips playing at once on their own clocks), `merge` (appending a model into an assembled scene), `freeze` (a still copy of one pose), `extract` (one part alone). [`anim`] poses a scene at a time,
//! [`validate`] checks it once where it is made, and [`math`] holds the matrix helpers.

pub mod anim;
pub mod fallback;
pub mod math;
pub mod validate;

mod bounds;
mod channel;
mod clip;
mod curve;
mod details;
mod extract;
mod freeze;
mod layers;
mod material;
mod merge;
mod mesh;
mod model;
mod node;
mod packed_frames;
mod path;
mod shared_slice;
mod skeleton;
mod texture;

pub use bounds::Aabb;
pub use channel::{Channel, EaseRamp, JointTracks, MorphBlock, TrackTime, UvSlotKeys};
pub use clip::{Clip, MILLISECONDS_PER_SECOND, TrackReport, resolve_clip};
pub use curve::{Curve, Interpolation, Key};
pub use details::{DetailRow, DetailSection, OpenChoice, RawField};
pub use layers::{GROUND, Layer, LayerTime, Part, Playback};
pub use material::{AlphaMode, BlendMode, ImageCycle, LayerCombine, Material, TextureLayer, TextureWrap};
pub use merge::{IndexKind, Offsets};
pub use mesh::{Influence, Mesh, SkinWeights, Submesh, compute_normals, compute_normals_into, expand_positions};
pub use model::{FormatKind, LodLevel, Scene, SceneKind};
pub use node::{FaceAnchor, Node, NodeKind};
pub use packed_frames::{FrameTable, PackedFrames, SharedBytes};
pub use path::{Path, PathKind};
pub use shared_slice::SharedSlice;
pub use skeleton::{Joint, Skeleton};
pub use texture::{GRADIENT_SHARE, Image, ImageSource, SceneImage, SeeThroughKind, classify_see_through};
pub use validate::SceneViolation;
