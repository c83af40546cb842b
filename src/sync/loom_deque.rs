//! A deque with `crossbeam-deque`'s interface built on loom primitives (used only under
//! `cfg(loom)`, where crossbeam's lock-free deque cannot be model-checked).
//!
//! It is a mutex around a `VecDeque`: the owner pushes and pops at the back (LIFO), thieves take
//! from the front (the oldest task). Every operation is linearisable, which is the property the
//! runtime relies on; what this leaves unchecked is crossbeam's own lock-free algorithm (its
//! `Retry` outcomes and its memory orderings), which crossbeam tests separately.

use loom::sync::{Arc, Mutex};
use std::collections::VecDeque;

/// The outcome of a steal.
#[derive(Debug)]
pub(crate) enum Steal<T> {
    /// The queue was empty.
    Empty,
    /// A task was taken.
    Success(T),
    /// Lost a race; try again (never produced by this deque).
    #[allow(dead_code)]
    Retry,
}

/// The owner's end of a deque.
#[derive(Debug)]
pub(crate) struct Worker<T> {
    inner: Arc<Mutex<VecDeque<T>>>,
}

/// A thief's end of a deque.
#[derive(Debug)]
pub(crate) struct Stealer<T> {
    inner: Arc<Mutex<VecDeque<T>>>,
}

impl<T> Clone for Stealer<T> {
    fn clone(&self) -> Self {
        Stealer {
            inner: self.inner.clone(),
        }
    }
}

impl<T> Worker<T> {
    pub(crate) fn new_lifo() -> Self {
        Worker {
            inner: Arc::new(Mutex::new(VecDeque::new())),
        }
    }

    pub(crate) fn stealer(&self) -> Stealer<T> {
        Stealer {
            inner: self.inner.clone(),
        }
    }

    pub(crate) fn push(&self, task: T) {
        self.inner.lock().unwrap().push_back(task);
    }

    pub(crate) fn pop(&self) -> Option<T> {
        self.inner.lock().unwrap().pop_back()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.inner.lock().unwrap().is_empty()
    }
}

impl<T> Stealer<T> {
    pub(crate) fn steal(&self) -> Steal<T> {
        match self.inner.lock().unwrap().pop_front() {
            Some(t) => Steal::Success(t),
            None => Steal::Empty,
        }
    }

    #[allow(dead_code)] // crossbeam's interface; the runtime may use it
    pub(crate) fn is_empty(&self) -> bool {
        self.inner.lock().unwrap().is_empty()
    }

    pub(crate) fn len(&self) -> usize {
        self.inner.lock().unwrap().len()
    }
}

/// A multi-producer queue (the pool's injector and each worker's inbox).
#[derive(Debug)]
pub(crate) struct Injector<T> {
    inner: Mutex<VecDeque<T>>,
}

impl<T> Injector<T> {
    pub(crate) fn new() -> Self {
        Injector {
            inner: Mutex::new(VecDeque::new()),
        }
    }

    pub(crate) fn push(&self, task: T) {
        self.inner.lock().unwrap().push_back(task);
    }

    pub(crate) fn steal(&self) -> Steal<T> {
        match self.inner.lock().unwrap().pop_front() {
            Some(t) => Steal::Success(t),
            None => Steal::Empty,
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.inner.lock().unwrap().is_empty()
    }

    pub(crate) fn len(&self) -> usize {
        self.inner.lock().unwrap().len()
    }
}
