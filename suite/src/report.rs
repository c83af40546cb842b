//! What a run leaves behind: `results.json` ([`Results`]), the markdown
//! report, the SVG plots, and the terminal/CSV renderings of the rows.
//!
//! The report is rebuilt from `results.json` alone (`hypersteal-suite report
//! DIR`), so everything it shows is in the JSON.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;
use serde::{Deserialize, Serialize};

use crate::bench::{OverheadRow, Row, CHILI, RAYON, SEQUENTIAL};
use crate::flags::{self, Flag};
use crate::load::QuietCheck;
use crate::machine::Machine;

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

    /// Every plot: `(file name, title, svg)`.
    pub fn plots(&self) -> Result<Vec<(String, String, String)>, String> {
        let mut out = Vec::new();
        let pmax = self.max_threads();
        for (w, size) in self.workloads() {
            let file = format!("speedup-{}.svg", file_safe(&w));
            let title = format!("{w}:{size}: speedup against workers");
            out.push((file, title.clone(), self.speedup_svg(&w, &size, &title)?));
            let file = format!("split-{}.svg", file_safe(&w));
            let title = format!("{w}:{size}: computation / overhead / idle at {pmax} workers");
            if let Some(svg) = self.split_svg(&w, &size, pmax, &title)? {
                out.push((file, title, svg));
            }
        }
        if let Some(svg) = self.loop_svg(pmax)? {
            out.push((
                "loop-imbalance.svg".to_string(),
                format!("mandelbrot loop: finish-time SD % of mean at {pmax} workers"),
                svg,
            ));
        }
        Ok(out)
    }

    fn speedup_svg(&self, w: &str, size: &str, title: &str) -> Result<String, String> {
        let threads = self.threads();
        let xmax = *threads.last().unwrap_or(&1) as f64;
        let series: Vec<(String, Vec<(f64, f64)>)> = self
            .keys(w, size, "join")
            .into_iter()
            .map(|(policy, topo)| {
                let pts = self
                    .rows
                    .iter()
                    .filter(|r| {
                        r.workload == w
                            && r.size == size
                            && r.variant == "join"
                            && r.policy == policy
                            && r.topology == topo
                    })
                    .map(|r| (r.threads as f64, r.speedup))
                    .collect();
                (self.label(&policy, &topo), pts)
            })
            .collect();
        let ymax = series
            .iter()
            .flat_map(|(_, p)| p.iter().map(|x| x.1))
            .fold(xmax, f64::max)
            * 1.1;
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (800, 520)).into_drawing_area();
            root.fill(&WHITE).map_err(plot_err)?;
            let mut chart = ChartBuilder::on(&root)
                .caption(title, ("sans-serif", 20))
                .margin(12)
                .x_label_area_size(40)
                .y_label_area_size(50)
                .build_cartesian_2d(0.0..xmax + 0.5, 0.0..ymax)
                .map_err(plot_err)?;
            chart
                .configure_mesh()
                .x_desc("workers")
                .y_desc("speedup over best sequential")
                .draw()
                .map_err(plot_err)?;
            chart
                .draw_series(LineSeries::new(
                    [(0.0, 0.0), (xmax, xmax)],
                    BLACK.mix(0.3).stroke_width(1),
                ))
                .map_err(plot_err)?
                .label("ideal")
                .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], BLACK.mix(0.3)));
            for (i, (label, pts)) in series.iter().enumerate() {
                let color = Palette99::pick(i).to_rgba();
                chart
                    .draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))
                    .map_err(plot_err)?
                    .label(label.as_str())
                    .legend(move |(x, y)| {
                        PathElement::new([(x, y), (x + 20, y)], color.stroke_width(2))
                    });
                chart
                    .draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))
                    .map_err(plot_err)?;
            }
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperLeft)
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK.mix(0.5))
                .draw()
                .map_err(plot_err)?;
            root.present().map_err(plot_err)?;
        }
        Ok(svg)
    }

    fn split_svg(
        &self,
        w: &str,
        size: &str,
        p: usize,
        title: &str,
    ) -> Result<Option<String>, String> {
        let bars: Vec<(String, [f64; 3])> = self
            .rows
            .iter()
            .filter(|r| {
                r.workload == w
                    && r.size == size
                    && r.variant == "join"
                    && r.threads == p
                    && r.idle_s.is_some()
            })
            .map(|r| {
                let pt = (r.threads as f64 * r.median_s).max(f64::MIN_POSITIVE);
                let pc = |v: Option<f64>| 100.0 * v.unwrap_or(0.0) / pt;
                (
                    self.label(&r.policy, &r.topology),
                    [pc(r.computation_s), pc(r.overhead_s), pc(r.idle_s)],
                )
            })
            .collect();
        if bars.is_empty() {
            return Ok(None);
        }
        let names: Vec<String> = bars.iter().map(|b| b.0.clone()).collect();
        let colors = [
            RGBColor(76, 153, 76),
            RGBColor(230, 140, 40),
            RGBColor(160, 160, 160),
        ];
        let parts = ["computation", "overhead", "idle"];
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (900, 520)).into_drawing_area();
            root.fill(&WHITE).map_err(plot_err)?;
            let mut chart = ChartBuilder::on(&root)
                .caption(title, ("sans-serif", 20))
                .margin(12)
                .x_label_area_size(40)
                .y_label_area_size(50)
                .build_cartesian_2d((0..names.len() as i32).into_segmented(), 0.0..130.0)
                .map_err(plot_err)?;
            let formatter = |v: &SegmentValue<i32>| match v {
                SegmentValue::CenterOf(i) => names.get(*i as usize).cloned().unwrap_or_default(),
                _ => String::new(),
            };
            chart
                .configure_mesh()
                .disable_x_mesh()
                .x_labels(names.len())
                .x_label_formatter(&formatter)
                .x_label_style(("sans-serif", 12))
                .y_desc("% of workers × time")
                .draw()
                .map_err(plot_err)?;
            for (k, part) in parts.iter().enumerate() {
                let color = colors[k];
                chart
                    .draw_series(bars.iter().enumerate().map(|(i, (_, v))| {
                        let lo: f64 = v[..k].iter().sum();
                        let hi = lo + v[k];
                        let mut rect = Rectangle::new(
                            [
                                (SegmentValue::Exact(i as i32), lo),
                                (SegmentValue::Exact(i as i32 + 1), hi),
                            ],
                            color.filled(),
                        );
                        rect.set_margin(0, 0, 6, 6);
                        rect
                    }))
                    .map_err(plot_err)?
                    .label(*part)
                    .legend(move |(x, y)| {
                        Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled())
                    });
            }
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperRight)
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK.mix(0.5))
                .draw()
                .map_err(plot_err)?;
            root.present().map_err(plot_err)?;
        }
        Ok(Some(svg))
    }

    fn loop_svg(&self, p: usize) -> Result<Option<String>, String> {
        let bars: Vec<(String, f64)> = self
            .rows
            .iter()
            .filter(|r| r.variant == "loop" && r.threads == p)
            .filter_map(|r| {
                let s = r.schedule.clone().unwrap_or_default();
                let label = if r.policy == RAYON {
                    s
                } else {
                    format!("{s} ({})", r.policy)
                };
                r.sd_pct.map(|v| (label, v))
            })
            .collect();
        if bars.is_empty() {
            return Ok(None);
        }
        let names: Vec<String> = bars.iter().map(|b| b.0.clone()).collect();
        let ymax = bars.iter().map(|b| b.1).fold(1.0, f64::max) * 1.15;
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (900, 520)).into_drawing_area();
            root.fill(&WHITE).map_err(plot_err)?;
            let mut chart = ChartBuilder::on(&root)
                .caption(
                    format!("mandelbrot loop at {p} workers: finish-time SD % of mean"),
                    ("sans-serif", 20),
                )
                .margin(12)
                .x_label_area_size(40)
                .y_label_area_size(50)
                .build_cartesian_2d((0..names.len() as i32).into_segmented(), 0.0..ymax)
                .map_err(plot_err)?;
            let formatter = |v: &SegmentValue<i32>| match v {
                SegmentValue::CenterOf(i) => names.get(*i as usize).cloned().unwrap_or_default(),
                _ => String::new(),
            };
            chart
                .configure_mesh()
                .disable_x_mesh()
                .x_labels(names.len())
                .x_label_formatter(&formatter)
                .x_label_style(("sans-serif", 11))
                .y_desc("SD of finish times, % of mean")
                .draw()
                .map_err(plot_err)?;
            chart
                .draw_series(bars.iter().enumerate().map(|(i, (_, v))| {
                    let mut rect = Rectangle::new(
                        [
                            (SegmentValue::Exact(i as i32), 0.0),
                            (SegmentValue::Exact(i as i32 + 1), *v),
                        ],
                        Palette99::pick(i).filled(),
                    );
                    rect.set_margin(0, 0, 6, 6);
                    rect
                }))
                .map_err(plot_err)?;
            root.present().map_err(plot_err)?;
        }
        Ok(Some(svg))
    }
}

