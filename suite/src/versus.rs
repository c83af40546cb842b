//! `versus`: policies against rayon, chili and the sequential code, side by side in one process.
//!
//! The matrix (`run`) times one configuration after another, so a machine whose speed wanders
//! between them moves their ratios. `versus` answers "how far is this policy from rayon?"
//! instead: every contender runs once per **round**, in an order that rotates from round to
//! round, and each contender's time is divided by rayon's (and by the sequential code's) *in the
//! same round*. The figure reported is the median of those per-round ratios over at least nine
//! rounds, with its interquartile range; a slow stretch of the machine hits every contender of
//! a round alike and cancels out of its ratios. Every run's answer is checked.

use crate::bench::{checked, chili_pool, hypersteal_pool, median, rayon_pool};
use crate::fork::{Hypersteal, Rayon};
use crate::workloads::{Instance, Workload};
use hypersteal::{Placement, Policy, ThreadPool, Topology};
use serde::Serialize;
use std::time::Instant;

/// The workloads `versus` measures by default: coarse grains (`fib:34` with a cutoff of 20,
/// UTS T1, N-Queens 12, the quick tautology), where every contender should reach the same
/// speed-up.
pub const DEFAULT_WORKLOADS: &str = "fib:34,cutoff=20,uts:T1,nqueens:12,tautology:35,seed=5";

/// The fewest rounds `versus` accepts: a median of fewer says little.
pub const MIN_ROUNDS: usize = 9;

/// What `versus` measures.
#[derive(Debug, Clone)]
pub struct VersusPlan {
    /// The workloads, one after another.
    pub workloads: Vec<Workload>,
    /// The hypersteal policies.
    pub policies: Vec<Policy>,
    /// Their topology.
    pub topology: Topology,
    /// Workers of every parallel contender.
    pub threads: usize,
    /// Rounds per workload (at least [`MIN_ROUNDS`]).
    pub rounds: usize,
    /// Pin hypersteal's workers (and the sequential baseline's thread) to cores, laid out
    /// this way (`None`: not pinned).
    pub pin: Option<Placement>,
}

/// One contender's figures on one workload.
#[derive(Debug, Clone, Serialize)]
pub struct VersusRow {
    /// The workload and its size.
    pub workload: String,
    /// `sequential`, `rayon`, `chili` or a hypersteal policy.
    pub contender: String,
    /// Workers (1 for the sequential code).
    pub threads: usize,
    /// Median time of one run, seconds.
    pub median_s: f64,
    /// Median over the rounds of this contender's time ÷ rayon's in the same round.
    pub to_rayon: f64,
    /// First and third quartile of those per-round ratios.
    pub to_rayon_iqr: (f64, f64),
    /// Median over the rounds of time ÷ the sequential code's in the same round.
    pub to_sequential: f64,
    /// Rounds measured.
    pub rounds: usize,
}

enum Contender {
    Sequential(ThreadPool),
    Rayon(rayon::ThreadPool),
    Chili(chili::ThreadPool),
    Hypersteal(Policy, ThreadPool),
}

impl Contender {
    fn name(&self) -> String {
        match self {
            Contender::Sequential(_) => "sequential".into(),
            Contender::Rayon(_) => "rayon".into(),
            Contender::Chili(_) => "chili".into(),
            Contender::Hypersteal(policy, _) => policy.to_string(),
        }
    }

    /// One checked run; its time in seconds.
    fn run(&self, instance: &mut Instance, label: &str) -> Result<f64, String> {
        instance.reset();
        let (outcome, time) = match self {
            Contender::Sequential(pool) => pool.install(|| {
                let t0 = Instant::now();
                let o = instance.run_sequential();
                (o, t0.elapsed())
            }),
            Contender::Rayon(pool) => {
                let t0 = Instant::now();
                let o = pool.install(|| instance.run(&mut Rayon));
                (o, t0.elapsed())
            }
            Contender::Chili(pool) => {
                let mut scope = pool.scope();
                let t0 = Instant::now();
                let o = instance.run(&mut scope);
                (o, t0.elapsed())
            }
            Contender::Hypersteal(_, pool) => {
                let t0 = Instant::now();
                let o = pool.install(|| instance.run(&mut Hypersteal));
                (o, t0.elapsed())
            }
        };
        checked(instance, label, &outcome)?;
        Ok(time.as_secs_f64())
    }
}

/// The `q`-quantile (0 to 1) of `v`, interpolated between neighbours.
fn quantile(v: &[f64], q: f64) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    if s.is_empty() {
        return f64::NAN;
    }
    let at = q * (s.len() - 1) as f64;
    let (lo, hi) = (at.floor() as usize, at.ceil() as usize);
    s[lo] + (s[hi] - s[lo]) * (at - lo as f64)
}

