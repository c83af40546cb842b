//! Running the loom models (test-only, under `cfg(loom)`; see `docs/loom.md`).
//!
//! Every model is a plain `#[test]` that runs through [`model`] and must pass on the real code.
//! Each model also has a deliberately broken variant of the runtime ([`Broken`]), and a companion
//! `*_rejects_broken_variant` test runs the model again in a child process (this test binary,
//! `--exact`) with that variant switched on ([`BROKEN_VAR`]) and asserts that loom rejects it
//! with the expected report. So one loom build checks the real code and every variant. A child
//! process, because the switch holds for a whole process and because loom cannot unwind cleanly
//! from every failure it reports: after a deadlock, dropping a `loom::sync::Arc` on the way out
//! panics again and aborts the process.

use crate::sync::{Broken, BROKEN_VAR};
use std::time::Duration;

/// The preemption bound used when `LOOM_MAX_PREEMPTIONS` is not set.
const DEFAULT_PREEMPTIONS: usize = 2;

/// What loom reports when every thread is blocked (a lost wake-up, a missed latch).
pub(crate) const DEADLOCK: &str = "deadlock; threads";
/// What loom reports when a thread spins forever (waits for something no other thread will do).
pub(crate) const SPINS: &str = "maximum number of branches";
/// What loom reports when two threads touch a cell without a happens-before edge.
pub(crate) const CAUSALITY: &str = "Causality violation";

/// Explores every interleaving of `f` up to the preemption bound (`LOOM_MAX_PREEMPTIONS`,
/// default 2).
pub(crate) fn model<F: Fn() + Sync + Send + 'static>(f: F) {
    run_model(None, f);
}

/// [`model`] with at least `preemptions` preemptions, whatever `LOOM_MAX_PREEMPTIONS` says: for
/// a model whose interesting interleavings need more than the default bound (its broken variant
/// is found only there), and which stays affordable at that bound.
pub(crate) fn model_preempting<F: Fn() + Sync + Send + 'static>(preemptions: usize, f: F) {
    run_model(Some(preemptions), f);
}

fn run_model<F: Fn() + Sync + Send + 'static>(at_least: Option<usize>, f: F) {
    let mut builder = loom::model::Builder::new();
    if builder.preemption_bound.is_none() {
        builder.preemption_bound = Some(DEFAULT_PREEMPTIONS);
    }
    if let Some(bound) = at_least {
        builder.preemption_bound = builder.preemption_bound.map(|b| b.max(bound));
    }
    let runs = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = runs.clone();
    builder.check(move || {
        counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        f();
    });
    // Shown with `--nocapture` (`.ci/loom` does): how much the model explored.
    eprintln!(
        "loom: {} executions explored",
        runs.load(std::sync::atomic::Ordering::Relaxed)
    );
}

/// The longest a model's child process may take (the slowest, the request/answer model with a
/// broken variant, takes well under two minutes on two cores): past it the child is killed and
/// the test fails, so a model that never ends cannot hang CI.
const CHILD_LIMIT: Duration = Duration::from_secs(600);

/// Runs the model test `test` (a path below the crate root, as `cargo test` names it) alone in a
/// child process (this test binary, `--exact`) with [`BROKEN_VAR`] set to `broken`, under
/// [`CHILD_LIMIT`]. Returns whether it succeeded, and its stdout and stderr.
pub(crate) fn run_in_child(test: &str, broken: &str) -> (bool, String) {
    let (status, text) =
        crate::test_child::run_test_in_child(test, (BROKEN_VAR, broken), CHILD_LIMIT);
    (status.success(), text)
}

/// Runs the model test `test` in a child process with the broken `variant` switched on
/// ([`run_in_child`]), and asserts that it fails with a report containing one of `expected`.
pub(crate) fn assert_rejected(variant: Broken, test: &str, expected: &[&str]) {
    let (success, text) = run_in_child(test, variant.name());
    assert!(
        text.contains("running 1 test"),
        "the child did not run exactly one test `{test}`:\n{text}"
    );
    assert!(
        !success,
        "loom accepted the broken variant `{}`: model `{test}` does not catch its bug",
        variant.name()
    );
    let Some(report) = text
        .lines()
        .find(|line| expected.iter().any(|e| line.contains(e)))
    else {
        panic!("model `{test}` failed, but not with any of {expected:?}:\n{text}");
    };
    // Shown with `--nocapture` (`.ci/loom` does): what loom reported.
    eprintln!(
        "loom rejected the broken variant `{}` of `{test}`: {report}",
        variant.name()
    );
}

/// A pool for a model: `workers` threads, random polling on the complete topology, unpinned
/// (explicit settings, so `HYPERSTEAL_*` variables cannot change the state space).
pub(crate) fn pool(workers: usize) -> crate::ThreadPool {
    pool_with(workers, crate::Policy::RandomPolling)
}

/// [`pool`] under another policy.
pub(crate) fn pool_with(workers: usize, policy: crate::Policy) -> crate::ThreadPool {
    crate::ThreadPoolBuilder::new()
        .num_threads(workers)
        .topology(crate::Topology::Complete)
        .policy(policy)
        .pin_threads(false)
        .build()
        .expect("a loom pool")
}

/// A pointer a model hands to a thread it joins before the pointee goes away.
pub(crate) struct SendPtr<T>(pub(crate) *const T);

// SAFETY: only used by models whose pointee is `Sync` in the way they use it (atomics, latches,
// or a cell each thread touches under the protocol being checked) and outlives the thread.
unsafe impl<T> Send for SendPtr<T> {}
