//! Idle workers sleep; new work wakes them. The protocol and why no wake-up is lost are
//! explained in `README.md` beside this file.

use crate::sync::{broken, fence, AtomicBool, AtomicUsize, Broken, Condvar, Mutex, Ordering};
use crossbeam_utils::CachePadded;
use std::time::{Duration, Instant};

/// What a sleeping worker's re-check found (`Sleep::sleep`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Recheck {
    /// Something the worker acts on now: do not sleep.
    Work,
    /// Work the worker may take only later (a rescue, `src/worker/README.md`): sleep at most
    /// this long.
    Until(Duration),
    /// Nothing: sleep until woken.
    Nothing,
}

/// One worker's sleep slot.
struct Slot {
    /// The worker announced that it is about to sleep (or sleeps) and no waker has claimed it.
    sleepy: AtomicBool,
    /// The worker's re-check saw work it may rescue later, and it sleeps at most until then
    /// (README, "Timed sleep"). Set after the re-check, cleared when the sleep ends.
    timed: AtomicBool,
    /// The wake-up token: set by the waker that claimed the worker, consumed by the worker.
    token: Mutex<bool>,
    cond: Condvar,
}

/// Turns `sleepy` from `true` to `false`; returns whether this call did. A compare-exchange,
/// not a swap: a swap that finds `false` (somebody else claimed first) would still write, and
/// that write, unordered with the sleeper's next announcement, is the kind of store a model
/// checker may order after it (README, "Claiming"). A failed compare-exchange writes nothing.
fn claim(sleepy: &AtomicBool) -> bool {
    sleepy
        .compare_exchange(true, false, Ordering::SeqCst, Ordering::SeqCst)
        .is_ok()
}

/// The sleep state of one pool.
pub(crate) struct Sleep {
    /// Workers whose `sleepy` flag is set: lets publishers skip the scan when nobody sleeps.
    sleepers: AtomicUsize,
    slots: Vec<CachePadded<Slot>>,
}

impl Sleep {
    pub(crate) fn new(workers: usize) -> Self {
        Sleep {
            sleepers: AtomicUsize::new(0),
            slots: (0..workers)
                .map(|_| {
                    CachePadded::new(Slot {
                        sleepy: AtomicBool::new(false),
                        timed: AtomicBool::new(false),
                        token: Mutex::new(false),
                        cond: Condvar::new(),
                    })
                })
                .collect(),
        }
    }

    /// Worker `me` found no work: announce, re-check with `recheck`, and sleep if it finds
    /// nothing to act on now: until woken, or, when it saw work it may only rescue later, at
    /// most until then. Returns whether it slept.
    ///
    /// `recheck` must look at every place a job or signal the worker would act on can appear
    /// (its inbox, the injector, the deques it may steal from, the latch it waits for, the
    /// termination condition), and at the public deques it may rescue from.
    pub(crate) fn sleep(&self, me: usize, recheck: impl FnOnce() -> Recheck) -> bool {
        // Test-only broken variant (docs/loom.md): re-check *before* announcing, so a publisher
        // in between sees nobody sleepy and its wake-up is lost.
        let mut recheck = Some(recheck);
        let early = if broken(Broken::Sleep) {
            recheck.take().map(|f| f())
        } else {
            None
        };
        let recheck = move || match recheck {
            Some(f) => f(),
            None => early.unwrap_or(Recheck::Nothing),
        };
        let slot = &self.slots[me];
        slot.sleepy.store(true, Ordering::SeqCst);
        self.sleepers.fetch_add(1, Ordering::SeqCst);
        // Pairs with the fence in `notify`: either the publisher sees us sleepy, or we see its
        // work in `recheck` (README, "Why no wake-up is lost").
        fence(Ordering::SeqCst);
        let limit = match recheck() {
            Recheck::Work => {
                self.withdraw(me);
                return false;
            }
            Recheck::Until(limit) => {
                slot.timed.store(true, Ordering::SeqCst);
                Some(limit)
            }
            Recheck::Nothing => None,
        };
        let deadline = limit.map(|limit| Instant::now() + limit);
        let mut token = slot.token.lock();
        while !*token {
            match deadline {
                None => slot.cond.wait(&mut token),
                Some(deadline) => {
                    // A spurious wake-up waits only for what is left of the limit.
                    let left = deadline.saturating_duration_since(Instant::now());
                    if slot.cond.wait_for(&mut token, left) && !*token {
                        // Timed out: leave as a worker that found work does. If a waker claimed
                        // us meanwhile, its token is on its way: consume it below.
                        drop(token);
                        slot.timed.store(false, Ordering::SeqCst);
                        self.withdraw(me);
                        return true;
                    }
                }
            }
        }
        *token = false;
        drop(token);
        slot.timed.store(false, Ordering::SeqCst);
        true
    }

