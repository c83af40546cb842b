//! Isoefficiency: the problem size `W` needed to hold an efficiency `E` as `P` grows, found by
//! bisection on `W` per `P` with Kumar's divisible work, its growth fitted on a log-log scale and
//! compared with the paper's isoefficiency functions (seed 002 Table 1).

use crate::{simulate_split_capped, CostModel, Idle, SimConfig, SplitWork, Workload};
use hypersteal::{Policy, Topology};
use std::fmt;

/// The architectures (columns) of seed 002 Table 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Architecture {
    /// `SM`: shared memory, constant distance (simulated on the complete graph).
    SharedMemory,
    /// `Cube`: the hypercube.
    Hypercube,
    /// `Ring`.
    Ring,
    /// `Mesh`: the 2-D mesh.
    Mesh,
    /// `WS`: a network of workstations on one shared bus (complete graph, every message
    /// serialised on the bus, [`CostModel::t_bus`]).
    Workstations,
}

impl Architecture {
    /// Every column of Table 1.
    pub const ALL: [Architecture; 5] = [
        Architecture::SharedMemory,
        Architecture::Hypercube,
        Architecture::Ring,
        Architecture::Mesh,
        Architecture::Workstations,
    ];

    /// The column's name in Table 1.
    pub fn name(self) -> &'static str {
        match self {
            Architecture::SharedMemory => "SM",
            Architecture::Hypercube => "cube",
            Architecture::Ring => "ring",
            Architecture::Mesh => "mesh",
            Architecture::Workstations => "WS",
        }
    }

    /// The architecture a topology stands for (the complete graph is shared memory).
    pub fn of(topology: Topology) -> Architecture {
        match topology {
            Topology::Hypercube => Architecture::Hypercube,
            Topology::Mesh | Topology::Torus => Architecture::Mesh,
            Topology::Ring => Architecture::Ring,
            Topology::Complete => Architecture::SharedMemory,
        }
    }

    /// The topology simulated for this column.
    pub fn topology(self) -> Topology {
        match self {
            Architecture::SharedMemory | Architecture::Workstations => Topology::Complete,
            Architecture::Hypercube => Topology::Hypercube,
            Architecture::Ring => Topology::Ring,
            Architecture::Mesh => Topology::Mesh,
        }
    }
}

impl fmt::Display for Architecture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One entry of seed 002 Table 1: `W = O(P^p_exp · (log P)^log_exp)`, or a growth no power law
/// describes (`NN` on the ring and mesh: exponential).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PaperIso {
    /// The expression as the paper prints it.
    pub expr: &'static str,
    /// Exponent of `P`, when the expression is `P^a (log P)^b`.
    pub p_exp: Option<f64>,
    /// Exponent of `log P`.
    pub log_exp: f64,
}

impl PaperIso {
    /// The slope of `ln W` against `ln P` that this expression has over the given processor
    /// counts (a least-squares fit, as for the simulated points), if it is a power law.
    pub fn fitted_exponent(&self, procs: &[usize]) -> Option<f64> {
        let a = self.p_exp?;
        let pts: Vec<(f64, f64)> = procs
            .iter()
            .filter(|&&p| p >= 2)
            .map(|&p| {
                let p = p as f64;
                (p.ln(), a * p.ln() + self.log_exp * p.log2().ln())
            })
            .collect();
        fit_slope(&pts)
    }
}

const fn iso(expr: &'static str, a: f64, b: f64) -> Option<PaperIso> {
    Some(PaperIso {
        expr,
        p_exp: Some(a),
        log_exp: b,
    })
}

