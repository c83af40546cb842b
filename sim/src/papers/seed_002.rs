//! Seed 002's measured tables (3, 4 and 5): speedups of the receiver-initiated schemes and the
//! manager schemes on stack-splitting searches.

use super::*;
use std::fmt::Write as _;

/// Seed 002's P columns.
const P_002: [usize; 8] = [8, 16, 32, 64, 128, 256, 512, 1024];

/// Seed 002 Table 3 (speedups; GRR and SB have no 1024 column) and Table 5 (SL to 128 only).
const TABLE3: [(&str, &str, [f64; 8]); 6] = [
    (
        "ARR",
        "arr",
        [
            7.506, 14.936, 29.664, 57.721, 103.738, 178.92, 259.372, 284.425,
        ],
    ),
    (
        "GRR-M",
        "grr-m",
        [
            7.170, 14.356, 28.283, 56.310, 107.814, 197.011, 361.130, 644.383,
        ],
    ),
    (
        "RP",
        "rp",
        [
            7.524, 15.000, 29.814, 58.857, 114.645, 218.255, 397.585, 660.582,
        ],
    ),
    (
        "NN",
        "nn",
        [
            7.493, 14.945, 29.680, 58.535, 114.571, 217.127, 397.633, 671.202,
        ],
    ),
    (
        "GRR",
        "grr",
        [
            7.384,
            14.734,
            29.291,
            57.729,
            110.754,
            184.828,
            155.051,
            f64::NAN,
        ],
    ),
    (
        "SB",
        "sb",
        [
            7.278,
            14.518,
            28.875,
            57.025,
            109.673,
            184.969,
            162.798,
            f64::NAN,
        ],
    ),
];
const TABLE5: [(&str, &str, [f64; 8]); 3] = [
    (
        "RP",
        "rp",
        [
            7.524, 15.000, 29.814, 58.857, 114.645, 218.255, 397.585, 660.582,
        ],
    ),
    (
        "SL",
        "sl",
        [
            7.510,
            14.940,
            29.581,
            52.239,
            79.101,
            f64::NAN,
            f64::NAN,
            f64::NAN,
        ],
    ),
    (
        "ML",
        "ml",
        [
            7.315, 14.406, 28.246, 56.003, 106.881, 192.102, 357.515, 628.801,
        ],
    ),
];
/// Seed 002 Table 4: requests of GRR-M and RP.
const TABLE4: [(usize, f64, f64); 8] = [
    (8, 260.0, 562.0),
    (16, 661.0, 2013.0),
    (32, 1572.0, 5106.0),
    (64, 3445.0, 15060.0),
    (128, 8557.0, 46056.0),
    (256, 17088.0, 136457.0),
    (512, 41382.0, 382695.0),
    (1024, 72874.0, 885872.0),
];

fn paper_at(row: &[f64; 8], p: usize) -> Option<f64> {
    let v = row[P_002.iter().position(|&q| q == p)?];
    (!v.is_nan()).then_some(v)
}

/// Index of the largest value.
fn peak(xs: &[(usize, f64)]) -> usize {
    xs.iter()
        .copied()
        .fold((0, f64::MIN), |a, b| if b.1 > a.1 { b } else { a })
        .0
}

/// Seed 002's machine (hypercube, the Ncube/2's costs, idle processors poll) with `policy` on
/// `procs`; the workload is the search's, so the one here is a placeholder.
fn config_002(policy: &str, procs: usize, seed: u64) -> Result<SimConfig, SimError> {
    let placeholder = Workload::Search(SearchTree::new(1));
    config(
        policy,
        procs,
        placeholder,
        CostModel::ncube2(),
        Idle::Poll,
        seed,
    )
}

/// Every simulated search a set of seed 002's tables needs: each of `instances` under each
/// policy at each processor count, each run once (Tables 3 and 5 share RP's runs, and Table 4
/// counts the first instance's RP and GRR-M requests in Table 3's runs). The runs are spread
/// over the current pool; an indexed collect keeps their order.
struct Runs<'a> {
    /// The schemes run: a policy, and for a manager scheme how its managers generate subtasks
    /// (`None`: the searches' own rules).
    policies: Vec<Scheme<'a>>,
    procs: &'a [usize],
    /// `results[(policy index × procs + P index) × instances + instance]`.
    results: Vec<SimResult>,
    instances: usize,
}

