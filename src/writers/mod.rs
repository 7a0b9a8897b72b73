//! Writers that exist to make fixtures and the demo. None is used to read a file: each format's
//! decoder lives in `crate::formats`, and these encoders are written from the specs, not from it.
//!
//! - [`tpw`]: Theme Park World `.md2` mesh and animation files.
//! - [`wad`]: Theme Park World `.wad` archives.
//! - [`wct`]: Theme Park World `.wct` textures.
//! - [`park`]: Theme Park World park saves and the install around them.
//! - [`park_ground`]: a theme's ground for that install: `terrain.wad` and `queue.wad`.
//! - [`park_synthetic`]: a large synthetic park (hundreds of placements) for benchmarks.
//! - [`quake2`]: Quake II `.md2`.
//! - [`md3`]: Quake III `.md3`.
//! - [`mdr`]: Quake III `.mdr`, and the demo arm.
//! - [`mdl`]: Quake `.mdl`.

mod le;
pub mod md3;
pub mod mdl;
pub mod mdr;
pub mod park;
pub mod park_ground;
pub mod park_synthetic;
pub mod quake2;
pub mod tpw;
pub mod wad;
pub mod wct;