/// The isoefficiency function of seed 002 Table 1 (SB: section 5.3.5, "identical to GRR") for a
/// receiver-initiated policy on an architecture; `None` where the paper gives none.
pub fn paper_isoefficiency(policy: &Policy, arch: Architecture) -> Option<PaperIso> {
    use Architecture::*;
    let exp = |expr| {
        Some(PaperIso {
            expr,
            p_exp: None,
            log_exp: 0.0,
        })
    };
    match (policy.name(), arch) {
        ("arr", SharedMemory) => iso("P^2 log P", 2.0, 1.0),
        ("arr", Hypercube) => iso("P^2 log^2 P", 2.0, 2.0),
        ("arr", Ring) => iso("P^3 log P", 3.0, 1.0),
        ("arr", Mesh) => iso("P^2.5 log P", 2.5, 1.0),
        ("arr", Workstations) => iso("P^3 log P", 3.0, 1.0),
        ("nn", SharedMemory) => iso("P^2 log P", 2.0, 1.0),
        ("nn", Hypercube) => exp("P^(log2(1+1/a)) log P (a: splitting quality)"),
        ("nn", Ring) => exp("K^P"),
        ("nn", Mesh) => exp("K^sqrt(P)"),
        ("grr" | "sb", _) => iso("P^2 log P", 2.0, 1.0),
        ("grr-m", SharedMemory) => iso("P log P", 1.0, 1.0),
        ("grr-m", Hypercube) => iso("P log^2 P", 1.0, 2.0),
        ("grr-m", Mesh) => iso("P^1.5 log P", 1.5, 1.0),
        ("rp", SharedMemory) => iso("P log^2 P", 1.0, 2.0),
        ("rp", Hypercube) => iso("P log^3 P", 1.0, 3.0),
        ("rp", Ring) => iso("P^2 log^2 P", 2.0, 2.0),
        ("rp", Mesh) => iso("P^1.5 log^2 P", 1.5, 2.0),
        ("rp", Workstations) => iso("P^2 log^2 P", 2.0, 2.0),
        _ => None,
    }
}

/// The lower bound on any scheme's isoefficiency (last row of Table 1).
pub fn paper_lower_bound(arch: Architecture) -> PaperIso {
    match arch {
        Architecture::SharedMemory => iso("P", 1.0, 0.0),
        Architecture::Hypercube => iso("P log P", 1.0, 1.0),
        Architecture::Ring | Architecture::Workstations => iso("P^2", 2.0, 0.0),
        Architecture::Mesh => iso("P^1.5", 1.5, 0.0),
    }
    .expect("every lower bound is a power law")
}

/// Least-squares slope of `y` on `x`.
pub(crate) fn fit_slope(pts: &[(f64, f64)]) -> Option<f64> {
    if pts.len() < 2 {
        return None;
    }
    let n = pts.len() as f64;
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}

/// What to search: one policy on one architecture over a range of processor counts.
#[derive(Clone, Debug, PartialEq)]
pub struct IsoConfig {
    /// The policy (receiver-initiated).
    pub policy: Policy,
    /// The Table 1 column to simulate.
    pub arch: Architecture,
    /// Processor counts (each at least 2).
    pub procs: Vec<usize>,
    /// The efficiency to hold (seed 002 uses 0.64 to 0.9; default 0.7).
    pub efficiency: f64,
    /// The machine (for [`Architecture::Workstations`] a zero `t_bus` becomes `msg_base / 4`).
    pub cost: CostModel,
    /// The shape of the divisible work (`work` is what the search varies).
    pub split: SplitWork,
    /// Seed of every simulation.
    pub seed: u64,
    /// What idle processors do ([`Idle::Park`] by default).
    pub idle: Idle,
    /// Bisection steps on `log W` after bracketing (each halves the bracket).
    pub steps: u32,
    /// Request budget of one simulation: a problem size whose run needs more counts as not
    /// reaching the target (NN's exponential isoefficiency on the mesh and ring would otherwise
    /// run for hours).
    pub max_requests: u64,
}

impl IsoConfig {
    /// Defaults: `E = 0.7`, the default cost model, perfect halving with grain 1, 10 steps.
    pub fn new(policy: Policy, arch: Architecture, procs: Vec<usize>) -> Self {
        IsoConfig {
            policy,
            arch,
            procs,
            efficiency: 0.7,
            cost: CostModel::default(),
            split: SplitWork::halving(1.0),
            seed: 1,
            idle: Idle::Park,
            steps: 10,
            max_requests: 3_000_000,
        }
    }
}

