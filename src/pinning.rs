//! Which CPU each worker is pinned to, and whether to pin at all.
//!
//! **Whether.** By default a pool pins only when the process's affinity mask is narrower than
//! the machine (`taskset`, a cgroup cpuset, an MPI launcher that bound its ranks): then the
//! CPUs were handed to this process and pinning inside them costs nobody else. With the whole
//! machine allowed, the default is not to pin, because other processes may be busy on any CPU
//! and a worker pinned under one of them cannot move away: it gets only the share of that CPU
//! the scheduler leaves it, while other CPUs may sit idle. An explicit
//! [`crate::ThreadPoolBuilder::pin_threads`] or `HYPERSTEAL_PIN` decides either way.
//!
//! **Where.** CPUs are handed out process-wide, not per pool: a table counts the live workers
//! pinned to each CPU this process may run on, and a new pool takes, for each of its workers in
//! turn, the CPU with the fewest workers on it, the first such in its placement's order
//! ([`crate::Placement`]: the operating system's order, or the hardware-mapped order of
//! [`Hardware::mapped_order`]). So
//!
//! - while free CPUs exist, live pools never share one (the global pool and a user's pool sit
//!   side by side instead of stacking on CPUs 0, 1, ...);
//! - a pool with more workers than there are CPUs (or pools that together have more) spreads
//!   them evenly: when it is built, no CPU carries two more workers than another (pools that end
//!   later can leave the spread uneven until new pools fill the gaps);
//! - under the hardware placement the pool's CPUs are then ordered by closeness
//!   ([`Hardware::by_closeness`]) before worker `i` gets the `i`-th, so that topology neighbours
//!   are hardware neighbours;
//! - a pool gives its CPUs back when its last thread is gone (its registry is dropped), so after
//!   [`crate::ThreadPool::shutdown`] returns they are free for the next pool.
//!
//! **Across processes.** Pools of different processes would each start at the same CPUs. So a
//! pinned pool also *claims* each CPU it uses: an exclusive advisory lock
//! ([`std::fs::File::try_lock`]) on the file `cpu-<id>` in a claims directory shared by every
//! process on the machine (`$TMPDIR/hypersteal-pin-claims` by default, `HYPERSTEAL_PIN_CLAIMS`
//! to choose another or `off`). The process holds the lock while any of its workers is pinned
//! there, and the operating system drops it when the process ends, however it ends, so no claim
//! outlives its process. A CPU claimed by another process counts as carrying one worker when a
//! pool chooses, so two processes side by side take different CPUs while free ones exist, and
//! share them evenly once none is left. Two processes that choose at the same moment may both
//! pick one free CPU; only one gets its lock, and the other chooses again. A claims directory
//! the process cannot use (not writable, another user's files) leaves it coordinating within
//! itself only. Processes whose launcher already bound them to disjoint CPUs (`taskset`, an MPI
//! launcher's binding, a cgroup cpuset) never meet in the table at all.
//!
//! Pinning is best effort: the table says where a worker is meant to run (what
//! [`crate::ThreadPool::cpu_map`] reports); if the operating system refuses the affinity call,
//! the thread runs unpinned. The table is plain process state behind a `parking_lot` lock,
//! outside the loom-checked core (loom models build unpinned pools).

use crate::hardware::Hardware;
use crate::Placement;
use parking_lot::Mutex;
use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Live workers per CPU, in the operating system's order of this process's CPUs.
struct Table {
    cpus: Vec<usize>,
    users: Vec<usize>,
    /// This process's claim on each CPU it uses (the locked file), where it could take one.
    claims: Vec<Option<File>>,
}

/// The claims directory when `HYPERSTEAL_PIN_CLAIMS` is unset.
pub(crate) fn default_claims_dir() -> PathBuf {
    std::env::temp_dir().join("hypersteal-pin-claims")
}

/// Makes `dir` ready to hold claims: created if missing (open to every user, as the claims of
/// all processes on the machine meet there), and a directory.
pub(crate) fn prepare_claims_dir(dir: &Path) -> std::io::Result<()> {
    if !dir.is_dir() {
        std::fs::create_dir_all(dir)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            // Best effort: sticky and writable by all, like the temporary directory itself.
            let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o1777));
        }
    }
    if !dir.is_dir() {
        return Err(std::io::Error::other("not a directory"));
    }
    Ok(())
}

/// What a claim on one CPU found.
enum Claim {
    /// Locked: this process holds the CPU until the file is dropped.
    Held(File),
    /// Another process holds it.
    Taken,
    /// No claim could be tried (the file cannot be opened): coordinate within the process only.
    Unknown,
}

