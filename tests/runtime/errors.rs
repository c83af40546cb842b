//! Bad input gets a clear error that names the value and what is allowed.

use crate::common;

use common::threads_named;
use hypersteal::{BuildError, Policy, ThreadPoolBuilder, Topology, MAX_WORKERS};

fn policy_err(s: &str) -> String {
    s.parse::<Policy>().unwrap_err().to_string()
}

#[test]
fn unknown_policy_lists_the_valid_ones() {
    let e = policy_err("work-first");
    assert!(e.contains("`work-first`"), "{e}");
    assert!(
        e.contains("rp, nn, arr, grr, grr-m, sb, most-loaded"),
        "{e}"
    );
}

/// A huge value is not repeated whole: the message shows its start and its length.
#[test]
fn a_huge_unknown_name_is_cut_in_the_message() {
    let huge = "x".repeat(1 << 20);
    for e in [
        policy_err(&huge),
        policy_err(&format!("grr-m:window={huge}")),
        policy_err(&format!("most-loaded:scope={huge}")),
        policy_err(&format!("rp:{huge}=1")),
        huge.parse::<Topology>().unwrap_err().to_string(),
    ] {
        assert!(e.len() < 400, "a message of {} bytes", e.len());
        assert!(e.contains(&format!("({} bytes in all)", 1 << 20)), "{e}");
    }
    // A name of several-byte characters is cut on a character boundary.
    let e = policy_err(&"é".repeat(100_000));
    assert!(e.contains("éé... (200000 bytes in all)"), "{e}");
}

#[test]
fn malformed_or_unknown_parameters() {
    let e = policy_err("grr-m:size=3");
    assert!(e.contains("`size`") && e.contains("window"), "{e}");
    let e = policy_err("rp:window=3");
    assert!(e.contains("takes no parameters"), "{e}");
    let e = policy_err("grr-m:window");
    assert!(e.contains("malformed") && e.contains("key=value"), "{e}");
    let e = policy_err("grr-m:window=-1");
    assert!(e.contains("window=-1") && e.contains("0 to 1024"), "{e}");
    let e = policy_err("grr-m:window=1000000");
    assert!(
        e.contains("window=1000000") && e.contains("0 to 1024"),
        "{e}"
    );
    let e = policy_err("most-loaded:scope=galaxy");
    assert!(
        e.contains("galaxy") && e.contains("`neighbors` or `all`"),
        "{e}"
    );
    let e = policy_err("most-loaded:min=0");
    assert!(e.contains("min=0") && e.contains("1 to 1000000"), "{e}");
    let e = policy_err("most-loaded:load=bytes");
    assert!(e.contains("`count` or `time`"), "{e}");
}

#[test]
fn too_many_threads_names_the_value_and_the_limit() {
    let e = ThreadPoolBuilder::new()
        .num_threads(MAX_WORKERS + 1)
        .build()
        .unwrap_err();
    assert_eq!(
        e,
        BuildError::TooManyThreads {
            requested: MAX_WORKERS + 1,
            max: MAX_WORKERS
        }
    );
    let msg = e.to_string();
    assert!(
        msg.contains("1025") && msg.contains("0 (one per core) to 1024"),
        "{msg}"
    );
}

#[test]
fn a_topology_that_cannot_host_the_count() {
    let e = Topology::Torus.try_graph(0).unwrap_err().to_string();
    assert!(
        e.contains("torus") && e.contains("0 workers") && e.contains("1 to 16384"),
        "{e}"
    );
}

#[test]
fn heartbeat_and_idle_linger_out_of_range_are_errors_naming_the_setting() {
    use std::time::Duration;
    let heartbeat = |d: Duration| ThreadPoolBuilder::new().heartbeat(d).build().map(|_| ());
    let e = heartbeat(Duration::ZERO).unwrap_err().to_string();
    assert!(e.contains("heartbeat") && e.contains("1µs to 1s"), "{e}");
    let linger = |d: Duration| ThreadPoolBuilder::new().idle_linger(d).build().map(|_| ());
    let e = linger(Duration::from_millis(101)).unwrap_err().to_string();
    assert!(
        e.contains("idle_linger") && e.contains("101ms") && e.contains("0 to 100ms"),
        "{e}"
    );
    assert!(linger(Duration::ZERO).is_ok());
    assert!(linger(hypersteal::MAX_IDLE_LINGER).is_ok());
}

