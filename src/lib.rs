//! mdview: a viewer and command-line toolkit for classic game model formats (Theme Park World
//! `.md2`, Quake II `.md2`, Quake 3 `.mdr`, World of Warcraft `.m2`).
//!
//! Every format decodes into one format-neutral [`scene::Scene`]; the renderer, the viewer and
//! the CLI know only that scene.

pub mod app;
pub mod archive;
pub mod demo;
pub mod export;
pub mod formats;
pub mod info;
pub mod render;
pub mod scan;
pub mod scene;
