//! Helpers shared by the integration tests.
#![allow(dead_code)]

use hypersteal::{Policy, ThreadPool, ThreadPoolBuilder, Topology};

/// Fibonacci through `join` at every level (no cutoff): the finest grain there is.
pub fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = hypersteal::join(|| fib(n - 1), || fib(n - 2));
    a + b
}

/// Fibonacci by iteration, the oracle.
pub fn fib_iter(n: u64) -> u64 {
    (0..n).fold((0u64, 1u64), |(a, b), _| (b, a + b)).0
}

/// A pool with the given shape; pinning off so that many pools on a small machine stay cheap.
pub fn pool(policy: Policy, topology: Topology, workers: usize) -> ThreadPool {
    ThreadPoolBuilder::new()
        .num_threads(workers)
        .policy(policy)
        .topology(topology)
        .pin_threads(false)
        .build()
        .unwrap()
}

/// Asserts the pool's books balance: every task made available ran exactly once.
pub fn assert_balanced(pool: &ThreadPool, what: &str) {
    let stats = pool.stats();
    let total = stats.total();
    assert_eq!(
        total.executed, total.spawned,
        "{what}: executed {} != spawned {}",
        total.executed, total.spawned
    );
    assert_eq!(total.executed, total.executed_local + total.executed_remote);
    assert_eq!(total.injected, stats.submitted, "{what}: injected jobs");
    assert!(total.requests_ok <= total.requests);
}

/// The worker counts every behavioural test covers.
pub const WORKERS: [usize; 5] = [1, 2, 3, 4, 8];

/// Runs `body` on its own thread and fails the test if it has not finished within `limit`
/// (a hang becomes a failure naming `what`, never a stuck CI run). A panic in `body` fails the
/// test with its message.
pub fn within<R: Send + 'static>(
    limit: std::time::Duration,
    what: &str,
    body: impl FnOnce() -> R + Send + 'static,
) -> R {
    let (tx, rx) = std::sync::mpsc::channel();
    let handle = std::thread::Builder::new()
        .name("watched".into())
        .spawn(move || {
            let _ = tx.send(body());
        })
        .unwrap();
    match rx.recv_timeout(limit) {
        Ok(r) => {
            let _ = handle.join();
            r
        }
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => match handle.join() {
            Err(payload) => std::panic::resume_unwind(payload),
            Ok(()) => unreachable!("the body sent no result but returned"),
        },
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            panic!("{what}: still running after {limit:?} (a hang)")
        }
    }
}

/// Threads of this process whose name starts with `prefix` (names are cut at 15 bytes).
pub fn threads_named(prefix: &str) -> usize {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
        .filter(|name| name.trim_end().starts_with(prefix))
        .count()
}

/// The environment variable that tells a re-executed test binary which test it runs as a child.
const CHILD_VAR: &str = "HYPERSTEAL_TEST_CHILD";

/// How a child test process ended.
#[derive(Debug)]
pub struct ChildOutcome {
    /// Exit code (`None`: killed by a signal, e.g. an abort).
    pub code: Option<i32>,
    /// The signal that ended it, if any.
    pub signal: Option<i32>,
    /// What it printed to stderr.
    pub stderr: String,
    /// What it printed to stdout.
    pub stdout: String,
}

/// Runs the test `name` of this test binary in a child process, for cases that may abort, corrupt
/// the heap or hang: in the child (`HYPERSTEAL_TEST_CHILD` names the test) this returns `None`
/// and the caller runs the body; in the parent it re-executes the binary for that one test,
/// kills it after `limit`, and returns how it ended. `setup` may adjust the child's command
/// (environment, pipes).
///
/// `name` is the test function's name; the test's path in the binary is found from the file of
/// the call ([`test_path`]), so a test in a module file of a binary gathering several is run as
/// `module::name`.
#[track_caller]
pub fn in_child(
    name: &str,
    limit: std::time::Duration,
    setup: impl FnOnce(&mut std::process::Command),
) -> Option<ChildOutcome> {
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Command, Stdio};
    let path = test_path(name, std::panic::Location::caller().file());
    if std::env::var(CHILD_VAR).as_deref() == Ok(path.as_str()) {
        return None;
    }
    let exe = std::env::current_exe().expect("the test binary's path");
    let mut cmd = Command::new(exe);
    cmd.args([path.as_str(), "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_VAR, &path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    setup(&mut cmd);
    let mut child = cmd.spawn().expect("start the child test process");
    // Read the pipes on their own threads so a chatty child cannot block on a full pipe.
    let read = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut s = String::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_string(&mut s);
            }
            s
        })
    };
    let out = read(child.stdout.take().map(|p| Box::new(p) as _));
    let err = read(child.stderr.take().map(|p| Box::new(p) as _));
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("poll the child") {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("child test `{name}` still running after {limit:?} (a hang); killed");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    Some(ChildOutcome {
        code: status.code(),
        signal: status.signal(),
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    })
}