#[test]
fn worker_speeds_must_match_and_be_positive() {
    let build = |s: Vec<f64>| {
        ThreadPoolBuilder::new()
            .num_threads(2)
            .worker_speeds(s)
            .build()
            .map(|_| ())
            .unwrap_err()
            .to_string()
    };
    assert!(build(vec![1.0]).contains("1 speeds given for 2 workers"));
    assert!(build(vec![1.0, 0.0]).contains("worker 1 is 0"));
    assert!(build(vec![-1.0, 1.0]).contains("worker 0 is -1"));
    assert!(build(vec![1.0, f64::NAN]).contains("NaN"));
    assert!(ThreadPoolBuilder::new()
        .num_threads(2)
        .worker_speeds(vec![1.0, 2.5])
        .build()
        .is_ok());
}

#[test]
fn global_pool_can_only_be_built_once() {
    // Use the global pool first: it is then initialised with the defaults.
    assert_eq!(hypersteal::join(|| 1, || 2), (1, 2));
    assert_eq!(
        ThreadPoolBuilder::new().build_global().unwrap_err(),
        BuildError::GlobalPoolAlreadyInitialized
    );
}

/// Hand-built `Policy` values go through the parser's validation, in the
/// builder as in the parser (the simulator's side: `hand_built_policies_are_validated` in
/// `sim/src/tests.rs`).
#[test]
fn hand_built_policies_are_validated_like_parsed_ones() {
    use hypersteal::{LoadMeasure, LoadScope};
    let bad = [
        (
            Policy::MostLoaded {
                scope: LoadScope::All,
                min_load: 0,
                load: LoadMeasure::Count,
            },
            "min=0",
        ),
        (
            Policy::Acwn {
                low: 9,
                high: 1,
                interval: 16,
            },
            "low=9 is above high=1",
        ),
        (
            Policy::Acwn {
                low: 1,
                high: 2,
                interval: 0,
            },
            "interval=0",
        ),
        (
            Policy::Gradient {
                low: 0,
                high: 0,
                interval: 4,
            },
            "high=0",
        ),
        (Policy::GrrCombining { window: 1_000_000 }, "window=1000000"),
    ];
    for (policy, says) in bad {
        let e = policy.validate().unwrap_err().to_string();
        assert!(e.contains(says), "{policy:?}: {e}");
        // The parser says the same of the same value.
        assert_eq!(
            policy
                .to_string()
                .parse::<Policy>()
                .unwrap_err()
                .to_string(),
            e
        );
        let b = ThreadPoolBuilder::new()
            .num_threads(2)
            .policy(policy)
            .build()
            .unwrap_err();
        assert!(matches!(b, BuildError::Policy(_)), "{b:?}");
        assert!(b.to_string().contains(says), "{b}");
    }
    // Every policy at its defaults is valid.
    for p in Policy::all() {
        p.validate().unwrap();
    }
}

/// Fault 7: a panicking `thread_name` closure or a name with a NUL byte is a `BuildError`,
/// and no worker thread is left behind.
#[test]
fn thread_name_failures_are_build_errors_and_leave_no_thread() {
    let e = ThreadPoolBuilder::new()
        .num_threads(4)
        .thread_name(|i| {
            if i == 3 {
                panic!("no name for three");
            }
            format!("leakcheck-{i}")
        })
        .build()
        .unwrap_err();
    assert!(
        matches!(e, BuildError::ThreadName { index: 3, .. }),
        "{e:?}"
    );
    assert!(e.to_string().contains("no name for three"), "{e}");
    let e = ThreadPoolBuilder::new()
        .num_threads(2)
        .thread_name(|i| format!("leakcheck\0{i}"))
        .build()
        .unwrap_err();
    assert!(e.to_string().contains("NUL"), "{e}");
    assert_eq!(threads_named("leakcheck"), 0, "worker threads left behind");
}

/// Fault 8: an error names the setting it comes from.
#[test]
fn a_stack_size_the_os_refuses_names_the_setting() {
    let e = ThreadPoolBuilder::new()
        .num_threads(2)
        .stack_size(usize::MAX)
        .build()
        .unwrap_err();
    assert!(
        matches!(e, BuildError::ThreadSpawn { index: 0, .. }),
        "{e:?}"
    );
    let msg = e.to_string();
    assert!(msg.contains("stack_size = 18446744073709551615"), "{msg}");
}
