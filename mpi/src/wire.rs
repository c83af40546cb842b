//! What travels between ranks, and how it is sent without ever blocking.
//!
//! Every message is one [`Msg`] serialised with bincode into a byte buffer and sent with a
//! non-blocking `MPI_Isend`. A blocking send of a large buffer waits for the receiver to post a
//! matching receive; two ranks sending work to each other at once would then wait for each other
//! forever. The [`Outbox`] keeps each buffer alive until MPI reports its send complete, so a
//! rank never waits on a send and keeps answering the others.
//!
//! Every message of one run carries that run's tag ([`run_tag`]), and a rank receives only its
//! run's tag: control messages still in flight when a run ended (a request, a draw, a load) can
//! never be taken for the next run's. (A communicator duplicated per run would do the same, but
//! Open MPI's `MPI_Comm_dup` was seen to livelock, in `ompi_comm_nextcid`, when the freed
//! communicator of the run before still had such messages pending.)

use std::sync::atomic::{AtomicI32, Ordering};

use mpi::point_to_point::{Destination, Source};
use mpi::request::{Request, StaticScope};
use mpi::topology::{Communicator, SimpleCommunicator};
use serde::{Deserialize, Serialize};

use crate::stats::RankStats;

/// One message between ranks. `T` is the user's task type, `O` its output.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum Msg<T, O> {
    /// An idle rank asks for work (receiver-initiated policies).
    Request {
        /// The asker's waiting tasks (0: it is idle).
        load: u64,
    },
    /// The asked rank has nothing to give.
    Reject { load: u64 },
    /// Tasks with their hop counts: an answer to a request (`placed = false`) or a placement by
    /// a sender-initiated policy (`placed = true`). The only *basic* message of the termination
    /// detection: it is the only one that carries work.
    Work {
        tasks: Vec<(T, u32)>,
        placed: bool,
        load: u64,
    },
    /// A load-reading policy's published state: waiting tasks and gradient proximity.
    Load { load: u64, proximity: u64 },
    /// A request for `count` values of the global round-robin counter (`grr`, `sb`: to rank 0,
    /// which decides the victim; `grr-m`: to the tree parent, combined on the way up).
    Draw { count: u64 },
    /// Rank 0's decision for a `grr`/`sb` draw: whom to ask (`None`: no donor).
    Victim { victim: Option<u32> },
    /// `grr-m`: the first of the consecutive counter values granted to a combined draw.
    Grant { base: u64 },
    /// `sb`: the sender became busy (joins the donor queue) or idle (leaves it).
    Donor { busy: bool },
    /// The termination token (Safra's algorithm, `termination.rs`).
    Token { q: i64, black: bool },
    /// Rank 0 detected termination.
    Done,
    /// A subtree's combined output and the stats of its ranks, sent up the rank tree.
    Result {
        output: O,
        stats: Vec<(u32, RankStats)>,
    },
}

/// Sends in flight: each buffer stays alive until MPI says it has been sent.
pub(crate) struct Outbox {
    pending: Vec<(Request<'static, [u8]>, *mut [u8])>,
}

impl Outbox {
    pub(crate) fn new() -> Self {
        Outbox {
            pending: Vec::new(),
        }
    }

    /// Starts sending `bytes` to rank `to`; returns at once.
    pub(crate) fn send(&mut self, comm: &SimpleCommunicator, tag: i32, to: usize, bytes: Vec<u8>) {
        let raw: *mut [u8] = Box::into_raw(bytes.into_boxed_slice());
        // SAFETY: `raw` comes from `Box::into_raw` just above, so it points to a live, initialised
        // allocation. Nothing else can reach it: the box is rebuilt and freed only in `reap` or
        // `flush`, after MPI has reported the send complete, i.e. after its last read. So the
        // shared borrow handed to MPI is valid for as long as MPI uses it, and no `&mut` to the
        // buffer exists meanwhile.
        let buf: &'static [u8] = unsafe { &*raw };
        let request =
            comm.process_at_rank(to as i32)
                .immediate_send_with_tag(StaticScope, buf, tag);
        self.pending.push((request, raw));
        self.reap();
    }

    /// Frees the buffers of the sends that have completed.
    pub(crate) fn reap(&mut self) {
        let mut i = 0;
        while i < self.pending.len() {
            let (request, raw) = self.pending.swap_remove(i);
            match request.test() {
                Ok(_) => free(raw),
                Err(request) => {
                    self.pending.push((request, raw));
                    let last = self.pending.len() - 1;
                    self.pending.swap(i, last);
                    i += 1;
                }
            }
        }
    }

    /// Waits for every send in flight to complete and frees its buffer.
    pub(crate) fn flush(&mut self) {
        for (request, raw) in self.pending.drain(..) {
            request.wait();
            free(raw);
        }
    }
}

impl Drop for Outbox {
    fn drop(&mut self) {
        self.flush();
    }
}

fn free(raw: *mut [u8]) {
    // SAFETY: `raw` was made by `Box::into_raw` in `Outbox::send`, and the caller has just seen
    // its send complete, so MPI no longer reads it and this is the only owner: rebuilding the box
    // frees it exactly once.
    drop(unsafe { Box::from_raw(raw) });
}

/// The next message that has arrived, if any, with its source rank and size in bytes.
pub(crate) fn try_receive(comm: &SimpleCommunicator, tag: i32) -> Option<(usize, Vec<u8>)> {
    let (message, status) = comm.any_process().immediate_matched_probe_with_tag(tag)?;
    let (bytes, _) =
        mpi::point_to_point::MatchedReceiveVec::matched_receive_vec::<u8>((message, status));
    Some((status.source_rank() as usize, bytes))
}

/// Whether a message has arrived (without taking it).
pub(crate) fn probe(comm: &SimpleCommunicator, tag: i32) -> bool {
    comm.any_process().immediate_probe_with_tag(tag).is_some()
}

/// Waits for the next message (used only after termination, when a rank collects its subtree's
/// results and has nothing else to do).
pub(crate) fn receive(comm: &SimpleCommunicator, tag: i32) -> (usize, Vec<u8>) {
    let (bytes, status) = comm.any_process().receive_vec_with_tag::<u8>(tag);
    (status.source_rank() as usize, bytes)
}

/// Runs so far in this process: every rank calls [`crate::run`] the same number of times, so the
/// n-th run has the same number on every rank.
static RUNS: AtomicI32 = AtomicI32::new(0);

/// The tag of a new run: 1 to 30,000, cycling (MPI guarantees tags up to 32,767; tag 0 is left
/// to the caller's own messages).
pub(crate) fn run_tag() -> i32 {
    RUNS.fetch_add(1, Ordering::Relaxed) % 30_000 + 1
}
