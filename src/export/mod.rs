//! Exporters from the format-neutral scene and a pose: Wavefront OBJ (+ MTL).

pub mod obj;
