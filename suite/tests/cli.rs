//! The `hypersteal-suite` binary: argument errors (exit status 2 and the
//! valid names, before anything is measured), a tiny `run` producing JSON,
//! `report DIR`, `topology`, and `overhead`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use hypersteal::{Policy, Topology};
use hypersteal_suite::Workload;

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

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A fresh, empty scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "hypersteal-suite-test-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn assert_usage_error(args: &[&str], must_list: &[&str]) {
    let o = suite(args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    for name in must_list {
        assert!(err.contains(name), "{args:?}: `{name}` missing from: {err}");
    }
}

#[test]
fn unknown_names_exit_2_listing_the_valid_ones() {
    assert_usage_error(&["run", "--workload", "nope"], &Workload::NAMES);
    assert_usage_error(&["run", "--workload", "fib,bogus"], &Workload::NAMES);
    assert_usage_error(&["run", "--policy", "fifo"], &Policy::NAMES);
    assert_usage_error(&["run", "--policy", "rp,whatever"], &Policy::NAMES);
    let topologies: Vec<&str> = Topology::ALL.iter().map(|t| t.name()).collect();
    assert_usage_error(&["run", "--topology", "star"], &topologies);
    assert_usage_error(&["topology", "--topology", "star"], &topologies);
    assert_usage_error(&["overhead", "--policy", "nope"], &Policy::NAMES);
}

#[test]
fn bad_numbers_and_lists_exit_2() {
    assert_usage_error(&["run", "--threads", "0"], &["at least 1"]);
    assert_usage_error(&["run", "--threads", "1,0,2"], &["at least 1"]);
    assert_usage_error(&["run", "--threads", "two"], &["1 to 1024"]);
    assert_usage_error(&["run", "--threads", "1,,2"], &["empty item"]);
    assert_usage_error(&["run", "--threads", "5000"], &["1024"]);
    assert_usage_error(&["run", "--workload", "fib,,nqueens"], &["empty item"]);
    assert_usage_error(&["run", "--workload", "fib:x"], &["fib"]);
    assert_usage_error(&["run", "--runs", "0"], &["at least 1"]);
    assert_usage_error(&["run", "--format", "xml"], &["table", "json", "csv"]);
    assert_usage_error(&["run", "--schedules", "fastest"], &["guided", "trapezoid"]);
    assert_usage_error(&["topology", "--threads", "0"], &["at least 1"]);
    assert_usage_error(&["run", "--placement", "numa"], &["numa", "hardware", "os"]);
    assert_usage_error(
        &["quick", "--no-pin", "--placement", "os"],
        &["--placement", "--no-pin"],
    );
    assert_usage_error(&["no-such-command"], &["unrecognized"]);
    assert_usage_error(&["run", "--no-such-flag"], &[]);
}

/// The simulator's lists and costs are checked before any simulation starts.
#[test]
fn sim_refuses_empty_lists_and_overflowing_costs() {
    assert_usage_error(&["sim", "--procs", ""], &["--procs", "empty item"]);
    assert_usage_error(&["sim", "--procs", "1,,2"], &["--procs", "empty item"]);
    assert_usage_error(&["sim", "--policy", "rp,"], &["--policy", "empty item"]);
    assert_usage_error(
        &["sim", "--topology", ",ring"],
        &["--topology", "empty item"],
    );
    assert_usage_error(
        &["sim", "--t-bus", "1e308"],
        &["t_bus", "0 to 1e12", "1e308"],
    );
    assert_usage_error(&["sim", "--t-work", "inf"], &["t_work", "0 to 1e12"]);
    assert_usage_error(
        &["sim", "--workload", "split:18446744073709551616"],
        &["split", "at most 10^18", "18446744073709551616"],
    );
    assert_usage_error(
        &["sim", "--workload", "search:1000:cutoff=3,cutoff=4"],
        &["`cutoff`", "twice"],
    );
    assert_usage_error(
        &["sim", "--workload", "sat:20:poll=2,poll=3"],
        &["`poll`", "twice"],
    );
    // Checked before the tables' minutes of computing (the test would take them otherwise).
    assert_usage_error(
        &["sim", "papers", "--out", "/proc/forbidden"],
        &["--out /proc/forbidden", "cannot create"],
    );
}

