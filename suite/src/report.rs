//! What a run leaves behind: `results.json` ([`Results`]), the markdown
//! report, the SVG plots, and the terminal/CSV renderings of the rows.
//!
//! The report is rebuilt from `results.json` alone (`hypersteal-suite report
//! DIR`), so everything it shows is in the JSON.
//!
//! This file holds the JSON and the markdown report's sections; the plots
//! are `report/plots.rs`, the tables and their text/CSV forms
//! `report/tables.rs`, the summary, verdict and warnings `report/summary.rs`.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::bench::{OverheadRow, Row, CHILI, RAYON, SEQUENTIAL};
use crate::flags::{self, Flag};
use crate::load::QuietCheck;
use crate::machine::Machine;

mod plots;
mod summary;
mod tables;

use summary::{balance_markdown, flags_markdown, quiet_markdown};
pub use summary::{speed_warning, summary_text, verdict_text, NOISY_SHARE_WARNING};
use tables::{ci_cell, opt, ratio_cell, row_of, time_cell, variant_of};
pub use tables::{csv, detail_table, markdown_table, ms, overhead_table, text_table};

/// The settings a run was made with.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// The least number of timed runs per configuration.
    pub runs: usize,
    /// The most timed runs per configuration (0 in results from before the
    /// stopping rule: then every configuration had exactly `runs`).
    #[serde(default)]
    pub max_runs: usize,
    /// The precision the stopping rule asks of the median's 95% confidence
    /// interval, as a fraction of the median.
    #[serde(default)]
    pub precision: f64,
    /// The time budget of a configuration, seconds.
    #[serde(default)]
    pub budget_s: f64,
    /// What the run left out of its matrix, in words (`None`: nothing).
    #[serde(default)]
    pub trimmed: Option<String>,
    /// Discarded runs before the timed ones.
    pub warmup: usize,
    /// Whether hypersteal workers were pinned to cores.
    pub pin: bool,
    /// How pinned workers were laid onto the CPUs (`hardware` or `os`; absent in reports
    /// written before the suite recorded it, and when nothing was pinned).
    #[serde(default)]
    pub placement: Option<String>,
    /// Worker counts.
    pub threads: Vec<usize>,
    /// Policies (with parameters).
    pub policies: Vec<String>,
    /// Topologies.
    pub topologies: Vec<String>,
    /// Loop schedules of `mandelbrot`'s loop rows.
    pub schedules: Vec<String>,
}

/// Everything a run measured: the content of `results.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Results {
    /// The suite's version.
    pub suite_version: String,
    /// When the run started (UTC).
    pub started: String,
    /// The command line.
    pub command: String,
    /// The machine.
    pub machine: Machine,
    /// The settings.
    pub settings: Settings,
    /// Wall-clock seconds of the whole run.
    pub wall_s: f64,
    /// One row per configuration.
    pub rows: Vec<Row>,
    /// Per-join overhead rows, when measured.
    #[serde(default)]
    pub overhead: Vec<OverheadRow>,
    /// The quiet-machine check: the load before and during the run.
    #[serde(default)]
    pub quiet: Option<QuietCheck>,
}

impl Results {
    /// Reads `results.json` from `path` (a file, or a directory holding one),
    /// and decides every row's flags again from its figures.
    pub fn load(path: &Path) -> Result<Self, String> {
        let file = if path.is_dir() {
            path.join("results.json")
        } else {
            path.to_path_buf()
        };
        let text = std::fs::read_to_string(&file)
            .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        let mut results: Results = serde_json::from_str(&text)
            .map_err(|e| format!("{} is not a results file: {e}", file.display()))?;
        // Flags follow from the rows' figures: decide them again, so that a
        // results file written before a flag existed shows it too.
        flags::mark(&mut results.rows);
        Ok(results)
    }

