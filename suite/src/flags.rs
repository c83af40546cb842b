//! The marks a row carries when its figure should not be quoted as it
//! stands: a median that did not settle, a baseline that a 1-worker run
//! beats, an efficiency above 1, other processes on the cores, a baseline
//! that moved while the workload was measured.
//!
//! Each flag is decided from the row's own figures (and, for the baseline
//! flags, the workload's sequential time), so the same rows always carry the
//! same flags; [`mark`] sets them on a workload's rows once speedups are
//! known.

use std::fmt;

use crate::bench::{Row, SEQUENTIAL};
use crate::load::CONTENDED_SHARE;
use crate::stopping::Stop;

/// A 1-worker run faster than the sequential code by more than this fraction
/// is flagged [`Flag::BeatsSequential`].
pub const BEATS_SEQUENTIAL_MARGIN: f64 = 0.05;

/// A sequential baseline whose median moved by more than this fraction
/// between its measurements before and after the workload's other points is
/// flagged [`Flag::Drift`].
pub const DRIFT_LIMIT: f64 = 0.05;

/// An efficiency on more than one worker at or above this is flagged
/// [`Flag::SuperLinear`]: above 1.00 as the tables print it (two decimals).
pub const EFFICIENCY_LIMIT: f64 = 1.005;

/// Why a row's figure is not a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Flag {
    /// The median's 95% confidence interval did not come within the
    /// precision before the point's budget or run cap ran out.
    Noisy,
    /// A parallel run on 1 worker beat the plain sequential code by more than
    /// [`BEATS_SEQUENTIAL_MARGIN`]: the baseline, or the measurement, is
    /// suspect, not the runtime fast.
    BeatsSequential,
    /// Efficiency above 1.00 (at least [`EFFICIENCY_LIMIT`]) on more than
    /// one worker: more than linear speedup over the best sequential code is
    /// a measurement problem (a slow baseline, a noisy machine), not a
    /// result.
    SuperLinear,
    /// Other processes used more than [`CONTENDED_SHARE`] of the cores while
    /// the point was timed.
    Contended,
    /// The sequential baseline, timed before and after the workload's other
    /// points, moved by more than [`DRIFT_LIMIT`]: the machine's speed
    /// drifted (as a virtual machine's does when its host is busy), so the
    /// workload's speedups are uncertain by as much.
    Drift,
}

impl Flag {
    /// Every flag, in the order rows list them.
    pub const ALL: [Flag; 5] = [
        Flag::Noisy,
        Flag::BeatsSequential,
        Flag::SuperLinear,
        Flag::Contended,
        Flag::Drift,
    ];

    /// The spelling in `results.json` and the tables.
    pub fn name(self) -> &'static str {
        match self {
            Flag::Noisy => "noisy",
            Flag::BeatsSequential => "beats-seq",
            Flag::SuperLinear => "eff>1",
            Flag::Contended => "contended",
            Flag::Drift => "drift",
        }
    }

    /// One sentence for the report's legend.
    pub fn meaning(self) -> String {
        match self {
            Flag::Noisy => "the median's 95% confidence interval did not come within the \
                            precision before the point's time budget or run cap ran out"
                .to_string(),
            Flag::BeatsSequential => format!(
                "a parallel run on 1 worker beat the plain sequential code by more than {:.0}%: \
                 the baseline or the measurement is suspect",
                100.0 * BEATS_SEQUENTIAL_MARGIN
            ),
            Flag::SuperLinear => "efficiency above 1.00 on more than one worker: a measurement \
                                  problem (a slow baseline or a noisy machine), not a result"
                .to_string(),
            Flag::Contended => format!(
                "other processes used more than {:.0}% of the cores while the point was timed",
                100.0 * CONTENDED_SHARE
            ),
            Flag::Drift => format!(
                "the sequential baseline, timed before and after the workload's other points, \
                 moved by more than {:.0}%: the machine's speed drifted, and the workload's \
                 speedups are uncertain by as much",
                100.0 * DRIFT_LIMIT
            ),
        }
    }

    /// The flag spelled `name`, if any.
    pub fn parse(name: &str) -> Option<Flag> {
        Flag::ALL.into_iter().find(|f| f.name() == name)
    }
}

