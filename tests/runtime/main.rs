//! The runtime: `join`, scopes, broadcasts, futures, panics, policies, sleep and liveness, the
//! rayon-core API, user-started threads and the adversarial and regression cases. One test
//! binary (one module per file): building each file as a binary of its own repeated the link
//! and the shared code's compilation for every file.
//!
//! Tests that change process-wide state run in binaries of their own: `environment` (the
//! `HYPERSTEAL_*` variables), `trace` (`HYPERSTEAL_TRACE`), `pinning` and `hardware` (the
//! process-wide table of claimed CPUs), `oversubscribed` (a thousand threads would disturb the
//! other tests' readings of `/proc/self/task`) and `tracing_spans` (the `tracing` feature).

#[path = "../common/mod.rs"]
mod common;

mod adversarial;
mod adversarial_bridge;
mod broadcast;
mod errors;
mod futures;
mod join_context;
mod liveness;
mod many_workers;
mod nesting;
mod panics;
mod plumbing;
mod policies;
mod rayon_core_api;
mod reliability;
mod sender;
mod soak;
mod starvation;
mod thread_builder;
mod topology;
