//! The machine's layout, as far as placing workers needs it: which CPUs this process may run on,
//! which of them are SMT siblings of one core, which share an L2 or an L3 cache, which NUMA node
//! and package each belongs to, and, on hybrid parts, which are performance and which efficiency
//! cores.
//!
//! On Linux the layout is read from sysfs (`/sys/devices/system/cpu`, `/sys/devices/system/node`)
//! and the allowed CPUs from `Cpus_allowed_list` in `/proc/self/status`, which is the mask
//! `sched_getaffinity` returns: `taskset`, cgroup cpusets and an MPI launcher's binding are all
//! honoured. [`Hardware::from_root`] reads the same files under another root directory, which is
//! how the tests read the recorded trees under `tests/fixtures/hardware/`. Files that are missing
//! leave their part of the layout unknown (one package, one node, no shared caches), never an
//! error: containers and virtual machines often hide some of them. Other systems get the
//! fallback layout of [`Hardware::flat`]: the CPUs `core_affinity` lists, each its own core.
//!
//! The layout is read with plain file reads rather than a crate: `hwlocality` binds the C
//! library hwloc, which would have to be built or installed; `sysinfo` does not report caches or
//! SMT siblings; `core_affinity` lists CPU ids only. The handful of sysfs files needed here are
//! stable kernel interfaces.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// How a pool's workers are laid onto the CPUs it pins them to
/// ([`ThreadPoolBuilder::placement`](crate::ThreadPoolBuilder::placement), `HYPERSTEAL_PLACEMENT`).
///
/// Worker numbers are what the virtual topology connects: under the hardware placement,
/// neighbours in the topology run on CPUs close in the machine (`docs/design.md`, "Placement").
/// Without pinning a placement only says where workers are meant to run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Placement {
    /// Workers follow the hardware's closeness ([`Hardware::mapped_order`], then
    /// [`Hardware::by_closeness`]): whole cores before SMT siblings, cores that share caches
    /// next to each other, NUMA nodes crossed last. `hardware` in strings.
    #[default]
    Hardware,
    /// Workers take the allowed CPUs in the operating system's numbering. `os` in strings.
    OsOrder,
}

impl Placement {
    /// The accepted spellings, for error messages.
    pub const NAMES: &'static str = "`hardware` or `os`";
}

impl std::fmt::Display for Placement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Placement::Hardware => "hardware",
            Placement::OsOrder => "os",
        })
    }
}

impl std::str::FromStr for Placement {
    type Err = String;

    /// Parses `hardware` or `os` (ASCII case ignored, surrounding blanks trimmed).
    fn from_str(s: &str) -> Result<Placement, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "hardware" => Ok(Placement::Hardware),
            "os" => Ok(Placement::OsOrder),
            _ => Err(format!(
                "unknown placement `{}`; expected {}",
                crate::policy::shown(s),
                Placement::NAMES
            )),
        }
    }
}

/// What kind of core a CPU belongs to, on parts that mix kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CoreKind {
    /// A performance core of a hybrid part, or any core of a part with one kind.
    Performance,
    /// An efficiency core of a hybrid part (`/sys/devices/cpu_atom/cpus` on Intel).
    Efficiency,
}

/// One CPU (hardware thread) this process may run on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cpu {
    /// The operating system's number for it (what `taskset` and `core_affinity` use).
    pub id: usize,
    /// The lowest CPU id among its SMT siblings: CPUs with equal `core` are one core.
    pub core: usize,
    /// Its package (socket).
    pub package: usize,
    /// Its NUMA node.
    pub node: usize,
    /// The lowest CPU id sharing its L2 cache, if the cache is known.
    pub l2: Option<usize>,
    /// The lowest CPU id sharing its L3 (last-level) cache, if the cache is known.
    pub l3: Option<usize>,
    /// Its core kind.
    pub kind: CoreKind,
}

/// The CPUs this process may run on, with their layout (module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hardware {
    cpus: Vec<Cpu>,
    restricted: bool,
}

impl Hardware {
    /// The running machine's layout: sysfs on Linux, [`Hardware::flat`] elsewhere or when sysfs
    /// cannot be read.
    pub fn detect() -> Hardware {
        if cfg!(target_os = "linux") {
            if let Some(hw) = Hardware::from_root(Path::new("/")).filter(|hw| !hw.is_empty()) {
                return hw;
            }
        }
        let ids = core_affinity::get_core_ids()
            .unwrap_or_default()
            .into_iter()
            .map(|c| c.id)
            .collect::<Vec<_>>();
        Hardware::flat(&ids)
    }

