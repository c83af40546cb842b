//! The parallel iterators and the slice methods, checked against std's sequential answers under
//! every policy and schedule. One test binary (one module per file): building each file as a
//! binary of its own repeated the link and the shared code's compilation for every file.

#[path = "../common/mod.rs"]
mod common;

mod adapters;
mod collections;
mod places;
mod props;
mod schedule;
mod slice_methods;
mod slice_sort;
mod sources;
mod traits;
