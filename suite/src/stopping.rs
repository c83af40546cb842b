//! When to stop timing a point: the stopping rule and the confidence
//! interval of a median it rests on.
//!
//! A point (one configuration) is timed at least [`StoppingRule::min_runs`]
//! times, then again until the 95% confidence interval of its median lies
//! within [`StoppingRule::precision`] of the median on both sides, or until
//! its time budget or [`StoppingRule::max_runs`] runs are spent. A point that
//! stops for either of the last two reasons is *noisy*: the report marks it.
//!
//! The interval is distribution-free (order statistics): among `n` timings
//! sorted as `x(1) <= ... <= x(n)`, the number that fall below the true median
//! is binomial with `n` trials and probability 1/2, so `[x(j), x(n+1-j)]`
//! covers the median with probability `P(j <= B <= n - j)`. The rule takes the
//! narrowest such interval (the largest `j`) that still reaches 95%. With 9
//! runs that is `[x(2), x(8)]` (96.1%); with fewer than 6 runs no interval
//! reaches 95%, so a point is never called stable on 5 runs or fewer.

use std::fmt;
use std::time::Duration;

/// The confidence of the interval the stopping rule uses.
pub const CONFIDENCE: f64 = 0.95;

/// `P(B <= k)` for `B` binomial with `n` trials and probability 1/2.
pub fn binomial_half_cdf(n: usize, k: usize) -> f64 {
    if k >= n {
        return 1.0;
    }
    // In logarithms: 2^-n underflows for n above about 1,000.
    let ln_half_n = -(n as f64) * std::f64::consts::LN_2;
    let mut ln_choose = 0.0; // ln C(n, 0)
    let mut sum = 0.0;
    for i in 0..=k {
        if i > 0 {
            ln_choose += ((n - i + 1) as f64).ln() - (i as f64).ln();
        }
        sum += (ln_choose + ln_half_n).exp();
    }
    sum.min(1.0)
}

/// The 1-based ranks `(j, n + 1 - j)` of the order statistics that bound a
/// `confidence` interval of the median of `n` values: the narrowest
/// symmetric pair whose coverage is at least `confidence`. `None` when even
/// the smallest and the largest value do not reach it (`n < 6` at 95%).
pub fn median_ranks(n: usize, confidence: f64) -> Option<(usize, usize)> {
    let coverage = |j: usize| 1.0 - 2.0 * binomial_half_cdf(n, j - 1);
    if n == 0 || coverage(1) < confidence {
        return None;
    }
    let mut j = 1;
    while 2 * (j + 1) <= n + 1 && coverage(j + 1) >= confidence {
        j += 1;
    }
    Some((j, n + 1 - j))
}

/// The median of a set of timings and its confidence interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MedianInterval {
    /// The median.
    pub median: f64,
    /// The lower end of the interval.
    pub low: f64,
    /// The upper end of the interval.
    pub high: f64,
}

impl MedianInterval {
    /// The median of `times` and its [`CONFIDENCE`] interval; `None` for
    /// fewer than 6 values (no interval reaches 95%).
    pub fn of(times: &[f64]) -> Option<Self> {
        let (lo, hi) = median_ranks(times.len(), CONFIDENCE)?;
        let mut sorted = times.to_vec();
        sorted.sort_by(f64::total_cmp);
        Some(Self {
            median: crate::bench::median(&sorted),
            low: sorted[lo - 1],
            high: sorted[hi - 1],
        })
    }

    /// The larger distance from the median to an end of the interval, as a
    /// fraction of the median (infinite for a median of 0).
    pub fn half_width(&self) -> f64 {
        if self.median <= 0.0 {
            return f64::INFINITY;
        }
        (self.median - self.low).max(self.high - self.median) / self.median
    }
}

/// Why the timing of a point stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// The median's confidence interval is within the precision.
    Stable,
    /// The point's time budget ran out first.
    Budget,
    /// The largest number of runs was reached first.
    MaxRuns,
}

impl Stop {
    /// `stable`, `budget` or `max-runs`: the spelling in `results.json`.
    pub fn name(self) -> &'static str {
        match self {
            Stop::Stable => "stable",
            Stop::Budget => "budget",
            Stop::MaxRuns => "max-runs",
        }
    }

    /// The stop spelled `name` (as [`Stop::name`] spells it), if any.
    pub fn parse(name: &str) -> Option<Stop> {
        [Stop::Stable, Stop::Budget, Stop::MaxRuns]
            .into_iter()
            .find(|s| s.name() == name)
    }

    /// Whether the median did not settle (the row is marked noisy).
    pub fn is_noisy(self) -> bool {
        self != Stop::Stable
    }
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// When to stop timing a point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StoppingRule {
    /// Timed runs every point gets, whatever its budget.
    pub min_runs: usize,
    /// Timed runs after which a point stops, settled or not.
    pub max_runs: usize,
    /// The largest accepted distance from the median to either end of its
    /// 95% confidence interval, as a fraction of the median (0.03: 3%).
    pub precision: f64,
    /// Once a point (warm-up included) has taken this long, it gets no runs
    /// beyond `min_runs`.
    pub budget: Duration,
}

