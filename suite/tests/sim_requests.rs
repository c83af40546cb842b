//! Seed 002 Table 4 / Figure 4 in the simulator: on the hypercube, from P = 64 to 1024, random
//! polling's requests grow like P log P and GRR-M's like P (the paper: 59-fold and 21-fold;
//! P log P is 26.7-fold, P 16-fold).
//!
//! The paper's setting: a tree search (UTS T5, a 4.1-million-node geometric tree whose
//! branching thins out with depth, stands in for the Davis-Putnam trees), stacks split only
//! above a cut-off depth, so most requests fail, and idle processors that keep asking until the
//! search ends. `docs/simulator.md` explains what makes the difference in the model.

use hypersteal::{Policy, Topology};
use hypersteal_sim::{simulate_tree, CostModel, Idle, SimConfig, Workload};
use hypersteal_suite::sim_cmd::UtsTaskTree;
use hypersteal_suite::workloads::uts;

fn requests(policy: Policy, procs: usize, seed: u64) -> u64 {
    let tree = UtsTaskTree(uts::tree("T5").expect("T5 exists"));
    let config = SimConfig {
        policy,
        topology: Topology::Hypercube,
        procs,
        workload: Workload::SHU_FIB32, // ignored by simulate_tree
        cost: CostModel::default(),
        seed,
        idle: Idle::Poll,
        cutoff_depth: Some(9),
        heartbeat: 0.0,
    };
    let r = simulate_tree(&config, "uts:T5", &tree).expect("valid config");
    eprintln!(
        "{policy} P={procs} seed {seed}: {} requests ({} granted), efficiency {:.3}",
        r.requests, r.requests_ok, r.efficiency
    );
    r.requests
}

#[test]
fn rp_requests_grow_like_p_log_p_and_grr_m_like_p() {
    // RP's victims are random: sum three seeds. GRR-M draws nothing at random. The eight
    // simulations are independent: each runs on a thread of its own.
    let grr_m: Policy = "grr-m".parse().unwrap();
    let runs = |policy: Policy, p: usize, seeds: &[u64]| -> u64 {
        std::thread::scope(|s| {
            let runs: Vec<_> = seeds
                .iter()
                .map(|&seed| s.spawn(move || requests(policy, p, seed)))
                .collect();
            runs.into_iter().map(|r| r.join().unwrap()).sum()
        })
    };
    let ((rp_64, rp_1024), (m_64, m_1024)) = std::thread::scope(|s| {
        let rp_64 = s.spawn(|| runs(Policy::RandomPolling, 64, &[1, 2, 3]));
        let rp_1024 = s.spawn(|| runs(Policy::RandomPolling, 1024, &[1, 2, 3]));
        let m_64 = s.spawn(|| runs(grr_m, 64, &[1]));
        let m_1024 = runs(grr_m, 1024, &[1]);
        (
            (rp_64.join().unwrap(), rp_1024.join().unwrap()),
            (m_64.join().unwrap(), m_1024),
        )
    });
    let rp_growth = rp_1024 as f64 / rp_64 as f64;
    let m_growth = m_1024 as f64 / m_64 as f64;
    eprintln!("64 -> 1024: rp {rp_growth:.1}x, grr-m {m_growth:.1}x");
    // GRR-M: about linear in P (16x; the paper 21x).
    assert!(
        (12.0..=24.0).contains(&m_growth),
        "grr-m grew {m_growth:.1}x"
    );
    // RP: about P log P (26.7x), clearly more than GRR-M.
    assert!(
        (20.0..=60.0).contains(&rp_growth),
        "rp grew {rp_growth:.1}x"
    );
    assert!(
        rp_growth > 1.3 * m_growth,
        "rp grew {rp_growth:.1}x, grr-m {m_growth:.1}x"
    );
    // And RP asks several times more than GRR-M at both sizes, the more so at 1024.
    let (ratio_64, ratio_1024) = (
        rp_64 as f64 / 3.0 / m_64 as f64,
        rp_1024 as f64 / 3.0 / m_1024 as f64,
    );
    assert!(ratio_64 > 2.0 && ratio_1024 > 1.3 * ratio_64);
}