    /// Writes `results.json`, `report.md` and the SVG plots into `dir`
    /// (created if needed); returns the files written.
    pub fn write_all(&self, dir: &Path) -> Result<Vec<PathBuf>, String> {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let json = serde_json::to_string_pretty(self).map_err(|e| e.to_string())?;
        let path = dir.join("results.json");
        write(&path, &json)?;
        let mut files = vec![path];
        files.extend(self.write_report(dir)?);
        Ok(files)
    }

    /// Writes `report.md` and the SVG plots into `dir`; returns the files.
    pub fn write_report(&self, dir: &Path) -> Result<Vec<PathBuf>, String> {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let mut files = Vec::new();
        let mut plots = Vec::new();
        for (name, title, svg) in self.plots()? {
            let path = dir.join(&name);
            write(&path, &svg)?;
            files.push(path);
            plots.push((name, title));
        }
        let path = dir.join("report.md");
        write(&path, &self.markdown(&plots))?;
        files.insert(0, path);
        Ok(files)
    }

    fn workloads(&self) -> Vec<(String, String)> {
        let mut seen = Vec::new();
        for r in &self.rows {
            let k = (r.workload.clone(), r.size.clone());
            if !seen.contains(&k) {
                seen.push(k);
            }
        }
        seen
    }

    fn max_threads(&self) -> usize {
        self.rows.iter().map(|r| r.threads).max().unwrap_or(1)
    }

