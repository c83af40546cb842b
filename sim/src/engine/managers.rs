//! Managers as subtask generators (`sl` and `ml` with `SearchRules::subtasks`, seed 002 section
//! 6): a manager serves requests from its pool one at a time, each with a subtask cut for the
//! requester.

use super::{expansion, Engine, SearchStack, State, TaskTree};

impl<'a, T: TaskTree> Engine<'a, T> {
    /// Generator `g` serves `thief`'s request, which reached it at `now`, once it has sent its
    /// previous answer: a subtask cut from its pool (seed 002 section 6.1: the MANAGER "gives
    /// them one by one to the requesting processors on demand"), or a reject when the pool ran
    /// out on the way. The cutting and the sending are its processor time. With its pool empty
    /// it is idle once the answer is sent.
    pub(super) fn serve(&mut self, g: usize, thief: usize, now: f64) {
        let from = now.max(self.procs[g].free_at);
        let sent = self.answer(g, thief, from, true);
        self.procs[g].free_at = sent;
        self.end = self.end.max(sent);
        if self.procs[g].pool.is_none() {
            self.busy -= 1;
            if self.asks_nobody(g) {
                self.procs[g].state = State::Done;
            } else {
                self.become_idle(g, sent);
            }
        }
    }

    /// Whether generator `g` hands out only what it generated from the work it was given
    /// (seed 002 section 6: the MANAGER "generates a specific number of subtasks"; below it,
    /// managers subdivide the super-subtasks their own manager hands them): without
    /// `SearchRules::takeback` a spent generator asks its own manager and nobody else.
    pub(super) fn hands_out_only_its_own(&self, g: usize) -> bool {
        self.procs[g].generates() && !self.search.is_some_and(|s| s.takeback)
    }

    /// Whether `g` is such a generator without a manager (the top one): once spent, it is done.
    pub(super) fn asks_nobody(&self, g: usize) -> bool {
        self.hands_out_only_its_own(g) && self.procs[g].manager.is_none()
    }

    /// The depth of a subtask cut for `to`: `SearchRules::subtasks` for a worker that manages
    /// nobody, scaled by rank for a manager (seed 002 section 6.2: the root's super-subtasks are
    /// subdivided below it).
    pub(super) fn subtask_depth(&self, to: usize) -> u32 {
        let deepest = self
            .search
            .and_then(|s| s.subtasks)
            .expect("generators generate subtasks");
        match self.procs[to].rank {
            Some((rank, ranks)) if rank < ranks => {
                (u64::from(deepest) * u64::from(rank) / u64::from(ranks)) as u32
            }
            _ => deepest,
        }
    }

    /// Cuts a subtask `depth` deep from generator `g`'s pool: expands the pool's top node
    /// (work, as any expansion) until the top is at least that deep, and takes it. Returns the
    /// subtask (`None`: the pool ran out) and the work the expansions took.
    pub(super) fn cut_subtask(
        &mut self,
        g: usize,
        depth: u32,
    ) -> (Option<SearchStack<T::Node>>, f64) {
        let tree = self.tree.expect("a search has a tree");
        let mut spent = 0.0;
        let Some(pool) = self.procs[g].pool.as_mut() else {
            return (None, 0.0);
        };
        let cut = loop {
            match pool.top_depth() {
                None => break None,
                Some(d) if d >= depth => break pool.take_top(),
                Some(_) => {
                    spent += expansion(tree, pool) * self.cost.t_work;
                    self.tasks += 1;
                    pool.expand_top(tree, &mut self.kids);
                }
            }
        };
        if pool.is_empty() {
            self.procs[g].pool = None;
        }
        self.work_done += spent;
        (cut, spent)
    }
}