impl fmt::Display for Flag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The flags `row` earns from its own figures; speedup and efficiency must
/// be filled in.
pub fn flags_of(row: &Row) -> Vec<Flag> {
    let mut flags = Vec::new();
    if Stop::parse(&row.stop).is_some_and(Stop::is_noisy) {
        flags.push(Flag::Noisy);
    }
    let parallel = row.policy != SEQUENTIAL;
    if parallel && row.threads == 1 && row.speedup > 1.0 + BEATS_SEQUENTIAL_MARGIN {
        flags.push(Flag::BeatsSequential);
    }
    if row.threads > 1 && row.efficiency >= EFFICIENCY_LIMIT {
        flags.push(Flag::SuperLinear);
    }
    if row.others_cpu.is_some_and(|s| s > CONTENDED_SHARE) {
        flags.push(Flag::Contended);
    }
    if row.drift.is_some_and(|d| d.abs() > DRIFT_LIMIT) {
        flags.push(Flag::Drift);
    }
    flags
}

/// Sets every row's `flags` from [`flags_of`].
pub fn mark(rows: &mut [Row]) {
    for r in rows {
        r.flags = flags_of(r).iter().map(|f| f.name().to_string()).collect();
    }
}

/// Whether `row` carries `flag`.
pub fn has(row: &Row, flag: Flag) -> bool {
    row.flags.iter().any(|f| f == flag.name())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::{fill_speedups, synthetic_row};

    fn names(r: &Row) -> Vec<&str> {
        r.flags.iter().map(String::as_str).collect()
    }

    #[test]
    fn baselines_beaten_and_efficiency_above_one() {
        let mut rows = vec![
            synthetic_row(SEQUENTIAL, 1, 0.100, "stable"),
            synthetic_row("rp", 1, 0.104, "stable"), // slower: fine
            synthetic_row("nn", 1, 0.097, "stable"), // 3% faster: within the margin
            synthetic_row("arr", 1, 0.090, "stable"), // 11% faster: flagged
            synthetic_row("rp", 2, 0.052, "stable"), // efficiency 0.96
            synthetic_row("arr", 2, 0.048, "stable"), // efficiency 1.04: flagged
            synthetic_row("nn", 2, 0.04998, "stable"), // 1.0004, printed 1.00: not flagged
        ];
        fill_speedups(&mut rows);
        let got: Vec<Vec<&str>> = rows.iter().map(names).collect();
        assert_eq!(
            got,
            [
                vec![],
                vec![],
                vec![],
                vec!["beats-seq"],
                vec![],
                vec!["eff>1"],
                vec![]
            ]
        );
        // A 1-worker row a little faster than the baseline has an efficiency
        // above 1 too; that is the baseline flag's business, within its margin.
        assert!(rows[2].efficiency > 1.0 && rows[2].flags.is_empty());
    }

    #[test]
    fn noisy_and_contended_rows() {
        let mut rows = vec![
            synthetic_row(SEQUENTIAL, 1, 0.1, "budget"),
            synthetic_row("rp", 2, 0.06, "max-runs"),
            synthetic_row("nn", 2, 0.06, "stable"),
            synthetic_row("grr", 2, 0.06, "stable"),
        ];
        rows[2].others_cpu = Some(0.4);
        rows[3].others_cpu = Some(0.02);
        rows[0].drift = Some(-0.08);
        fill_speedups(&mut rows);
        assert_eq!(names(&rows[0]), ["noisy", "drift"]);
        assert_eq!(names(&rows[1]), ["noisy"]);
        assert_eq!(names(&rows[2]), ["contended"]);
        assert!(rows[3].flags.is_empty());
        assert!(has(&rows[0], Flag::Noisy) && !has(&rows[3], Flag::Noisy));
        // A drift within the limit is not flagged.
        let mut steady = vec![synthetic_row(SEQUENTIAL, 1, 0.1, "stable")];
        steady[0].drift = Some(0.04);
        fill_speedups(&mut steady);
        assert!(steady[0].flags.is_empty());
    }

    #[test]
    fn spellings_round_trip() {
        for f in Flag::ALL {
            assert_eq!(Flag::parse(f.name()), Some(f));
            assert!(!f.meaning().is_empty());
        }
        assert_eq!(Flag::parse("fast"), None);
    }
}
