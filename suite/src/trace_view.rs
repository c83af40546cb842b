//! What `run --trace DIR` and `run --live` show: the timeline of one traced run (busy and idle
//! per worker), its P x P transfer matrix as a heat map, seed 001's balance metric, and the live
//! view of a pool while it runs (`docs/trace.md`).
//!
//! Seed 001 (section 7.1, after the monitoring of sections 6.2-6.3) judges a load distribution by
//! how evenly the workstations finish: the spread of their finish times, and the standard
//! deviation of their computation times as a percentage of the mean. Here a worker's computation
//! time is its busy time over the run (the run's span minus its idle time), and its finish time is
//! when it last ran out of work (the start of the idle stretch it is in at the end of the run, or
//! the end of the run if it is busy then).

use std::fmt::Write as _;
use std::io::IsTerminal;
use std::time::{Duration, Instant};

use hypersteal::{PoolStats, ThreadPool, Trace};
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use plotters::prelude::*;
use serde::{Deserialize, Serialize};

/// Population standard deviation of `v` as a percentage of its mean (0 when the mean is 0 or
/// there are fewer than two values).
pub fn sd_percent(v: &[f64]) -> f64 {
    if v.len() < 2 {
        return 0.0;
    }
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    if mean <= 0.0 {
        return 0.0;
    }
    let var = v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n;
    100.0 * var.sqrt() / mean
}

/// Seed 001's %SD for one run from the pool's statistics: the standard deviation of the workers'
/// busy times (elapsed minus idle) as a percentage of their mean.
pub fn busy_sd_pct(stats: &PoolStats) -> f64 {
    let busy: Vec<f64> = stats
        .workers
        .iter()
        .map(|w| stats.elapsed.saturating_sub(w.idle).as_secs_f64())
        .collect();
    sd_percent(&busy)
}

/// One run's window in a trace: from `begin_ns` to `end_ns` since the pool started.
#[derive(Clone, Copy, Debug)]
pub struct Window {
    /// Start of the run.
    pub begin_ns: u64,
    /// End of the run.
    pub end_ns: u64,
}

/// Per worker, its idle stretches clipped to `window` (ns since the pool started).
fn idle_in(trace: &Trace, w: usize, window: Window) -> Vec<(u64, u64)> {
    trace
        .idle_stretches(w, window.end_ns)
        .into_iter()
        .filter_map(|(b, e)| {
            let (b, e) = (b.max(window.begin_ns), e.min(window.end_ns));
            (b < e).then_some((b, e))
        })
        .collect()
}

/// Seed 001's balance of one traced run: finish-time spread (seconds) and %SD of busy time.
pub fn balance(trace: &Trace, window: Window) -> (f64, f64) {
    let span = window.end_ns.saturating_sub(window.begin_ns);
    let mut finish = Vec::new();
    let mut busy = Vec::new();
    for w in 0..trace.workers.len() {
        let idle = idle_in(trace, w, window);
        let idle_ns: u64 = idle.iter().map(|(b, e)| e - b).sum();
        busy.push(span.saturating_sub(idle_ns) as f64);
        // Idle at the end: it finished when that stretch began.
        let f = match idle.last() {
            Some(&(b, e)) if e >= window.end_ns => b,
            _ => window.end_ns,
        };
        finish.push(f.saturating_sub(window.begin_ns) as f64 / 1e9);
    }
    let spread = finish.iter().copied().fold(f64::NEG_INFINITY, f64::max)
        - finish.iter().copied().fold(f64::INFINITY, f64::min);
    (
        if spread.is_finite() { spread } else { 0.0 },
        sd_percent(&busy),
    )
}

/// What the traced run of one configuration gave (`run --trace DIR`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceSummary {
    /// The Chrome Trace Event file, as written.
    pub json: String,
    /// The timeline SVG's file name in the report's directory.
    pub timeline_svg: String,
    /// The transfer-matrix heat map's file name in the report's directory.
    pub matrix_svg: String,
    /// Latest minus earliest worker finish time, seconds.
    pub finish_spread_s: f64,
    /// Standard deviation of the workers' busy times, % of their mean.
    pub busy_sd_pct: f64,
    /// Tasks moved between workers (the matrix's sum).
    pub transfers: u64,
    /// Events lost to full rings.
    pub dropped: u64,
}

/// The row whose centre `v` is (`w + 0.5`), if it is one.
fn centre(v: f64) -> Option<usize> {
    let w = v - 0.5;
    (w >= 0.0 && (w - w.round()).abs() < 1e-6).then(|| w.round() as usize)
}

fn plot_err<E: std::fmt::Debug>(e: E) -> String {
    format!("plotting failed: {e:?}")
}