/// The problem size found for one processor count.
#[derive(Clone, Debug, PartialEq)]
pub struct IsoPoint {
    /// Processors.
    pub procs: usize,
    /// The smallest `W` found whose efficiency reached the target (`None`: not reached below
    /// `1e12`, or within the request budget).
    pub work: Option<f64>,
    /// The efficiency measured at that `W`.
    pub efficiency: f64,
    /// Simulations run for this point.
    pub runs: u32,
}

/// The isoefficiency of one policy on one architecture.
#[derive(Clone, Debug, PartialEq)]
pub struct IsoResult {
    /// The policy, as it displays.
    pub policy: String,
    /// The architecture.
    pub arch: Architecture,
    /// The target efficiency.
    pub efficiency: f64,
    /// One point per processor count.
    pub points: Vec<IsoPoint>,
    /// Slope of `ln W` against `ln P` over the points found.
    pub exponent: Option<f64>,
    /// The paper's expression (seed 002 Table 1), if it gives one.
    pub paper: Option<PaperIso>,
    /// The slope the paper's expression has over the same processor counts.
    pub paper_exponent: Option<f64>,
}

const MAX_WORK: f64 = 1e12;

/// Finds, per processor count, the problem size that holds the target efficiency.
pub fn isoefficiency(cfg: &IsoConfig) -> Result<IsoResult, crate::SimError> {
    let mut cost = cfg.cost;
    if cfg.arch == Architecture::Workstations && cost.t_bus == 0.0 {
        cost.t_bus = cost.msg_base / 4.0;
    }
    let mut points = Vec::new();
    for &p in &cfg.procs {
        let mut runs = 0;
        let mut eff = |w: f64| -> Result<f64, crate::SimError> {
            runs += 1;
            let config = SimConfig {
                policy: cfg.policy,
                topology: cfg.arch.topology(),
                procs: p,
                workload: Workload::Split(SplitWork {
                    work: w,
                    ..cfg.split
                }),
                cost,
                seed: cfg.seed,
                idle: cfg.idle,
                cutoff_depth: None,
                // Divisible work runs receiver-initiated policies only: no heartbeat to set.
                heartbeat: 0.0,
            };
            let split = SplitWork {
                work: w,
                ..cfg.split
            };
            Ok(simulate_split_capped(&config, split, cfg.max_requests)?
                .map_or(-1.0, |r| r.efficiency))
        };
        // Bracket: lo misses the target, hi reaches it.
        let mut hi = (p as f64) * 64.0 * cfg.split.grain;
        let mut e_hi = eff(hi)?;
        let mut lo = hi;
        if e_hi >= cfg.efficiency {
            loop {
                lo = hi / 4.0;
                if lo < 2.0 * cfg.split.grain {
                    break;
                }
                let e = eff(lo)?;
                if e < cfg.efficiency {
                    break;
                }
                hi = lo;
                e_hi = e;
            }
        } else {
            while e_hi < cfg.efficiency && e_hi >= 0.0 && hi < MAX_WORK {
                lo = hi;
                hi *= 4.0;
                e_hi = eff(hi)?;
            }
        }
        if e_hi < cfg.efficiency {
            points.push(IsoPoint {
                procs: p,
                work: None,
                efficiency: e_hi.max(0.0),
                runs,
            });
            continue;
        }
        for _ in 0..cfg.steps {
            let mid = (lo * hi).sqrt();
            let e = eff(mid)?;
            if e >= cfg.efficiency {
                hi = mid;
                e_hi = e;
            } else {
                lo = mid;
            }
        }
        points.push(IsoPoint {
            procs: p,
            work: Some(hi),
            efficiency: e_hi,
            runs,
        });
    }
    let pts: Vec<(f64, f64)> = points
        .iter()
        .filter_map(|pt| Some(((pt.procs as f64).ln(), pt.work?.ln())))
        .collect();
    let paper = paper_isoefficiency(&cfg.policy, cfg.arch);
    Ok(IsoResult {
        policy: cfg.policy.to_string(),
        arch: cfg.arch,
        efficiency: cfg.efficiency,
        exponent: fit_slope(&pts),
        paper_exponent: paper.and_then(|p| p.fitted_exponent(&cfg.procs)),
        paper,
        points,
    })
}
