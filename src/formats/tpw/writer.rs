//! Placeholder: the TPW writer lands here.
