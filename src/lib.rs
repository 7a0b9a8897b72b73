//! mdview: a viewer and command-line toolkit for classic game model formats (Theme Park World
//! `.md2` and its `.wad` archives and parks, Quake `.mdl`, Quake II `.md2`, Quake 3 `.md3` and
//! `.mdr`, World of Warcraft `.m2`).
//!
//! Every format decodes into one format-neutral [`scene::Scene`]; the renderer, the viewer and
//! the CLI know only that scene.
//!
//! The `viewer` feature (on by default) adds `render` and `app`, the GPU and window stack;
//! without it the crate decodes, exports, summarises and scans only.

#[cfg(feature = "viewer")]
pub mod app;
pub mod archive;
pub mod demo;
pub mod export;
pub mod formats;
pub mod fuzzing;
pub mod heap;
pub mod info;
#[cfg(feature = "viewer")]
pub mod render;
pub mod scan;
pub mod scene;
pub mod writers;
