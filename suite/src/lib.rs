//! `hypersteal-suite`: the benchmark workloads of hypersteal, written once and
//! generic over the runtime.
//!
//! Every workload's parallel version is a generic function over a [`Fork`]
//! context (see [`fork`]), so the same code runs sequentially, on rayon, on
//! chili, and on hypersteal ([`Hypersteal`]). Each workload checks its answer
//! against a known one (published figures, closed forms, or the sequential
//! run): a wrong answer is a [`CheckError`], never a silent pass. The
//! registry ([`Workload`]) parses the `name:SIZE` spellings and lists the
//! names.
//!
//! The `hypersteal-suite` binary ([`cli`]) measures them: [`bench`](mod@bench) runs the
//! matrix, timing each point until [`stopping`]'s rule says its median is
//! stable; [`flags`] marks the rows whose figures are not results as they
//! stand, [`load`] records whether other processes competed for the cores,
//! and [`report`] writes `results.json`, the markdown report and the SVG
//! plots (`docs/suite.md`).

#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod bench;
pub mod calibrate;
pub mod cli;
pub mod flags;
pub mod fork;
pub mod load;
pub mod machine;
#[cfg(feature = "mpi")]
pub mod mpi_cmd;
pub mod report;
pub mod rng;
pub mod sim_cmd;
pub mod stopping;
pub mod trace_view;
pub mod versus;
pub mod workloads;

pub use fork::{fork_range, Chili, Fork, Hypersteal, RangeTask, Rayon, Sequential};
pub use workloads::{CheckError, Instance, Outcome, ParseError, Workload};
