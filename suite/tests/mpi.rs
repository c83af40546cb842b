//! `hypersteal-suite mpi` under `mpirun` with 1, 2 and 4 ranks (oversubscribed on small
//! machines): every policy finds the exact answers, termination is always detected, and a rank
//! that panics ends the job with its message. Built only with `--features mpi` (needs a system
//! MPI, docs/mpi.md); `.ci/run` runs it.
//!
//! Every `mpirun` runs under `timeout`, so a hang (termination never detected, a rank waiting
//! for a dead one) fails the test instead of stalling CI.

#![cfg(feature = "mpi")]

use std::process::Command;

use hypersteal::Policy;

/// What one `mpirun` job printed.
struct Job {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs `hypersteal-suite mpi ARGS` on `ranks` ranks, killed after `limit_s` seconds.
fn mpirun(ranks: usize, args: &[&str], limit_s: u64) -> Job {
    let out = Command::new("timeout")
        .args(["--kill-after=5", &limit_s.to_string(), "mpirun"])
        .args([
            "--allow-run-as-root",
            "--oversubscribe",
            "-n",
            &ranks.to_string(),
        ])
        .arg(env!("CARGO_BIN_EXE_hypersteal-suite"))
        .arg("mpi")
        .args(args)
        .output()
        .expect("mpirun starts (is MPI installed? docs/mpi.md)");
    let job = Job {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    assert!(
        !matches!(job.code, Some(124) | Some(137)),
        "mpirun -n {ranks} mpi {args:?} hung: killed after {limit_s} s\n{}\n{}",
        job.stdout,
        job.stderr
    );
    job
}

/// Runs every policy on `workload` on `ranks` ranks and checks that each printed exactly one
/// right answer that contains `want`.
fn every_policy(workload: &str, ranks: usize, extra: &[&str], want: &str, limit_s: u64) {
    let mut args = vec!["--workload", workload, "--policy", "all"];
    args.extend_from_slice(extra);
    let job = mpirun(ranks, &args, limit_s);
    assert_eq!(
        job.code,
        Some(0),
        "{workload} on {ranks} ranks failed\n{}\n{}",
        job.stdout,
        job.stderr
    );
    for policy in Policy::all() {
        let tag = format!("answer policy={policy}: ");
        let lines: Vec<&str> = job.stdout.lines().filter(|l| l.starts_with(&tag)).collect();
        assert_eq!(
            lines.len(),
            1,
            "{workload}, {ranks} ranks, {policy}: one answer\n{}",
            job.stdout
        );
        assert!(
            lines[0].ends_with(": ok") && lines[0].contains(want),
            "{workload}, {ranks} ranks, {policy}: {}",
            lines[0]
        );
    }
}

#[test]
fn nqueens_11_is_exact_under_every_policy_on_1_2_and_4_ranks() {
    for ranks in [1, 2, 4] {
        // Small steps: ranks look at the network often, so work moves a lot.
        every_policy("nqueens:11", ranks, &["--step", "4"], "2680 solutions", 120);
    }
}

#[test]
fn uts_t3_is_exact_under_every_policy_on_1_2_and_4_ranks() {
    for ranks in [1, 2, 4] {
        // 4,112,897 nodes, each run once: nothing lost or counted twice across ranks.
        every_policy(
            "uts:T3",
            ranks,
            &[],
            "4112897 nodes, 3599034 leaves, depth 1572 (published 4112897 nodes, 3599034 leaves, depth 1572), 4112897 tasks run",
            300,
        );
    }
}

#[test]
fn uts_t1_is_exact_under_every_policy_on_1_2_and_4_ranks() {
    for ranks in [1, 2, 4] {
        every_policy(
            "uts:T1",
            ranks,
            &[],
            "4130071 nodes, 3305118 leaves, depth 10 (published 4130071 nodes, 3305118 leaves, depth 10), 4130071 tasks run",
            300,
        );
    }
}

#[test]
fn a_rank_that_panics_ends_the_job_with_its_message() {
    // Rank 0 holds the root, so it always runs a task; rank 1 of 2 surely gets T1 work.
    for (ranks, fail, workload) in [(4, "0", "nqueens:11"), (2, "1", "uts:T1")] {
        let job = mpirun(ranks, &["--workload", workload, "--fail-rank", fail], 60);
        assert_ne!(job.code, Some(0), "{}", job.stdout);
        assert!(
            job.stderr.contains("injected failure (--fail-rank)"),
            "the panic message reaches the user\n{}",
            job.stderr
        );
        assert!(!job.stdout.contains("answer"), "{}", job.stdout);
    }
}

#[test]
fn a_bad_setting_is_refused_with_its_name_and_range() {
    let job = mpirun(1, &["--workload", "nqueens:8", "--step", "0"], 60);
    assert_eq!(job.code, Some(2), "{}", job.stdout);
    assert!(
        job.stderr.contains("`step` = 0") && job.stderr.contains("1 to 1000000"),
        "{}",
        job.stderr
    );
    let job = mpirun(1, &["--workload", "nqueens:8", "--heartbeat-us", "0"], 60);
    assert_eq!(job.code, Some(2), "{}", job.stdout);
    assert!(
        job.stderr.contains("`heartbeat` = 0ns") && job.stderr.contains("1µs to 1s"),
        "{}",
        job.stderr
    );
}

#[test]
fn ranks_with_a_pool_of_two_workers_are_exact_too() {
    // Each step then runs two tasks of the rank's stack in parallel on its pool.
    every_policy(
        "nqueens:11",
        2,
        &["--workers", "2", "--step", "8"],
        "2680 solutions",
        120,
    );
}
