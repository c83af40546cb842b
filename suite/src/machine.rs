//! The machine a report was measured on, and timestamps without a date
//! library.

use serde::{Deserialize, Serialize};
use std::time::{SystemTime, UNIX_EPOCH};

/// What every report states about the machine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    /// CPU model (`model name` in `/proc/cpuinfo`).
    pub cpu: String,
    /// Logical cores available to the process.
    pub cores: usize,
    /// Operating system (`PRETTY_NAME` of `/etc/os-release`) and kernel.
    pub os: String,
    /// Architecture the binary was built for.
    pub arch: String,
    /// The layout hypersteal reads (`hypersteal::hardware::Hardware`), in one line: the map
    /// its hardware placement lays workers onto.
    #[serde(default)]
    pub layout: String,
}

impl Machine {
    /// Describes the machine this process runs on.
    pub fn detect() -> Self {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let cpu = cpuinfo
            .lines()
            .find_map(|l| {
                let (k, v) = l.split_once(':')?;
                (k.trim() == "model name").then(|| v.trim().to_string())
            })
            .unwrap_or_else(|| "unknown CPU".to_string());
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let release = std::fs::read_to_string("/etc/os-release").unwrap_or_default();
        let pretty = release
            .lines()
            .find_map(|l| l.strip_prefix("PRETTY_NAME="))
            .map(|v| v.trim_matches('"').to_string())
            .unwrap_or_else(|| std::env::consts::OS.to_string());
        let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
            .map(|k| format!(", kernel {}", k.trim()))
            .unwrap_or_default();
        Machine {
            cpu,
            cores,
            os: format!("{pretty}{kernel}"),
            arch: std::env::consts::ARCH.to_string(),
            layout: hypersteal::hardware::Hardware::detect().to_string(),
        }
    }

    /// One line: `AMD EPYC, 2 cores, Ubuntu 24.04 (x86_64)`.
    pub fn summary(&self) -> String {
        format!(
            "{}, {} cores, {} ({})",
            self.cpu, self.cores, self.os, self.arch
        )
    }
}

/// The memory available to new allocations without swapping, in bytes
/// (`MemAvailable` of `/proc/meminfo`); `None` where that cannot be read.
pub fn available_memory() -> Option<u64> {
    parse_mem_available(&std::fs::read_to_string("/proc/meminfo").ok()?)
}

/// `MemAvailable` (in kB) of the text of `/proc/meminfo`, in bytes.
fn parse_mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().next()?.parse().ok()?;
    kb.checked_mul(1024)
}

/// The current UTC time as `(compact, readable)`: `20250101-120000` for a
/// directory name and `2025-01-01 12:00:00 UTC`.
pub fn timestamp() -> (String, String) {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (y, mo, d) = civil_from_days((secs / 86_400) as i64);
    let s = secs % 86_400;
    let (h, mi, se) = (s / 3600, s % 3600 / 60, s % 60);
    (
        format!("{y:04}{mo:02}{d:02}-{h:02}{mi:02}{se:02}"),
        format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{se:02} UTC"),
    )
}

/// Year, month, day of a day count since 1970-01-01 (Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// Copies the files `hypersteal::hardware::Hardware` reads from the tree at `from` (`/` for
/// the live machine) into `to`, as the fixtures under `tests/fixtures/hardware/` hold them: the
/// online CPUs, each CPU's topology and caches, the NUMA nodes' CPU lists, a hybrid part's core
/// lists, and the `Cpus_allowed_list` line of the process's status. `Hardware::from_root(to)`
/// then reads what `Hardware::from_root(from)` reads. Returns the number of files written.
pub fn record_layout(from: &std::path::Path, to: &std::path::Path) -> std::io::Result<usize> {
    use std::fs;
    use std::path::Path;
    let mut written = 0;
    let mut copy = |rel: &Path| -> std::io::Result<()> {
        if let Ok(text) = fs::read_to_string(from.join(rel)) {
            let dest = to.join(rel);
            if let Some(dir) = dest.parent() {
                fs::create_dir_all(dir)?;
            }
            fs::write(dest, text)?;
            written += 1;
        }
        Ok(())
    };
    let system = Path::new("sys/devices/system");
    copy(&system.join("cpu/online"))?;
    let entries = |dir: &Path, prefix: &str| -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(from.join(dir))
            .map(|d| {
                d.filter_map(Result::ok)
                    .filter_map(|e| e.file_name().into_string().ok())
                    .filter(|n| {
                        n.strip_prefix(prefix)
                            .is_some_and(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()))
                    })
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    };
    for cpu in entries(&system.join("cpu"), "cpu") {
        let dir = system.join("cpu").join(&cpu);
        for f in [
            "core_id",
            "physical_package_id",
            "thread_siblings_list",
            "core_cpus_list",
        ] {
            copy(&dir.join("topology").join(f))?;
        }
        for index in entries(&dir.join("cache"), "index") {
            for f in ["level", "type", "shared_cpu_list"] {
                copy(&dir.join("cache").join(&index).join(f))?;
            }
        }
    }
    for node in entries(&system.join("node"), "node") {
        copy(&system.join("node").join(node).join("cpulist"))?;
    }
    copy(Path::new("sys/devices/cpu_atom/cpus"))?;
    copy(Path::new("sys/devices/cpu_core/cpus"))?;
    if let Some(line) = fs::read_to_string(from.join("proc/self/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Cpus_allowed_list:"))
                .map(str::to_string)
        })
    {
        let dest = to.join("proc/self/status");
        fs::create_dir_all(dest.parent().expect("a parent"))?;
        fs::write(dest, format!("Name:\thypersteal-suite\n{line}\n"))?;
        written += 1;
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
        let (dir, readable) = timestamp();
        assert_eq!(dir.len(), 15);
        assert!(readable.ends_with("UTC"));
    }

    #[test]
    fn mem_available() {
        let text = "MemTotal:       24684144 kB\nMemFree:        22000000 kB\n\
                    MemAvailable:   23000000 kB\n";
        assert_eq!(parse_mem_available(text), Some(23_000_000 * 1024));
        assert_eq!(parse_mem_available("MemTotal: 5 kB\n"), None);
    }

    #[test]
    fn detect() {
        let m = Machine::detect();
        assert!(m.cores >= 1);
        assert!(m.summary().contains("cores"));
    }
}
