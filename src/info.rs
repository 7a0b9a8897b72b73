//! Summaries.
