//! `ml`, multi-level load balancing (seed 002 section 6.2): the workers form a tree of
//! *managers*. A manager hands out its waiting tasks to the workers it manages, on demand; a
//! manager that runs short asks its own manager; a worker whose manager has nothing asks the
//! other managers in turn ("allocated to another subtask generator"). `sl` (`super::sl`) is
//! the one-level case: worker 0 manages everybody.
//!
//! **The tree.** With fan-out `m` (the `group` parameter, or the smallest `m` with
//! `m^levels >= P`), write a worker's index in base `m`: its manager is the index with its
//! lowest non-zero digit cleared. So worker 0 is the top manager; with two levels workers
//! `1..m` are its own group, `k·m` (k = 1, 2, ...) are the second-level managers and
//! `k·m + 1 .. k·m + m` their groups. A worker manages somebody exactly when its index is a
//! multiple of `m` (or 0) and the next index exists. The tree is computed from indices, so a
//! worker's machine holds no list: memory per worker is constant.
//!
//! **A search round** of worker `w` (a request each, until one succeeds):
//! 1. its manager, if it has one;
//! 2. a manager (worker 0, or a worker managing a group): the workers it manages, one per
//!    request, with a cursor kept across rounds, so that work a worker holds can flow back up
//!    to the manager that hands it out again (the papers' manager generates all subtasks from
//!    the root and never needs this; a runtime's manager may have handed everything out while
//!    the rest of the tree sits with a worker);
//! 3. a worker that manages nobody (under `ml` only): the other managers, one per request,
//!    with a cursor kept across rounds.
//!
//! What it is for and what it costs: a hierarchy spreads `sl`'s single bottleneck over the
//! managers (each serves about `m` workers rather than `P`), at the price of a second hop for
//! work that has to come from another group, and of leaves that keep asking a manager with
//! nothing while a worker elsewhere holds tasks its own manager has not collected yet (they
//! sleep, and take such a task only after the pool's rescue bound, `src/worker/README.md`). The paper finds a
//! two-level scheme asymptotically less scalable than `rp` and `grr-m` (section 8); prefer `rp`
//! unless the hierarchy itself is wanted.
//!
//! Workers answer every request (the default [`Machine::answer`]); only their managers ask them.
//! The scheme is not sender-initiated in the sense of `Policy::is_sender_initiated` even though
//! the paper files it under sender-initiated schemes (its subtasks are generated independently
//! of requests): here, as there, work moves only when someone asks.

use super::machine::{Env, Machine};
use super::spec::{Param, Spec, Values};
use super::{Policy, MAX_PARAM};

/// `ml`: `levels` (2) and `group` (0: derived from `levels`); no shared state (the tree is
/// computed from indices).
pub(crate) const SPEC: Spec = Spec {
    params: &[
        Param {
            key: "levels",
            values: Values::Int { lo: 1, hi: 8 },
            allowed: "an integer 1 to 8 (levels of managers)",
            get: |p| fields(p).0 as usize,
            set: |p, v| {
                if let Policy::MultiLevel { levels, .. } = p {
                    *levels = v as u32;
                }
            },
        },
        GROUP,
    ],
    managers: true,
    check: |p| match fields(p).1 {
        1 => Err(GROUP.error("ml", "1")),
        _ => Ok(()),
    },
    ..Spec::receiver(
        "ml",
        Policy::MultiLevel {
            levels: 2,
            group: 0,
        },
        |p, me, workers, _| {
            let (levels, group) = fields(p);
            Box::new(Managed::multi_level(me, workers, levels, group))
        },
    )
};

/// `ml`'s fan-out: 0 or 2 and up (a fan-out of 1 would make a chain, not a tree).
const GROUP: Param = Param {
    key: "group",
    values: Values::Int {
        lo: 0,
        hi: MAX_PARAM,
    },
    allowed: "0 (derived from `levels`) or an integer 2 to 1000000 (workers per manager)",
    get: |p| fields(p).1,
    set: |p, v| {
        if let Policy::MultiLevel { group, .. } = p {
            *group = v;
        }
    },
};

