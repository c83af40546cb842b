//! Many more workers than cores. Its own test binary: a thousand threads in the process would
//! disturb the other tests' readings of `/proc/self/task`.

mod common;

use common::*;

/// Fault 5 at scale: a thousand oversubscribed `grr-m` workers (on a 2-core machine) come to
/// rest soon after a burst of work, at the largest window. Before the search was bounded, every
/// idle worker made P − 1 requests per round, each spinning `window` at every tree level: the
/// pool kept both cores busy for 11 s at the default window and over a minute at 1024.
#[cfg(target_os = "linux")]
#[test]
fn a_thousand_idle_grr_m_workers_come_to_rest() {
    for spec in ["grr-m:window=1024", "grr"] {
        // One pool at a time: a thousand threads are enough for one process.
        come_to_rest(
            &[(spec.parse().unwrap(), 1024)],
            "kilo-",
            std::time::Duration::from_secs(8),
        );
    }
}