#[test]
fn bad_timing_flags_exit_2() {
    for cmd in [&["run"][..], &["quick"], &["overhead"], &[]] {
        let with = |extra: &[&'static str]| [cmd, extra].concat();
        assert_usage_error(
            &with(&["--runs", "5", "--max-runs", "3"]),
            &["--max-runs 3", "--runs 5"],
        );
        assert_usage_error(&with(&["--precision", "0"]), &["precision", "above 0"]);
        assert_usage_error(&with(&["--precision", "250"]), &["at most 100"]);
        assert_usage_error(&with(&["--budget=-1"]), &["budget", "seconds"]);
        assert_usage_error(&with(&["--budget", "soon"]), &["budget", "seconds"]);
        assert_usage_error(&with(&["--max-runs", "0"]), &["at least 1"]);
        assert_usage_error(&with(&["--runs", "20000"]), &["at most 10000"]);
    }
}

#[test]
fn an_out_that_cannot_be_written_exits_2_before_measuring() {
    let dir = scratch("out");
    let file = dir.join("a-file");
    std::fs::write(&file, "x").unwrap();
    let file = file.to_str().unwrap();
    let under_file = format!("{file}/sub");
    for out in [
        file,
        under_file.as_str(),
        "/proc/hypersteal-suite-cannot-be-here",
    ] {
        for cmd in [
            &["run", "--workload", "fib:10"][..],
            &["quick"],
            &[],
            &["overhead"],
        ] {
            let args = [cmd, &["--out", out]].concat();
            let o = suite(&args);
            let err = stderr(&o);
            assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
            assert!(
                err.contains("--out") && err.contains(out),
                "{args:?}: {err}"
            );
            assert!(err.contains("can write"), "{args:?}: {err}");
            // Refused up front: nothing was measured or printed.
            assert!(o.stdout.is_empty(), "{args:?}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sizes_that_cannot_fit_in_memory_exit_2() {
    // quicksort keeps three arrays of 8-byte keys: 96 GiB for 2^32 keys.
    let need = 3u64 * 8 * (1u64 << 32);
    let available = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .find_map(|l| l.strip_prefix("MemAvailable:"))
                .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        })
        .map(|kb| kb * 1024);
    match available {
        // Where the size fits (or the memory is unknown) there is nothing to refuse.
        Some(a) if a < need => {}
        _ => return,
    }
    for cmd in ["run", "overhead"] {
        assert_usage_error(
            &[cmd, "--workload", "quicksort:4294967296"],
            &["quicksort:4294967296", "GiB", "memory", "smaller size"],
        );
    }
    assert_usage_error(
        &["run", "--workload", "fib:10,mergesort:4294967296"],
        &["mergesort:4294967296", "memory"],
    );
}

#[test]
fn bad_sim_flags_exit_2_before_anything_runs() {
    assert_usage_error(&["sim", "--idle", "nap"], &["park", "poll"]);
    assert_usage_error(&["sim", "--policy", "fifo"], &Policy::NAMES);
    assert_usage_error(&["sim", "--procs", "0"], &["1 to 16384"]);
    assert_usage_error(&["sim", "--procs", "16385"], &["1 to 16384"]);
    assert_usage_error(&["sim", "--topology", "star"], &["hypercube"]);
    assert_usage_error(
        &["sim", "--workload", "tree"],
        &["split:W", "queens:N", "uts:T1", "sat:VARS", "puzzle15:K"],
    );
    assert_usage_error(&["sim", "--workload", "uts:T9"], &["T1", "T3L"]);
    assert_usage_error(
        &["sim", "--workload", "sat:40,depth=3"],
        &["depth=3", "cutoff=D"],
    );
    assert_usage_error(
        &["sim", "--workload", "sat:30:split=middle"],
        &["split", "middle", "half, bottom or top"],
    );
    assert_usage_error(&["sim", "--workload", "sat:200"], &["vars", "200"]);
    assert_usage_error(
        &["sim", "--workload", "sat:30,terms=40"],
        &["not a tautology", "another seed"],
    );
    assert_usage_error(
        &["sim", "--workload", "sat:30", "--cutoff-depth", "3"],
        &["cutoff=D"],
    );
    assert_usage_error(
        &["sim", "--workload", "puzzle15:2,bound=55"],
        &["bound 55", "43..=54", "optimal length 55"],
    );
    assert_usage_error(
        &["sim", "--workload", "puzzle15:2,bound=41"],
        &["bound 41", "43..=54"],
    );
    assert_usage_error(
        &["sim", "--workload", "puzzle15:9"],
        &["instance 9", "1, 2, 3"],
    );
    assert_usage_error(
        &["sim", "--workload", "puzzle15:2,depth=3"],
        &["depth", "instance, bound"],
    );
    assert_usage_error(
        &["sim", "--workload", "puzzle15:2:cutoff=x"],
        &["cutoff", "x"],
    );
    assert_usage_error(
        &["sim", "--workload", "puzzle15:2", "--cutoff-depth", "3"],
        &["cutoff=D"],
    );
    assert_usage_error(
        &["sim", "--cost", "cray"],
        &["default", "free", "ncube2", "ipsc2"],
    );
    assert_usage_error(&["sim", "--msg-base=-1"], &["msg_base"]);
    assert_usage_error(&["sim", "--cutoff-depth", "3"], &["tree workload"]);
    assert_usage_error(
        &["sim", "--workload", "search:1000:b=9"],
        &["b (branch slots per node)", "2 to 8", "9"],
    );
    assert_usage_error(
        &["sim", "--workload", "search:1000", "--cutoff-depth", "3"],
        &["--cutoff-depth", "search:NODES:cutoff=D"],
    );
    assert_usage_error(
        &["sim", "--isoefficiency", "--efficiency", "1.5"],
        &["between 0 and 1"],
    );
    assert_usage_error(
        &["sim", "isoefficiency", "--cutoff-depth", "3"],
        &["divisible work"],
    );
    assert_usage_error(&["sim", "isofoo"], &["isoefficiency"]);
    // `sim papers` runs at its own settings: a flag it would ignore is refused, by name.
    assert_usage_error(
        &["sim", "papers", "--seed", "2", "--cost", "ncube2"],
        &["--cost", "only --seed and --out apply"],
    );
    assert_usage_error(
        &["sim", "papers", "--procs=8"],
        &["--procs", "only --seed and --out apply"],
    );
    assert_usage_error(&["sim", "--heartbeat=-1"], &["--heartbeat", "0 or more"]);
    assert_usage_error(
        &["sim", "isoefficiency", "--heartbeat", "5"],
        &["receiver-initiated"],
    );
    // A good one runs: a tree cut at depth 2, idle processors polling.
    let o = suite(&[
        "sim",
        "--policy",
        "rp",
        "--procs",
        "1,4",
        "--workload",
        "fib:16:2",
        "--idle",
        "poll",
        "--cutoff-depth",
        "2",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["idle"], "poll");
    assert_eq!(doc["cutoff_depth"], 2);
    let rows = doc["results"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(
        rows[0]["time"], rows[0]["work"],
        "one processor does all the work"
    );
    assert!(doc.get("heartbeat").is_none(), "recorded only when set");
    // A sender-initiated policy with a heartbeat: the document says which.
    let o = suite(&[
        "sim",
        "--policy",
        "acwn",
        "--procs",
        "4",
        "--workload",
        "fib:16:2",
        "--heartbeat",
        "10",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["heartbeat"], 10.0);
}

#[test]
fn a_cost_preset_reaches_the_run_and_a_flag_overrides_one_of_its_values() {
    let cost = |args: &[&str]| {
        let mut all = vec![
            "sim",
            "--policy",
            "rp",
            "--procs",
            "2",
            "--workload",
            "split:1000",
            "--format",
            "json",
        ];
        all.extend_from_slice(args);
        let out = suite(&all);
        assert!(out.status.success(), "{}", stderr(&out));
        let report: serde_json::Value =
            serde_json::from_str(&stdout(&out)).expect("sim --format json prints JSON");
        report["cost"].clone()
    };
    // Seed 002's Ncube/2 (section 5.3.6): a work message of 3.5 start-ups, a hop of 0.02.
    let ncube2 = cost(&["--cost", "ncube2"]);
    assert_eq!(ncube2["msg_base"], 1.0);
    assert_eq!(ncube2["transfer_base"], 3.5);
    assert_eq!(ncube2["msg_per_hop"], 0.02);
    assert_eq!(ncube2["transfer_per_hop"], 0.02);
    let default = cost(&[]);
    assert_eq!(default["msg_per_hop"], 0.1);
    assert_eq!(default["transfer_base"], 2.0);
    // A flag changes its own value and leaves the preset's others.
    let overridden = cost(&["--cost", "ncube2", "--transfer-base", "4"]);
    assert_eq!(overridden["transfer_base"], 4.0);
    assert_eq!(overridden["msg_per_hop"], 0.02);
}

#[test]
fn help_lists_the_commands() {
    let o = suite(&["--help"]);
    assert!(o.status.success());
    let out = stdout(&o);
    for cmd in ["run", "overhead", "report", "topology", "quick"] {
        assert!(out.contains(cmd), "{out}");
    }
}

const REQUIRED: [&str; 13] = [
    "workload",
    "size",
    "policy",
    "topology",
    "threads",
    "median_s",
    "worst_s",
    "cov",
    "speedup",
    "efficiency",
    "requests",
    "locality",
    "idle_fraction",
];

fn tiny_run(dir: &Path) -> serde_json::Value {
    let o = suite(&[
        "run",
        "--workload",
        "fib:16,mandelbrot:40,iters=50,matmul:16,tree-sum:8",
        "--policy",
        "rp,acwn:low=2,high=8",
        "--threads",
        "1,2",
        "--runs",
        "2",
        "--max-runs",
        "2",
        "--warmup",
        "1",
        "--schedules",
        "static,guided",
        "--no-pin",
        "--format",
        "json",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_slice(&o.stdout).expect("JSON on stdout")
}

#[test]
fn a_tiny_run_writes_json_report_and_plots() {
    let dir = scratch("run");
    let json = tiny_run(&dir);
    let rows = json["rows"].as_array().expect("rows");
    assert!(!rows.is_empty());
    for row in rows {
        for field in REQUIRED {
            assert!(row.get(field).is_some(), "{field} missing in {row}");
        }
        assert!(row["median_s"].as_f64().unwrap() > 0.0, "{row}");
    }
    let policies: Vec<&str> = rows.iter().map(|r| r["policy"].as_str().unwrap()).collect();
    for p in ["sequential", "rayon", "chili", "rp", "acwn"] {
        assert!(policies.contains(&p), "{p} missing: {policies:?}");
    }
    // A hypersteal row carries the pool's figures; loop rows their imbalance.
    let rp2 = rows
        .iter()
        .find(|r| r["policy"] == "rp" && r["threads"] == 2 && r["variant"] == "join")
        .unwrap();
    assert!(
        rp2["requests"].is_number() && rp2["locality"].is_number(),
        "{rp2}"
    );
    assert!(rows
        .iter()
        .any(|r| r["variant"] == "loop" && r["schedule"] == "guided" && r["sd_pct"].is_number()));
    assert!(rows.iter().any(|r| r["variant"] == "tasks"));
    assert!(json["machine"]["cpu"].is_string());
    // Two runs a point give no confidence interval: every row stopped at the
    // cap and is marked noisy; the baseline was timed before and after the
    // workload's other points (four runs and a drift); the settings and the
    // load check are recorded.
    for row in rows {
        let sequential = row["policy"] == "sequential";
        assert_eq!(row["runs"], if sequential { 4 } else { 2 }, "{row}");
        assert_eq!(row["drift"].is_number(), sequential, "{row}");
        assert_eq!(row["stop"], "max-runs", "{row}");
        assert!(row["ci_half_width"].is_null(), "{row}");
        let flags = row["flags"].as_array().unwrap();
        assert!(flags.iter().any(|f| f == "noisy"), "{row}");
    }
    assert_eq!(json["settings"]["max_runs"], 2);
    assert!(json["quiet"]["points"].as_u64().unwrap() as usize == rows.len());

    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("results.json")).unwrap()).unwrap();
    assert_eq!(saved, json);
    let report = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(
        report.contains("cores") && report.contains("### fib:16"),
        "{report}"
    );
    for part in ["## Flags", "`noisy` (", "Machine load", "±CI %", "runs P=2"] {
        assert!(report.contains(part), "{part} missing from the report");
    }
    for svg in ["speedup-fib.svg", "split-fib.svg", "loop-imbalance.svg"] {
        let text = std::fs::read_to_string(dir.join(svg)).unwrap();
        assert!(text.starts_with("<svg") && text.contains("<text"), "{svg}");
    }

    // `report DIR` rebuilds the report and plots from results.json alone.
    let again = scratch("report");
    std::fs::copy(dir.join("results.json"), again.join("results.json")).unwrap();
    let o = suite(&["report", again.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rebuilt = std::fs::read_to_string(again.join("report.md")).unwrap();
    assert_eq!(rebuilt, report);
    assert!(again.join("speedup-matmul.svg").exists());

    // CSV has a header and one line per row.
    let csv_dir = scratch("csv");
    let o = suite(&[
        "run",
        "--workload",
        "nqueens:6",
        "--policy",
        "grr",
        "--threads",
        "2",
        "--runs",
        "1",
        "--max-runs",
        "1",
        "--warmup",
        "0",
        "--no-pin",
        "--format",
        "csv",
        "--out",
        csv_dir.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let csv = stdout(&o);
    let mut lines = csv.lines();
    assert!(lines.next().unwrap().starts_with("workload,size,variant"));
    assert_eq!(lines.count(), 4, "{csv}"); // sequential, rayon, chili, grr
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&again);
    let _ = std::fs::remove_dir_all(&csv_dir);
}

/// A missing or malformed results file is bad input: exit 2, as every other usage error.
#[test]
fn report_of_a_missing_or_bad_file_fails() {
    let dir = scratch("bad");
    let o = suite(&["report", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("results.json"), "{}", stderr(&o));
    let missing = dir.join("nowhere").join("results.json");
    let o = suite(&["report", missing.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    std::fs::write(dir.join("results.json"), "{\"rows\": 3}").unwrap();
    let o = suite(&["report", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn topology_prints_graph_and_cores() {
    let o = suite(&["topology", "--topology", "hypercube", "--threads", "4"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("hypercube over 4 workers: diameter 2"),
        "{out}"
    );
    let worker0 = out
        .lines()
        .find(|l| l.trim_start().starts_with("0 "))
        .unwrap();
    assert!(worker0.contains("1 2") && worker0.contains("root"), "{out}");
    // Pinned (the default): every worker names a core or says why not.
    assert_eq!(out.lines().count(), 2 + 1 + 4, "{out}");

    let o = suite(&[
        "topology",
        "--topology",
        "ring",
        "--threads",
        "5",
        "--no-pin",
    ]);
    let out = stdout(&o);
    assert!(out.contains("ring over 5 workers: diameter 2"), "{out}");
    assert!(out.contains("not pinned"), "{out}");

    // Either placement pins every worker; on any machine both use the same set of CPUs.
    let cores = |placement: &str| {
        let o = suite(&["topology", "--threads", "2", "--placement", placement]);
        assert!(o.status.success(), "{}", stderr(&o));
        let out = stdout(&o);
        assert_eq!(out.lines().count(), 2 + 1 + 2, "{out}");
        out
    };
    let (hardware, os) = (cores("hardware"), cores("os"));
    assert!(hardware.contains("placement hardware"), "{hardware}");
    assert!(os.contains("placement os"), "{os}");
}

#[test]
fn overhead_reports_ns_per_join() {
    let o = suite(&[
        "overhead",
        "--workload",
        "fib:12,cutoff=0,tree-sum:8",
        "--policy",
        "rp,random-alloc",
        "--threads",
        "1,2",
        "--runs",
        "1",
        "--max-runs",
        "1",
        "--warmup",
        "0",
        "--no-pin",
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = json["overhead"].as_array().unwrap();
    // Per workload: sequential, sequential-fork, then (2 policies, rayon,
    // chili) at each of 2 worker counts.
    assert_eq!(rows.len(), 2 * (2 + 2 * 4));
    for r in rows {
        assert!(r["ns_per_join"].as_f64().unwrap() > 0.0, "{r}");
        assert!(r["joins"].as_u64().unwrap() > 100, "{r}");
        assert!(r["ratio_to_sequential"].is_number(), "{r}");
    }
}

#[test]
fn versus_gives_paired_ratios_and_refuses_too_few_rounds() {
    assert_usage_error(
        &["versus", "--rounds", "3"],
        &["rounds", "`3`", "at least 9"],
    );
    assert_usage_error(&["versus", "--policy", "fastest"], &["fastest", "grr-m"]);
    let o = suite(&[
        "versus",
        "--workload",
        "fib:16,cutoff=6,nqueens:7",
        "--policy",
        "grr-m,gradient",
        "--threads",
        "2",
        "--rounds",
        "9",
        "--no-pin",
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&o.stdout).unwrap();
    // Per workload: sequential, rayon, chili and the two policies.
    assert_eq!(rows.len(), 2 * 5);
    for r in &rows {
        assert_eq!(r["rounds"], 9, "{r}");
        assert!(r["median_s"].as_f64().unwrap() > 0.0, "{r}");
        let (q1, q3) = (
            r["to_rayon_iqr"][0].as_f64().unwrap(),
            r["to_rayon_iqr"][1].as_f64().unwrap(),
        );
        let mid = r["to_rayon"].as_f64().unwrap();
        assert!(q1 <= mid && mid <= q3, "{r}");
    }
    let rayon: Vec<&serde_json::Value> =
        rows.iter().filter(|r| r["contender"] == "rayon").collect();
    assert_eq!(rayon.len(), 2);
    assert!(rayon.iter().all(|r| r["to_rayon"] == 1.0));
}

#[test]
fn a_calibration_feeds_predict_and_sim() {
    let dir = scratch("calibrate");
    let file = dir.join("m.json");
    let o = suite(&[
        "calibrate",
        "--name",
        "m",
        "--workload",
        "fib:22,nqueens:8",
        "--threads",
        "1,2",
        "--runs",
        "3",
        "--no-pin",
        "--out",
        file.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let c: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(c["name"], "m");
    let entries = c["workloads"].as_array().unwrap();
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[0]["sim"], "fib:22:11");
    assert_eq!(entries[1]["sim"], "queens:8:3");
    for e in entries {
        assert!(e["work_ns"].as_f64().unwrap() > 0.0, "{e}");
        let threads: Vec<u64> = e["slowdown"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["threads"].as_u64().unwrap())
            .collect();
        assert_eq!(threads, [1, 2]);
    }

    // A report of the same workloads, and the prediction beside it.
    let results = dir.join("run");
    let o = suite(&[
        "run",
        "--workload",
        "fib:22,nqueens:8,matmul:16",
        "--policy",
        "rp,grr-m,acwn",
        "--threads",
        "1,2",
        "--runs",
        "2",
        "--max-runs",
        "2",
        "--schedules",
        "none",
        "--no-tasks",
        "--no-pin",
        "--format",
        "json",
        "--out",
        results.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = suite(&[
        "predict",
        "--calibration",
        file.to_str().unwrap(),
        "--results",
        results.to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let table = stdout(&o);
    assert!(
        table.contains("predicted") && table.contains("largest error"),
        "{table}"
    );
    let p: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("prediction.json")).unwrap()).unwrap();
    let rows = p["rows"].as_array().unwrap();
    // Every hypersteal row of the two simulated workloads (matmul is not simulated).
    assert_eq!(rows.len(), 2 * 3 * 2, "{p}");
    for r in rows {
        let (measured, predicted) = (
            r["measured"].as_f64().unwrap(),
            r["predicted"].as_f64().unwrap(),
        );
        assert!(predicted.is_finite() && predicted > 0.0, "{r}");
        let error = r["error"].as_f64().unwrap();
        assert!((error - (predicted / measured - 1.0)).abs() < 1e-9, "{r}");
        // One worker pays every task's overhead and steals nothing.
        if r["threads"] == 1 {
            assert!(predicted <= 1.0 + 1e-9, "{r}");
        }
    }
    assert!(std::fs::read_to_string(dir.join("prediction.md"))
        .unwrap()
        .contains("| fib:22 |"));

    // The simulator at the calibrated costs, at more processors than were measured.
    let o = suite(&[
        "sim",
        "--calibration",
        file.to_str().unwrap(),
        "--workload",
        "fib:25:10",
        "--policy",
        "rp",
        "--procs",
        "1,2,8",
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(s["calibration"], "m");
    assert_eq!(s["results"].as_array().unwrap().len(), 3);
    assert_eq!(s["cost"]["msg_base"], c["request_ns"]);

    // What does not fit a calibration is refused before anything runs.
    let f = file.to_str().unwrap();
    assert_usage_error(
        &["sim", "--calibration", f, "--workload", "split:1000"],
        &["fib, queens and uts"],
    );
    assert_usage_error(
        &["sim", "--calibration", f, "--workload", "uts:T1"],
        &["fib, queens", "uts"],
    );
    assert_usage_error(
        &["sim", "--calibration", f, "--isoefficiency"],
        &["--calibration"],
    );
    assert_usage_error(
        &["sim", "--calibration", f, "--cost", "ncube2"],
        &["--cost"],
    );
    let r = results.to_str().unwrap();
    assert_usage_error(
        &[
            "predict",
            "--calibration",
            f,
            "--results",
            r,
            "--format",
            "csv",
        ],
        &["csv"],
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_calibrations_and_calibrate_flags_exit_2() {
    let dir = scratch("bad-calibration");
    let missing = dir.join("none.json");
    let m = missing.to_str().unwrap();
    assert_usage_error(
        &["predict", "--calibration", m, "--results", m],
        &["none.json"],
    );
    assert_usage_error(
        &["sim", "--calibration", m, "--workload", "fib:20"],
        &["none.json"],
    );
    let garbage = dir.join("garbage.json");
    std::fs::write(&garbage, "{\"name\": 3}").unwrap();
    assert_usage_error(
        &[
            "sim",
            "--calibration",
            garbage.to_str().unwrap(),
            "--workload",
            "fib:20",
        ],
        &["garbage.json", "not a calibration"],
    );
    let negative = dir.join("negative.json");
    std::fs::write(
        &negative,
        r#"{"name":"m","machine":{"cpu":"x","cores":2,"os":"y","arch":"z"},"started":"","command":"",
            "placement":null,"request_ns":-5,"transfer_ns":1,"steals":1,"wake_ns":1,"wakes":1,
            "access_ns":1,"workloads":[]}"#,
    )
    .unwrap();
    assert_usage_error(
        &[
            "sim",
            "--calibration",
            negative.to_str().unwrap(),
            "--workload",
            "fib:20",
        ],
        &["negative.json", "request_ns", "-5"],
    );
    assert_usage_error(&["calibrate", "--name", "a b"], &["--name", "a b"]);
    assert_usage_error(
        &["calibrate", "--name", "m", "--workload", "mandelbrot:40"],
        &["mandelbrot", "fib up to n = 60, nqueens"],
    );
    assert_usage_error(
        &["calibrate", "--name", "m", "--runs", "1"],
        &["at least 3"],
    );
    assert_usage_error(
        &["calibrate", "--name", "m", "--workload", "fib:61"],
        &["n = 60"],
    );
    assert_usage_error(
        &["calibrate", "--name", "m", "--threads", "0"],
        &["at least 1"],
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn topology_records_the_layout_the_placement_reads() {
    let dir = scratch("record");
    let o = suite(&["topology", "--no-pin", "--record", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("recorded"), "{}", stdout(&o));
    // Read back through the path the live machine is read through: the same layout.
    let recorded = hypersteal::hardware::Hardware::from_root(&dir);
    if cfg!(target_os = "linux") {
        assert_eq!(recorded, Some(hypersteal::hardware::Hardware::detect()));
    }
    let _ = std::fs::remove_dir_all(&dir);
}
