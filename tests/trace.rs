//! The event trace (`docs/trace.md`): off by default; the Chrome export parses with one track
//! per worker and the expected events; every transfer has its request or is a placement; the
//! transfer matrix sums to the statistics' transfer count; bad settings are clear errors.

mod common;

use common::{fib, fib_iter, within};
use hypersteal::{
    BuildError, EventKind, Policy, PoolStats, ThreadPool, ThreadPoolBuilder, Topology, Trace,
};
use std::collections::HashSet;
use std::time::Duration;

const POLICIES: [&str; 5] = ["rp", "grr-m", "sb", "acwn", "random-alloc"];

fn traced(policy: &str, workers: usize) -> ThreadPool {
    ThreadPoolBuilder::new()
        .num_threads(workers)
        .policy(policy.parse::<Policy>().unwrap())
        .topology(Topology::Complete)
        .pin_threads(false)
        .trace(true)
        .build()
        .unwrap()
}

/// Work that moves tasks under every policy: fine-grained joins, then coarse spawns (1 ms each
/// without poll points, so idle workers have time to take or be sent some).
fn workload(pool: &ThreadPool) {
    assert_eq!(pool.install(|| fib(20)), fib_iter(20));
    pool.scope(|s| {
        for _ in 0..8 {
            s.spawn(|_| common::spin_for(Duration::from_millis(1)));
        }
    });
}

/// The per-worker counters that have events: requests, steals, placements, receptions, sleeps.
fn counted(stats: &PoolStats) -> Vec<[u64; 5]> {
    stats
        .workers
        .iter()
        .map(|w| {
            [
                w.requests,
                w.requests_ok,
                w.placed_out,
                w.placed_in,
                w.sleeps,
            ]
        })
        .collect()
}

/// The same, counted from the trace's events.
fn counted_in(trace: &Trace) -> Vec<[u64; 5]> {
    trace
        .workers
        .iter()
        .map(|events| {
            let n = |k: EventKind| events.iter().filter(|e| e.kind == k).count() as u64;
            [
                n(EventKind::RequestSent),
                n(EventKind::Stolen),
                n(EventKind::Placed),
                n(EventKind::Received),
                n(EventKind::Sleep),
            ]
        })
        .collect()
}

