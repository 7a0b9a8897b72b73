//! Writers that exist to make fixtures and the demo.

pub mod md3;
pub mod mdl;
pub mod park;