/// Runs the plan: per workload, one warm-up run of every contender, then `rounds` rounds.
/// `progress` is called once per round with a label. Returns the rows, workload by workload
/// (sequential, rayon, chili, then the policies), or the first error (a wrong answer, a pool
/// that cannot be built).
pub fn run_versus(
    plan: &VersusPlan,
    mut progress: impl FnMut(&str),
) -> Result<Vec<VersusRow>, String> {
    if plan.rounds < MIN_ROUNDS {
        return Err(format!(
            "rounds must be at least {MIN_ROUNDS} (got {})",
            plan.rounds
        ));
    }
    let mut contenders = vec![
        Contender::Sequential(hypersteal_pool(
            Policy::default(),
            Topology::default(),
            1,
            plan.pin,
        )?),
        Contender::Rayon(rayon_pool(plan.threads)?),
        Contender::Chili(chili_pool(plan.threads)),
    ];
    for policy in &plan.policies {
        let pool = hypersteal_pool(*policy, plan.topology, plan.threads, plan.pin)?;
        contenders.push(Contender::Hypersteal(*policy, pool));
    }
    let (seq, ray) = (0, 1);
    let k = contenders.len();
    let mut rows = Vec::new();
    for workload in &plan.workloads {
        let label = format!("{}:{}", workload.name(), workload.size());
        let mut instance = workload.prepare();
        for c in &contenders {
            c.run(&mut instance, &format!("{label} {} (warm-up)", c.name()))?;
        }
        // times[c][r]: contender c's time in round r.
        let mut times = vec![Vec::with_capacity(plan.rounds); k];
        for round in 0..plan.rounds {
            progress(&format!("{label}, round {}/{}", round + 1, plan.rounds));
            for i in 0..k {
                let c = (round + i) % k;
                let name = format!("{label} {}", contenders[c].name());
                times[c].push(contenders[c].run(&mut instance, &name)?);
            }
        }
        for (c, contender) in contenders.iter().enumerate() {
            let per_round = |base: usize| -> Vec<f64> {
                (0..plan.rounds)
                    .map(|r| times[c][r] / times[base][r])
                    .collect()
            };
            let to_rayon = per_round(ray);
            rows.push(VersusRow {
                workload: label.clone(),
                contender: contender.name(),
                threads: if c == seq { 1 } else { plan.threads },
                median_s: median(&times[c]),
                to_rayon: median(&to_rayon),
                to_rayon_iqr: (quantile(&to_rayon, 0.25), quantile(&to_rayon, 0.75)),
                to_sequential: median(&per_round(seq)),
                rounds: plan.rounds,
            });
        }
    }
    Ok(rows)
}

/// The rows as a text table, one block per workload. `within 5%` marks a contender whose
/// median ratio to rayon is at most 1.05.
pub fn table(rows: &[VersusRow]) -> String {
    let mut out = String::new();
    let mut last = "";
    for r in rows {
        if r.workload != last {
            last = &r.workload;
            out.push_str(&format!(
                "\n{}\n{:<34} {:>3} {:>11} {:>8} {:>15} {:>7}  {}\n",
                r.workload, "contender", "P", "median ms", "÷ rayon", "IQR", "÷ seq", "rayon + 5%"
            ));
        }
        let mark = if r.contender == "rayon" {
            ""
        } else if r.to_rayon <= 1.05 {
            "within"
        } else {
            "ABOVE"
        };
        out.push_str(&format!(
            "{:<34} {:>3} {:>11.3} {:>8.3} {:>7.3}-{:<7.3} {:>7.3}  {}\n",
            r.contender,
            r.threads,
            r.median_s * 1e3,
            r.to_rayon,
            r.to_rayon_iqr.0,
            r.to_rayon_iqr.1,
            r.to_sequential,
            mark
        ));
    }
    out
}

/// The rows as CSV with a header line.
pub fn csv(rows: &[VersusRow]) -> String {
    let mut out = String::from(
        "workload,contender,threads,median_s,to_rayon,to_rayon_q1,to_rayon_q3,to_sequential,rounds\n",
    );
    for r in rows {
        out.push_str(&format!(
            "\"{}\",{},{},{},{},{},{},{},{}\n",
            r.workload,
            r.contender,
            r.threads,
            r.median_s,
            r.to_rayon,
            r.to_rayon_iqr.0,
            r.to_rayon_iqr.1,
            r.to_sequential,
            r.rounds
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_interpolate_between_neighbours() {
        let v = [4.0, 1.0, 3.0, 2.0];
        assert_eq!(quantile(&v, 0.0), 1.0);
        assert_eq!(quantile(&v, 1.0), 4.0);
        assert!((quantile(&v, 0.5) - 2.5).abs() < 1e-12);
        assert!((quantile(&v, 0.25) - 1.75).abs() < 1e-12);
    }

    #[test]
    fn every_contender_is_checked_and_rayon_is_its_own_unit() {
        let plan = VersusPlan {
            workloads: vec!["fib:18,cutoff=6".parse().unwrap()],
            policies: vec![Policy::RandomPolling, "acwn".parse().unwrap()],
            topology: Topology::Hypercube,
            threads: 2,
            rounds: MIN_ROUNDS,
            pin: None,
        };
        // Under a watchdog: a pool that hangs fails the test instead of stalling the run.
        let (rows, rounds) = hypersteal_sim::within(300, move || {
            let mut rounds = 0;
            let rows = run_versus(&plan, |_| rounds += 1);
            (rows, rounds)
        });
        let rows = rows.unwrap();
        assert_eq!(rounds, MIN_ROUNDS);
        let names: Vec<&str> = rows.iter().map(|r| r.contender.as_str()).collect();
        assert_eq!(names, ["sequential", "rayon", "chili", "rp", "acwn"]);
        let rayon = &rows[1];
        assert_eq!(rayon.to_rayon, 1.0);
        assert!(rows
            .iter()
            .all(|r| r.median_s > 0.0 && r.rounds == MIN_ROUNDS));
        assert_eq!(rows[0].to_sequential, 1.0);
        assert!(table(&rows).contains("acwn"));
        assert_eq!(csv(&rows).lines().count(), 1 + rows.len());
    }

    #[test]
    fn fewer_than_nine_rounds_are_refused() {
        let plan = VersusPlan {
            workloads: vec!["fib:10".parse().unwrap()],
            policies: vec![],
            topology: Topology::Hypercube,
            threads: 1,
            rounds: MIN_ROUNDS - 1,
            pin: None,
        };
        let err = run_versus(&plan, |_| {}).unwrap_err();
        assert!(err.contains("at least 9"), "{err}");
    }
}
