//! Counters per rank and for the whole job, in the shape of the runtime's
//! [`hypersteal::PoolStats`]: one entry per rank, and their sum.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// What one rank did during a run (counts between ranks only; each rank's own pool balances
/// inside the rank as usual and is not counted here).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RankStats {
    /// Tasks this rank ran.
    pub executed: u64,
    /// Requests for work this rank sent (receiver-initiated policies).
    pub requests: u64,
    /// Of those, the ones answered with work.
    pub requests_ok: u64,
    /// Tasks this rank placed on another rank (sender-initiated policies, forwards included).
    pub placed_out: u64,
    /// Tasks other ranks placed on this one.
    pub placed_in: u64,
    /// Messages carrying work that this rank sent (answers and placements).
    pub transfers: u64,
    /// Tasks in those messages.
    pub tasks_sent: u64,
    /// Tasks this rank received from other ranks.
    pub tasks_received: u64,
    /// Messages of every kind this rank sent.
    pub messages: u64,
    /// Bytes of every message this rank sent (serialised payload).
    pub bytes: u64,
    /// Bytes of the work-carrying messages alone.
    pub work_bytes: u64,
    /// Time this rank had no task to run, from the start until termination was detected.
    pub idle: Duration,
}

impl RankStats {
    fn add(self, o: RankStats) -> RankStats {
        RankStats {
            executed: self.executed + o.executed,
            requests: self.requests + o.requests,
            requests_ok: self.requests_ok + o.requests_ok,
            placed_out: self.placed_out + o.placed_out,
            placed_in: self.placed_in + o.placed_in,
            transfers: self.transfers + o.transfers,
            tasks_sent: self.tasks_sent + o.tasks_sent,
            tasks_received: self.tasks_received + o.tasks_received,
            messages: self.messages + o.messages,
            bytes: self.bytes + o.bytes,
            work_bytes: self.work_bytes + o.work_bytes,
            idle: self.idle + o.idle,
        }
    }
}

/// Every rank's [`RankStats`] for one run, as [`hypersteal::PoolStats`] holds its workers'.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MpiStats {
    /// One entry per rank, by rank.
    pub ranks: Vec<RankStats>,
    /// Wall-clock time of the run on rank 0, from the start to the combined result.
    pub elapsed: Duration,
}

impl MpiStats {
    /// The sum over ranks.
    pub fn total(&self) -> RankStats {
        self.ranks
            .iter()
            .fold(RankStats::default(), |acc, r| acc.add(*r))
    }
}
