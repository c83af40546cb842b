//! Idle workers sleep; new work wakes them. The protocol and why no wake-up is lost are
//! explained in `README.md` beside this file.

use crate::sync::{broken, fence, AtomicBool, AtomicUsize, Broken, Condvar, Mutex, Ordering};
use crossbeam_utils::CachePadded;

/// One worker's sleep slot.
struct Slot {
    /// The worker announced that it is about to sleep (or sleeps) and no waker has claimed it.
    sleepy: AtomicBool,
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
                        token: Mutex::new(false),
                        cond: Condvar::new(),
                    })
                })
                .collect(),
        }
    }

    /// Worker `me` found no work: announce, re-check with `has_work`, and sleep if it still sees
    /// none. Returns whether it slept.
    ///
    /// `has_work` must look at every place a job or signal the worker would act on can appear
    /// (its inbox, the injector, the deques it may steal from, the latch it waits for, the
    /// termination condition).
    pub(crate) fn sleep(&self, me: usize, has_work: impl FnOnce() -> bool) -> bool {
        // Test-only broken variant (docs/loom.md): re-check *before* announcing, so a publisher
        // in between sees nobody sleepy and its wake-up is lost.
        let mut has_work = Some(has_work);
        let early = if broken(Broken::Sleep) {
            has_work.take().map(|f| f())
        } else {
            None
        };
        let has_work = move || has_work.map_or(early == Some(true), |f| f());
        let slot = &self.slots[me];
        slot.sleepy.store(true, Ordering::SeqCst);
        self.sleepers.fetch_add(1, Ordering::SeqCst);
        // Pairs with the fence in `notify`: either the publisher sees us sleepy, or we see its
        // work in `has_work` (README, "Why no wake-up is lost").
        fence(Ordering::SeqCst);
        if has_work() {
            if claim(&slot.sleepy) {
                self.sleepers.fetch_sub(1, Ordering::SeqCst);
            } else {
                // A waker claimed us meanwhile: consume its token so it cannot end a later sleep
                // early. It sets the token right after claiming, so this wait is short.
                self.take_token(me);
            }
            return false;
        }
        self.take_token(me);
        true
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

    /// Wakes every sleeping worker (termination).
    pub(crate) fn notify_all(&self) {
        fence(Ordering::SeqCst);
        for w in 0..self.slots.len() {
            self.wake(w);
        }
    }
}

#[cfg(all(test, loom))]
mod loom_tests;