/// `(levels, group)` of an `ml` policy.
fn fields(policy: &Policy) -> (u32, usize) {
    match *policy {
        Policy::MultiLevel { levels, group } => (levels, group),
        _ => unreachable!("ml's spec is only asked about ml"),
    }
}

/// Where worker `me` sits in the manager tree of `workers` workers with fan-out `fanout`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Hierarchy {
    me: usize,
    workers: usize,
    fanout: usize,
}

impl Hierarchy {
    /// Worker `me`'s place in the tree: `group` is the fan-out (0: the smallest fan-out with
    /// `fanout^levels >= workers`, at least 2).
    pub(crate) fn new(me: usize, workers: usize, levels: u32, group: usize) -> Self {
        let fanout = if group >= 2 {
            group
        } else {
            fanout_for(workers, levels)
        };
        Hierarchy {
            me,
            workers,
            fanout,
        }
    }

    /// The manager of `w` (`None` for worker 0): `w` with its lowest non-zero base-`m` digit
    /// cleared.
    fn manager_of(&self, w: usize) -> Option<usize> {
        if w == 0 {
            return None;
        }
        let mut unit = 1usize;
        while (w / unit).is_multiple_of(self.fanout) {
            unit *= self.fanout;
        }
        Some(w - ((w / unit) % self.fanout) * unit)
    }

    /// The `i`-th worker `w` manages, in the order of its digits (its own group first: `w + 1,
    /// w + 2, ...`, then `w + m, w + 2m, ...`), or `None` past the last.
    ///
    /// `w` manages the indices `w + d·m^k` with `1 <= d < m` and `m^k` below `w`'s lowest
    /// non-zero digit's unit (any `k` for worker 0), that exist.
    fn managed(&self, w: usize, mut i: usize) -> Option<usize> {
        let m = self.fanout;
        let mut unit = 1usize;
        loop {
            // Units at or above w's lowest non-zero digit are not below w in the tree.
            if w != 0 && !(w / unit).is_multiple_of(m) {
                return None;
            }
            if w + unit >= self.workers {
                return None;
            }
            let here = (1..m).take_while(|d| w + d * unit < self.workers).count();
            if i < here {
                return Some(w + (i + 1) * unit);
            }
            i -= here;
            unit = unit.checked_mul(m)?;
        }
    }

    /// How many workers `w` manages.
    fn managed_count(&self, w: usize) -> usize {
        let m = self.fanout;
        let mut unit = 1usize;
        let mut n = 0;
        loop {
            if (w != 0 && !(w / unit).is_multiple_of(m)) || w + unit >= self.workers {
                return n;
            }
            n += (1..m).take_while(|d| w + d * unit < self.workers).count();
            match unit.checked_mul(m) {
                Some(u) => unit = u,
                None => return n,
            }
        }
    }

    /// The levels of managers above `w` (0 for worker 0).
    fn level_of(&self, mut w: usize) -> u32 {
        let mut level = 0;
        while let Some(up) = self.manager_of(w) {
            level += 1;
            w = up;
        }
        level
    }

    /// Levels of management: the smallest `l` with `m^l >= workers` (the tree's height).
    fn height(&self) -> u32 {
        let mut l = 1;
        let mut span = self.fanout;
        while span < self.workers {
            l += 1;
            span = span.saturating_mul(self.fanout);
        }
        l
    }

    /// The managers of the pool: the multiples of `m` (0 included) that manage somebody.
    fn managers(&self) -> usize {
        // k·m manages k·m + 1 when that exists.
        (self.workers.saturating_sub(1)).div_ceil(self.fanout)
    }
}

/// The smallest fan-out `m >= 2` with `m^levels >= workers`.
pub(crate) fn fanout_for(workers: usize, levels: u32) -> usize {
    let mut m = 2usize;
    while m.checked_pow(levels).is_some_and(|p| p < workers) {
        m += 1;
    }
    m
}

/// One worker's `sl` / `ml` state: its place in the tree and where its search round is.
#[derive(Clone, Debug)]
pub(crate) struct Managed {
    tree: Hierarchy,
    /// Whether it asks other managers when its own has nothing (`ml`; `sl` has one manager).
    other_managers: bool,
    /// Requests made in the current round.
    step: usize,
    /// Rotating position among the alternatives (managed workers or other managers).
    cursor: usize,
}