impl<'a> Runs<'a> {
    fn new(
        cfg: &'a PapersConfig,
        instances: &[&dyn Searched],
        policies: impl IntoIterator<Item = Scheme<'a>>,
    ) -> Result<Self, SimError> {
        let mut names: Vec<Scheme<'a>> = Vec::new();
        for policy in policies {
            if !names.contains(&policy) {
                names.push(policy);
            }
        }
        let runs: Vec<(Scheme<'a>, usize, &dyn Searched)> = names
            .iter()
            .flat_map(|&scheme| {
                cfg.procs_002
                    .iter()
                    .flat_map(move |&p| instances.iter().map(move |&i| (scheme, p, i)))
            })
            .collect();
        let results = runs
            .par_iter()
            .map(|&((policy, generators), p, i)| {
                let config = config_002(policy, p, cfg.seed)?;
                match generators {
                    None => i.simulate(&config),
                    Some(g) => i.simulate_with(
                        &config,
                        SearchRules {
                            subtasks: Some(g.depth),
                            takeback: g.takeback,
                            ..i.rules()
                        },
                    ),
                }
            })
            .collect::<Vec<_>>()
            .into_iter()
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Runs {
            policies: names,
            procs: &cfg.procs_002,
            results,
            instances: instances.len(),
        })
    }

    /// The runs of every instance under `scheme` on `procs` processors.
    fn get(&self, scheme: Scheme<'_>, procs: usize) -> &[SimResult] {
        let k = self.policies.iter().position(|&q| q == scheme);
        let j = self.procs.iter().position(|&q| q == procs);
        let (k, j) = k.zip(j).expect("a run for every policy and P asked for");
        let at = (k * self.procs.len() + j) * self.instances;
        &self.results[at..at + self.instances]
    }

    /// Speedup of `policy` on `procs` over the instances as the paper averages (section 8:
    /// "the ratio of the cumulative time to solve all the problems in parallel ... to the
    /// corresponding cumulative sequential time"): their work over their simulated times,
    /// each summed.
    fn speedup(&self, scheme: Scheme<'_>, procs: usize) -> f64 {
        let runs = self.get(scheme, procs);
        let work: f64 = runs.iter().map(|r| r.work).sum();
        let time: f64 = runs.iter().map(|r| r.time).sum();
        if time > 0.0 {
            work / time
        } else {
            1.0
        }
    }

    /// The speedup of `policy` on `procs`; for a manager scheme run at every depth of
    /// [`SUBTASK_DEPTHS`], with managers that take work back or not as `takeback` says, the best
    /// of them and its depth (seed 002 section 8: SL's and ML's "cutoff depths have been
    /// fine-tuned for optimum performance"), the shallower depth on a tie.
    fn best(&self, policy: &str, procs: usize, takeback: bool) -> (f64, Option<u32>) {
        if !managed(policy) {
            return (self.speedup((policy, None), procs), None);
        }
        let mut best: Option<(f64, u32)> = None;
        for depth in SUBTASK_DEPTHS {
            let s = self.speedup((policy, Some(Generators { depth, takeback })), procs);
            if best.is_none_or(|(b, _)| s > b) {
                best = Some((s, depth));
            }
        }
        let (s, d) = best.expect("SUBTASK_DEPTHS is not empty");
        (s, Some(d))
    }
}

/// A policy as `Runs` runs it, with how its managers generate subtasks if it has any.
type Scheme<'a> = (&'a str, Option<Generators>);

/// How a manager scheme's managers generate subtasks ([`SearchRules::subtasks`] and
/// [`SearchRules::takeback`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Generators {
    /// The depth a leaf's subtask is cut at.
    depth: u32,
    /// Whether a spent manager asks the workers it manages for work to hand out again.
    takeback: bool,
}

/// Whether `policy` is a manager scheme, run at every depth of [`SUBTASK_DEPTHS`].
fn managed(policy: &str) -> bool {
    policy
        .parse::<hypersteal::Policy>()
        .is_ok_and(|p| p.has_managers())
}

/// `policy` as `Runs` runs it: once, or a manager scheme at every depth of [`SUBTASK_DEPTHS`],
/// with managers that take nothing back (seed 002's) and with managers that do (the runtime's).
fn schemes(policy: &str) -> Vec<Scheme<'_>> {
    if managed(policy) {
        [false, true]
            .into_iter()
            .flat_map(|takeback| {
                SUBTASK_DEPTHS
                    .iter()
                    .map(move |&depth| (policy, Some(Generators { depth, takeback })))
            })
            .collect()
    } else {
        vec![(policy, None)]
    }
}

/// The subtask depths SL's and ML's managers are run with; Table 5 reports the best at each P.
const SUBTASK_DEPTHS: [u32; 5] = [6, 8, 10, 12, 14];