impl StoppingRule {
    /// The default minimum number of timed runs.
    pub const MIN_RUNS: usize = 9;
    /// The default maximum number of timed runs.
    pub const MAX_RUNS: usize = 100;
    /// The largest accepted `max_runs`.
    pub const MAX_RUNS_LIMIT: usize = 10_000;
    /// The default precision: the interval within 3% of the median.
    pub const PRECISION: f64 = 0.03;

    /// The default rule with a budget of `budget` per point.
    pub fn with_budget(budget: Duration) -> Self {
        Self {
            min_runs: Self::MIN_RUNS,
            max_runs: Self::MAX_RUNS,
            precision: Self::PRECISION,
            budget,
        }
    }

    /// A rule that times exactly `runs` runs and calls the result stable
    /// only if its interval meets the default precision.
    pub fn fixed(runs: usize) -> Self {
        Self {
            min_runs: runs,
            max_runs: runs,
            precision: Self::PRECISION,
            budget: Duration::ZERO,
        }
    }

    /// Checks the rule's own consistency: `1 <= min_runs <= max_runs <=`
    /// [`Self::MAX_RUNS_LIMIT`], a precision above 0 and at most 1. The
    /// message names the command-line flag and what is allowed.
    pub fn validate(&self) -> Result<(), String> {
        if self.min_runs == 0 {
            return Err("--runs 0: give at least 1 timed run".to_string());
        }
        if self.max_runs > Self::MAX_RUNS_LIMIT {
            return Err(format!(
                "--max-runs {}: at most {} runs per point",
                self.max_runs,
                Self::MAX_RUNS_LIMIT
            ));
        }
        if self.max_runs < self.min_runs {
            return Err(format!(
                "--max-runs {} is below --runs {}: give --max-runs at least {} (or lower --runs)",
                self.max_runs, self.min_runs, self.min_runs
            ));
        }
        if !(self.precision > 0.0 && self.precision <= 1.0) {
            return Err(format!(
                "--precision {}: give a percentage above 0 and at most 100",
                self.precision * 100.0
            ));
        }
        Ok(())
    }

