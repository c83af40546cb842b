//! A worker's own task queues (the private stack and the standing queue): a `VecDeque` of
//! [`JobRef`]s that only the owning thread touches, behind methods that hand out values and
//! never references.
//!
//! A `&mut VecDeque` handed out from `&self` would rest its soundness on every caller dropping
//! the reference before anything could reach the queue again (a nested poll point, a task run
//! while the reference is alive). Here each method borrows the queue for its own body only, and
//! no body calls out (no user code, no policy code, no other queue): two borrows can never
//! overlap, and the compiler holds the argument for every caller.
//!
//! Every method that removes a task also lowers the thread's in-place flag
//! (`super::in_place::lower_own`, a store outside the borrow): the flag stands for tasks on this
//! stack, and must not outlive them.

use super::in_place::lower_own;
use crate::job::JobRef;
use std::cell::UnsafeCell;
use std::collections::VecDeque;

/// One queue of a worker's unstarted tasks, oldest at the front. Not `Sync` (the
/// `UnsafeCell`): it lives in the owning thread's [`super::WorkerThread`].
pub(super) struct Tasks(UnsafeCell<VecDeque<JobRef>>);

impl Tasks {
    pub(super) fn with_capacity(capacity: usize) -> Self {
        Tasks(UnsafeCell::new(VecDeque::with_capacity(capacity)))
    }

    /// Runs `f` on the queue. Private: every caller below is a closure that touches only the
    /// queue it is given and returns a value.
    #[inline(always)]
    fn with<R>(&self, f: impl FnOnce(&mut VecDeque<JobRef>) -> R) -> R {
        // SAFETY: `Tasks` is not `Sync`, so only the owning thread reaches it; the only
        // borrow is this one, and `f` (a closure in this file) neither re-enters a method of
        // this type nor keeps the reference past its return.
        f(unsafe { &mut *self.0.get() })
    }

    #[inline(always)]
    pub(super) fn len(&self) -> usize {
        self.with(|q| q.len())
    }

    #[inline(always)]
    pub(super) fn is_empty(&self) -> bool {
        self.with(|q| q.is_empty())
    }

    #[inline(always)]
    pub(super) fn push_back(&self, job: JobRef) {
        self.with(|q| q.push_back(job));
    }

    pub(super) fn push_front(&self, job: JobRef) {
        self.with(|q| q.push_front(job));
    }

    #[inline(always)]
    pub(super) fn pop_back(&self) -> Option<JobRef> {
        lower_own();
        self.with(|q| q.pop_back())
    }

    #[inline(always)]
    pub(super) fn pop_front(&self) -> Option<JobRef> {
        lower_own();
        self.with(|q| q.pop_front())
    }

    /// The oldest task, left in place.
    #[inline(always)]
    pub(super) fn front(&self) -> Option<JobRef> {
        self.with(|q| q.front().copied())
    }

    /// The newest task, left in place.
    #[inline(always)]
    pub(super) fn back(&self) -> Option<JobRef> {
        self.with(|q| q.back().copied())
    }

    /// The task at position `i` (0: the oldest), left in place.
    pub(super) fn get(&self, i: usize) -> Option<JobRef> {
        self.with(|q| q.get(i).copied())
    }

    /// Puts `job` in place of the task at position `i` (which the caller read with
    /// [`Tasks::get`]).
    pub(super) fn replace(&self, i: usize, job: JobRef) {
        self.with(|q| {
            if let Some(slot) = q.get_mut(i) {
                *slot = job;
            }
        });
    }

    /// The position of the newest task that satisfies `pred` (which must not touch any queue).
    pub(super) fn newest_where(&self, pred: impl Fn(&JobRef) -> bool) -> Option<usize> {
        self.with(|q| q.iter().rposition(pred))
    }

    /// The position of the oldest task that satisfies `pred` (which must not touch any queue).
    pub(super) fn oldest_where(&self, pred: impl Fn(&JobRef) -> bool) -> Option<usize> {
        self.with(|q| q.iter().position(pred))
    }

    /// Removes and returns the task at position `i`.
    pub(super) fn remove(&self, i: usize) -> Option<JobRef> {
        lower_own();
        self.with(|q| q.remove(i))
    }

    /// Whether the task `id` waits in this queue.
    pub(super) fn contains(&self, id: *const ()) -> bool {
        self.with(|q| q.iter().rev().any(|job| job.id() == id))
    }
}