/// Statistics and trace once the pool has come to rest: idle workers search a little after the
/// work is done, so a snapshot right after `install` returns may catch a request counted but not
/// yet recorded. Waits (at most a few seconds) until two statistics snapshots around the trace
/// agree with each other and with the trace.
fn settled(pool: &ThreadPool) -> (PoolStats, Trace) {
    let start = std::time::Instant::now();
    loop {
        let before = pool.stats();
        let trace = pool.trace();
        let after = pool.stats();
        let stable = counted(&before) == counted(&after);
        if (stable && counted(&after) == counted_in(&trace))
            || start.elapsed() > Duration::from_secs(5)
        {
            return (after, trace);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn tracing_is_off_by_default() {
    within(Duration::from_secs(60), "untraced pool", || {
        let pool = common::pool(Policy::RandomPolling, Topology::Complete, 2);
        workload(&pool);
        let trace = pool.trace();
        assert!(trace.is_empty() && trace.workers.is_empty(), "{trace:?}");
        let e = pool
            .write_trace("/nonexistent/never-written.json")
            .unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::Unsupported);
        assert!(e.to_string().contains("without tracing"), "{e}");
    });
}

#[test]
fn transfers_match_requests_or_placements_and_the_stats() {
    within(Duration::from_secs(120), "traced pools", || {
        for policy in POLICIES {
            let mut moved = 0;
            for workers in [2, 3, 4] {
                let pool = traced(policy, workers);
                workload(&pool);
                let (stats, trace) = settled(&pool);
                let what = format!("{policy} with {workers} workers");
                assert_eq!(trace.workers.len(), workers, "{what}");
                assert_eq!(trace.total_dropped(), 0, "{what}");
                let total = stats.total();
                let transfers = total.requests_ok + total.placed_out + total.rescued;
                let m = trace.transfer_matrix();
                let sum: u64 = m.iter().flatten().sum();
                assert_eq!(sum, transfers, "{what}: matrix {m:?} vs stats {total:?}");
                moved += sum;
                for (w, row) in m.iter().enumerate() {
                    assert_eq!(row[w], 0, "{what}: worker {w} transferred to itself");
                }
                for (w, events) in trace.workers.iter().enumerate() {
                    let count = |k: EventKind| events.iter().filter(|e| e.kind == k).count();
                    assert_eq!(
                        count(EventKind::RequestSent) as u64,
                        stats.workers[w].requests
                    );
                    assert_eq!(count(EventKind::Placed) as u64, stats.workers[w].placed_out);
                    assert_eq!(
                        count(EventKind::Received) as u64,
                        stats.workers[w].placed_in
                    );
                    assert_eq!(count(EventKind::Sleep), count(EventKind::Wake), "{what}");
                    assert!(
                        events.windows(2).all(|p| p[0].ts_ns <= p[1].ts_ns),
                        "{what}: worker {w}'s events out of time order"
                    );
                    // Every steal follows this worker's request to the same victim, with no
                    // other event of that request in between.
                    for (i, e) in events.iter().enumerate() {
                        if e.kind == EventKind::Stolen {
                            let before = i.checked_sub(1).map(|j| events[j]);
                            assert!(
                                before.is_some_and(
                                    |b| b.kind == EventKind::RequestSent && b.peer == e.peer
                                ),
                                "{what}: worker {w}'s transfer from {} without its request",
                                e.peer
                            );
                        }
                    }
                }
                // Every placement is matched by the receiver's reception, unless its creator
                // took the task back first (then the receiver drops the husk unrecorded).
                for to in 0..workers {
                    let placed: usize = trace
                        .workers
                        .iter()
                        .flatten()
                        .filter(|e| e.kind == EventKind::Placed && e.peer as usize == to)
                        .count();
                    let received = trace.workers[to]
                        .iter()
                        .filter(|e| e.kind == EventKind::Received)
                        .count();
                    assert!(
                        received <= placed,
                        "{what}: {received} received on {to}, {placed} placed"
                    );
                }
                pool.shutdown();
            }
            assert!(moved > 0, "{policy}: no task moved, nothing was checked");
        }
    });
}

#[test]
fn chrome_export_parses_with_one_track_per_worker() {
    within(Duration::from_secs(60), "chrome export", || {
        let dir = std::env::temp_dir().join(format!("hypersteal-trace-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (policy, workers) in [("rp", 3), ("acwn", 4)] {
            let pool = traced(policy, workers);
            workload(&pool);
            let (stats, _) = settled(&pool);
            let path = dir.join(format!("{policy}.json"));
            pool.write_trace(&path).unwrap();
            let transfers =
                stats.total().requests_ok + stats.total().placed_out + stats.total().rescued;
            let text = std::fs::read_to_string(&path).unwrap();
            let json: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
            let events = json["traceEvents"].as_array().expect("traceEvents");
            let names: HashSet<(u64, String)> = events
                .iter()
                .filter(|e| e["ph"] == "M" && e["name"] == "thread_name")
                .map(|e| {
                    (
                        e["tid"].as_u64().unwrap(),
                        e["args"]["name"].as_str().unwrap().to_owned(),
                    )
                })
                .collect();
            let expected: HashSet<_> = (0..workers as u64)
                .map(|w| (w, format!("worker {w}")))
                .collect();
            assert_eq!(names, expected, "{policy}: one named track per worker");
            let phases: HashSet<&str> = events.iter().filter_map(|e| e["ph"].as_str()).collect();
            for ph in ["M", "B", "E", "i", "X", "s", "f"] {
                assert!(
                    phases.contains(ph),
                    "{policy}: no `{ph}` event in {phases:?}"
                );
            }
            for e in events.iter().filter(|e| e["ph"] != "M") {
                assert!(e["ts"].is_number(), "{policy}: event without ts: {e}");
                assert!(e["tid"].as_u64().unwrap() < workers as u64, "{e}");
            }
            // One flow start and one flow end per transfer, with matching ids.
            let ids = |ph: &str| -> Vec<u64> {
                let mut v: Vec<u64> = events
                    .iter()
                    .filter(|e| e["ph"] == ph)
                    .map(|e| e["id"].as_u64().unwrap())
                    .collect();
                v.sort_unstable();
                v
            };
            assert_eq!(ids("s"), ids("f"), "{policy}");
            assert_eq!(ids("s").len() as u64, transfers, "{policy}");
            assert_eq!(json["otherData"]["workers"], workers);
            pool.shutdown();
        }
        let _ = std::fs::remove_dir_all(&dir);
    });
}

#[test]
fn a_full_ring_drops_and_counts() {
    within(Duration::from_secs(60), "small ring", || {
        let pool = ThreadPoolBuilder::new()
            .num_threads(2)
            .pin_threads(false)
            .trace(true)
            .trace_capacity(4)
            .build()
            .unwrap();
        workload(&pool);
        let trace = pool.trace();
        assert!(trace.workers.iter().all(|w| w.len() <= 4));
        assert!(trace.total_dropped() > 0, "{trace:?}");
        let mut out = Vec::new();
        hypersteal::trace::write_chrome(&trace, &mut out).unwrap();
        let json: serde_json::Value = serde_json::from_slice(&out).unwrap();
        let dropped: u64 = json["otherData"]["dropped"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_u64().unwrap())
            .sum();
        assert_eq!(dropped, trace.total_dropped());
    });
}

#[test]
fn bad_trace_settings_are_clear_errors() {
    for n in [0, hypersteal::trace::MAX_CAPACITY + 1] {
        let e = ThreadPoolBuilder::new()
            .num_threads(1)
            .trace(true)
            .trace_capacity(n)
            .build()
            .map(|_| ())
            .unwrap_err();
        assert_eq!(e, BuildError::TraceCapacity(n));
        let msg = e.to_string();
        assert!(
            msg.contains("trace_capacity") && msg.contains(&n.to_string()) && msg.contains("1 to"),
            "{msg}"
        );
    }
}

/// A trace too large for the pool as a whole is a build error, never an abort: 64 workers of
/// the largest ring would need 24 GiB. Run in a child process, so that an abort (the old
/// behaviour) fails this test instead of the whole test binary.
#[test]
fn a_trace_too_large_for_all_workers_is_a_build_error() {
    let name = "a_trace_too_large_for_all_workers_is_a_build_error";
    if let Some(outcome) = common::in_child(name, Duration::from_secs(60), |_| {}) {
        common::assert_child_passed(name, &outcome);
        return;
    }
    let capacity = hypersteal::trace::MAX_CAPACITY;
    let e = ThreadPoolBuilder::new()
        .num_threads(64)
        .pin_threads(false)
        .trace(true)
        .trace_capacity(capacity)
        .build()
        .map(|_| ())
        .unwrap_err();
    assert!(
        matches!(e, BuildError::TraceMemory { capacity: c, workers: 64 } if c == capacity),
        "{e:?}"
    );
    let msg = e.to_string();
    assert!(
        msg.contains("trace_capacity = 16777216")
            && msg.contains("64 workers")
            && msg.contains("24576 MiB")
            && msg.contains(&hypersteal::trace::MAX_TOTAL_EVENTS.to_string()),
        "{msg}"
    );
    // At the bound the pool builds and traces.
    let workers = hypersteal::trace::MAX_TOTAL_EVENTS / capacity;
    let pool = ThreadPoolBuilder::new()
        .num_threads(workers)
        .pin_threads(false)
        .trace(true)
        .trace_capacity(capacity)
        .build()
        .unwrap();
    assert_eq!(pool.install(|| common::fib(10)), common::fib_iter(10));
}

/// Runs test `name` again in a child process with `HYPERSTEAL_TRACE` set to `file`. In the
/// parent: checks that the child passed and wrote the trace of its 2-worker pool to `file`,
/// and returns `None`. In the child: builds that pool (traced through the variable), runs the
/// workload on it and returns it.
fn traced_through_env(name: &str, file: &std::path::Path) -> Option<ThreadPool> {
    let file_for_child = file.to_path_buf();
    if let Some(outcome) = common::in_child(name, Duration::from_secs(60), |cmd| {
        cmd.env("HYPERSTEAL_TRACE", &file_for_child);
    }) {
        common::assert_child_passed(name, &outcome);
        let text = std::fs::read_to_string(file).expect("the trace written at shutdown");
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(json["otherData"]["workers"], 2);
        let _ = std::fs::remove_file(file);
        return None;
    }
    let pool = ThreadPoolBuilder::new()
        .num_threads(2)
        .pin_threads(false)
        .build()
        .unwrap();
    workload(&pool);
    assert!(
        !pool.trace().is_empty(),
        "HYPERSTEAL_TRACE turns tracing on"
    );
    Some(pool)
}

/// `HYPERSTEAL_TRACE` names a path, and paths need not be UTF-8: one that is not is taken
/// and written to (in a child process, as the environment is process-wide).
#[cfg(unix)]
#[test]
fn env_var_takes_a_path_that_is_not_utf8() {
    use std::os::unix::ffi::OsStrExt;
    let name = "env_var_takes_a_path_that_is_not_utf8";
    let mut bytes = std::env::temp_dir().into_os_string().into_encoded_bytes();
    bytes.extend_from_slice(format!("/hypersteal-{}-", std::process::id()).as_bytes());
    bytes.push(0xff);
    bytes.extend_from_slice(b".json");
    let file = std::path::PathBuf::from(std::ffi::OsStr::from_bytes(&bytes));
    assert!(file.to_str().is_none(), "the path is not UTF-8");
    let Some(pool) = traced_through_env(name, &file) else {
        return;
    };
    pool.shutdown();
}

/// The environment variable: in a child process, as the environment is process-wide.
#[test]
fn env_var_writes_the_trace_and_bad_values_are_errors() {
    let name = "env_var_writes_the_trace_and_bad_values_are_errors";
    let file =
        std::env::temp_dir().join(format!("hypersteal-env-trace-{}.json", std::process::id()));
    let Some(pool) = traced_through_env(name, &file) else {
        return;
    };
    // An explicit builder call wins.
    let off = ThreadPoolBuilder::new()
        .num_threads(2)
        .pin_threads(false)
        .trace(false)
        .build()
        .unwrap();
    assert!(off.trace().workers.is_empty());
    off.shutdown();
    let path = std::env::var("HYPERSTEAL_TRACE").unwrap();
    for (bad, says) in [
        ("", "expected the path"),
        ("/nonexistent-dir-hypersteal/t.json", "does not exist"),
        ("/tmp", "is a directory"),
        // A path this process cannot write: found at build, not lost when the pool ends.
        ("/dev/full", "cannot be written"),
        ("/proc/self/hypersteal-trace.json", "cannot be written"),
    ] {
        std::env::set_var("HYPERSTEAL_TRACE", bad);
        let e = ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .map(|_| ())
            .unwrap_err();
        assert!(
            matches!(
                e,
                BuildError::Env {
                    var: "HYPERSTEAL_TRACE",
                    ..
                }
            ),
            "{e:?}"
        );
        let msg = e.to_string();
        assert!(
            msg.contains("HYPERSTEAL_TRACE") && msg.contains(says),
            "{msg}"
        );
    }
    std::env::set_var("HYPERSTEAL_TRACE", &path);
    pool.shutdown();
}