fn plot_err<E: std::fmt::Debug>(e: E) -> String {
    format!("plotting failed: {e:?}")
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn file_safe(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn join(v: &[usize]) -> String {
    v.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn row_of(cells: &[&str]) -> Vec<String> {
    cells.iter().map(|c| c.to_string()).collect()
}

/// Seconds as milliseconds, three significant-ish digits.
pub fn ms(s: f64) -> String {
    let m = s * 1e3;
    if m >= 100.0 {
        format!("{m:.0}")
    } else if m >= 1.0 {
        format!("{m:.2}")
    } else {
        format!("{m:.3}")
    }
}

fn opt(v: Option<f64>, f: impl Fn(f64) -> String) -> String {
    v.map_or_else(|| "-".to_string(), f)
}

/// A row's median in ms, with `*` when the row is noisy and `~` when the
/// baseline drifted.
fn time_cell(r: &Row) -> String {
    let mut s = ms(r.median_s);
    if flags::has(r, Flag::Noisy) {
        s.push('*');
    }
    if flags::has(r, Flag::Drift) {
        s.push('~');
    }
    s
}

/// A speedup or efficiency, in brackets when the row's baseline flags say it
/// is a measurement problem rather than a result.
fn ratio_cell(r: &Row, v: f64) -> String {
    if flags::has(r, Flag::SuperLinear) || flags::has(r, Flag::BeatsSequential) {
        format!("[{v:.2}]")
    } else {
        format!("{v:.2}")
    }
}

/// The median's confidence half-width in % (`-` below 6 runs).
fn ci_cell(r: &Row) -> String {
    opt(r.ci_half_width, |v| format!("{:.1}", 100.0 * v))
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

/// The quiet-machine check, as markdown list items and warnings.
fn quiet_markdown(q: Option<&QuietCheck>) -> String {
    let mut md = String::new();
    let Some(q) = q else {
        return md;
    };
    let pct = |v: Option<f64>| v.map_or("unknown".to_string(), |v| format!("{:.1}%", 100.0 * v));
    let load = |l: Option<crate::load::LoadAvg>| {
        l.map_or("unknown".to_string(), |l| {
            format!("{:.2} {:.2} {:.2}", l.one, l.five, l.fifteen)
        })
    };
    let _ = writeln!(
        md,
        "- **Machine load:** before the run, load average {} and other processes on {} of the \
         cores (over {:.1} s idle); during it, other processes on {} of the cores (at most {} \
         during a configuration, {} of {} configurations contended); load average at the end {}",
        load(q.loadavg_before),
        pct(q.others_before),
        q.sample_s,
        pct(q.others_during),
        pct(q.others_max_point),
        q.contended_points,
        q.points,
        load(q.loadavg_after),
    );
    for w in q.warnings() {
        let _ = writeln!(md, "\n> **Warning:** {w}.");
    }
    md
}

/// Noisy rows above this share of all rows make the report warn that the
/// machine's speed wandered.
pub const NOISY_SHARE_WARNING: f64 = 0.25;

/// A warning when many rows are noisy or a baseline drifted: the machine's
/// speed itself wandered, whether or not other processes in it competed (a
/// virtual machine's host can be busy unseen).
pub fn speed_warning(rows: &[Row], quiet: Option<&QuietCheck>) -> Option<String> {
    let noisy = rows.iter().filter(|r| flags::has(r, Flag::Noisy)).count();
    let drifted = rows.iter().filter(|r| flags::has(r, Flag::Drift)).count();
    if rows.is_empty()
        || (drifted == 0 && (noisy as f64) <= NOISY_SHARE_WARNING * rows.len() as f64)
    {
        return None;
    }
    let quiet_inside = quiet
        .and_then(|q| q.others_during)
        .filter(|&d| d <= crate::load::QUIET_SHARE)
        .map(|d| {
            format!(
                " although other processes in the machine used only {:.0}% of its cores (a \
                 virtual machine's host may be busy)",
                100.0 * d
            )
        })
        .unwrap_or_default();
    Some(format!(
        "{noisy} of {} rows are noisy and {drifted} sequential baselines drifted: the machine's \
         speed wandered{quiet_inside}; rerun on a quiet machine before quoting these figures",
        rows.len()
    ))
}

/// The legend of the flags and the rows that carry them.
fn flags_markdown(rows: &[Row]) -> String {
    let mut md = String::from("## Flags\n\n");
    let _ = writeln!(
        md,
        "A row's flags say its figure is not a result as it stands. In the tables, `*` after a \
         time marks a noisy row, `~` after a sequential time a drifted baseline, and a speedup \
         or efficiency in brackets is a flagged measurement problem (`eff>1`, `beats-seq`), not \
         a result.\n"
    );
    for f in Flag::ALL {
        let n = rows.iter().filter(|r| flags::has(r, f)).count();
        let _ = writeln!(md, "- `{}` ({n} rows): {}.", f.name(), f.meaning());
    }
    md.push('\n');
    let flagged: Vec<&Row> = rows.iter().filter(|r| !r.flags.is_empty()).collect();
    if flagged.is_empty() {
        md.push_str("No row is flagged.\n\n");
        return md;
    }
    let mut t = vec![row_of(&[
        "workload",
        "variant",
        "policy",
        "P",
        "median ms",
        "runs",
        "±CI %",
        "speedup",
        "eff.",
        "others %",
        "drift %",
        "flags",
    ])];
    for r in flagged {
        t.push(vec![
            format!("{}:{}", r.workload, r.size),
            variant_of(r),
            r.policy.clone(),
            r.threads.to_string(),
            ms(r.median_s),
            r.runs.to_string(),
            ci_cell(r),
            format!("{:.2}", r.speedup),
            format!("{:.2}", r.efficiency),
            opt(r.others_cpu, |v| format!("{:.0}", 100.0 * v)),
            opt(r.drift, |v| format!("{:+.1}", 100.0 * v)),
            r.flags.join(" "),
        ]);
    }
    md.push_str(&markdown_table(&t));
    md.push('\n');
    md
}

fn variant_of(r: &Row) -> String {
    match &r.schedule {
        Some(s) => format!("{} {s}", r.variant),
        None => r.variant.clone(),
    }
}

/// The detailed table of rows (header first).
pub fn detail_table(rows: &[Row]) -> Vec<Vec<String>> {
    let mut t = vec![row_of(&[
        "workload",
        "variant",
        "policy",
        "topology",
        "P",
        "median ms",
        "runs",
        "±CI %",
        "worst ms",
        "CoV %",
        "speedup",
        "eff.",
        "requests",
        "locality %",
        "idle %",
        "spread ms",
        "SD %",
        "busy SD %",
        "others %",
        "flags",
    ])];
    for r in rows {
        t.push(vec![
            format!("{}:{}", r.workload, r.size),
            variant_of(r),
            r.policy.clone(),
            r.topology.clone(),
            r.threads.to_string(),
            time_cell(r),
            r.runs.to_string(),
            ci_cell(r),
            ms(r.worst_s),
            format!("{:.1}", 100.0 * r.cov),
            ratio_cell(r, r.speedup),
            ratio_cell(r, r.efficiency),
            opt(r.requests, |v| format!("{v:.0}")),
            opt(r.locality, |v| format!("{:.1}", 100.0 * v)),
            opt(r.idle_fraction, |v| format!("{:.1}", 100.0 * v)),
            opt(r.spread_s, ms),
            opt(r.sd_pct, |v| format!("{v:.1}")),
            opt(r.busy_sd_pct, |v| format!("{v:.1}")),
            opt(r.others_cpu, |v| format!("{:.0}", 100.0 * v)),
            if r.flags.is_empty() {
                "-".to_string()
            } else {
                r.flags.join(" ")
            },
        ]);
    }
    t
}

/// The per-join overhead table (header first).
pub fn overhead_table(rows: &[OverheadRow]) -> Vec<Vec<String>> {
    let mut t = vec![row_of(&[
        "workload",
        "policy",
        "P",
        "joins",
        "median ms",
        "runs",
        "ns/join",
        "overhead ns/join",
        "× sequential",
    ])];
    for r in rows {
        t.push(vec![
            format!("{}:{}", r.workload, r.size),
            r.policy.clone(),
            r.threads.to_string(),
            r.joins.to_string(),
            if r.noisy {
                format!("{}*", ms(r.median_s))
            } else {
                ms(r.median_s)
            },
            r.runs.to_string(),
            format!("{:.1}", r.ns_per_join),
            format!("{:.1}", r.overhead_ns_per_join),
            format!("{:.2}", r.ratio_to_sequential),
        ]);
    }
    t
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

/// A markdown table from a header row and body rows.
pub fn markdown_table(t: &[Vec<String>]) -> String {
    let mut s = String::new();
    for (i, row) in t.iter().enumerate() {
        let _ = writeln!(s, "| {} |", row.join(" | "));
        if i == 0 {
            let _ = writeln!(s, "|{}", "---|".repeat(row.len()));
        }
    }
    s
}

/// A plain-text table with aligned columns (numbers right-aligned).
pub fn text_table(t: &[Vec<String>]) -> String {
    let cols = t.iter().map(|r| r.len()).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|c| {
            t.iter()
                .filter_map(|r| r.get(c))
                .map(|x| x.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut s = String::new();
    for (i, row) in t.iter().enumerate() {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            let numeric = i > 0
                && cell
                    .chars()
                    .next()
                    .is_some_and(|ch| ch.is_ascii_digit() || ch == '-');
            let w = widths[c];
            if numeric {
                let _ = write!(line, "{cell:>w$}  ");
            } else {
                let _ = write!(line, "{cell:<w$}  ");
            }
        }
        let _ = writeln!(s, "{}", line.trim_end());
        if i == 0 {
            let total: usize = widths.iter().sum::<usize>() + 2 * cols.saturating_sub(1);
            let _ = writeln!(s, "{}", "-".repeat(total));
        }
    }
    s
}

/// The rows as CSV (header first); optional fields are empty when absent.
pub fn csv(rows: &[Row]) -> String {
    let mut s = String::from(
        "workload,size,variant,schedule,policy,topology,threads,runs,median_s,worst_s,best_s,cov,\
         speedup,efficiency,requests,requests_ok,locality,idle_fraction,tasks,placed,max_hops,\
         computation_s,overhead_s,idle_s,spread_s,sd_pct,ci_low_s,ci_high_s,ci_half_width,stop,\
         others_cpu,drift,flags,busy_sd_pct,trace_spread_s,trace_busy_sd_pct,trace_transfers,\
         trace_file\n",
    );
    let o = |v: Option<f64>| v.map_or(String::new(), |v| format!("{v}"));
    let quote = |v: &str| {
        if v.contains([',', '"']) {
            format!("\"{}\"", v.replace('"', "\"\""))
        } else {
            v.to_string()
        }
    };
    for r in rows {
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            quote(&r.workload),
            quote(&r.size),
            r.variant,
            quote(r.schedule.as_deref().unwrap_or("")),
            quote(&r.policy),
            r.topology,
            r.threads,
            r.runs,
            r.median_s,
            r.worst_s,
            r.best_s,
            r.cov,
            r.speedup,
            r.efficiency,
            o(r.requests),
            o(r.requests_ok),
            o(r.locality),
            o(r.idle_fraction),
            o(r.tasks),
            o(r.placed),
            r.max_hops.map_or(String::new(), |v| v.to_string()),
            o(r.computation_s),
            o(r.overhead_s),
            o(r.idle_s),
            o(r.spread_s),
            o(r.sd_pct),
            o(r.ci_low_s),
            o(r.ci_high_s),
            o(r.ci_half_width),
            r.stop,
            o(r.others_cpu),
            o(r.drift),
            r.flags.join(" "),
            o(r.busy_sd_pct),
            o(r.trace.as_ref().map(|t| t.finish_spread_s)),
            o(r.trace.as_ref().map(|t| t.busy_sd_pct)),
            r.trace
                .as_ref()
                .map_or(String::new(), |t| t.transfers.to_string()),
            quote(r.trace.as_ref().map_or("", |t| t.json.as_str())),
        );
    }
    s
}

/// The compact terminal summary: per workload, the Table-3 layout.
pub fn summary_text(results: &Results) -> String {
    let mut s = String::new();
    for (w, size) in results.workloads() {
        let _ = writeln!(s, "\n{w}:{size}  (median ms; speedup vs best sequential)");
        s.push_str(&text_table(&results.time_table(&w, &size, "join")));
        if results
            .rows
            .iter()
            .any(|r| r.workload == w && r.variant == "tasks")
        {
            let _ = writeln!(s, "{w}:{size} as master-worker tasks");
            s.push_str(&text_table(&results.time_table(&w, &size, "tasks")));
        }
    }
    let loops: Vec<Row> = results
        .rows
        .iter()
        .filter(|r| r.variant == "loop")
        .cloned()
        .collect();
    if !loops.is_empty() {
        let _ = writeln!(
            s,
            "\nmandelbrot as a parallel loop (spread and SD % of mean of finish times)"
        );
        let mut t = vec![row_of(&[
            "schedule",
            "policy",
            "P",
            "median ms",
            "speedup",
            "spread ms",
            "SD %",
        ])];
        for r in &loops {
            t.push(vec![
                r.schedule.clone().unwrap_or_default(),
                r.policy.clone(),
                r.threads.to_string(),
                ms(r.median_s),
                format!("{:.2}", r.speedup),
                opt(r.spread_s, ms),
                opt(r.sd_pct, |v| format!("{v:.1}")),
            ]);
        }
        s.push_str(&text_table(&t));
    }
    s
}

/// The lines a terminal run ends with: the quiet-machine warnings, how many
/// rows each flag marks, and the largest CoV and efficiency with their rows.
pub fn verdict_text(results: &Results) -> String {
    let mut s = String::new();
    if let Some(q) = &results.quiet {
        for w in q.warnings() {
            let _ = writeln!(s, "warning: {w}");
        }
    }
    if let Some(w) = speed_warning(&results.rows, results.quiet.as_ref()) {
        let _ = writeln!(s, "warning: {w}");
    }
    let rows = &results.rows;
    let counts: Vec<String> = Flag::ALL
        .iter()
        .map(|&f| (f, rows.iter().filter(|r| flags::has(r, f)).count()))
        .filter(|&(_, n)| n > 0)
        .map(|(f, n)| format!("{n} {}", f.name()))
        .collect();
    if !rows.is_empty() {
        let _ = writeln!(
            s,
            "flagged rows: {}",
            if counts.is_empty() {
                "none".to_string()
            } else {
                counts.join(", ")
            }
        );
    }
    let name = |r: &Row| {
        format!(
            "{}:{} {} {} P={}",
            r.workload,
            r.size,
            variant_of(r),
            r.policy,
            r.threads
        )
    };
    if let Some(r) = rows.iter().max_by(|a, b| a.cov.total_cmp(&b.cov)) {
        let _ = writeln!(s, "largest CoV: {:.1}% ({})", 100.0 * r.cov, name(r));
    }
    if let Some(r) = rows
        .iter()
        .max_by(|a, b| a.efficiency.total_cmp(&b.efficiency))
    {
        let _ = writeln!(
            s,
            "largest efficiency: {:.2} ({}{})",
            r.efficiency,
            name(r),
            if r.flags.is_empty() {
                String::new()
            } else {
                format!("; flagged {}", r.flags.join(" "))
            }
        );
    }
    if let Some(r) = rows
        .iter()
        .filter(|r| r.threads > 1)
        .max_by(|a, b| a.efficiency.total_cmp(&b.efficiency))
    {
        let _ = writeln!(
            s,
            "largest efficiency above 1 worker: {:.2} ({})",
            r.efficiency,
            name(r)
        );
    }
    s
}

/// Seed 001's balance metric per hypersteal row, and the traced runs' timelines and transfer
/// matrices (`run --trace`).
fn balance_markdown(rows: &[Row]) -> String {
    let mut md = String::new();
    let measured: Vec<&Row> = rows.iter().filter(|r| r.busy_sd_pct.is_some()).collect();
    if measured.is_empty() {
        return md;
    }
    let _ = writeln!(md, "## Balance (seed 001)\n");
    let _ = writeln!(
        md,
        "The standard deviation of the workers' busy times (elapsed minus idle) as % of their \
         mean, median over the timed runs (the Charm-on-workstations thesis, section 7.1: small \
         and steady for a good load distribution). With `--trace`, one more untimed run on a \
         traced pool gives the finish-time spread (latest minus earliest worker to run out of \
         work for good), its own busy SD %, and the tasks it moved between workers.\n"
    );
    let mut t = vec![row_of(&[
        "workload",
        "variant",
        "policy",
        "topology",
        "P",
        "busy SD %",
        "traced: spread ms",
        "traced: busy SD %",
        "traced: transfers",
    ])];
    for r in &measured {
        t.push(vec![
            format!("{}:{}", r.workload, r.size),
            variant_of(r),
            r.policy.clone(),
            r.topology.clone(),
            r.threads.to_string(),
            opt(r.busy_sd_pct, |v| format!("{v:.1}")),
            r.trace
                .as_ref()
                .map_or("-".into(), |t| ms(t.finish_spread_s)),
            r.trace
                .as_ref()
                .map_or("-".into(), |t| format!("{:.1}", t.busy_sd_pct)),
            r.trace
                .as_ref()
                .map_or("-".into(), |t| t.transfers.to_string()),
        ]);
    }
    md.push_str(&markdown_table(&t));
    md.push('\n');
    let traced: Vec<&Row> = measured
        .iter()
        .copied()
        .filter(|r| r.trace.is_some())
        .collect();
    if !traced.is_empty() {
        let _ = writeln!(md, "## Traces\n");
        let _ = writeln!(
            md,
            "One traced run per configuration: its timeline (green busy, grey idle, dark grey \
             asleep) and its transfer matrix (row: giving worker, column: receiving worker). \
             Open the JSON file in Perfetto (<https://ui.perfetto.dev>) to see every request and \
             transfer (`docs/trace.md`).\n"
        );
        for r in traced {
            let t = r.trace.as_ref().expect("filtered");
            let _ = writeln!(
                md,
                "### {}:{} {} {} {} P={}\n\n![timeline]({}) ![transfers]({})\n\nTrace: `{}`{}\n",
                r.workload,
                r.size,
                variant_of(r),
                r.policy,
                r.topology,
                r.threads,
                t.timeline_svg,
                t.matrix_svg,
                t.json,
                if t.dropped > 0 {
                    format!(" ({} events dropped: rings full)", t.dropped)
                } else {
                    String::new()
                }
            );
        }
    }
    md
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
