//! The sender side of the engine: new tasks decided as they are spawned, the heartbeat's
//! allocating and standing halves, and placed tasks travelling to their receiver's inbox.

use super::{machine, BeatSteps, Engine, Ev, State, Task, TaskTree};

/// Processor `p`'s poll point at `now` as [`Heartbeat::run`] drives it.
struct Steps<'e, 'a, T: TaskTree> {
    engine: &'e mut Engine<'a, T>,
    p: usize,
    now: f64,
}

impl<T: TaskTree> BeatSteps for Steps<'_, '_, T> {
    fn undecided(&mut self) -> bool {
        self.engine.undecided(self.p).is_some()
    }
    fn allocate(&mut self) {
        self.engine.allocate(self.p, self.now);
    }
    fn stand(&mut self) {
        self.engine.stand(self.p, self.now);
    }
}

impl<'a, T: TaskTree> Engine<'a, T> {
    /// A new task at `p`: without a heartbeat its allocating phase runs now; with one it waits,
    /// undecided, for `p`'s next heartbeat. Below the cut-off a task stays where it was made.
    pub(super) fn spawn(&mut self, p: usize, mut task: Task<T::Node>, now: f64) {
        let movable = task.depth <= self.cutoff_depth;
        if movable && self.heartbeat == 0.0 {
            let hops = task.hops;
            if let Some(to) = self.decide(p, now, |m, env| m.place(env, hops, false)) {
                self.send(p, to, task, now);
                return;
            }
        }
        task.decided = !movable || self.heartbeat == 0.0;
        self.procs[p].deque.push_back(task);
        self.refresh(p, now);
    }

    /// Places `task` into `to`'s inbox: one more hop, one work message.
    pub(super) fn send(&mut self, from: usize, to: usize, mut task: Task<T::Node>, now: f64) {
        task.hops += 1;
        self.max_hops = self.max_hops.max(task.hops);
        self.transfers += 1;
        let d = self.graph.distance(from, to);
        let at = self.transfer(now, d);
        self.in_flight += 1;
        self.queue.push(
            at,
            Ev::Arrive {
                to,
                task,
                placed: true,
            },
        );
    }

    /// `p`'s poll point after a task. Without a heartbeat every one is one heartbeat; with one,
    /// the heartbeats that passed since the last poll point (`policy::machine::Heartbeat`): the
    /// allocating phase for undecided tasks, oldest first, while its credit lasts, then the
    /// standing phase on the oldest waiting task once per heartbeat passed
    /// (`policy::machine::allocating_beat`, `standing_beat`), as the runtime does. Without a
    /// heartbeat but with a load exchange period (`CostModel::load_period`), the standing phase
    /// runs once per period passed, counted by the same rule.
    pub(super) fn beat(&mut self, p: usize, now: f64) {
        if self.heartbeat > 0.0 {
            let (mut beat, period) = (self.procs[p].beat, self.heartbeat);
            beat.run(
                now,
                period,
                &mut Steps {
                    engine: self,
                    p,
                    now,
                },
            );
            self.procs[p].beat = beat;
            return;
        }
        self.allocate(p, now);
        let due = if self.cost.load_period > 0.0 {
            let mut beat = self.procs[p].beat;
            let due = beat.poll(now, self.cost.load_period);
            self.procs[p].beat = beat;
            due
        } else {
            1
        };
        for _ in 0..due {
            self.stand(p, now);
        }
    }

    /// The oldest task at `p` no decision has seen that may move.
    pub(super) fn undecided(&self, p: usize) -> Option<usize> {
        let cutoff = self.cutoff_depth;
        self.procs[p]
            .deque
            .iter()
            .position(|t| !t.decided && t.depth <= cutoff)
    }

    /// The allocating phase for `p`'s oldest undecided task, if any (the rule the runtime
    /// follows too).
    pub(super) fn allocate(&mut self, p: usize, now: f64) {
        let undecided = self.undecided(p);
        let hops = undecided.map(|i| self.procs[p].deque[i].hops);
        match self.decide(p, now, |m, env| machine::allocating_beat(m, env, hops)) {
            Some(Some(to)) => {
                let i = undecided.expect("an undecided task is waiting");
                let task = self.procs[p].deque.remove(i).expect("it is there");
                self.send(p, to, task, now);
                self.refresh(p, now);
            }
            Some(None) => {
                let i = undecided.expect("an undecided task is waiting");
                self.procs[p].deque[i].decided = true;
            }
            None => {}
        }
    }

    /// One heartbeat's standing phase for `p`'s oldest waiting task.
    pub(super) fn stand(&mut self, p: usize, now: f64) {
        let cutoff = self.cutoff_depth;
        let oldest = self.procs[p]
            .deque
            .front()
            .filter(|t| t.depth <= cutoff)
            .map(|t| t.hops);
        let to = self.decide(p, now, |m, env| machine::standing_beat(m, env, oldest));
        let Some(to) = to else { return };
        if let Some(task) = self.procs[p].deque.pop_front_if(|t| t.depth <= cutoff) {
            self.send(p, to, task, now);
            self.refresh(p, now);
        }
    }

    pub(super) fn arrive(&mut self, to: usize, task: Task<T::Node>, placed: bool, now: f64) {
        self.in_flight -= 1;
        if !placed {
            // A thief's loot: it runs it.
            self.obtained(to, now);
            self.take(to, task, now);
            return;
        }
        self.procs[to].inbox.push_back(task);
        if self.procs[to].state == State::Parked {
            if let Some(task) = self.take_inbox(to, now) {
                self.decide(to, now, |m, env| m.busy(env));
                self.start(to, task, now);
            }
        }
    }

    /// Drains `p`'s inbox as the runtime does: each arrival gets the allocating phase again
    /// (ACWN lets it travel on downhill); the first one that stays is returned.
    pub(super) fn take_inbox(&mut self, p: usize, now: f64) -> Option<Task<T::Node>> {
        while let Some(task) = self.procs[p].inbox.pop_front() {
            if task.depth <= self.cutoff_depth {
                let hops = task.hops;
                if let Some(to) = self.decide(p, now, |m, env| m.place(env, hops, true)) {
                    self.send(p, to, task, now);
                    continue;
                }
            }
            return Some(task);
        }
        None
    }
}
