//! Unit tests of the measurement engine.

use super::*;

#[test]
fn medians_and_cov() {
    assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
    assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
    assert_eq!(median(&[]), 0.0);
    assert_eq!(coefficient_of_variation(&[1.0]), 0.0);
    let c = coefficient_of_variation(&[1.0, 3.0]);
    assert!((c - 2f64.sqrt() / 2.0).abs() < 1e-12, "{c}");
    assert_eq!(sd_percent(&[2.0, 2.0]), 0.0);
    assert!((sd_percent(&[1.0, 3.0]) - 50.0).abs() < 1e-12);
}

#[test]
fn a_tiny_plan_runs_and_checks() {
    let plan = Plan {
        workloads: vec![
            "fib:15".parse().unwrap(),
            "mandelbrot:40,iters=50".parse().unwrap(),
            "matmul:12".parse().unwrap(),
        ],
        policies: vec![Policy::RandomPolling, "acwn".parse().unwrap()],
        topologies: vec![Topology::Hypercube],
        threads: vec![1, 2],
        rule: StoppingRule::fixed(2),
        warmup: 0,
        one_worker_policies: None,
        baselines: true,
        schedules: vec![Schedule::Guided, Schedule::Static],
        loop_policies: vec![Policy::RandomPolling],
        matmul_tasks: true,
        pin: None,
    };
    let mut n = 0;
    let rows = on_big_stack(|| run_plan(&plan, |_| n += 1)).unwrap();
    assert_eq!(n, plan.points());
    // One point more per workload: the baseline again.
    assert_eq!(n, rows.len() + plan.workloads.len());
    assert_eq!(rows.len(), plan.configurations());
    let loops = rows.iter().filter(|r| r.variant == "loop").count();
    // 2 schedules and rayon's loop, at 2 workers only.
    assert_eq!(loops, 2 + 1);
    assert!(rows
        .iter()
        .any(|r| r.variant == "tasks" && r.policy == "acwn"));
    for r in &rows {
        assert!(r.median_s > 0.0 && r.speedup > 0.0, "{r:?}");
        let is_hs = ![SEQUENTIAL, RAYON, CHILI].contains(&r.policy.as_str());
        assert_eq!(r.requests.is_some(), is_hs, "{r:?}");
        if r.variant == "loop" {
            assert!(r.sd_pct.is_some(), "{r:?}");
        }
    }
}

#[test]
fn the_quick_trim_keeps_every_policy_at_all_cores() {
    let all = Policy::all();
    let keep = vec![Policy::RandomPolling, "acwn".parse().unwrap()];
    let mut plan = Plan {
        workloads: vec!["fib:15".parse().unwrap(), "matmul:12".parse().unwrap()],
        policies: all.clone(),
        topologies: vec![Topology::Hypercube],
        threads: vec![1, 2],
        rule: StoppingRule::fixed(1),
        warmup: 0,
        one_worker_policies: Some(keep.clone()),
        baselines: true,
        schedules: Vec::new(),
        loop_policies: vec![Policy::RandomPolling],
        matmul_tasks: true,
        pin: None,
    };
    let fib = &plan.workloads[0];
    let count = |jobs: &[Job], p: usize| {
        jobs.iter()
            .filter(|j| matches!(j, Job::Hypersteal { threads, .. } if *threads == p))
            .count()
    };
    let jobs = plan.jobs(fib);
    assert_eq!(count(&jobs, 2), all.len());
    assert_eq!(count(&jobs, 1), 2);
    // Baselines stay at both counts: sequential, rayon and chili at 1 and 2.
    assert_eq!(jobs.len() - count(&jobs, 1) - count(&jobs, 2), 5);
    // matmul's master-worker rows are trimmed the same way.
    let matmul = plan.jobs(&plan.workloads[1]);
    assert_eq!(count(&matmul, 2), 2 * all.len());
    assert_eq!(count(&matmul, 1), 2 * 2);
    let note = plan.trimming().unwrap();
    assert!(
        note.contains("only rp, acwn") && note.contains("at 2 workers"),
        "{note}"
    );
    assert!(note.contains("grr-m") && !note.contains("not rp"), "{note}");
    // Nothing to trim with one worker count, or without a list.
    plan.threads = vec![1];
    assert_eq!(count(&plan.jobs(fib), 1), all.len());
    assert!(plan.trimming().is_none());
    plan.threads = vec![1, 2];
    plan.one_worker_policies = None;
    assert!(plan.trimming().is_none());
}

#[test]
fn every_point_gets_its_minimum_and_a_stop_reason() {
    let plan = Plan {
        workloads: vec!["fib:12".parse().unwrap()],
        policies: vec![Policy::RandomPolling],
        topologies: vec![Topology::Hypercube],
        threads: vec![1],
        // No interval of the median exists below 6 runs, so every point
        // runs to the cap of 5 and is called noisy, whatever the timings.
        rule: StoppingRule {
            min_runs: 3,
            max_runs: 5,
            precision: StoppingRule::PRECISION,
            budget: std::time::Duration::from_secs(600),
        },
        warmup: 1,
        one_worker_policies: None,
        baselines: false,
        schedules: Vec::new(),
        loop_policies: Vec::new(),
        matmul_tasks: false,
        pin: None,
    };
    let rows = on_big_stack(|| run_plan(&plan, |_| {})).unwrap();
    assert_eq!(rows.len(), 2);
    // rp: five runs, too few for an interval: noisy, whatever the timings.
    assert_eq!((rows[1].policy.as_str(), rows[1].runs), ("rp", 5));
    assert_eq!(rows[1].stop, "max-runs", "{:?}", rows[1]);
    assert!(
        rows[1].flags.contains(&"noisy".to_string()),
        "{:?}",
        rows[1]
    );
    assert!(rows[1].ci_half_width.is_none() && rows[1].drift.is_none());
    // The baseline, timed before and after rp: ten runs, an interval
    // over all of them, and the drift between the two medians. Each half
    // stopped unsettled at five runs, so the row is noisy exactly when the
    // interval over all ten is wider than the precision.
    let base = &rows[0];
    assert_eq!((base.policy.as_str(), base.runs), (SEQUENTIAL, 10));
    assert_eq!(base.times_s.len(), 10);
    assert!(base.ci_half_width.is_some() && base.drift.is_some());
    let wide = base.ci_half_width.unwrap() > StoppingRule::PRECISION;
    assert_eq!(
        base.stop,
        if wide { "max-runs" } else { "stable" },
        "{base:?}"
    );
    assert_eq!(base.flags.contains(&"noisy".to_string()), wide, "{base:?}");
}

#[test]
fn a_wrong_answer_is_an_error() {
    let mut i = "fib:10".parse::<Workload>().unwrap().prepare();
    let e = checked(&mut i, "fib:10 rp", &Outcome::Fib(56)).unwrap_err();
    assert!(e.contains("WRONG ANSWER") && e.contains("fib:10 rp"), "{e}");
    assert!(checked(&mut i, "fib:10 rp", &Outcome::Fib(55)).is_ok());
}

#[test]
fn counting_joins() {
    let mut i = "fib:10,cutoff=0".parse::<Workload>().unwrap().prepare();
    let mut c = CountJoins::default();
    let o = i.run(&mut c);
    i.check(&o).unwrap();
    // fib forks at every n >= 2 when the cutoff is 0: fib(11) - 1 joins.
    assert!(c.0 > 50, "{}", c.0);
}
