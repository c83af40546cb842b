//! The quiet-machine check: how much of this process's cores other processes
//! used, before the run and while each point was timed.
//!
//! Linux counts, per core, the time spent busy (user, nice, system, interrupts,
//! and *steal*, time a hypervisor gave to another guest) and idle, in clock
//! ticks (`/proc/stat`), and the time this process spent (`/proc/self/stat`).
//! Over an interval, the cores' busy time less this process's own time is what
//! other processes (and other guests) took from the cores the run may use (the
//! `Cpus_allowed_list` of `/proc/self/status`). As a share of those cores'
//! total time it reads 0 on a quiet machine and 0.5 when a compiler kept one
//! of two cores busy. The load average (`/proc/loadavg`) is recorded too, for
//! the reader; it counts this process's own threads, so it is not the test.
//!
//! Everything here reads `/proc`; elsewhere (or when a file cannot be read)
//! the figures are `None` and the check says it could not be made.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// Other processes above this share of the cores during a point mark the
/// point `contended`.
pub const CONTENDED_SHARE: f64 = 0.10;
/// Other processes above this share of the cores before or during the run
/// make the report warn that the machine was not quiet.
pub const QUIET_SHARE: f64 = 0.05;

/// Cumulative CPU time of the cores this process may use, in clock ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CpuTimes {
    /// Busy time of those cores, all processes (steal included).
    pub busy: u64,
    /// Busy and idle time of those cores.
    pub total: u64,
    /// This process's own time (user and system, all its threads).
    pub own: u64,
}

impl CpuTimes {
    /// Reads the current figures from `/proc`; `None` where that fails.
    pub fn read() -> Option<Self> {
        let stat = std::fs::read_to_string("/proc/stat").ok()?;
        let own = std::fs::read_to_string("/proc/self/stat").ok()?;
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        let allowed = status
            .lines()
            .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
            .and_then(|list| parse_cpu_list(list.trim()));
        Self::parse(&stat, &own, allowed.as_deref())
    }

    /// The figures from the text of `/proc/stat` and `/proc/self/stat`,
    /// counting only the cores in `allowed` (all of them when `None`).
    pub fn parse(proc_stat: &str, self_stat: &str, allowed: Option<&[usize]>) -> Option<Self> {
        let (mut busy, mut total, mut cores) = (0u64, 0u64, 0usize);
        for line in proc_stat.lines() {
            let mut fields = line.split_whitespace();
            let Some(name) = fields.next() else { continue };
            let Some(id) = name.strip_prefix("cpu") else {
                continue;
            };
            // The aggregate `cpu` line when no list is known, else the `cpuN` lines listed.
            let wanted = match (id.parse::<usize>(), allowed) {
                (Err(_), None) => id.is_empty(),
                (Ok(n), Some(list)) => list.contains(&n),
                _ => false,
            };
            if !wanted {
                continue;
            }
            // user nice system idle iowait irq softirq steal (guest time is inside user).
            let v: Vec<u64> = fields.take(8).filter_map(|f| f.parse().ok()).collect();
            if v.len() < 4 {
                return None;
            }
            let idle = v[3] + v.get(4).copied().unwrap_or(0);
            let all: u64 = v.iter().sum();
            busy += all - idle;
            total += all;
            cores += 1;
        }
        if cores == 0 {
            return None;
        }
        // Fields after the command (which may hold spaces) start at the state, field 3;
        // utime and stime are fields 14 and 15.
        let after = &self_stat[self_stat.rfind(')')? + 1..];
        let f: Vec<&str> = after.split_whitespace().collect();
        let utime: u64 = f.get(11)?.parse().ok()?;
        let stime: u64 = f.get(12)?.parse().ok()?;
        Some(Self {
            busy,
            total,
            own: utime + stime,
        })
    }

    /// The share of the cores' time that other processes used between
    /// `self` and `later` (0 to 1); `None` if no tick passed.
    pub fn others_share(&self, later: &CpuTimes) -> Option<f64> {
        let total = later.total.checked_sub(self.total)?;
        if total == 0 {
            return None;
        }
        let busy = later.busy.saturating_sub(self.busy);
        let own = later.own.saturating_sub(self.own);
        Some((busy.saturating_sub(own) as f64 / total as f64).clamp(0.0, 1.0))
    }
}

/// Parses a kernel CPU list (`0-3,8,10-11`).
pub fn parse_cpu_list(s: &str) -> Option<Vec<usize>> {
    let mut out = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (usize, usize) = (a.parse().ok()?, b.parse().ok()?);
                if b < a {
                    return None;
                }
                out.extend(a..=b);
            }
            None => out.push(part.parse().ok()?),
        }
    }
    (!out.is_empty()).then_some(out)
}