/// The path of test `name` in its binary, from `file`, the source file that defines it: in a
/// binary's root file (`tests/x.rs`, `tests/x/main.rs`) the name itself, in a module file of a
/// binary gathering several (`tests/x/module.rs`) `module::name`.
pub fn test_path(name: &str, file: &str) -> String {
    let file = std::path::Path::new(file);
    let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("main");
    let in_tests = file
        .parent()
        .and_then(|d| d.file_name())
        .is_some_and(|d| d == "tests");
    if in_tests || stem == "main" {
        name.to_string()
    } else {
        format!("{stem}::{name}")
    }
}

/// Whether the child ran its one test and passed.
pub fn assert_child_passed(name: &str, outcome: &ChildOutcome) {
    assert!(
        outcome.code == Some(0) && outcome.stdout.contains("1 passed"),
        "child test `{name}` failed: {outcome:?}"
    );
}

/// CPU time (user + system, in clock ticks) of this process's threads whose name starts with
/// `prefix`, from /proc.
#[cfg(target_os = "linux")]
pub fn cpu_ticks(prefix: &str) -> (usize, u64) {
    let mut threads = 0;
    let mut ticks = 0;
    for entry in std::fs::read_dir("/proc/self/task").unwrap() {
        let path = entry.unwrap().path();
        let stat = std::fs::read_to_string(path.join("stat")).unwrap_or_default();
        // pid (comm) state ... utime is field 14, stime 15 (1-based); comm may hold spaces.
        let Some(close) = stat.rfind(')') else {
            continue;
        };
        let comm = &stat[stat.find('(').unwrap() + 1..close];
        if !comm.starts_with(prefix) {
            continue;
        }
        let fields: Vec<&str> = stat[close + 2..].split(' ').collect();
        threads += 1;
        ticks += fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    }
    (threads, ticks)
}

/// For each `(policy, workers)` builds a pool whose threads are named `{prefix}{k}-{i}` (`k` the
/// pool's place in `pools`), runs a burst of fine-grained work in each, asserts that all come to
/// rest ([`assert_all_at_rest`]) and that new work still wakes each. The pools are shut down
/// before it returns, so a later check's thread count is its own.
#[cfg(target_os = "linux")]
pub fn come_to_rest(pools: &[(Policy, usize)], prefix: &str, settle: std::time::Duration) {
    let built: Vec<_> = pools
        .iter()
        .enumerate()
        .map(|(k, &(policy, workers))| {
            let name = format!("{prefix}{k}-");
            let thread_name = name.clone();
            let pool = ThreadPoolBuilder::new()
                .num_threads(workers)
                .policy(policy)
                .pin_threads(false)
                .thread_name(move |i| format!("{thread_name}{i}"))
                .build()
                .unwrap();
            assert_eq!(pool.install(|| fib(18)), fib_iter(18));
            (
                pool,
                (name, workers, format!("{policy}, {workers} workers")),
            )
        })
        .collect();
    assert_all_at_rest(built.iter().map(|(_, check)| check), settle);
    for (pool, (_, _, what)) in built {
        assert_eq!(pool.install(|| fib(14)), fib_iter(14), "{what}");
        pool.shutdown();
    }
}

/// [`assert_at_rest`] for several pools, `(prefix, workers, what)` each, checked at once on
/// threads of their own: the checks mostly sleep, so together they take about as long as one.
#[cfg(target_os = "linux")]
pub fn assert_all_at_rest<'a>(
    pools: impl IntoIterator<Item = &'a (String, usize, String)>,
    settle: std::time::Duration,
) {
    std::thread::scope(|s| {
        for (prefix, workers, what) in pools {
            s.spawn(move || assert_at_rest(prefix, *workers, settle, what));
        }
    });
}

/// Asserts that the `workers` threads named `prefix...` come to rest within `settle` and then
/// use at most 2 clock ticks in 400 ms (a spinning worker would burn ~40).
#[cfg(target_os = "linux")]
pub fn assert_at_rest(prefix: &str, workers: usize, settle: std::time::Duration, what: &str) {
    assert!(
        quiet_within(prefix, settle),
        "{what}: still used CPU {settle:?} after the work ended"
    );
    let (threads, before) = cpu_ticks(prefix);
    assert_eq!(threads, workers, "{what}");
    std::thread::sleep(std::time::Duration::from_millis(400));
    let (_, after) = cpu_ticks(prefix);
    assert!(
        after - before <= 2,
        "{what}: idle workers used {} ticks",
        after - before
    );
}

