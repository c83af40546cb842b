//! [`Stopped`]: which workers have reported in and how many have left their loop.

use crate::sync::{Condvar, Mutex};

/// How many of a pool's workers have left their loop: what [`crate::ThreadPool::shutdown`]
/// waits on when it has no handles to join (threads from a spawn handler); and which workers
/// have *reported in*: their `ThreadBuilder` ran or was dropped.
pub(crate) struct Stopped {
    state: Mutex<StoppedState>,
    changed: Condvar,
}

struct StoppedState {
    stopped: usize,
    /// Per worker: `None` until its builder ran (`Some(true)`) or was dropped unrun
    /// (`Some(false)`).
    reported: Vec<Option<bool>>,
}

impl Stopped {
    pub(crate) fn new(workers: usize) -> Self {
        Stopped {
            state: Mutex::new(StoppedState {
                stopped: 0,
                reported: vec![None; workers],
            }),
            changed: Condvar::new(),
        }
    }

    /// `n` more workers have stopped, or will never start.
    pub(crate) fn add(&self, n: usize) {
        self.state.lock().stopped += n;
        self.changed.notify_all();
    }

    /// Blocks until `n` workers have stopped.
    pub(crate) fn wait_for(&self, n: usize) {
        let mut state = self.state.lock();
        while state.stopped < n {
            self.changed.wait(&mut state);
        }
    }

    /// Worker `index`'s builder ran (`ran`) or was dropped unrun.
    pub(crate) fn report(&self, index: usize, ran: bool) {
        if let Some(r) = self.state.lock().reported.get_mut(index) {
            *r = Some(ran);
        }
        self.changed.notify_all();
    }

    /// Waits until every worker below `upto` has reported in, at most until `deadline`.
    /// Returns the workers whose builder was dropped unrun and those that have not reported
    /// (their builders were forgotten: the build gives up on them and marks them reported).
    pub(crate) fn unreported(
        &self,
        upto: usize,
        deadline: std::time::Instant,
    ) -> (Vec<usize>, Vec<usize>) {
        let mut state = self.state.lock();
        loop {
            let missing: Vec<usize> = (0..upto).filter(|&i| state.reported[i].is_none()).collect();
            let now = std::time::Instant::now();
            if missing.is_empty() || now >= deadline {
                for &i in &missing {
                    state.reported[i] = Some(false);
                }
                let dropped = (0..upto)
                    .filter(|&i| state.reported[i] == Some(false) && !missing.contains(&i))
                    .collect();
                return (dropped, missing);
            }
            self.changed.wait_for(&mut state, deadline - now);
        }
    }
}