impl Managed {
    /// Worker `me`'s machine under `ml` with `levels` levels and fan-out `group` (0: derived).
    pub(crate) fn multi_level(me: usize, workers: usize, levels: u32, group: usize) -> Self {
        Managed {
            tree: Hierarchy::new(me, workers, levels, group),
            other_managers: true,
            step: 0,
            cursor: me,
        }
    }

    /// Worker `me`'s machine under `sl`: worker 0 manages all.
    pub(crate) fn single_level(me: usize, workers: usize) -> Self {
        Managed {
            tree: Hierarchy::new(me, workers, 1, workers.max(2)),
            other_managers: false,
            step: 0,
            cursor: 0,
        }
    }

    /// How many alternatives follow the own manager in a round.
    fn alternatives(&self) -> usize {
        let t = &self.tree;
        let managed = t.managed_count(t.me);
        if managed > 0 {
            managed
        } else if self.other_managers {
            // Every manager but the own one.
            t.managers().saturating_sub(1)
        } else {
            0
        }
    }

    /// The `i`-th alternative (`i < alternatives()`).
    fn alternative(&self, i: usize) -> Option<usize> {
        let t = &self.tree;
        if t.managed_count(t.me) > 0 {
            return t.managed(t.me, i);
        }
        let own = t.manager_of(t.me)?;
        // The managers are 0, m, 2m, ...; skip the own one.
        let k = if i >= own / t.fanout { i + 1 } else { i };
        Some(k * t.fanout)
    }
}

impl Machine for Managed {
    fn round_len(&self, _env: &Env<'_>) -> usize {
        usize::from(self.tree.manager_of(self.tree.me).is_some()) + self.alternatives()
    }

    fn begin_round(&mut self, _env: &Env<'_>) {
        self.step = 0;
    }

    fn next_victim(&mut self, _env: &Env<'_>) -> Option<usize> {
        let first = self.step == 0;
        self.step += 1;
        if first {
            if let Some(m) = self.tree.manager_of(self.tree.me) {
                return Some(m);
            }
        }
        let n = self.alternatives();
        if n == 0 {
            // Only the own manager to ask (`sl`'s workers): ask it again.
            return self.tree.manager_of(self.tree.me);
        }
        let victim = self.alternative(self.cursor % n);
        self.cursor = (self.cursor + 1) % n;
        victim.filter(|&v| v != self.tree.me)
    }

    fn manager(&self) -> Option<usize> {
        self.tree.manager_of(self.tree.me)
    }

    fn may_ask(&self, _env: &Env<'_>, victim: usize) -> bool {
        victim != self.tree.me
            && (self.tree.manager_of(self.tree.me) == Some(victim)
                || (0..self.alternatives()).any(|i| self.alternative(i) == Some(victim)))
    }

