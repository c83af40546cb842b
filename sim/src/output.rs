//! Plain-text output (the suite adds JSON and SVG).

use crate::{IsoResult, SimResult};
use std::fmt::Write;

/// A fixed-width table of simulation results, one row per result.
pub fn table(results: &[SimResult]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<14} {:<9} {:>5} {:>12} {:>9} {:>6} {:>10} {:>10} {:>11}",
        "policy", "topology", "P", "time", "speedup", "eff", "requests", "transfers", "shared_wait"
    );
    for r in results {
        let _ = writeln!(
            s,
            "{:<14} {:<9} {:>5} {:>12.1} {:>9.2} {:>6.3} {:>10} {:>10} {:>11.1}",
            r.policy,
            r.topology,
            r.procs,
            r.time,
            r.speedup,
            r.efficiency,
            r.requests,
            r.transfers,
            r.shared_wait
        );
    }
    s
}

/// A table of isoefficiency results: `W` per processor count, the fitted exponent and the
/// paper's.
pub fn iso_table(results: &[IsoResult]) -> String {
    let mut s = String::new();
    for r in results {
        let _ = writeln!(
            s,
            "{} on {} at E = {}: fitted exponent {}, paper {} (exponent over these P: {})",
            r.policy,
            r.arch,
            r.efficiency,
            r.exponent.map_or("-".into(), |e| format!("{e:.2}")),
            r.paper.map_or("-", |p| p.expr),
            r.paper_exponent.map_or("-".into(), |e| format!("{e:.2}")),
        );
        for pt in &r.points {
            let _ = writeln!(
                s,
                "  P = {:>5}  W = {:>14}  E = {:.3}",
                pt.procs,
                pt.work.map_or("> 1e12".into(), |w| format!("{w:.0}")),
                pt.efficiency
            );
        }
    }
    s
}
