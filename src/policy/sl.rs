//! `sl`, single-level load balancing (seed 002 section 6.1): worker 0 is the MANAGER. Every
//! other worker asks it, and only it, for work; it hands out its waiting tasks one per request.
//! When it has nothing left it asks the workers in round robin, so that work a worker holds can
//! come back to it and be handed out again. It is `ml` with one level (`super::ml`), so one
//! machine serves both.
//!
//! What it costs: every request goes to one worker, which answers them one at a time between
//! its own tasks, so the manager is a bottleneck (the paper's isoefficiency is Θ(P²)); a worker
//! whose manager has nothing keeps asking it (it yields between rounds, and sleeps only when no
//! work is visible anywhere), even while another worker holds tasks the manager has not
//! collected yet.

use super::ml::Managed;
use super::spec::Spec;
use super::Policy;

/// `sl`: no parameters, no shared state; worker 0 manages the others.
pub(crate) const SPEC: Spec = Spec {
    managers: true,
    ..Spec::receiver("sl", Policy::SingleLevel, |_, me, workers, _| {
        Box::new(single_level(me, workers))
    })
};

/// Worker `me`'s `sl` machine among `workers` workers.
pub(crate) fn single_level(me: usize, workers: usize) -> Managed {
    Managed::single_level(me, workers)
}
