//! The receiver side of the engine: an idle processor's search rounds (whether it parks, when
//! it asks and whom), a request's trip to its victim, and the victim's answer.

#[cfg(test)]
use super::{sb_log, SbEvent};
use super::{Answer, Choice, Engine, Env, Ev, LoadView, Reach, State, Task, TaskTree, Work};
use hypersteal::policy::machine;

impl<'a, T: TaskTree> Engine<'a, T> {
    /// `p` has nothing to run: placed work in its inbox comes first; otherwise it is idle, and
    /// asks for work (receiver-initiated) or waits for placed work (sender-initiated).
    pub(super) fn become_idle(&mut self, p: usize, now: f64) {
        if let Some(task) = self.take_inbox(p, now) {
            self.start(p, task, now);
            return;
        }
        // SB: leaving the donor queue travels with the first request, which the scheduler
        // handles as one access (seed 002 section 4.6: "Whenever a processor goes idle, it
        // sends a request to the scheduler. The scheduler then deletes this processor from the
        // DONOR queue, and polls the processors in DONOR"); until that access is served the
        // processor is still a donor, and polls sent to it are rejected.
        let leaves_later = self.receiver() && self.choice == Choice::Scheduler;
        if !leaves_later {
            self.decide(p, now, |m, env| m.idle(env));
        }
        if self.receiver() {
            // The request's arrival is set when `acquire` sends it.
            self.procs[p].leaving = leaves_later.then_some(now);
            self.procs[p].state = State::Asking;
            self.procs[p].round_left = 0;
            self.acquire(p, now);
        } else {
            self.procs[p].state = State::Parked;
        }
    }

    /// Whether `p` sees a worker worth asking (the runtime's sleep re-check). A polling
    /// processor sees only whether the computation has ended (termination detection).
    pub(super) fn visible(&self, p: usize, now: f64) -> bool {
        if self.poll {
            return self.busy > 0 || self.in_flight > 0;
        }
        match self.reach {
            Reach::All => self.stealable > usize::from(self.procs[p].stealable),
            Reach::Neighbors => {
                // The runtime's decision: a neighbour with waiting work that the policy's machine
                // may ask (`Machine::may_ask`: `most-loaded`'s `min`, for one).
                let view = self.view(now);
                let env = Env {
                    me: p,
                    graph: &self.graph,
                    loads: &view,
                    shared: &self.shared,
                };
                machine::worth_waking(&*self.machines[p], &env, self.graph.neighbors(p), |w| {
                    view.queued(w) > 0
                })
            }
            Reach::Nothing => false,
        }
    }

    pub(super) fn park(&mut self, p: usize, now: f64) {
        if self.procs[p].leaving.take().is_some() {
            // It asks nobody, so leaving the donor queue is an access of its own, served at
            // processor 0 like the others.
            self.access_point(p, now, Ev::Leave(p));
        }
        self.procs[p].state = State::Parked;
        self.parked.push(p);
    }

    /// The idle worker `p` sends its next request (or parks).
    pub(super) fn acquire(&mut self, p: usize, now: f64) {
        debug_assert_eq!(self.procs[p].state, State::Asking);
        if !self.visible(p, now) {
            self.park(p, now);
            return;
        }
        self.begin_round_if_spent(p, now);
        if matches!(self.choice, Choice::Counter | Choice::Scheduler) {
            // GRR and SB: the processor asks the shared point at processor 0 (for SB the
            // first request of an idle spell also leaves the donor queue), queues there, and
            // the victim is chosen when its access is served: the counter's value or the head
            // of the donor queue then, not when the access was sent.
            let there = self.access_point(p, now, Ev::Choose(p));
            if let Some(arrives) = self.procs[p].leaving.as_mut() {
                *arrives = there;
            }
            return;
        }
        self.choose(p, now);
    }

    /// A new round of requests for `p` once the last one is spent.
    pub(super) fn begin_round_if_spent(&mut self, p: usize, now: f64) {
        if self.procs[p].round_left == 0 {
            // A generator that takes nothing back asks its own manager (`Machine::manager`) and
            // nobody else, one request a round (`choose`); its machine's rounds, which go on to
            // the workers it manages, are not consulted. The top generator has no manager and
            // is done instead (`serve`).
            self.procs[p].round_left = if self.hands_out_only_its_own(p) {
                1
            } else {
                self.decide(p, now, machine::start_round)
            };
        }
    }