    /// The markdown report; `plots` are `(file, title)` pairs to embed.
    pub fn markdown(&self, plots: &[(String, String)]) -> String {
        let mut md = String::new();
        let s = &self.settings;
        let _ = writeln!(md, "# hypersteal benchmark report\n");
        let _ = writeln!(
            md,
            "- **Machine:** CPU `{}`, {} cores, {} ({})",
            self.machine.cpu, self.machine.cores, self.machine.os, self.machine.arch
        );
        if !self.machine.layout.is_empty() {
            let _ = writeln!(md, "- **Layout:** {}", self.machine.layout);
        }
        let _ = writeln!(md, "- **Started:** {}", self.started);
        let _ = writeln!(md, "- **Command:** `{}`", self.command);
        let _ = writeln!(
            md,
            "- **Settings:** {} after {} warm-up (discarded); workers {}; topologies {}; pinning \
             {}; suite {}",
            runs_rule(s),
            s.warmup,
            join(&s.threads),
            s.topologies.join(", "),
            match (s.pin, &s.placement) {
                (false, _) => "off".to_string(),
                (true, Some(p)) => format!("on, placement {p}"),
                (true, None) => "on".to_string(),
            },
            self.suite_version
        );
        if let Some(t) = &s.trimmed {
            let _ = writeln!(md, "- **Trimmed:** {t}");
        }
        let _ = writeln!(md, "- **Policies:** {}", s.policies.join(", "));
        if !s.schedules.is_empty() {
            let _ = writeln!(
                md,
                "- **Loop schedules (mandelbrot):** {}",
                s.schedules.join(", ")
            );
        }
        let _ = writeln!(md, "- **Wall time of the run:** {:.1} s", self.wall_s);
        md.push_str(&quiet_markdown(self.quiet.as_ref()));
        if let Some(w) = speed_warning(&self.rows, self.quiet.as_ref()) {
            let _ = writeln!(md, "\n> **Warning:** {w}.");
        }
        md.push('\n');
        let _ = writeln!(
            md,
            "Every run's answer was checked against the known one before its time counted \
             (`docs/suite.md` explains every column). Times are medians of the timed runs; \
             speedup and efficiency are against the best sequential time (the plain sequential \
             code); ±CI is the larger distance from the median to an end of its 95% confidence \
             interval, in % of the median; CoV is the coefficient of variation of the timed \
             runs.\n"
        );
        if !self.rows.is_empty() {
            md.push_str(&flags_markdown(&self.rows));
        }

        let pmax = self.max_threads();
        if !self.rows.is_empty() {
            let _ = writeln!(md, "## Execution time (ms) and speedup, per workload\n");
            let _ = writeln!(
            md,
            "Layout of Shu's Table 3: one row per policy, the sequential time, then the median \
             time at each worker count; the last columns are the speedup and efficiency at {pmax} \
             workers.\n"
        );
            for (w, size) in self.workloads() {
                let _ = writeln!(md, "### {w}:{size}\n");
                md.push_str(&markdown_table(&self.time_table(&w, &size, "join")));
                md.push('\n');
                if self
                    .rows
                    .iter()
                    .any(|r| r.workload == w && r.variant == "tasks")
                {
                    let _ = writeln!(
                        md,
                        "Master-worker tasks (one spawned task per block of rows):\n"
                    );
                    md.push_str(&markdown_table(&self.time_table(&w, &size, "tasks")));
                    md.push('\n');
                }
            }

            let _ = writeln!(
                md,
                "## Requests, locality and idle time at {pmax} workers\n"
            );
            let _ = writeln!(
            md,
            "Requests sent per run by all workers (Kumar et al., Table 4); locality, the share of \
             tasks run by the worker that created them (Shu, Figure 9); idle share of P × T. \
             Sender-initiated policies send no requests: they place tasks.\n"
        );
            for (title, f) in [
                ("Requests per run", 0usize),
                ("Locality (%)", 1),
                ("Idle (% of P × T)", 2),
            ] {
                let _ = writeln!(md, "### {title}\n");
                md.push_str(&markdown_table(&self.policy_by_workload(pmax, f)));
                md.push('\n');
            }

            let _ = writeln!(md, "## Computation, overhead and idle split of P × T\n");
            let _ = writeln!(
            md,
            "After Shu's Figures 10-11: P × T (workers × median time) split into computation (the \
             best sequential time), idle time (from the pool's statistics) and overhead (the \
             rest: task creation, stealing, placement, cache effects). Percent of P × T at {pmax} \
             workers.\n"
        );
            md.push_str(&markdown_table(&self.split_table(pmax)));
            md.push('\n');
        }

        let loops: Vec<&Row> = self.rows.iter().filter(|r| r.variant == "loop").collect();
        if !loops.is_empty() {
            let _ = writeln!(md, "## Mandelbrot as a parallel loop: every schedule\n");
            let _ = writeln!(
                md,
                "Finish-time spread (latest minus earliest worker to finish its last chunk) and \
                 the standard deviation of the finish times as % of their mean (Xu and \
                 Chronopoulos; the Charm-on-workstations thesis), medians over the timed runs. \
                 `rayon` is rayon's `par_iter`.\n"
            );
            let mut t = vec![row_of(&[
                "schedule",
                "policy",
                "topology",
                "P",
                "median ms",
                "speedup",
                "spread ms",
                "SD % of mean",
            ])];
            for r in loops {
                t.push(vec![
                    r.schedule.clone().unwrap_or_default(),
                    r.policy.clone(),
                    r.topology.clone(),
                    r.threads.to_string(),
                    ms(r.median_s),
                    format!("{:.2}", r.speedup),
                    r.spread_s.map_or("-".into(), ms),
                    r.sd_pct.map_or("-".into(), |v| format!("{v:.1}")),
                ]);
            }
            md.push_str(&markdown_table(&t));
            md.push('\n');
        }

        if !self.overhead.is_empty() {
            let _ = writeln!(md, "## Per-join overhead\n");
            md.push_str(&overhead_markdown(&self.overhead));
            md.push('\n');
        }

        md.push_str(&balance_markdown(&self.rows));

        if !plots.is_empty() {
            let _ = writeln!(md, "## Plots\n");
            for (file, title) in plots {
                let _ = writeln!(md, "### {title}\n\n![{title}]({file})\n");
            }
        }

        if !self.rows.is_empty() {
            let _ = writeln!(md, "## Every configuration\n");
            md.push_str(&markdown_table(&detail_table(&self.rows)));
        }
        md
    }