/// A speedup table of seed 002 (Table 3 or 5) as markdown rows; manager schemes with managers
/// that take work back or not as `takeback` says.
fn speedup_table(
    out: &mut String,
    cfg: &PapersConfig,
    runs: &Runs,
    rows: &[(&str, &str, [f64; 8])],
    tol: f64,
    takeback: bool,
) -> Result<(), SimError> {
    let head: Vec<String> = cfg.procs_002.iter().map(|p| p.to_string()).collect();
    writeln!(out, "| scheme | {} | verdict | why |", head.join(" | ")).unwrap();
    writeln!(out, "|---|{}---|---|", "---|".repeat(head.len())).unwrap();
    for (label, policy, paper) in rows {
        let mut pairs = Vec::new();
        let mut sims = Vec::new();
        for &p in &cfg.procs_002 {
            let speedup = runs.best(policy, p, takeback).0;
            pairs.push((paper_at(paper, p), speedup));
            sims.push((p, speedup));
        }
        let papers: Vec<(usize, f64)> = cfg
            .procs_002
            .iter()
            .filter_map(|&p| paper_at(paper, p).map(|v| (p, v)))
            .collect();
        // The claim of the row: where the paper's speedup peaks inside the measured range, the
        // simulation peaks there too; where it keeps growing, the simulation's grows too.
        let paper_peak = peak(&papers);
        let paper_last = papers.last().map_or(0, |l| l.0);
        let grows = paper_last == paper_peak;
        let shape = if grows {
            let within: Vec<(usize, f64)> = sims
                .iter()
                .copied()
                .filter(|&(p, _)| p <= paper_last)
                .collect();
            let ok = within.windows(2).all(|w| w[1].1 > w[0].1);
            match sims.last() {
                // The paper's column stops early (SL): its text says the speedup then falls.
                Some(&(p, s)) if p > paper_last => {
                    let at_last = within.last().map_or(0.0, |w| w.1);
                    (
                        ok && s < at_last,
                        format!(
                            "speedup grows to P = {paper_last} and falls after, as the paper says"
                        ),
                    )
                }
                _ => (ok, "speedup grows with P, as in the paper".to_string()),
            }
        } else {
            let in_range: Vec<(usize, f64)> = sims
                .iter()
                .copied()
                .filter(|&(p, _)| p <= papers.last().map_or(0, |l| l.0))
                .collect();
            let sim_peak = peak(&in_range);
            (
                sim_peak == paper_peak,
                format!("peak at P = {paper_peak} (simulated peak at {sim_peak})"),
            )
        };
        let (v, why) = judge(&pairs, tol, Some((shape.0, &shape.1)));
        let cells: Vec<String> = pairs.iter().map(|&(p, s)| cell(p, s)).collect();
        writeln!(
            out,
            "| {label} | {} | **{}** | {why} |",
            cells.join(" | "),
            v.word()
        )
        .unwrap();
    }
    Ok(())
}

/// The subtask depth each P of SL's and ML's rows was best at, one line per scheme.
fn best_depths(out: &mut String, cfg: &PapersConfig, runs: &Runs, takeback: bool) {
    for (label, policy, _) in TABLE5.iter().filter(|r| managed(r.1)) {
        let chosen: Vec<String> = cfg
            .procs_002
            .iter()
            .map(|&p| {
                let (_, depth) = runs.best(policy, p, takeback);
                format!("{} at {p}", depth.expect("a manager scheme has a depth"))
            })
            .collect();
        writeln!(out, "{label}'s best subtask depth: {}.", chosen.join(", ")).unwrap();
    }
}

/// The searches' spellings, in backticks, comma separated.
fn spellings(instances: &[&dyn Searched]) -> String {
    let names: Vec<String> = instances
        .iter()
        .map(|i| format!("`{}`", i.name()))
        .collect();
    names.join(", ")
}