    /// What to do after the timed runs `times` (seconds), `elapsed` into the
    /// point: `None` to time another run, or why to stop.
    pub fn decide(&self, times: &[f64], elapsed: Duration) -> Option<Stop> {
        let n = times.len();
        if n < self.min_runs {
            return None;
        }
        if MedianInterval::of(times).is_some_and(|ci| ci.half_width() <= self.precision) {
            return Some(Stop::Stable);
        }
        if n >= self.max_runs {
            return Some(Stop::MaxRuns);
        }
        if elapsed >= self.budget {
            return Some(Stop::Budget);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binomial_tail_of_a_fair_coin() {
        assert!((binomial_half_cdf(9, 1) - 10.0 / 512.0).abs() < 1e-12);
        assert!((binomial_half_cdf(10, 2) - 56.0 / 1024.0).abs() < 1e-12);
        assert_eq!(binomial_half_cdf(4, 4), 1.0);
        // Large n: symmetric about the middle, no underflow to nonsense.
        let mid = binomial_half_cdf(2001, 1000);
        assert!((mid - 0.5).abs() < 1e-9, "{mid}");
        assert!(binomial_half_cdf(5000, 10) < 1e-300);
    }

    #[test]
    fn ranks_match_the_published_table() {
        // Distribution-free 95% intervals of the median, as in the usual
        // tables of the sign test.
        assert_eq!(median_ranks(5, CONFIDENCE), None);
        assert_eq!(median_ranks(6, CONFIDENCE), Some((1, 6)));
        assert_eq!(median_ranks(9, CONFIDENCE), Some((2, 8)));
        assert_eq!(median_ranks(10, CONFIDENCE), Some((2, 9)));
        assert_eq!(median_ranks(20, CONFIDENCE), Some((6, 15)));
        assert_eq!(median_ranks(30, CONFIDENCE), Some((10, 21)));
        assert_eq!(median_ranks(100, CONFIDENCE), Some((40, 61)));
        assert_eq!(median_ranks(0, CONFIDENCE), None);
        // Every interval reaches the confidence and the next narrower does not.
        for n in 6..300 {
            let (j, k) = median_ranks(n, CONFIDENCE).unwrap();
            assert_eq!(j + k, n + 1);
            assert!(1.0 - 2.0 * binomial_half_cdf(n, j - 1) >= CONFIDENCE);
            if 2 * (j + 1) <= n + 1 {
                assert!(1.0 - 2.0 * binomial_half_cdf(n, j) < CONFIDENCE, "{n}");
            }
        }
    }

    #[test]
    fn interval_of_synthetic_timings() {
        let times = [10.0, 9.0, 11.0, 10.2, 9.9, 10.1, 30.0, 1.0, 10.0];
        let ci = MedianInterval::of(&times).unwrap();
        // Sorted: 1, 9, 9.9, 10, 10, 10.1, 10.2, 11, 30: x(2) = 9, x(8) = 11.
        assert_eq!((ci.low, ci.median, ci.high), (9.0, 10.0, 11.0));
        assert!((ci.half_width() - 0.1).abs() < 1e-12);
        assert!(MedianInterval::of(&times[..5]).is_none());
    }

    fn rule() -> StoppingRule {
        StoppingRule {
            min_runs: 9,
            max_runs: 40,
            precision: 0.03,
            budget: Duration::from_secs(2),
        }
    }

    /// Feeds `times` one at a time to the rule, `per_run` apart, and returns
    /// how many it took and why it stopped.
    fn run_until_stop(rule: &StoppingRule, times: &[f64], per_run: Duration) -> (usize, Stop) {
        for n in 1..=times.len() {
            let elapsed = per_run * n as u32;
            if let Some(stop) = rule.decide(&times[..n], elapsed) {
                return (n, stop);
            }
        }
        panic!("the rule never stopped on {} timings", times.len());
    }

    #[test]
    fn steady_timings_stop_at_the_minimum() {
        let times: Vec<f64> = (0..50).map(|i| 1.0 + 0.001 * (i % 5) as f64).collect();
        let (n, stop) = run_until_stop(&rule(), &times, Duration::from_millis(10));
        assert_eq!((n, stop), (9, Stop::Stable));
        assert!(!stop.is_noisy());
    }

    #[test]
    fn a_few_outliers_need_more_runs_then_settle() {
        // Every fourth run 50% slow: at 9 runs x(8) is an outlier, so the
        // interval is too wide; with more runs its ranks move inside the
        // steady runs (at 17: ranks 5 and 13, among 13 steady and 4 slow runs).
        let times: Vec<f64> = (0..60)
            .map(|i| {
                if i % 4 == 1 {
                    1.5
                } else {
                    1.0 + 0.002 * (i % 3) as f64
                }
            })
            .collect();
        let (n, stop) = run_until_stop(&rule(), &times, Duration::from_millis(10));
        assert_eq!((n, stop), (17, Stop::Stable));
    }

    #[test]
    fn noisy_timings_stop_on_budget_or_max_runs() {
        // Alternating 1 and 2: the median's interval never narrows.
        let times: Vec<f64> = (0..100).map(|i| 1.0 + (i % 2) as f64).collect();
        // 0.1 s a run: the 2 s budget is spent after 20 runs.
        let (n, stop) = run_until_stop(&rule(), &times, Duration::from_millis(100));
        assert_eq!((n, stop), (20, Stop::Budget));
        assert!(stop.is_noisy());
        // Quick runs: the 40-run cap comes first.
        let (n, stop) = run_until_stop(&rule(), &times, Duration::from_millis(1));
        assert_eq!((n, stop), (40, Stop::MaxRuns));
    }

    #[test]
    fn the_minimum_holds_even_past_the_budget() {
        let times = [1.0, 2.0, 1.0, 2.0, 1.0, 2.0, 1.0, 2.0, 1.0, 2.0];
        // Each run takes 5 s, over the 2 s budget from the first: still 9 runs.
        let (n, stop) = run_until_stop(&rule(), &times, Duration::from_secs(5));
        assert_eq!((n, stop), (9, Stop::Budget));
    }

    #[test]
    fn too_few_runs_for_an_interval_are_never_stable() {
        let fixed = StoppingRule::fixed(3);
        assert_eq!(
            fixed.decide(&[1.0, 1.0, 1.0], Duration::ZERO),
            Some(Stop::MaxRuns)
        );
        let six = StoppingRule::fixed(6);
        assert_eq!(six.decide(&[1.0; 6], Duration::ZERO), Some(Stop::Stable));
    }

    #[test]
    fn validation_names_the_flags() {
        assert!(rule().validate().is_ok());
        let e = StoppingRule {
            max_runs: 5,
            ..rule()
        }
        .validate()
        .unwrap_err();
        assert!(e.contains("--max-runs 5") && e.contains("--runs 9"), "{e}");
        let e = StoppingRule {
            min_runs: 0,
            ..rule()
        }
        .validate()
        .unwrap_err();
        assert!(e.contains("--runs"), "{e}");
        let e = StoppingRule {
            precision: 0.0,
            ..rule()
        }
        .validate()
        .unwrap_err();
        assert!(e.contains("--precision"), "{e}");
        let e = StoppingRule {
            max_runs: 20_000,
            ..rule()
        }
        .validate()
        .unwrap_err();
        assert!(e.contains("10000"), "{e}");
    }
}
