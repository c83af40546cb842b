//! Global termination detection: Safra's token algorithm (Dijkstra, Feijen and van Gasteren's
//! ring token, extended by Safra to asynchronous messages with counters).
//!
//! The job is over when every rank is *passive* (no task to run) and no work is in flight. Only
//! [`crate::wire::Msg::Work`] carries work (the *basic* messages), and a passive rank becomes
//! active only by receiving one: requests, answers without work, draws and tokens never create
//! work. Each rank keeps
//!
//! - `count`: work messages it sent minus those it received, and
//! - a colour: *black* once it has received a work message since it last passed the token.
//!
//! Rank 0, when passive, starts a wave: it turns white and sends the token `(q = 0, white)` to
//! rank 1. A rank passes the token on to the next rank only when passive, adding its `count` to
//! `q`, blackening the token if it is black itself, and turning white. When the token is back at
//! rank 0 and rank 0 is passive, the job has terminated if the token is white, rank 0 is white and
//! `q + count(0) == 0`; otherwise rank 0 starts another wave.
//!
//! Why that is right (EWD 998 gives the invariant proof; the gist). Work only moves in counted
//! messages, so the sum of all counts is the number of work messages in flight. Every rank was
//! passive when the token visited it. If a visited rank had been reactivated before the wave
//! ended, the work that woke it was sent either by a rank not yet visited (whose `+1` then sits in
//! `q` while the visited receiver's `-1` does not, so `q + count(0) > 0`), or by rank 0 or a rank
//! that was itself reactivated, which leads back, message by message, to a first such send from an
//! unvisited rank, or to a receipt by an unvisited rank, which blackens it and hence the token, or
//! by rank 0, which blackens rank 0. So a white wave whose counts sum to zero saw every rank
//! passive with nothing in flight, and nothing can wake a rank after that. Conversely, once the job
//! has terminated, the counts are final and sum to zero, and at most two more waves (one to whiten
//! the ranks) detect it.
//!
//! A wave costs one message per rank; with few ranks (this crate's target: a few to a few dozen)
//! a ring is as good as a tree. Seed 002 discusses tree-shaped tokens, which shorten a wave to
//! the tree's depth on thousands of processors; not done here.

/// One rank's part of the detection.
#[derive(Debug)]
pub(crate) struct Safra {
    me: usize,
    ranks: usize,
    /// Work messages sent minus received.
    count: i64,
    black: bool,
    /// The token, while this rank holds it: `(q, black)`.
    token: Option<(i64, bool)>,
    /// Rank 0 only: a wave is under way (the token is elsewhere or held here unsent).
    wave_out: bool,
}

/// What a rank must do after [`Safra::passive`].
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// Nothing now.
    Wait,
    /// Send the token `(q, black)` to the next rank.
    Pass { to: usize, q: i64, black: bool },
    /// Termination detected (rank 0 only): tell everyone.
    Terminated,
}

impl Safra {
    pub(crate) fn new(me: usize, ranks: usize) -> Self {
        Safra {
            me,
            ranks,
            count: 0,
            black: false,
            token: None,
            wave_out: false,
        }
    }

    /// A work message was sent.
    pub(crate) fn sent_work(&mut self) {
        self.count += 1;
    }

    /// A work message was received.
    pub(crate) fn received_work(&mut self) {
        self.count -= 1;
        self.black = true;
    }

    /// The token arrived.
    pub(crate) fn token(&mut self, q: i64, black: bool) {
        self.token = Some((q, black));
    }

    /// This rank is passive now: what to do with the token, if it holds it (or, on rank 0, may
    /// start a wave).
    pub(crate) fn passive(&mut self) -> Step {
        let next = (self.me + 1) % self.ranks;
        if self.me != 0 {
            let Some((q, black)) = self.token.take() else {
                return Step::Wait;
            };
            let black = black || self.black;
            self.black = false;
            return Step::Pass {
                to: next,
                q: q + self.count,
                black,
            };
        }
        if self.ranks == 1 {
            return if self.count == 0 {
                Step::Terminated
            } else {
                Step::Wait
            };
        }
        if self.wave_out {
            let Some((q, black)) = self.token.take() else {
                return Step::Wait;
            };
            if !black && !self.black && q + self.count == 0 {
                return Step::Terminated;
            }
        }
        // Start a (new) wave.
        self.wave_out = true;
        self.black = false;
        Step::Pass {
            to: next,
            q: 0,
            black: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Carries the wave rank 0 started (`start`) over the other ranks, all passive, and returns
    /// rank 0's verdict when the token is back.
    fn wave(r: &mut [Safra], start: Step) -> Step {
        let Step::Pass {
            mut q, mut black, ..
        } = start
        else {
            return start;
        };
        for rank in r.iter_mut().skip(1) {
            rank.token(q, black);
            match rank.passive() {
                Step::Pass {
                    q: q2, black: b2, ..
                } => (q, black) = (q2, b2),
                s => panic!("a passive rank holding the token passes it: {s:?}"),
            }
        }
        r[0].token(q, black);
        r[0].passive()
    }

    #[test]
    fn quiet_ranks_terminate_after_one_wave() {
        let mut r: Vec<_> = (0..4).map(|k| Safra::new(k, 4)).collect();
        let start = r[0].passive();
        assert_eq!(wave(&mut r, start), Step::Terminated);
    }

    #[test]
    fn work_in_flight_or_received_during_a_wave_is_not_missed() {
        let mut r: Vec<_> = (0..3).map(|k| Safra::new(k, 3)).collect();
        // Rank 2 sent work to rank 1 that has not arrived: the counts sum to 1.
        r[2].sent_work();
        let start = r[0].passive();
        let s = wave(&mut r, start);
        assert!(matches!(s, Step::Pass { .. }), "work in flight: {s:?}");
        // It arrives (rank 1 turns black), rank 1 runs it and is passive again.
        r[1].received_work();
        let s = wave(&mut r, s);
        assert!(matches!(s, Step::Pass { .. }), "rank 1 was black: {s:?}");
        // Now the counts sum to zero and every rank is white.
        assert_eq!(wave(&mut r, s), Step::Terminated);
    }

    #[test]
    fn a_held_token_waits_for_the_rank_to_be_passive() {
        let mut r = Safra::new(1, 3);
        assert_eq!(r.passive(), Step::Wait, "no token yet");
        r.token(0, false);
        assert_eq!(
            r.passive(),
            Step::Pass {
                to: 2,
                q: 0,
                black: false
            }
        );
    }

    #[test]
    fn one_rank_terminates_when_passive() {
        let mut r = Safra::new(0, 1);
        assert_eq!(r.passive(), Step::Terminated);
    }
}
