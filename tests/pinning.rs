//! Cores are handed out process-wide, and claimed against other processes (`docs/design.md`,
//! "Pinning"). In a binary of its own, because the core table is process-wide and other tests'
//! pools would change it; the test across processes runs its pools in child processes, with a
//! claims directory of their own.

mod common;

use hypersteal::{ThreadPool, ThreadPoolBuilder};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

fn pinned(n: usize) -> ThreadPool {
    ThreadPoolBuilder::new()
        .num_threads(n)
        .pin_threads(true)
        .build()
        .unwrap()
}

fn cores_of(pool: &ThreadPool) -> Vec<usize> {
    (0..pool.current_num_threads())
        .map(|i| pool.worker_core(i).expect("a pinned worker has a core"))
        .collect()
}

#[test]
fn live_pools_do_not_share_cores_while_free_ones_exist() {
    let Some(all) = core_affinity::get_core_ids() else {
        return; // this platform does not tell us the cores: pinning is off
    };
    let n = all.len();
    if n < 2 {
        return; // one core: every pool shares it
    }
    let a = pinned(1);
    let b = pinned(n - 1);
    let (ca, cb) = (cores_of(&a), cores_of(&b));
    assert!(
        !cb.contains(&ca[0]),
        "pools share a core: {ca:?} and {cb:?}"
    );
    let mut every: Vec<usize> = ca.iter().chain(&cb).copied().collect();
    every.sort_unstable();
    every.dedup();
    assert_eq!(every.len(), n, "together they use every core once");

    // A pool that has ended gives its core back: the next one gets it.
    a.shutdown();
    let d = pinned(1);
    assert_eq!(cores_of(&d), ca, "the freed core is reused");

    // More workers than cores: each core carries the same number of this pool's workers.
    let e = pinned(2 * n);
    let mut per_core = BTreeMap::new();
    for c in cores_of(&e) {
        *per_core.entry(c).or_insert(0) += 1;
    }
    assert_eq!(per_core.len(), n, "{per_core:?}");
    assert!(per_core.values().all(|&k| k == 2), "{per_core:?}");
    // Unpinned pools take no core.
    let u = ThreadPoolBuilder::new()
        .num_threads(2)
        .pin_threads(false)
        .build()
        .unwrap();
    assert_eq!(u.worker_core(0), None);
    drop((b, d, e, u));
}

/// Set in a child process: the number of workers of the pinned pool it builds.
const CHILD_WORKERS: &str = "HYPERSTEAL_TEST_PIN_CHILD";

/// Starts this test again as a child process that builds a pinned pool of `workers`, claiming
/// CPUs in `claims`, prints its CPUs and holds the pool until its standard input closes.
fn pinned_child(workers: usize, claims: &std::path::Path) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .args(["two_processes_side_by_side_take_different_cpus", "--exact"])
        .args(["--nocapture", "--test-threads=1"])
        .env(CHILD_WORKERS, workers.to_string())
        .env("HYPERSTEAL_PIN_CLAIMS", claims)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The CPUs a child reported (on the line where the test harness names the test); the rest of
/// its output is read on, so that its last lines do not meet a closed pipe.
fn cpus_of(child: &mut Child) -> Vec<usize> {
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    for line in lines.by_ref() {
        let line = line.unwrap();
        if let Some((_, list)) = line.split_once("cpus: ") {
            let cpus = list.trim().split(',').map(|c| c.parse().unwrap()).collect();
            std::thread::spawn(move || lines.for_each(drop));
            return cpus;
        }
    }
    panic!("the child ended without reporting its CPUs")
}

/// Two processes that pin side by side, started at the same moment, never put two workers on
/// one CPU while a free one exists; when one takes all but one CPU, the other gets the last.
#[test]
fn two_processes_side_by_side_take_different_cpus() {
    if let Some(workers) = std::env::var_os(CHILD_WORKERS) {
        let workers: usize = workers.to_str().unwrap().parse().unwrap();
        let pool = pinned(workers);
        let cpus: Vec<String> = cores_of(&pool).iter().map(|c| c.to_string()).collect();
        println!("cpus: {}", cpus.join(","));
        // Held until the parent closes the pipe (or ends).
        std::io::stdin().lines().for_each(drop);
        return;
    }
    let Some(all) = core_affinity::get_core_ids() else {
        return; // this platform does not tell us the cores: pinning is off
    };
    let n = all.len();
    if n < 2 {
        return; // one CPU: every process shares it
    }
    common::within(
        Duration::from_secs(120),
        "pinned child processes",
        move || {
            let claims =
                std::env::temp_dir().join(format!("hypersteal-test-claims-{}", std::process::id()));
            std::fs::create_dir_all(&claims).unwrap();
            for round in 0..5 {
                // Both at once, so that they choose at the same moment.
                let mut a = pinned_child(n / 2, &claims);
                let mut b = pinned_child(n - n / 2, &claims);
                let (ca, cb) = (cpus_of(&mut a), cpus_of(&mut b));
                let mut every: Vec<usize> = ca.iter().chain(&cb).copied().collect();
                every.sort_unstable();
                every.dedup();
                assert_eq!(
                    every.len(),
                    n,
                    "round {round}: the processes share a CPU: {ca:?} and {cb:?}"
                );
                for mut child in [a, b] {
                    drop(child.stdin.take());
                    assert!(child.wait().unwrap().success());
                }
            }
            // One process after the other: the second takes the CPU the first left free.
            let mut a = pinned_child(n - 1, &claims);
            let ca = cpus_of(&mut a);
            let mut b = pinned_child(1, &claims);
            let cb = cpus_of(&mut b);
            assert!(!ca.contains(&cb[0]), "{ca:?} and {cb:?}");
            // Claims end with their processes: a new one gets the CPUs the first one held.
            drop(a.stdin.take());
            assert!(a.wait().unwrap().success());
            let mut c = pinned_child(n - 1, &claims);
            let cc = cpus_of(&mut c);
            assert!(!cc.contains(&cb[0]), "{cc:?} and {cb:?}");
            for mut child in [b, c] {
                drop(child.stdin.take());
                assert!(child.wait().unwrap().success());
            }
            let _ = std::fs::remove_dir_all(&claims);
        },
    );
}