/// The 1-, 5- and 15-minute load averages.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LoadAvg {
    /// Over the last minute.
    pub one: f64,
    /// Over the last 5 minutes.
    pub five: f64,
    /// Over the last 15 minutes.
    pub fifteen: f64,
}

impl LoadAvg {
    /// Reads `/proc/loadavg`.
    pub fn read() -> Option<Self> {
        Self::parse(&std::fs::read_to_string("/proc/loadavg").ok()?)
    }

    /// Parses the text of `/proc/loadavg`.
    pub fn parse(s: &str) -> Option<Self> {
        let mut f = s.split_whitespace().map(|x| x.parse::<f64>().ok());
        Some(Self {
            one: f.next()??,
            five: f.next()??,
            fifteen: f.next()??,
        })
    }
}

/// What the quiet-machine check found: the content of `quiet` in
/// `results.json`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct QuietCheck {
    /// Load averages just before the run.
    pub loadavg_before: Option<LoadAvg>,
    /// Share of the cores other processes used while the run waited,
    /// idle, just before it started.
    pub others_before: Option<f64>,
    /// How long that idle sample lasted, seconds.
    pub sample_s: f64,
    /// Load averages at the end of the run.
    pub loadavg_after: Option<LoadAvg>,
    /// Share of the cores other processes used over the whole run.
    pub others_during: Option<f64>,
    /// The largest share over the timed points.
    pub others_max_point: Option<f64>,
    /// Points during which other processes used more than
    /// [`CONTENDED_SHARE`] of the cores.
    pub contended_points: usize,
    /// Points timed.
    pub points: usize,
    /// Cores the run may use.
    pub cores: usize,
}

impl QuietCheck {
    /// The warnings the figures call for (empty on a quiet machine).
    pub fn warnings(&self) -> Vec<String> {
        let mut w = Vec::new();
        let pct = |x: f64| format!("{:.0}%", 100.0 * x);
        match (self.others_before, self.others_during) {
            (None, None) => w.push(
                "the machine's load could not be read (no /proc): nothing says whether other \
                 processes competed for the cores"
                    .to_string(),
            ),
            (before, during) => {
                if let Some(b) = before.filter(|&b| b > QUIET_SHARE) {
                    w.push(format!(
                        "other processes used {} of the {} cores just before the run (load \
                         average {})",
                        pct(b),
                        self.cores,
                        self.loadavg_before
                            .map_or_else(|| "unknown".to_string(), |l| format!("{:.2}", l.one)),
                    ));
                }
                if let Some(d) = during.filter(|&d| d > QUIET_SHARE) {
                    w.push(format!(
                        "other processes used {} of the {} cores during the run; {} of {} points \
                         are marked contended (above {})",
                        pct(d),
                        self.cores,
                        self.contended_points,
                        self.points,
                        pct(CONTENDED_SHARE),
                    ));
                } else if self.contended_points > 0 {
                    w.push(format!(
                        "other processes competed for the cores during {} of {} points (marked \
                         contended)",
                        self.contended_points, self.points
                    ));
                }
            }
        }
        w
    }
}

/// Records the machine's load before and during a run.
#[derive(Debug)]
pub struct LoadMonitor {
    check: QuietCheck,
    start: Option<CpuTimes>,
}

impl LoadMonitor {
    /// Samples the machine idle for `sample` (this process doing nothing),
    /// then starts watching the run.
    pub fn start(sample: Duration) -> Self {
        let loadavg_before = LoadAvg::read();
        let t0 = Instant::now();
        let a = CpuTimes::read();
        std::thread::sleep(sample);
        let b = CpuTimes::read();
        let others_before = a.zip(b).and_then(|(a, b)| a.others_share(&b));
        Self {
            check: QuietCheck {
                loadavg_before,
                others_before,
                sample_s: t0.elapsed().as_secs_f64(),
                cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
                ..QuietCheck::default()
            },
            start: CpuTimes::read(),
        }
    }

    /// Counts one timed point whose share of other processes was `share`.
    pub fn point(&mut self, share: Option<f64>) {
        self.check.points += 1;
        if let Some(s) = share {
            let max = self.check.others_max_point.get_or_insert(0.0);
            *max = max.max(s);
            if s > CONTENDED_SHARE {
                self.check.contended_points += 1;
            }
        }
    }

