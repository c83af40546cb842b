//! The rows rendered as tables: the cells (times, ratios, confidence intervals), the detail and
//! overhead tables, and their markdown, aligned-text and CSV forms.

use std::fmt::Write as _;

use super::{flags, Flag, OverheadRow, Row};

pub(super) fn row_of(cells: &[&str]) -> Vec<String> {
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

pub(super) fn opt(v: Option<f64>, f: impl Fn(f64) -> String) -> String {
    v.map_or_else(|| "-".to_string(), f)
}

/// A row's median in ms, with `*` when the row is noisy and `~` when the
/// baseline drifted.
pub(super) fn time_cell(r: &Row) -> String {
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
pub(super) fn ratio_cell(r: &Row, v: f64) -> String {
    if flags::has(r, Flag::SuperLinear) || flags::has(r, Flag::BeatsSequential) {
        format!("[{v:.2}]")
    } else {
        format!("{v:.2}")
    }
}

/// The median's confidence half-width in % (`-` below 6 runs).
pub(super) fn ci_cell(r: &Row) -> String {
    opt(r.ci_half_width, |v| format!("{:.1}", 100.0 * v))
}

pub(super) fn variant_of(r: &Row) -> String {
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