/// Waits until the threads named `prefix...` use no CPU for 250 ms; false if that has not
/// happened within `deadline` (a pool that keeps spinning).
#[cfg(target_os = "linux")]
pub fn quiet_within(prefix: &str, deadline: std::time::Duration) -> bool {
    let start = std::time::Instant::now();
    let mut last = cpu_ticks(prefix).1;
    while start.elapsed() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(250));
        let now = cpu_ticks(prefix).1;
        if now == last {
            return true;
        }
        last = now;
    }
    false
}

/// Busy-waits for `d` without any poll point of the runtime.
pub fn spin_for(d: std::time::Duration) {
    let start = std::time::Instant::now();
    while start.elapsed() < d {
        std::hint::spin_loop();
    }
}

/// fib through `join_context`; every `b` checks that `migrated()` says exactly whether it runs
/// on another thread than its `join_context` call (and counts the migrated ones), every `a` that
/// it stayed on the calling worker. `slow_a` is spun in `a` at every fourth level, to give idle
/// workers time to take `b`.
pub fn fib_migrations(
    n: u64,
    slow_a: std::time::Duration,
    migrated: &std::sync::atomic::AtomicUsize,
    wrong: &std::sync::atomic::AtomicUsize,
) -> u64 {
    use std::sync::atomic::Ordering;
    if n < 2 {
        return n;
    }
    let caller = std::thread::current().id();
    let (a, b) = hypersteal::join_context(
        |ctx| {
            // Inside the pool `a` runs on the calling worker.
            if ctx.migrated() || std::thread::current().id() != caller {
                wrong.fetch_add(1, Ordering::Relaxed);
            }
            if n.is_multiple_of(4) {
                spin_for(slow_a);
            }
            fib_migrations(n - 1, slow_a, migrated, wrong)
        },
        |ctx| {
            let moved = std::thread::current().id() != caller;
            if ctx.migrated() != moved {
                wrong.fetch_add(1, Ordering::Relaxed);
            }
            if moved {
                migrated.fetch_add(1, Ordering::Relaxed);
            }
            fib_migrations(n - 2, slow_a, migrated, wrong)
        },
    );
    a + b
}

/// Every loop schedule, `chunk` with two sizes.
pub fn schedules() -> Vec<hypersteal::iter::Schedule> {
    [
        "adaptive",
        "static",
        "self",
        "chunk:1",
        "chunk:7",
        "chunk:64",
        "guided",
        "trapezoid",
        "factoring",
        "weighted",
    ]
    .iter()
    .map(|n| n.parse().expect("a schedule name"))
    .collect()
}

/// The policies the iterator tests run under: two receiver-initiated, two sender-initiated.
pub const ITER_POLICIES: [&str; 4] = ["rp", "grr-m", "acwn", "random-alloc"];
/// The pool sizes the iterator tests run with.
pub const ITER_WORKERS: [usize; 3] = [1, 2, 4];

/// One pool per (policy in [`ITER_POLICIES`], size in [`ITER_WORKERS`]), built once per test
/// binary and named `"<policy> x<workers>"`.
pub fn iter_pools() -> &'static [(String, ThreadPool)] {
    static POOLS: std::sync::OnceLock<Vec<(String, ThreadPool)>> = std::sync::OnceLock::new();
    POOLS.get_or_init(|| {
        let mut pools = Vec::new();
        for name in ITER_POLICIES {
            let policy: Policy = name.parse().expect("a policy name");
            for n in ITER_WORKERS {
                let pool = ThreadPoolBuilder::new()
                    .num_threads(n)
                    .policy(policy)
                    .pin_threads(false)
                    .build()
                    .unwrap();
                pools.push((format!("{name} x{n}"), pool));
            }
        }
        pools
    })
}

/// Runs `check` in every pool of [`iter_pools`], the whole run under a watchdog of `limit`.
pub fn in_every_iter_pool(
    limit: std::time::Duration,
    what: &'static str,
    check: fn(&ThreadPool, &str),
) {
    within(limit, what, move || {
        for (name, pool) in iter_pools() {
            check(pool, &format!("{what}: {name}"));
        }
    })
}

/// `n` values from a seeded LCG, each below `range`: every run checks the same cases.
pub fn lcg(n: usize, seed: u64, range: u64) -> Vec<u64> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) % range
        })
        .collect()
}