/// Tries to claim `cpu` in `dir`.
fn claim(dir: &Path, cpu: usize) -> Claim {
    let path = dir.join(format!("cpu-{cpu}"));
    let opened = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        // Another user's file: a lock needs only a read handle.
        .or_else(|_| File::open(&path));
    let Ok(file) = opened else {
        return Claim::Unknown;
    };
    match file.try_lock() {
        Ok(()) => Claim::Held(file),
        Err(TryLockError::WouldBlock) => Claim::Taken,
        Err(TryLockError::Error(_)) => Claim::Unknown,
    }
}

static TABLE: Mutex<Option<Table>> = Mutex::new(None);

/// The machine's layout, read once per process.
pub(crate) fn hardware() -> &'static Hardware {
    static HARDWARE: OnceLock<Hardware> = OnceLock::new();
    HARDWARE.get_or_init(Hardware::detect)
}

/// The default of `pin_threads`: pin when the process was given a share of the machine.
pub(crate) fn pin_by_default() -> bool {
    hardware().restricted()
}

/// The CPUs of one pool's workers, returned to the table when dropped.
#[derive(Debug)]
pub(crate) struct Cores {
    of_worker: Vec<Option<usize>>,
}

impl Cores {
    /// Takes a CPU for each of `n` workers in `placement`'s order, or none at all when `pin` is
    /// false or this process cannot learn its CPUs.
    pub(crate) fn take(n: usize, pin: bool, placement: Placement, claims: Option<&Path>) -> Cores {
        let none = || Cores {
            of_worker: vec![None; n],
        };
        if !pin {
            return none();
        }
        let hw = hardware();
        let mut guard = TABLE.lock();
        let table = guard.get_or_insert_with(|| {
            let cpus: Vec<usize> = hw.cpus().iter().map(|c| c.id).collect();
            Table {
                users: vec![0; cpus.len()],
                claims: cpus.iter().map(|_| None).collect(),
                cpus,
            }
        });
        if table.cpus.is_empty() {
            return none();
        }
        // Slots of the table in the placement's order.
        let order: Vec<usize> = match placement {
            Placement::OsOrder => (0..table.cpus.len()).collect(),
            Placement::Hardware => hw
                .mapped_order()
                .into_iter()
                .filter_map(|id| table.cpus.iter().position(|&c| c == id))
                .collect(),
        };
        // CPUs this process does not use but another one claimed: each counts as carrying one
        // worker. Found by claiming: every lock taken is a claim kept, never a probe given back
        // at once, so a CPU is found taken only where another process keeps it.
        let mut foreign = vec![false; table.cpus.len()];
        let mut taken: Vec<usize> = (0..n)
            .map(|_| loop {
                // The least-used CPU; among equals, the first in order (ties keep consecutive
                // workers on consecutive CPUs).
                let slot = *order
                    .iter()
                    .min_by_key(|&&i| table.users[i] + usize::from(foreign[i]))
                    .expect("at least one CPU");
                if table.users[slot] == 0 {
                    if let Some(dir) = claims {
                        match claim(dir, table.cpus[slot]) {
                            Claim::Held(file) => table.claims[slot] = Some(file),
                            // Claimed by another process since: choose again.
                            Claim::Taken if !foreign[slot] => {
                                foreign[slot] = true;
                                continue;
                            }
                            Claim::Taken | Claim::Unknown => {}
                        }
                    }
                }
                table.users[slot] += 1;
                break table.cpus[slot];
            })
            .collect();
        if placement == Placement::Hardware {
            hw.by_closeness(&mut taken);
        }
        Cores {
            of_worker: taken.into_iter().map(Some).collect(),
        }
    }

    /// The CPU worker `index` is pinned to, if any.
    pub(crate) fn of(&self, index: usize) -> Option<usize> {
        self.of_worker.get(index).copied().flatten()
    }
}

impl Drop for Cores {
    fn drop(&mut self) {
        if self.of_worker.iter().all(Option::is_none) {
            return;
        }
        let mut guard = TABLE.lock();
        let Some(table) = guard.as_mut() else { return };
        for cpu in self.of_worker.iter().flatten() {
            if let Some(slot) = table.cpus.iter().position(|c| c == cpu) {
                table.users[slot] = table.users[slot].saturating_sub(1);
                if table.users[slot] == 0 {
                    // Gives the claim back to other processes (dropping the file unlocks it).
                    table.claims[slot] = None;
                }
            }
        }
    }
}