    /// A sleepy worker that will not sleep (after all) takes itself back: it claims its own
    /// slot, or, if a waker claimed it first, consumes that waker's token so that it cannot end
    /// a later sleep early (the waker sets it right after claiming, so this wait is short).
    fn withdraw(&self, me: usize) {
        if claim(&self.slots[me].sleepy) {
            self.sleepers.fetch_sub(1, Ordering::SeqCst);
        } else {
            self.take_token(me);
        }
    }

    fn take_token(&self, me: usize) {
        let slot = &self.slots[me];
        let mut token = slot.token.lock();
        while !*token {
            slot.cond.wait(&mut token);
        }
        *token = false;
    }

    /// Wakes `w` if it is sleepy; returns whether this call claimed it.
    fn wake(&self, w: usize) -> bool {
        let slot = &self.slots[w];
        if !slot.sleepy.load(Ordering::SeqCst) || !claim(&slot.sleepy) {
            return false;
        }
        self.sleepers.fetch_sub(1, Ordering::SeqCst);
        let mut token = slot.token.lock();
        *token = true;
        slot.cond.notify_one();
        true
    }

    /// After publishing work that any of the `candidates()` could take: wake one of them if it
    /// sleeps. Returns whether one was woken. The candidates are only listed when somebody
    /// sleeps, so the common case costs the fence and one load.
    #[inline]
    pub(crate) fn notify<I: Iterator<Item = usize>>(&self, candidates: impl FnOnce() -> I) -> bool {
        // Pairs with the fence in `sleep`.
        fence(Ordering::SeqCst);
        if self.sleepers.load(Ordering::Relaxed) == 0 {
            return false;
        }
        self.notify_cold(candidates())
    }

    #[cold]
    fn notify_cold(&self, mut candidates: impl Iterator<Item = usize>) -> bool {
        candidates.any(|w| self.wake(w))
    }

    /// After publishing something only worker `w` acts on (its inbox, a latch it waits for).
    pub(crate) fn notify_worker(&self, w: usize) -> bool {
        fence(Ordering::SeqCst);
        self.wake(w)
    }

    /// After publishing work that some idle worker may only rescue (a task in a public deque
    /// that no sleeper's policy lets it take now, README, "Timed sleep"): make sure one idle
    /// worker will look again. A worker in a timed sleep will (it searches again when its time
    /// is up); otherwise wake one that sleeps until woken. Returns whether one was woken.
    pub(crate) fn notify_rescuer(&self) -> bool {
        // Pairs with the fence in `sleep`.
        fence(Ordering::SeqCst);
        if self.sleepers.load(Ordering::Relaxed) == 0 || broken(Broken::Rescue) {
            return false;
        }
        self.notify_rescuer_cold()
    }

    /// [`Sleep::notify`] for work only some workers may take now (`candidates`, a policy's
    /// neighbourhood), and [`Sleep::notify_rescuer`] when none of them was woken: one fence
    /// for both.
    #[inline]
    pub(crate) fn notify_or_rescuer<I: Iterator<Item = usize>>(
        &self,
        candidates: impl FnOnce() -> I,
    ) -> bool {
        // Pairs with the fence in `sleep`.
        fence(Ordering::SeqCst);
        if self.sleepers.load(Ordering::Relaxed) == 0 {
            return false;
        }
        self.notify_cold(candidates()) || (!broken(Broken::Rescue) && self.notify_rescuer_cold())
    }

    #[cold]
    fn notify_rescuer_cold(&self) -> bool {
        let timed = |s: &Slot| s.sleepy.load(Ordering::SeqCst) && s.timed.load(Ordering::SeqCst);
        if self.slots.iter().any(|s| timed(s)) {
            return false;
        }
        (0..self.slots.len()).any(|w| self.wake(w))
    }

    /// Wakes every sleeping worker (termination).
    pub(crate) fn notify_all(&self) {
        fence(Ordering::SeqCst);
        for w in 0..self.slots.len() {
            self.wake(w);
        }
    }
}

#[cfg(all(test, loom))]
#[path = "../loom/sleep.rs"]
mod loom_tests;