    /// A layout with nothing known but the CPU ids: each its own core, one package, one node,
    /// no shared caches.
    pub fn flat(ids: &[usize]) -> Hardware {
        let ids: BTreeSet<usize> = ids.iter().copied().collect();
        Hardware {
            cpus: ids
                .into_iter()
                .map(|id| Cpu {
                    id,
                    core: id,
                    package: 0,
                    node: 0,
                    l2: None,
                    l3: None,
                    kind: CoreKind::Performance,
                })
                .collect(),
            restricted: false,
        }
    }

    /// The layout recorded under `root` (a directory holding `sys/devices/system/...` and,
    /// optionally, `proc/self/status`), read exactly as [`Hardware::detect`] reads `/`. `None`
    /// when `root` has no CPU list at all.
    pub fn from_root(root: &Path) -> Option<Hardware> {
        let cpu_dir = root.join("sys/devices/system/cpu");
        let online = read_list(&cpu_dir.join("online"))?;
        let allowed = fs::read_to_string(root.join("proc/self/status"))
            .ok()
            .and_then(|status| {
                status
                    .lines()
                    .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
                    .and_then(|v| parse_list(v.trim()))
            });
        let ids: Vec<usize> = match &allowed {
            Some(allowed) => online.intersection(allowed).copied().collect(),
            None => online.iter().copied().collect(),
        };
        let restricted = ids.len() < online.len();
        let nodes = read_nodes(&root.join("sys/devices/system/node"));
        let efficiency = read_list(&root.join("sys/devices/cpu_atom/cpus")).unwrap_or_default();
        let cpus = ids
            .into_iter()
            .map(|id| {
                let dir = cpu_dir.join(format!("cpu{id}"));
                let topo = dir.join("topology");
                let core = read_list(&topo.join("thread_siblings_list"))
                    .or_else(|| read_list(&topo.join("core_cpus_list")))
                    .and_then(|s| s.first().copied())
                    .unwrap_or(id);
                let package = read_number(&topo.join("physical_package_id")).unwrap_or(0);
                let (l2, l3) = read_caches(&dir.join("cache"));
                Cpu {
                    id,
                    core,
                    package,
                    node: nodes
                        .iter()
                        .find(|(_, cpus)| cpus.contains(&id))
                        .map_or(0, |(node, _)| *node),
                    l2,
                    l3,
                    kind: if efficiency.contains(&id) {
                        CoreKind::Efficiency
                    } else {
                        CoreKind::Performance
                    },
                }
            })
            .collect();
        Some(Hardware { cpus, restricted })
    }

    /// Whether the process may run on fewer CPUs than the machine has online: `taskset`, a
    /// cpuset or a launcher (an MPI runtime binding its ranks) gave it a share of the machine,
    /// so the CPUs it was given are its own to pin to (`docs/design.md`, "Pinning").
    pub fn restricted(&self) -> bool {
        self.restricted
    }

    /// The CPUs, by id.
    pub fn cpus(&self) -> &[Cpu] {
        &self.cpus
    }

    /// Whether no CPU is known.
    pub fn is_empty(&self) -> bool {
        self.cpus.is_empty()
    }

    /// The number of cores among the allowed CPUs (SMT siblings count once).
    pub fn cores(&self) -> usize {
        self.cpus
            .iter()
            .map(|c| (c.package, c.core))
            .collect::<BTreeSet<_>>()
            .len()
    }

    /// The CPUs in *mapped order*: the order in which workers are laid onto the machine under
    /// [`Placement::Hardware`] (`docs/design.md`, "Placement").
    ///
    /// First one CPU of every core, then the second SMT thread of every core, and so on, so that
    /// a pool smaller than the machine gets whole cores; performance cores before efficiency
    /// cores. Within each round the CPUs go by NUMA node, package, L3, L2 and core, so that
    /// consecutive CPUs are as close as the machine allows.
    pub fn mapped_order(&self) -> Vec<usize> {
        let mut keyed: Vec<((usize, CoreKind), &Cpu)> = Vec::with_capacity(self.cpus.len());
        for cpu in &self.cpus {
            // The thread's rank among its core's siblings.
            let rank = self
                .cpus
                .iter()
                .filter(|c| c.core == cpu.core && c.package == cpu.package && c.id < cpu.id)
                .count();
            keyed.push(((rank, cpu.kind), cpu));
        }
        keyed.sort_by_key(|((rank, kind), cpu)| {
            (
                *rank,
                *kind,
                cpu.node,
                cpu.package,
                cpu.l3,
                cpu.l2,
                cpu.core,
                cpu.id,
            )
        });
        keyed.into_iter().map(|(_, cpu)| cpu.id).collect()
    }