    /// Distinct `(policy, topology)` of a workload's rows of `variant`:
    /// hypersteal policies first, then rayon and chili.
    fn keys(&self, w: &str, size: &str, variant: &str) -> Vec<(String, String)> {
        let mut hs = Vec::new();
        let mut base = Vec::new();
        for r in self
            .rows
            .iter()
            .filter(|r| r.workload == w && r.size == size && r.variant == variant)
        {
            let k = (r.policy.clone(), r.topology.clone());
            let list = if [RAYON, CHILI].contains(&r.policy.as_str()) {
                &mut base
            } else if r.policy == SEQUENTIAL {
                continue;
            } else {
                &mut hs
            };
            if !list.contains(&k) {
                list.push(k);
            }
        }
        hs.extend(base);
        hs
    }

    fn label(&self, policy: &str, topology: &str) -> String {
        if self.settings.topologies.len() > 1 && topology != "-" {
            format!("{policy} ({topology})")
        } else {
            policy.to_string()
        }
    }

    fn threads(&self) -> Vec<usize> {
        let set: BTreeSet<usize> = self.rows.iter().map(|r| r.threads).collect();
        set.into_iter().collect()
    }

    /// Table-3 layout for one workload and variant.
    fn time_table(&self, w: &str, size: &str, variant: &str) -> Vec<Vec<String>> {
        let threads = self.threads();
        let pmax = self.max_threads();
        let seq = self
            .rows
            .iter()
            .find(|r| r.workload == w && r.size == size && r.policy == SEQUENTIAL);
        let mut header = vec!["policy".to_string(), "Seq.".to_string()];
        header.extend(threads.iter().map(|t| format!("P={t}")));
        header.extend([
            format!("speedup P={pmax}"),
            format!("eff. P={pmax}"),
            format!("runs P={pmax}"),
            format!("±CI % P={pmax}"),
            format!("CoV % P={pmax}"),
            "flags".to_string(),
        ]);
        let mut t = vec![header];
        let seq_ms = seq.map_or("-".into(), time_cell);
        for (policy, topo) in self.keys(w, size, variant) {
            let find = |p: usize| {
                self.rows.iter().find(|r| {
                    r.workload == w
                        && r.size == size
                        && r.variant == variant
                        && r.policy == policy
                        && r.topology == topo
                        && r.threads == p
                })
            };
            let mut line = vec![self.label(&policy, &topo), seq_ms.clone()];
            line.extend(
                threads
                    .iter()
                    .map(|&p| find(p).map_or("-".into(), time_cell)),
            );
            match find(pmax) {
                Some(r) => line.extend([
                    ratio_cell(r, r.speedup),
                    ratio_cell(r, r.efficiency),
                    r.runs.to_string(),
                    ci_cell(r),
                    format!("{:.1}", 100.0 * r.cov),
                ]),
                None => line.extend(std::iter::repeat_n("-".to_string(), 5)),
            }
            let marks: Vec<String> = threads
                .iter()
                .filter_map(|&p| find(p))
                .flat_map(|r| r.flags.iter().map(move |f| format!("{f}@{}", r.threads)))
                .collect();
            line.push(if marks.is_empty() {
                "-".to_string()
            } else {
                marks.join(" ")
            });
            t.push(line);
        }
        t
    }

