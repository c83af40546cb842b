//! Bad input gets a clear error that names the value and what is allowed.

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

#[test]
fn malformed_or_unknown_parameters() {
    let e = policy_err("grr-m:size=3");
    assert!(e.contains("`size`") && e.contains("window"), "{e}");
    let e = policy_err("rp:window=3");
    assert!(e.contains("takes no parameters"), "{e}");
    let e = policy_err("grr-m:window");
    assert!(e.contains("malformed") && e.contains("key=value"), "{e}");
    let e = policy_err("grr-m:window=-1");
    assert!(e.contains("window=-1") && e.contains("0 to 1000000"), "{e}");
    let e = policy_err("most-loaded:scope=galaxy");
    assert!(
        e.contains("galaxy") && e.contains("`neighbors` or `all`"),
        "{e}"
    );
    let e = policy_err("most-loaded:min=0");
    assert!(e.contains("min=0") && e.contains("at least 1"), "{e}");
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
        e.contains("torus") && e.contains("0 workers") && e.contains("1 to 1024"),
        "{e}"
    );
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
