//! `hypersteal-suite run --trace DIR` and `--live`: one Chrome trace per hypersteal
//! configuration, its timeline and transfer matrix in the report, seed 001's balance metric in
//! the rows; the live view draws nothing when stdout is not a terminal.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs the suite binary under coreutils' `timeout`, so a run that hangs fails its test (exit
/// status 124) instead of stalling CI.
fn suite(args: &[&str]) -> Output {
    let out = Command::new("timeout")
        .args([
            "--kill-after=10",
            "300",
            env!("CARGO_BIN_EXE_hypersteal-suite"),
        ])
        .args(args)
        .output()
        .expect("the binary runs under `timeout`");
    assert_ne!(
        out.status.code(),
        Some(124),
        "hypersteal-suite {args:?} ran past 300 s (a hang)"
    );
    out
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "hypersteal-suite-trace-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn tiny(out: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "run",
        "--workload",
        "fib:22",
        "--policy",
        "rp,acwn",
        "--threads",
        "2",
        "--runs",
        "1",
        "--max-runs",
        "1",
        "--warmup",
        "0",
        "--no-pin",
        "--no-baselines",
        "--schedules",
        "none",
        "--no-tasks",
        "--format",
        "json",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    suite(&args)
}

#[test]
fn run_trace_writes_one_trace_per_configuration_and_the_report_shows_them() {
    let out = scratch("out");
    let traces = scratch("traces");
    let o = tiny(&out, &["--trace", traces.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("results as JSON");
    let rows = json["rows"].as_array().unwrap();
    let hs: Vec<&serde_json::Value> = rows
        .iter()
        .filter(|r| r["policy"] == "rp" || r["policy"] == "acwn")
        .collect();
    assert_eq!(hs.len(), 2, "{rows:?}");
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("## Balance (seed 001)"), "{report}");
    assert!(report.contains("## Traces"), "{report}");
    for r in hs {
        assert!(r["busy_sd_pct"].is_number(), "{r}");
        let t = &r["trace"];
        let file = PathBuf::from(t["json"].as_str().unwrap());
        assert!(file.starts_with(&traces), "{file:?}");
        let chrome: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let tracks = chrome["traceEvents"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["name"] == "thread_name")
            .count();
        assert_eq!(tracks, 2, "{file:?}");
        // The flow arrows are the transfers the summary counts.
        let flows = chrome["traceEvents"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["ph"] == "s")
            .count() as u64;
        assert_eq!(Some(flows), t["transfers"].as_u64(), "{r}");
        for svg in ["timeline_svg", "matrix_svg"] {
            let name = t[svg].as_str().unwrap();
            let text = std::fs::read_to_string(out.join(name)).unwrap();
            assert!(
                text.starts_with("<svg") && text.contains("worker"),
                "{name}"
            );
            assert!(report.contains(name), "{name} not in the report");
        }
        assert!(t["finish_spread_s"].as_f64().unwrap() >= 0.0);
    }
    let _ = std::fs::remove_dir_all(&out);
    let _ = std::fs::remove_dir_all(&traces);
}

#[test]
fn a_trace_dir_that_cannot_be_written_is_a_usage_error() {
    let out = scratch("bad-out");
    let file = scratch("a-file");
    std::fs::write(&file, "not a directory").unwrap();
    let o = tiny(&out, &["--trace", file.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--trace") && err.contains("not a directory"),
        "{err}"
    );
    let _ = std::fs::remove_file(&file);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn live_view_is_silent_when_stdout_is_not_a_terminal() {
    let out = scratch("live");
    let o = tiny(&out, &["--live"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // Only the JSON results: no progress drawing, no escape sequences.
    assert!(!o.stdout.contains(&0x1b), "escape codes on a pipe");
    let _: serde_json::Value = serde_json::from_slice(&o.stdout).expect("pure JSON on stdout");
    let _ = std::fs::remove_dir_all(&out);
}