/// The timeline of one run: a row per worker, green where it is busy, grey where idle, dark
/// grey where asleep.
pub fn timeline_svg(trace: &Trace, window: Window, title: &str) -> Result<String, String> {
    let p = trace.workers.len().max(1);
    let span_ms = (window.end_ns.saturating_sub(window.begin_ns) as f64 / 1e6).max(1e-3);
    let ms = |ns: u64| ns.saturating_sub(window.begin_ns) as f64 / 1e6;
    let mut svg = String::new();
    {
        let height = (90 + 28 * p).min(1200) as u32;
        let root = SVGBackend::with_string(&mut svg, (900, height)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 18))
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..span_ms, 0.0..p as f64)
            .map_err(plot_err)?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            // Ticks every half row; only the rows' centres are labelled.
            .y_labels(2 * p.min(32) + 1)
            .y_label_formatter(&|y| centre(*y).map_or(String::new(), |w| format!("worker {w}")))
            .x_desc("ms since the run began")
            .draw()
            .map_err(plot_err)?;
        let busy = RGBColor(46, 160, 67);
        let idle = RGBColor(200, 200, 200);
        let asleep = RGBColor(120, 120, 120);
        for w in 0..trace.workers.len() {
            let y0 = w as f64 + 0.15;
            let y1 = w as f64 + 0.85;
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(0.0, y0), (span_ms, y1)],
                    busy.filled(),
                )))
                .map_err(plot_err)?;
            let stretches = idle_in(trace, w, window);
            chart
                .draw_series(
                    stretches
                        .iter()
                        .map(|&(b, e)| Rectangle::new([(ms(b), y0), (ms(e), y1)], idle.filled())),
                )
                .map_err(plot_err)?;
            let mut sleeps = Vec::new();
            let mut open = None;
            for e in &trace.workers[w] {
                match e.kind {
                    hypersteal::EventKind::Sleep => open = Some(e.ts_ns),
                    hypersteal::EventKind::Wake => {
                        if let Some(b) = open.take() {
                            sleeps.push((b, e.ts_ns));
                        }
                    }
                    _ => {}
                }
            }
            chart
                .draw_series(
                    sleeps
                        .iter()
                        .map(|&(b, e)| (b.max(window.begin_ns), e.min(window.end_ns)))
                        .filter(|(b, e)| b < e)
                        .map(|(b, e)| {
                            Rectangle::new([(ms(b), y0 + 0.2), (ms(e), y1 - 0.2)], asleep.filled())
                        }),
                )
                .map_err(plot_err)?;
        }
        root.present().map_err(plot_err)?;
    }
    Ok(svg)
}

/// The P x P transfer matrix as a heat map: row = giving worker, column = receiving worker,
/// darker = more tasks moved, each cell labelled with its count.
pub fn matrix_svg(m: &[Vec<u64>], title: &str) -> Result<String, String> {
    let p = m.len().max(1);
    let max = m.iter().flatten().copied().max().unwrap_or(0).max(1) as f64;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (640, 620)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 18))
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(50)
            .build_cartesian_2d(0.0..p as f64, p as f64..0.0)
            .map_err(plot_err)?;
        chart
            .configure_mesh()
            .disable_mesh()
            .x_labels(2 * p.min(32) + 1)
            .y_labels(2 * p.min(32) + 1)
            .x_label_formatter(&|x| centre(*x).map_or(String::new(), |w| w.to_string()))
            .y_label_formatter(&|y| centre(*y).map_or(String::new(), |w| w.to_string()))
            .x_desc("to worker")
            .y_desc("from worker")
            .draw()
            .map_err(plot_err)?;
        for (from, row) in m.iter().enumerate() {
            for (to, &n) in row.iter().enumerate() {
                let t = n as f64 / max;
                // White to dark blue.
                let c = RGBColor(
                    (255.0 - 215.0 * t) as u8,
                    (255.0 - 175.0 * t) as u8,
                    (255.0 - 95.0 * t) as u8,
                );
                let (x, y) = (to as f64, from as f64);
                chart
                    .draw_series(std::iter::once(Rectangle::new(
                        [(x, y), (x + 1.0, y + 1.0)],
                        c.filled(),
                    )))
                    .map_err(plot_err)?;
                if p <= 16 {
                    let ink = if t > 0.5 { WHITE } else { BLACK };
                    chart
                        .draw_series(std::iter::once(Text::new(
                            n.to_string(),
                            (x + 0.4, y + 0.45),
                            ("sans-serif", 14).into_font().color(&ink),
                        )))
                        .map_err(plot_err)?;
                }
            }
        }
        root.present().map_err(plot_err)?;
    }
    Ok(svg)
}