    /// Policies (rows) × workloads (columns) at `p` workers: requests (0),
    /// locality % (1) or idle % (2), join variant.
    fn policy_by_workload(&self, p: usize, what: usize) -> Vec<Vec<String>> {
        let workloads = self.workloads();
        let mut header = vec!["policy".to_string()];
        header.extend(workloads.iter().map(|(w, _)| w.clone()));
        let mut keys: Vec<(String, String)> = Vec::new();
        for r in &self.rows {
            if r.requests.is_some() && r.variant == "join" {
                let k = (r.policy.clone(), r.topology.clone());
                if !keys.contains(&k) {
                    keys.push(k);
                }
            }
        }
        let mut t = vec![header];
        for (policy, topo) in keys {
            let mut line = vec![self.label(&policy, &topo)];
            for (w, size) in &workloads {
                let r = self.rows.iter().find(|r| {
                    &r.workload == w
                        && &r.size == size
                        && r.variant == "join"
                        && r.policy == policy
                        && r.topology == topo
                        && r.threads == p
                });
                line.push(match (r, what) {
                    (Some(r), 0) => r.requests.map_or("-".into(), |v| format!("{v:.0}")),
                    (Some(r), 1) => r
                        .locality
                        .map_or("-".into(), |v| format!("{:.1}", 100.0 * v)),
                    (Some(r), _) => r
                        .idle_fraction
                        .map_or("-".into(), |v| format!("{:.1}", 100.0 * v)),
                    (None, _) => "-".into(),
                });
            }
            t.push(line);
        }
        t
    }

    fn split_table(&self, p: usize) -> Vec<Vec<String>> {
        let mut t = vec![row_of(&[
            "workload",
            "policy",
            "P × T ms",
            "computation %",
            "overhead %",
            "idle %",
        ])];
        for r in self
            .rows
            .iter()
            .filter(|r| r.threads == p && r.variant == "join" && r.idle_s.is_some())
        {
            let pt = r.threads as f64 * r.median_s;
            let pc = |v: Option<f64>| v.map_or("-".into(), |v| format!("{:.1}", 100.0 * v / pt));
            t.push(vec![
                format!("{}:{}", r.workload, r.size),
                self.label(&r.policy, &r.topology),
                ms(pt),
                pc(r.computation_s),
                pc(r.overhead_s),
                pc(r.idle_s),
            ]);
        }
        t
    }
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn join(v: &[usize]) -> String {
    v.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// How many runs the settings asked for, in words.
fn runs_rule(s: &Settings) -> String {
    if s.max_runs == 0 {
        return format!("{} timed runs", s.runs);
    }
    format!(
        "at least {} timed runs, more (up to {}, within {:.1} s a configuration) until the \
         median's 95% confidence interval is within ±{:.1}%",
        s.runs,
        s.max_runs,
        s.budget_s,
        100.0 * s.precision
    )
}

fn overhead_markdown(rows: &[OverheadRow]) -> String {
    let mut s = String::from(
        "Per-join cost of fork-join code without a cutoff: the run's median time over the number \
         of joins it makes, the extra cost per join over the plain sequential code, and the ratio \
         to the plain sequential time. `sequential-fork` is the parallel code with every join \
         run inline (no runtime). `*` marks a noisy median.\n\n",
    );
    s.push_str(&markdown_table(&overhead_table(rows)));
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::synthetic_row;

    #[test]
    fn a_wandering_machine_is_called_out() {
        let mut rows: Vec<Row> = (0..8)
            .map(|i| synthetic_row("rp", 2, 0.01, if i < 2 { "budget" } else { "stable" }))
            .collect();
        flags::mark(&mut rows);
        // Two noisy rows of eight: not yet a pattern.
        assert_eq!(speed_warning(&rows, None), None);
        rows[2].stop = "budget".into();
        flags::mark(&mut rows);
        let quiet = QuietCheck {
            others_during: Some(0.01),
            ..QuietCheck::default()
        };
        let w = speed_warning(&rows, Some(&quiet)).unwrap();
        assert!(
            w.starts_with("3 of 8 rows are noisy") && w.contains("only 1%"),
            "{w}"
        );
        // A drifted baseline alone is enough.
        let mut rows = vec![synthetic_row(SEQUENTIAL, 1, 0.01, "stable")];
        rows[0].drift = Some(0.2);
        flags::mark(&mut rows);
        let w = speed_warning(&rows, None).unwrap();
        assert!(w.contains("1 sequential baselines drifted"), "{w}");
        assert!(!w.contains("only"), "{w}");
    }
}
