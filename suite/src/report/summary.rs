//! What the terminal and the report say about a run as a whole: the summary and the verdict,
//! the flagged rows, the quiet-machine check and the speed warning, and the balance section.

use std::fmt::Write as _;

use super::{
    ci_cell, flags, markdown_table, ms, opt, row_of, text_table, variant_of, Flag, QuietCheck,
    Results, Row,
};

/// The quiet-machine check, as markdown list items and warnings.
pub(super) fn quiet_markdown(q: Option<&QuietCheck>) -> String {
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
pub(super) fn flags_markdown(rows: &[Row]) -> String {
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
pub(super) fn balance_markdown(rows: &[Row]) -> String {
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
