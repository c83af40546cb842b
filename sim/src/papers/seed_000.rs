//! Seed 000's tables: random allocation, the gradient model and ACWN on Shu's workloads.

use super::*;
use std::fmt::Write as _;

/// Seed 000 Table 3 (seconds) per workload: random, gradient, ACWN at 1, 2, 4, 8, 16, 32 PEs.
const SHU_TABLE3: [(&str, [[f64; 6]; 3]); 4] = [
    (
        "shu-queen10",
        [
            [29.9, 15.5, 8.41, 4.72, 2.56, 1.69],
            [29.9, 15.4, 7.98, 4.74, 3.53, 3.54],
            [29.9, 15.2, 7.74, 4.07, 2.24, 1.24],
        ],
    ),
    (
        "shu-fib32",
        [
            [36.2, 21.2, 11.4, 5.99, 3.21, 1.73],
            [36.4, 18.6, 9.68, 5.65, 3.51, 1.99],
            [36.4, 18.4, 9.51, 4.89, 2.52, 1.36],
        ],
    ),
    (
        "shu-puzzle15",
        [
            [50.9, 29.3, 16.2, 10.8, 8.17, 5.17],
            [51.0, 26.6, 15.0, 9.94, 8.50, 8.48],
            [50.9, 27.2, 14.9, 8.55, 5.52, 4.11],
        ],
    ),
    (
        "shu-romberg14",
        [
            [26.1, 15.2, 8.50, 4.77, 2.99, 1.97],
            [26.1, 14.5, 8.46, 5.76, 4.55, 4.51],
            [26.1, 14.0, 7.30, 4.02, 2.41, 1.64],
        ],
    ),
];
const P_000: [usize; 6] = [1, 2, 4, 8, 16, 32];
/// Seed 000's schemes. Under the iPSC/2 preset the standing phase runs once per load exchange
/// (100 ms, `CostModel::load_period`), so a policy's `interval` counts exchanges: both the
/// gradient model and ACWN act at every exchange, as Shu's do.
const SHU_SCHEMES: [(&str, &str); 3] = [
    ("Random", "random-alloc"),
    ("Gradient", "gradient:interval=1"),
    ("ACWN", "acwn:interval=1"),
];
/// Seed 000 Table 4: chares and milliseconds per chare.
const SHU_TABLE4: [(&str, f64, f64); 4] = [
    ("shu-queen10", 593.0, 49.7),
    ("shu-fib32", 8361.0, 3.59),
    ("shu-puzzle15", 1172.0, 42.8),
    ("shu-romberg14", 2026.0, 12.2),
];

fn order(times: &[f64; 3]) -> [usize; 3] {
    let mut i = [0, 1, 2];
    i.sort_by(|&a, &b| times[a].total_cmp(&times[b]));
    i
}

pub(super) fn seed_000(out: &mut String, cfg: &PapersConfig) -> Result<(), SimError> {
    writeln!(out, "## Seed 000 (Shu, ACWN)\n").unwrap();
    writeln!(
        out,
        "iPSC/2 preset (`--cost ipsc2`), hypercube, seed {}; a load exchange every 100 ms drives the standing phase, and the gradient model (low 1, high 2) and ACWN (low 2, high 8) act at every exchange (`interval=1`). Cells: paper / simulated seconds (deviation).\n",
        cfg.seed
    )
    .unwrap();
    writeln!(out, "### Table 3: execution time (tolerance 20 %, and the same ordering of the three schemes at every PE count)\n").unwrap();
    let head: Vec<String> = cfg.procs_000.iter().map(|p| p.to_string()).collect();
    for (name, paper) in SHU_TABLE3 {
        let workload: Workload = name.parse().map_err(SimError)?;
        let cost = CostModel::ipsc2(&workload);
        writeln!(out, "**{name}**\n").unwrap();
        writeln!(out, "| scheme | {} | verdict | why |", head.join(" | ")).unwrap();
        writeln!(out, "|---|{}---|---|", "---|".repeat(head.len())).unwrap();
        let mut sims = vec![[0.0; 3]; cfg.procs_000.len()];
        let mut rows = Vec::new();
        for (k, (label, policy)) in SHU_SCHEMES.iter().enumerate() {
            let mut pairs = Vec::new();
            for (j, &p) in cfg.procs_000.iter().enumerate() {
                let r = simulate(&config(policy, p, workload, cost, Idle::Park, cfg.seed)?)?;
                let secs = r.time / 1000.0;
                sims[j][k] = secs;
                let pv = P_000.iter().position(|&q| q == p).map(|i| paper[k][i]);
                pairs.push((pv, secs));
            }
            rows.push((label, pairs));
        }
        for (label, pairs) in rows {
            let (v, why) = judge(&pairs, 0.20, None);
            let cells: Vec<String> = pairs.iter().map(|&(p, s)| cell(p, s)).collect();
            writeln!(
                out,
                "| {label} | {} | **{}** | {why} |",
                cells.join(" | "),
                v.word()
            )
            .unwrap();
        }
        // The ordering row: at each PE count above 1, the schemes from fastest to slowest.
        let mut same = 0;
        let mut total = 0;
        let mut fastest_last = false;
        let mut cells = Vec::new();
        for (j, &p) in cfg.procs_000.iter().enumerate() {
            let Some(i) = P_000.iter().position(|&q| q == p) else {
                continue;
            };
            if p == 1 {
                cells.push("—".to_string());
                continue;
            }
            let pt = [paper[0][i], paper[1][i], paper[2][i]];
            let (po, so) = (order(&pt), order(&sims[j]));
            total += 1;
            if po == so {
                same += 1;
            }
            fastest_last = po[0] == so[0];
            let names = |o: [usize; 3]| {
                o.iter()
                    .map(|&k| &SHU_SCHEMES[k].0[..1])
                    .collect::<Vec<_>>()
                    .join("<")
            };
            cells.push(format!("{} / {}", names(po), names(so)));
        }
        let v = ordering_verdict(same == total, fastest_last);
        writeln!(
            out,
            "| ordering (fastest first: R random, G gradient, A ACWN) | {} | **{}** | same ordering at {same} of {total} PE counts; the fastest at the largest count {} |\n",
            cells.join(" | "),
            v.word(),
            if fastest_last { "agrees" } else { "differs" }
        )
        .unwrap();
    }
    writeln!(out, "### Table 4: chares and grain (tolerance 20 %)\n").unwrap();
    writeln!(
        out,
        "| workload | chares, paper / sim | ms per chare, paper / sim | verdict | why |"
    )
    .unwrap();
    writeln!(out, "|---|---|---|---|---|").unwrap();
    for (name, chares, ms) in SHU_TABLE4 {
        let workload: Workload = name.parse().map_err(SimError)?;
        let (n, work) = match workload {
            Workload::Fib(t) => tree_size(&t),
            Workload::Queens(t) => tree_size(&t),
            Workload::Phased(p) => p.size(),
            _ => unreachable!("Shu's workloads are trees"),
        };
        let sim_ms = CostModel::ipsc2(&workload).t_work * work / n as f64;
        let (v, why) = judge(&[(Some(chares), n as f64), (Some(ms), sim_ms)], 0.20, None);
        writeln!(
            out,
            "| {name} | {} | {} | **{}** | {why} |",
            cell(Some(chares), n as f64),
            cell(Some(ms), sim_ms),
            v.word()
        )
        .unwrap();
    }
    writeln!(
        out,
        "\nThe 15-puzzle and Romberg trees are synthetic (`sim/src/phased.rs`): Shu gives only their chare counts and grains, so their Table 4 rows match by construction.\n"
    )
    .unwrap();
    Ok(())
}