    /// SB: `victim`'s reject of a poll for the idle `p` has been served by the scheduler at
    /// processor 0, which polls the next donor for `p` (section 4.6: "On receiving a 'reject',
    /// the scheduler gets the next processor from the DONOR queue and generates another
    /// poll"); `p` itself sends nothing and waits. With nothing worth asking any more, the
    /// scheduler removes `p` from the queue here (no access of its own) and `p` parks.
    ///
    /// A victim that rejected because it was idle (`victim_idle`: section 4.6's polled
    /// processor that "happens to be idle" returns a reject "indicating that it has no work to
    /// share") leaves the queue here too, when nothing can be on its way to it: when the
    /// scheduler already holds the reject of its own last poll for that victim, received and
    /// not yet served ("a work request is never sent to any processor which is known to have
    /// no work"). Its request was served before this reject (it was sent first), so that poll
    /// is the only way work could reach it. Without this, an idle processor stays a donor,
    /// and draws polls, until the scheduler has served that reject too; with a busy scheduler
    /// that is hundreds of units. A victim for which a poll is out with no news of it stays:
    /// work may be coming to it, and the scheduler would never hear of it (removing every idle
    /// rejecter, poll out or not, loses such donors while they are busy: speedup 1.5 to 4.1 from
    /// 8 to 1024 processors on the five formulas of `sim papers`).
    pub(super) fn repoll(&mut self, p: usize, victim: usize, victim_idle: bool, now: f64) {
        debug_assert_eq!(self.procs[p].state, State::Asking);
        let nothing_coming = self.procs[victim].leaving.is_some_and(|t| t <= now);
        if victim_idle && self.procs[victim].state == State::Asking && nothing_coming {
            self.leave_at_scheduler(victim, now);
            #[cfg(test)]
            sb_log(SbEvent::Dropped(victim));
        }
        if !self.visible(p, now) {
            self.leave_at_scheduler(p, now);
            self.park(p, now);
            return;
        }
        self.begin_round_if_spent(p, now);
        self.choose(p, now);
    }

    /// SB: the scheduler, serving an access at processor 0, removes the idle `p` from the donor
    /// queue if it is still there (`Proc::leaving`), with no access of its own.
    pub(super) fn leave_at_scheduler(&mut self, p: usize, now: f64) {
        if self.procs[p].leaving.take().is_some() {
            self.decide(p, now, |m, env| m.idle(env));
        }
    }

    /// The victim of `p`'s next request is chosen at `now` and the request sent: at once for
    /// most policies, after the combining tree's fetch for GRR-M, for GRR when the counter at
    /// processor 0 serves `p`'s access (its value travels back to `p`, which then sends the
    /// request), and for SB when the scheduler at processor 0 serves `p`'s request or a reject
    /// of a poll for `p` (the scheduler sends the poll). No victim (SB's queue holds nobody
    /// else): `p` parks.
    pub(super) fn choose(&mut self, p: usize, now: f64) {
        self.leave_at_scheduler(p, now);
        let victim = if self.hands_out_only_its_own(p) {
            self.procs[p].manager
        } else {
            self.decide(p, now, |m, env| m.next_victim(env))
        };
        let Some(victim) = victim else {
            self.park(p, now);
            return;
        };
        if self.choice == Choice::Scheduler {
            #[cfg(test)]
            sb_log(SbEvent::Poll { victim, thief: p });
            // The scheduler places the requester at the tail of the queue as it polls for it
            // (section 4.6: "At this point, the recipient processor is placed at the tail of
            // the queue"; the work goes to the requester directly, and the scheduler hears only
            // of rejects): a rejected requester's next request leaves the queue again.
            self.decide(p, now, |m, env| m.busy(env));
        }
        self.procs[p].round_left = self.procs[p].round_left.saturating_sub(1);
        self.requests += 1;
        // Where the request leaves from, and when.
        let (from, chosen) = match self.choice {
            // GRR: the counter's value travels back to `p`, which sends the request.
            Choice::Counter => (p, self.msg(now, self.graph.distance(p, 0))),
            // SB: the scheduler sends the poll itself (section 4.6: "the poll was still
            // generated by the scheduler but the work was transferred directly to the
            // requesting processor").
            Choice::Scheduler => (0, now),
            Choice::CombiningTree => {
                let levels = self.procs[p].depth as f64;
                (
                    p,
                    now + 2.0 * levels * (self.cost.t_msg(1) + self.cost.t_combine),
                )
            }
            Choice::Own => (p, now),
        };
        let d = self.graph.distance(from, victim);
        let at = self.msg(chosen, d);
        self.queue.push(at, Ev::Request { victim, thief: p });
    }

    /// A request of `thief` reaches `victim`: if the victim's machine gives, the oldest
    /// waiting task, or a split of the divisible piece, goes back; otherwise a reject.
    pub(super) fn request(&mut self, victim: usize, thief: usize, now: f64) {
        if self.procs[victim].pool.is_some() {
            self.serve(victim, thief, now);
            return;
        }
        if matches!(
            self.procs[victim].current,
            Some((
                Task {
                    work: Work::Stack(_),
                    ..
                },
                _
            ))
        ) {
            // A processor expanding a node of a search answers at its next poll point.
            self.deferred += 1;
            self.procs[victim].pending.push(thief);
            return;
        }
        self.answer(victim, thief, now, false);
    }