    /// Ends the watch and returns what it saw.
    pub fn finish(mut self) -> QuietCheck {
        let end = CpuTimes::read();
        self.check.others_during = self.start.zip(end).and_then(|(a, b)| a.others_share(&b));
        self.check.loadavg_after = LoadAvg::read();
        self.check
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STAT_A: &str = "cpu  1000 0 100 5000 10 0 5 0 0 0\n\
                          cpu0 500 0 50 2500 5 0 2 0 0 0\n\
                          cpu1 500 0 50 2500 5 0 3 0 0 0\n\
                          intr 12345\n";
    // 100 ticks later on each core: cpu0 busy all along, cpu1 half busy,
    // 10 ticks of steal on cpu1.
    const STAT_B: &str = "cpu  1160 0 100 5050 10 0 5 10 0 0\n\
                          cpu0 600 0 50 2500 5 0 2 0 0 0\n\
                          cpu1 540 0 50 2550 5 0 3 10 0 0\n";
    const SELF_A: &str = "42 (hypersteal suite) S 1 2 3 4 5 6 7 8 9 10 300 20 0 0 20 0";
    const SELF_B: &str = "42 (hypersteal suite) S 1 2 3 4 5 6 7 8 9 10 360 40 0 0 20 0";

    #[test]
    fn others_share_from_synthetic_proc_files() {
        let a = CpuTimes::parse(STAT_A, SELF_A, Some(&[0, 1])).unwrap();
        let b = CpuTimes::parse(STAT_B, SELF_B, Some(&[0, 1])).unwrap();
        assert_eq!(a.own, 320);
        assert_eq!(b.own, 400);
        // 200 ticks of core time; 150 busy (100 + 40 + 10 steal); 80 were ours.
        let share = a.others_share(&b).unwrap();
        assert!((share - 70.0 / 200.0).abs() < 1e-12, "{share}");
        // Only core 1 allowed: 100 ticks, 50 busy, and our 80 ticks cannot
        // all have been there; the share is clamped at 0.
        let a1 = CpuTimes::parse(STAT_A, SELF_A, Some(&[1])).unwrap();
        let b1 = CpuTimes::parse(STAT_B, SELF_B, Some(&[1])).unwrap();
        assert_eq!(a1.others_share(&b1), Some(0.0));
        // No list: the aggregate line.
        let agg = CpuTimes::parse(STAT_A, SELF_A, None).unwrap();
        assert_eq!(agg.total, 6115);
        // No time passed: no share.
        assert_eq!(a.others_share(&a), None);
        assert!(CpuTimes::parse("intr 1\n", SELF_A, None).is_none());
        assert!(CpuTimes::parse(STAT_A, "garbage", None).is_none());
    }

    #[test]
    fn cpu_lists_and_load_averages() {
        assert_eq!(parse_cpu_list("0-1"), Some(vec![0, 1]));
        assert_eq!(parse_cpu_list("0,2-4,7"), Some(vec![0, 2, 3, 4, 7]));
        assert_eq!(parse_cpu_list("3-1"), None);
        assert_eq!(parse_cpu_list(""), None);
        let l = LoadAvg::parse("1.54 1.14 0.49 1/83 7959\n").unwrap();
        assert_eq!((l.one, l.five, l.fifteen), (1.54, 1.14, 0.49));
        assert!(LoadAvg::parse("x").is_none());
    }

    #[test]
    fn warnings_follow_the_thresholds() {
        let quiet = QuietCheck {
            others_before: Some(0.01),
            others_during: Some(0.02),
            points: 10,
            cores: 2,
            ..QuietCheck::default()
        };
        assert!(quiet.warnings().is_empty());
        let busy = QuietCheck {
            others_before: Some(0.5),
            loadavg_before: LoadAvg::parse("1.9 1.0 0.5"),
            others_during: Some(0.3),
            contended_points: 7,
            ..quiet.clone()
        };
        let w = busy.warnings();
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].contains("50%") && w[0].contains("1.90"), "{w:?}");
        assert!(w[1].contains("30%") && w[1].contains("7 of 10"), "{w:?}");
        let brief = QuietCheck {
            contended_points: 1,
            ..quiet.clone()
        };
        assert_eq!(brief.warnings().len(), 1);
        assert!(QuietCheck::default().warnings()[0].contains("could not be read"));
    }

    #[test]
    fn a_monitor_counts_contended_points() {
        let mut m = LoadMonitor::start(Duration::ZERO);
        m.point(Some(0.0));
        m.point(Some(0.5));
        m.point(None);
        let q = m.finish();
        assert_eq!((q.points, q.contended_points), (3, 1));
        assert_eq!(q.others_max_point, Some(0.5));
    }
}
