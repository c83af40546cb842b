//! TRANSITIONAL: the sender-initiated placement decisions under the names `src/registry.rs`
//! still calls. They live with their machines, in `acwn.rs` and `gradient.rs`; this file goes
//! once the worker loop drives the machines.

pub(crate) use super::acwn::{allocate as acwn_allocate, redistribute as acwn_redistribute};
pub(crate) use super::gradient::{proximity as gradient_proximity, target as gradient_target};