    /// `victim` answers `thief`'s request at `now`: the oldest waiting task, a split of its
    /// divisible piece or search stack, or a subtask cut from a generator's pool, goes back;
    /// otherwise a reject. With `charged` (a busy search processor at its poll point, a
    /// generator serving) sending the answer takes the victim's processor time, the fixed part
    /// of the message (`transfer_base` for work, `msg_base` for a reject), counted in
    /// `answer_time`, after the cutting; the message leaves when it is sent. Returns when the
    /// victim is done answering.
    pub(super) fn answer(&mut self, victim: usize, thief: usize, now: f64, charged: bool) -> f64 {
        let d = self.graph.distance(victim, thief);
        let cutoff = self.cutoff_depth;
        // What the victim could give: its waiting tasks above the cut-off (the oldest first: the
        // deque runs from the root down), or grains of its divisible piece.
        let waiting = {
            let proc = &self.procs[victim];
            let tasks = proc.deque.iter().take_while(|t| t.depth <= cutoff).count();
            tasks + self.view(now).chunk_grains(proc)
        };
        let gives = self.decide(victim, now, |m, env| m.answer(env, waiting)) == Answer::Give;
        // A generator cuts a subtask from its pool; the expansions are its processor time.
        let mut cutting = 0.0;
        let loot = if !gives {
            None
        } else if self.procs[victim].generates() {
            let (cut, spent) = self.cut_subtask(victim, self.subtask_depth(thief));
            cutting = spent;
            cut.map(|stack| Task {
                work: Work::Stack(stack),
                hops: 0,
                depth: 0,
                decided: true,
            })
        } else if let Some(task) = self.procs[victim].deque.pop_front_if(|t| t.depth <= cutoff) {
            Some(task)
        } else if let Some((
            Task {
                work: Work::Stack(stack),
                ..
            },
            _,
        )) = &mut self.procs[victim].current
        {
            let search = self.search.expect("a stack belongs to a search");
            stack.split(search.split, cutoff).map(|given| Task {
                work: Work::Stack(given),
                hops: 0,
                depth: 0,
                decided: true,
            })
        } else if self.view(now).chunk_grains(&self.procs[victim]) > 0 {
            let (alpha_lo, alpha_hi) = (self.split.alpha_min, self.split.alpha_max);
            let alpha = if alpha_hi > alpha_lo {
                let u = (self.rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
                alpha_lo + (alpha_hi - alpha_lo) * u
            } else {
                alpha_lo
            };
            let grain = self.split.grain;
            let t_work = self.cost.t_work;
            let proc = &mut self.procs[victim];
            let (task, end) = proc.current.as_mut().expect("a chunk is executing");
            let rem = (*end - now) / t_work;
            let give = (alpha * rem).clamp(grain, rem - grain);
            *end -= give * t_work;
            if let Work::Chunk(w) = &mut task.work {
                *w -= give;
            }
            proc.version += 1;
            let (v, end) = (proc.version, *end);
            self.queue.push(end, Ev::Done(victim, v));
            let cut = end - 2.0 * grain * t_work;
            if cut > now {
                self.queue.push(cut, Ev::Unsplittable(victim, v));
            }
            Some(Task {
                work: Work::Chunk(give),
                hops: 0,
                depth: 0,
                decided: true,
            })
        } else {
            None
        };
        self.refresh(victim, now);
        let sending = match (&loot, charged) {
            (_, false) => 0.0,
            (Some(_), true) => self.cost.transfer_base,
            (None, true) => self.cost.msg_base,
        };
        // The cutting was work (counted as such); answering is the sending.
        self.answer_time += sending;
        let sent = now + cutting + sending;
        match loot {
            Some(task) => {
                self.requests_ok += 1;
                self.transfers += 1;
                let at = self.transfer(sent, d);
                self.in_flight += 1;
                self.queue.push(
                    at,
                    Ev::Arrive {
                        to: thief,
                        task,
                        placed: false,
                    },
                );
            }
            None => {
                self.rejects += 1;
                self.decide(thief, now, |m, env| m.request_failed(env, victim));
                if self.choice == Choice::Scheduler {
                    // SB: the reject goes to the scheduler (section 4.6: the polled processor
                    // "returns a 'reject' message to the scheduler"), whose serving it is an
                    // access at processor 0 like a request; the requester, placed at the tail
                    // of the queue when it was polled for, leaves it again then.
                    let victim_idle = self.procs[victim].state != State::Busy;
                    let repoll = Ev::Repoll {
                        thief,
                        victim,
                        victim_idle,
                    };
                    let there = self.access_point(victim, sent, repoll);
                    self.procs[thief].leaving = Some(there);
                } else {
                    let at = self.msg(sent, d);
                    self.queue.push(at, Ev::Retry(thief));
                }
            }
        }
        sent
    }
}
