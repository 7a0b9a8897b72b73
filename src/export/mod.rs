//! Exporters from the format-neutral scene: Wavefront OBJ (+ MTL) of one pose, glTF 2.0 with
//! every clip, and batch conversion of whole folders.

pub mod batch;
pub mod gltf;
pub mod obj;