    fn rank(&self) -> Option<(u32, u32)> {
        let t = &self.tree;
        let ranks = t.height();
        if t.managed_count(t.me) > 0 {
            Some((t.level_of(t.me), ranks))
        } else {
            Some((ranks, ranks))
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::policy::machine::testing::draws;
    use crate::Topology;

    fn tree(workers: usize, m: usize) -> Hierarchy {
        Hierarchy::new(0, workers, 1, m)
    }

    #[test]
    fn every_worker_but_0_has_one_manager_and_is_managed_by_it() {
        for (p, m) in [
            (2, 2),
            (9, 3),
            (16, 4),
            (17, 4),
            (100, 10),
            (1024, 32),
            (1000, 7),
        ] {
            let t = tree(p, m);
            let mut seen = vec![0usize; p];
            for w in 0..p {
                for i in 0..t.managed_count(w) {
                    let s = t.managed(w, i).expect("within the count");
                    assert!(s < p && s != w, "{s} under {w}");
                    assert_eq!(t.manager_of(s), Some(w), "p={p} m={m}: {s}'s manager");
                    seen[s] += 1;
                }
                assert_eq!(t.managed(w, t.managed_count(w)), None);
            }
            assert_eq!(seen[0], 0);
            assert!(seen[1..].iter().all(|&n| n == 1), "p={p} m={m}: {seen:?}");
        }
    }

    #[test]
    fn two_levels_of_1024_is_32_groups_of_32() {
        assert_eq!(fanout_for(1024, 2), 32);
        assert_eq!(fanout_for(1000, 2), 32);
        assert_eq!(fanout_for(8, 3), 2);
        let t = tree(1024, 32);
        assert_eq!(t.manager_of(33), Some(32));
        assert_eq!(t.manager_of(64), Some(0));
        assert_eq!(t.managed_count(0), 31 + 31);
        assert_eq!(t.managed_count(32), 31);
        assert_eq!(t.managed_count(33), 0);
        assert_eq!(t.managers(), 32);
    }

    #[test]
    fn ranks_count_the_managers_above_and_leaves_rank_last() {
        let rank = |policy: &str, me: usize, p: usize| {
            let policy: crate::Policy = policy.parse().expect("a policy");
            crate::policy::machine::machine_for(&policy, me, p, 1).rank()
        };
        // sl: one manager over everybody.
        assert_eq!(rank("sl", 0, 64), Some((0, 1)));
        assert_eq!(rank("sl", 7, 64), Some((1, 1)));
        // ml at 1024: 0 on top, 32, 64, ... below it, leaves (its own group too) last.
        assert_eq!(rank("ml", 0, 1024), Some((0, 2)));
        assert_eq!(rank("ml", 64, 1024), Some((1, 2)));
        assert_eq!(rank("ml", 65, 1024), Some((2, 2)));
        assert_eq!(rank("ml", 1, 1024), Some((2, 2)));
        // The last group's manager with nobody after it manages nobody.
        assert_eq!(rank("ml", 1023, 1024), Some((2, 2)));
        assert_eq!(rank("ml", 992, 993), Some((2, 2)));
        assert_eq!(rank("rp", 3, 8), None);
    }

    /// `Machine::manager` names the worker a round asks first, and only the top manager has
    /// none (the simulator's generators that take nothing back ask it and nobody else).
    #[test]
    fn the_own_manager_is_the_first_a_round_asks() {
        // (policy, workers, every how many-th worker is checked)
        let cases = [
            ("sl", 8, 1),
            ("sl", 64, 1),
            ("ml", 8, 1),
            ("ml", 16, 1),
            ("ml", 100, 1),
            ("ml", 1024, 7),
            ("ml", 993, 5),
        ];
        for (policy, p, step) in cases {
            let parsed: crate::Policy = policy.parse().expect("a policy");
            for me in (0..p).step_by(step).chain([p - 1]) {
                let machine = crate::policy::machine::machine_for(&parsed, me, p, 1);
                match machine.manager() {
                    None => assert_eq!(me, 0, "{policy} at {p}: only the top has no manager"),
                    Some(own) => assert_eq!(
                        draws(policy, me, Topology::Complete, p, 1),
                        [own],
                        "{policy} at {p}, worker {me}"
                    ),
                }
            }
        }
        let rp: crate::Policy = "rp".parse().expect("a policy");
        assert_eq!(
            crate::policy::machine::machine_for(&rp, 3, 8, 1).manager(),
            None
        );
    }

    #[test]
    fn sl_workers_ask_worker_0_and_worker_0_asks_everyone() {
        assert_eq!(draws("sl", 5, Topology::Complete, 8, 4), [0, 0, 0, 0]);
        assert_eq!(
            draws("sl", 0, Topology::Complete, 8, 9),
            [1, 2, 3, 4, 5, 6, 7, 1, 2]
        );
    }

    #[test]
    fn ml_leaves_ask_their_manager_then_the_other_managers() {
        // 16 workers, two levels: groups of 4 under managers 0, 4, 8, 12.
        let d = draws("ml", 5, Topology::Complete, 16, 4);
        assert_eq!(d[0], 4);
        let rest: Vec<usize> = d[1..].to_vec();
        assert!(rest.iter().all(|v| [0, 8, 12].contains(v)), "{d:?}");
        // A second-level manager asks the top manager, then its own group.
        let d = draws("ml", 4, Topology::Complete, 16, 4);
        assert_eq!(d[0], 0);
        assert!(d[1..].iter().all(|v| [5, 6, 7].contains(v)), "{d:?}");
    }
}