    /// Orders `ids` (CPUs of this layout) by closeness: node, package, L3, L2, core, id. A pool's
    /// workers are laid onto the CPUs it took in this order, so that hypercube dimension 0
    /// joins SMT siblings or cores sharing an L2, the next dimensions cores sharing an L3, and
    /// the highest ones cross nodes; mesh rows stay inside a cache domain where it is wide
    /// enough.
    pub fn by_closeness(&self, ids: &mut [usize]) {
        ids.sort_by_key(|id| {
            match self.cpus.iter().find(|c| c.id == *id) {
                Some(c) => (0, c.kind, c.node, c.package, c.l3, c.l2, c.core, c.id),
                // Not in the layout: after every known CPU, in id order.
                None => (1, CoreKind::Performance, 0, 0, None, None, 0, *id),
            }
        });
    }
}

/// The widest range a CPU list may name (the kernel's own limit is 8,192 CPUs).
const MAX_CPU_SPAN: usize = 1 << 16;

impl std::fmt::Display for Hardware {
    /// One line: counts of CPUs, cores, packages, nodes, L3 and L2 domains, efficiency CPUs,
    /// whether the process was given a share of the machine, and the mapped order.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let distinct = |key: &dyn Fn(&Cpu) -> Option<usize>| {
            self.cpus
                .iter()
                .filter_map(key)
                .collect::<BTreeSet<_>>()
                .len()
        };
        write!(
            f,
            "{} CPUs allowed{}, {} cores, {} packages, {} NUMA nodes, {} L3 and {} L2 domains",
            self.cpus.len(),
            if self.restricted {
                " (a share of the machine)"
            } else {
                ""
            },
            self.cores(),
            distinct(&|c| Some(c.package)),
            distinct(&|c| Some(c.node)),
            distinct(&|c| c.l3),
            distinct(&|c| c.l2),
        )?;
        let efficiency = self
            .cpus
            .iter()
            .filter(|c| c.kind == CoreKind::Efficiency)
            .count();
        if efficiency > 0 {
            write!(f, ", {efficiency} efficiency CPUs")?;
        }
        let order: Vec<String> = self.mapped_order().iter().map(usize::to_string).collect();
        write!(f, "; mapped order {}", order.join(","))
    }
}

/// Parses a kernel CPU list (`0-3,8,10-11`); `None` if malformed. An empty list is empty.
fn parse_list(text: &str) -> Option<BTreeSet<usize>> {
    let mut set = BTreeSet::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((lo, hi)) => {
                let (lo, hi): (usize, usize) = (lo.parse().ok()?, hi.parse().ok()?);
                if hi < lo || hi - lo > MAX_CPU_SPAN {
                    return None;
                }
                set.extend(lo..=hi);
            }
            None => {
                set.insert(part.parse().ok()?);
            }
        }
    }
    Some(set)
}

fn read_list(path: &Path) -> Option<BTreeSet<usize>> {
    parse_list(fs::read_to_string(path).ok()?.trim())
}

fn read_number(path: &Path) -> Option<usize> {
    fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// The NUMA nodes and their CPUs (`nodeN/cpulist`), if the directory exists.
fn read_nodes(dir: &Path) -> Vec<(usize, BTreeSet<usize>)> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut nodes: Vec<(usize, BTreeSet<usize>)> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let n = name.strip_prefix("node")?.parse().ok()?;
            Some((n, read_list(&e.path().join("cpulist"))?))
        })
        .collect();
    nodes.sort_by_key(|(n, _)| *n);
    nodes
}

/// The lowest CPU sharing the unified or data L2, and the L3, from `cache/indexN`.
fn read_caches(dir: &Path) -> (Option<usize>, Option<usize>) {
    let (mut l2, mut l3) = (None, None);
    let Ok(entries) = fs::read_dir(dir) else {
        return (l2, l3);
    };
    let mut indexes: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("index"))
        })
        .collect();
    indexes.sort();
    for index in indexes {
        let kind = fs::read_to_string(index.join("type")).unwrap_or_default();
        if kind.trim() == "Instruction" {
            continue;
        }
        let first = read_list(&index.join("shared_cpu_list")).and_then(|s| s.first().copied());
        match read_number(&index.join("level")) {
            Some(2) => l2 = l2.or(first),
            Some(3) => l3 = l3.or(first),
            _ => {}
        }
    }
    (l2, l3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists_parse_as_the_kernel_writes_them() {
        let set = |v: &[usize]| v.iter().copied().collect::<BTreeSet<_>>();
        assert_eq!(
            parse_list("0-3,8,10-11"),
            Some(set(&[0, 1, 2, 3, 8, 10, 11]))
        );
        assert_eq!(parse_list(""), Some(set(&[])));
        assert_eq!(parse_list("5"), Some(set(&[5])));
        assert_eq!(parse_list("3-1"), None);
        assert_eq!(parse_list("x"), None);
        assert_eq!(parse_list("0-99999999999"), None);
    }

    #[test]
    fn a_flat_layout_maps_in_id_order() {
        let hw = Hardware::flat(&[3, 1, 2]);
        assert_eq!(hw.mapped_order(), vec![1, 2, 3]);
        assert_eq!(hw.cores(), 3);
    }
}