/// A file-name-safe version of `s`.
pub fn file_safe(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Where `run --trace` puts its files.
#[derive(Debug, Clone)]
pub struct TraceOut {
    /// The Chrome Trace Event files (`--trace DIR`).
    pub json_dir: std::path::PathBuf,
    /// The SVGs, beside the report.
    pub svg_dir: std::path::PathBuf,
}

/// Writes the trace of one run of the configuration `label`: the Chrome JSON into
/// `out.json_dir`, the timeline and the heat map into `out.svg_dir`.
pub fn write_traced_run(
    out: &TraceOut,
    label: &str,
    trace: &Trace,
    window: Window,
) -> Result<TraceSummary, String> {
    let name = file_safe(label);
    let json = out.json_dir.join(format!("{name}.json"));
    let mut file = std::fs::File::create(&json)
        .map_err(|e| format!("cannot write {}: {e}", json.display()))?;
    hypersteal::trace::write_chrome(trace, &mut file)
        .map_err(|e| format!("cannot write {}: {e}", json.display()))?;
    let matrix = trace.transfer_matrix();
    let timeline_file = format!("timeline-{name}.svg");
    let matrix_file = format!("transfers-{name}.svg");
    let write = |file: &str, text: String| {
        let path = out.svg_dir.join(file);
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
    };
    write(
        &timeline_file,
        timeline_svg(trace, window, &format!("{label}: busy / idle / asleep"))?,
    )?;
    write(
        &matrix_file,
        matrix_svg(&matrix, &format!("{label}: tasks moved (from → to)"))?,
    )?;
    let (finish_spread_s, busy_sd_pct) = balance(trace, window);
    Ok(TraceSummary {
        json: json.display().to_string(),
        timeline_svg: timeline_file,
        matrix_svg: matrix_file,
        finish_spread_s,
        busy_sd_pct,
        transfers: matrix.iter().flatten().sum(),
        dropped: trace.total_dropped(),
    })
}

/// The live view of `run --live`: one line per worker with its utilisation over the last
/// refresh and its visible queue length, redrawn five times a second on the terminal. Nothing
/// is drawn when stdout is not a terminal.
pub struct Live {
    bars: Option<(MultiProgress, ProgressBar, Vec<ProgressBar>)>,
}

/// Refreshes per second.
const LIVE_HZ: u64 = 5;

impl Live {
    /// A live view for pools of up to `max_workers` workers; hidden unless stdout is a terminal
    /// and `on`.
    pub fn new(on: bool) -> Live {
        if !on || !std::io::stdout().is_terminal() {
            return Live { bars: None };
        }
        let multi =
            MultiProgress::with_draw_target(ProgressDrawTarget::stdout_with_hz(LIVE_HZ as u8 * 2));
        let header = multi.add(ProgressBar::new_spinner());
        header.set_style(ProgressStyle::with_template("{spinner} {msg}").expect("a template"));
        Live {
            bars: Some((multi, header, Vec::new())),
        }
    }

    /// Whether anything is drawn.
    pub fn shown(&self) -> bool {
        self.bars.is_some()
    }

    /// Watches `pool` while `work` runs, labelled `label`.
    pub fn watch<R>(&mut self, label: &str, pool: &ThreadPool, work: impl FnOnce() -> R) -> R {
        let Some((multi, header, bars)) = &mut self.bars else {
            return work();
        };
        let p = pool.current_num_threads();
        while bars.len() < p {
            let bar = multi.add(ProgressBar::new(100));
            bar.set_style(
                ProgressStyle::with_template("  {prefix:>10} {bar:40} {pos:>3}% busy  {msg}")
                    .expect("a template"),
            );
            bars.push(bar);
        }
        for (w, bar) in bars.iter().enumerate() {
            if w < p {
                bar.set_prefix(format!("worker {w}"));
                bar.set_position(0);
                bar.set_message("");
            } else {
                bar.set_prefix("");
                bar.set_message("(not in this pool)");
                bar.set_position(0);
            }
        }
        header.set_message(label.to_string());
        let stop = std::sync::atomic::AtomicBool::new(false);
        let result = std::thread::scope(|s| {
            s.spawn(|| {
                let mut last = pool.stats();
                let mut t = Instant::now();
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(1000 / LIVE_HZ));
                    let now = pool.stats();
                    let dt = t.elapsed().as_secs_f64();
                    t = Instant::now();
                    let queues = pool.queue_lengths();
                    for (w, bar) in bars.iter().enumerate().take(p) {
                        let idle = now.workers[w]
                            .idle
                            .saturating_sub(last.workers[w].idle)
                            .as_secs_f64();
                        let busy = if dt > 0.0 {
                            (1.0 - idle / dt).clamp(0.0, 1.0)
                        } else {
                            0.0
                        };
                        bar.set_position((100.0 * busy).round() as u64);
                        let ran = now.workers[w].executed + now.workers[w].injected;
                        let ran_before = last.workers[w].executed + last.workers[w].injected;
                        bar.set_message(format!(
                            "queue {:>4}  tasks/s {:>9.0}",
                            queues[w],
                            ran.saturating_sub(ran_before) as f64 / dt.max(1e-9)
                        ));
                    }
                    header.tick();
                    last = now;
                }
            });
            let r = work();
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
            r
        });
        result
    }

    /// Clears the view.
    pub fn finish(self) {
        if let Some((multi, header, bars)) = self.bars {
            for b in bars {
                b.finish_and_clear();
            }
            header.finish_and_clear();
            let _ = multi.clear();
        }
    }
}

/// A short text rendering of a transfer matrix (for the terminal and tests).
pub fn matrix_text(m: &[Vec<u64>]) -> String {
    let mut s = String::new();
    for row in m {
        let cells: Vec<String> = row.iter().map(|n| format!("{n:>6}")).collect();
        let _ = writeln!(s, "{}", cells.join(""));
    }
    s
}