pub(super) fn seed_002(
    out: &mut String,
    cfg: &PapersConfig,
    instances: &[&dyn Searched],
    cross_check: &[&dyn Searched],
) -> Result<(), SimError> {
    if instances.is_empty() {
        return Err(SimError(
            "seed 002's tables need at least one search".into(),
        ));
    }
    let policies = TABLE3.iter().chain(&TABLE5).flat_map(|r| schemes(r.1));
    let runs = Runs::new(cfg, instances, policies)?;
    writeln!(out, "## Seed 002 (Kumar, Grama, Rao)\n").unwrap();
    writeln!(
        out,
        "Stack-splitting search of {}, hypercube, the Ncube/2's costs (seed 002 section 5.3.6: a request 1, a work message 3.5, a hop 0.02, in node expansions; `--cost ncube2`), idle processors poll, seed {}. Tables 3 and 5: the speedup over all of them (their work over their summed simulated times, as the paper averages its five problems); Table 4: the first (the paper's counts are of \"a specific problem\"). Cells: paper / simulated (deviation).\n",
        spellings(instances),
        cfg.seed
    )
    .unwrap();
    writeln!(
        out,
        "### Table 3: speedups of the receiver-initiated schemes (tolerance 15 %)\n"
    )
    .unwrap();
    speedup_table(out, cfg, &runs, &TABLE3, 0.15, false)?;
    writeln!(
        out,
        "\n### Table 4: requests of GRR-M and RP (tolerance 25 % on the growth and the ratio)\n"
    )
    .unwrap();
    let mut counts = Vec::new();
    writeln!(out, "| P | GRR-M paper | GRR-M sim | RP paper | RP sim |").unwrap();
    writeln!(out, "|---|---|---|---|---|").unwrap();
    for &p in &cfg.procs_002 {
        // The first instance's runs.
        let g = runs.get(("grr-m", None), p)[0].requests as f64;
        let r = runs.get(("rp", None), p)[0].requests as f64;
        let paper = TABLE4.iter().find(|t| t.0 == p);
        let show = |x: Option<f64>| x.map_or("—".to_string(), |x| format!("{x:.0}"));
        writeln!(
            out,
            "| {p} | {} | {g:.0} | {} | {r:.0} |",
            show(paper.map(|t| t.1)),
            show(paper.map(|t| t.2))
        )
        .unwrap();
        counts.push((p, g, r, paper.copied()));
    }
    writeln!(out).unwrap();
    writeln!(out, "| quantity | paper | simulated | verdict | why |").unwrap();
    writeln!(out, "|---|---|---|---|---|").unwrap();
    // The growth from 64 processors (the paper's discussion and `docs/simulator.md`), or from
    // the smallest count simulated when 64 is not.
    let from = counts
        .iter()
        .find(|c| c.0 == 64 && counts.last().is_some_and(|l| l.0 > 64))
        .or(counts.first());
    if let (Some(a), Some(b)) = (from, counts.last()) {
        if let (Some(pa), Some(pb)) = (a.3, b.3) {
            let span = format!("{} → {}", a.0, b.0);
            let rows = [
                (
                    format!("GRR-M requests grow, {span}"),
                    pb.1 / pa.1,
                    b.1 / a.1,
                ),
                (format!("RP requests grow, {span}"), pb.2 / pa.2, b.2 / a.2),
                (format!("RP / GRR-M at {}", b.0), pb.2 / pb.1, b.2 / b.1),
            ];
            let rp_faster = b.2 / a.2 > b.1 / a.1;
            for (i, (what, paper, sim)) in rows.iter().enumerate() {
                let claim = match i {
                    0 | 1 => (rp_faster, "RP's requests grow faster than GRR-M's"),
                    _ => (*sim > 1.0, "RP asks more often than GRR-M"),
                };
                let (v, why) = judge(&[(Some(*paper), *sim)], 0.25, Some(claim));
                writeln!(
                    out,
                    "| {what} | {paper:.1} | {sim:.1} | **{}** | {why} |",
                    v.word()
                )
                .unwrap();
            }
        }
    }
    writeln!(
        out,
        "\n### Table 5: speedups of the manager schemes SL and ML against RP (tolerance 20 %)\n"
    )
    .unwrap();
    let depths: Vec<String> = SUBTASK_DEPTHS.iter().map(u32::to_string).collect();
    writeln!(out, "`sl`: worker 0 manages all; `ml`: two levels (the paper's l = 2), fan-out √P rounded up. The managers are subtask generators, as section 6 describes them: they hand out one subtask per request, cut from their pool at a depth `D` (a leaf's; half of it for a manager under `ml`'s top one), and search nothing themselves; a manager whose pool is spent asks its own manager for more and nobody else (the top one is then done). Each P is run with `D` = {} and the best is shown, as the paper fine-tuned its cut-off depths for optimum performance (section 8). The paper's SL column stops at 128.\n", depths.join(", ")).unwrap();
    speedup_table(out, cfg, &runs, &TABLE5, 0.20, false)?;
    writeln!(out).unwrap();
    best_depths(out, cfg, &runs, false);
    writeln!(
        out,
        "\n**Table 5 with managers that take work back** (a variant, not the paper's managers): as above, but a spent manager also asks the workers it manages, who split their stacks for it, as the runtime's `sl` and `ml` have it do (`takeback=yes`).\n"
    )
    .unwrap();
    speedup_table(out, cfg, &runs, &TABLE5[1..], 0.20, true)?;
    writeln!(out).unwrap();
    best_depths(out, cfg, &runs, true);
    if !cross_check.is_empty() {
        let runs = Runs::new(cfg, cross_check, TABLE3.iter().flat_map(|r| schemes(r.1)))?;
        writeln!(
            out,
            "\n### Table 3 on other trees (a cross-check; the paper's numbers are of satisfiability)\n"
        )
        .unwrap();
        writeln!(
            out,
            "The same schemes, machine and settings on {}, averaged as above. The paper's Table 3 is of its formulas, not of these trees; this table shows how much of each verdict above depends on the tree searched.\n",
            spellings(cross_check)
        )
        .unwrap();
        speedup_table(out, cfg, &runs, &TABLE3, 0.15, false)?;
    }
    writeln!(out).unwrap();
    super::table1::table1(out, cfg)?;
    Ok(())
}
