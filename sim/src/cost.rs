//! The cost model: what computing, asking and moving work cost in simulated time.
//!
//! Times are in an abstract unit; with the defaults one unit is the time to expand one node of a
//! search tree (one unit of work at [`CostModel::t_work`] = 1). Communication follows the
//! cut-through model of seed 002 section 5.3.6: a message between workers `d` hops apart takes
//! `base + per_hop × d`, with `d` the topology graph's real shortest-path distance (so the mean
//! grows like log P on a hypercube, like √P on a mesh, and stays 1 on the complete graph).

/// Parameters of the simulated machine. All times are in simulated time units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CostModel {
    /// Time per unit of work (node cost 1, or one unit of divisible work). Must be positive.
    pub t_work: f64,
    /// Fixed part of a small message (a work request, a reject, a counter access).
    pub msg_base: f64,
    /// Per-hop part of a small message.
    pub msg_per_hop: f64,
    /// Fixed part of a message that carries work (a stolen or placed task, a split piece).
    pub transfer_base: f64,
    /// Per-hop part of a work message.
    pub transfer_per_hop: f64,
    /// Time one access occupies a serialising shared point: GRR's counter `TARGET` and SB's
    /// donor queue, both at worker 0. Accesses queue there (first come, first served), and the
    /// victim is chosen when an access is served. The default is one small message's fixed
    /// part (`msg_base`): serving an access is answering it, and the model prices every answer
    /// a processor sends at the fixed part of its message (as the iPSC/2 preset does too).
    pub t_access: f64,
    /// GRR-M: time a request spends at each level of the combining tree, each way (the combining
    /// window plus the node's processing). The tree does not serialise: requests combine.
    pub t_combine: f64,
    /// A shared bus (the network-of-workstations column): when positive, every message occupies
    /// one bus for this long, and messages queue on it. 0 means a switched network.
    pub t_bus: f64,
    /// Bookkeeping per executed task, on the processor that runs it (creating the chare and
    /// sending its response): processor time that is not work. 0 except in the iPSC/2 preset
    /// (Shu: 0.25 to 0.4 ms per chare created or message sent, two messages per chare: 0.7).
    pub t_task: f64,
    /// Further processor time of a task that was placed here from another processor (sending
    /// and receiving the message that brought it and its response), on the processor that runs
    /// it. 0 except in the iPSC/2 preset (Shu: 0.45 ms per communication, each way: 1.8).
    pub t_task_remote: f64,
    /// Sender-initiated policies without a heartbeat (`SimConfig::heartbeat` 0): the period of
    /// the processors' load exchange, which drives the standing phase (`Machine::tick`) once for
    /// every period that passed since a processor's last poll point, counted as the runtime
    /// counts heartbeats (`hypersteal::policy::machine::Heartbeat::poll`); new tasks are still
    /// decided when they are created. 0: the standing phase runs after every executed task. 0
    /// except in the iPSC/2 preset (Shu: 100 ms, "the period of load information exchanging").
    /// A policy's `interval` then counts exchanges.
    pub load_period: f64,
    /// Receiver-initiated policies with [`Idle::Park`](crate::Idle::Park): the time a parked
    /// processor takes to start asking again once a processor it may steal from has work
    /// (the runtime's sleeping worker being woken and scheduled by the operating system). 0 in
    /// every preset (the papers' processors poll and never sleep); a calibration of a real
    /// machine measures it (`docs/simulator.md`, "Predicting the machine at hand").
    pub t_wake: f64,
}

impl Default for CostModel {
    /// Round figures in the Ncube/2's direction (seed 002 section 5.3.6, with a node expansion
    /// as the time unit): message start-up dominates the per-hop time, and moving work costs
    /// more than asking. A hop weighs 0.1 of a start-up, five times the Ncube/2's, so that the
    /// topologies' distances show (seed 002 Table 1); [`CostModel::ncube2`] is the Ncube/2's
    /// own figures, which the papers' measured tables use.
    fn default() -> Self {
        CostModel {
            t_work: 1.0,
            msg_base: 1.0,
            msg_per_hop: 0.1,
            transfer_base: 2.0,
            transfer_per_hop: 0.1,
            t_access: 1.0,
            t_combine: 0.5,
            t_bus: 0.0,
            t_task: 0.0,
            t_task_remote: 0.0,
            load_period: 0.0,
            t_wake: 0.0,
        }
    }
}

impl CostModel {
    /// A machine where communication and shared points cost nothing (only work takes time).
    pub fn free() -> Self {
        CostModel {
            t_work: 1.0,
            msg_base: 0.0,
            msg_per_hop: 0.0,
            transfer_base: 0.0,
            transfer_per_hop: 0.0,
            t_access: 0.0,
            t_combine: 0.0,
            t_bus: 0.0,
            t_task: 0.0,
            t_task_remote: 0.0,
            load_period: 0.0,
            t_wake: 0.0,
        }
    }

    /// One-way time of a small message over `d` hops.
    pub fn t_msg(&self, d: usize) -> f64 {
        self.msg_base + self.msg_per_hop * d as f64
    }

    /// One-way time of a work message over `d` hops.
    pub fn t_transfer(&self, d: usize) -> f64 {
        self.transfer_base + self.transfer_per_hop * d as f64
    }

    /// The largest value a cost parameter may take: beyond it the simulated times of a long
    /// run would overflow (`1e308` made every time infinite and the waits `NaN`).
    pub const MAX: f64 = 1e12;

    /// Checks that every parameter is finite, 0 to [`CostModel::MAX`], and `t_work` positive.
    pub fn validate(&self) -> Result<(), String> {
        let all = [
            ("t_work", self.t_work),
            ("msg_base", self.msg_base),
            ("msg_per_hop", self.msg_per_hop),
            ("transfer_base", self.transfer_base),
            ("transfer_per_hop", self.transfer_per_hop),
            ("t_access", self.t_access),
            ("t_combine", self.t_combine),
            ("t_bus", self.t_bus),
            ("t_task", self.t_task),
            ("t_task_remote", self.t_task_remote),
            ("load_period", self.load_period),
            ("t_wake", self.t_wake),
        ];
        for (name, v) in all {
            if !(0.0..=Self::MAX).contains(&v) {
                let got = if v.abs() < 1e9 {
                    v.to_string()
                } else {
                    format!("{v:e}")
                };
                return Err(format!(
                    "cost {name} must be 0 to {:e}, got {got}",
                    Self::MAX
                ));
            }
        }
        if self.t_work <= 0.0 {
            return Err("cost t_work must be positive".into());
        }
        Ok(())
    }
}

/// A serialising resource (a counter, a queue, a bus): one access at a time, first come first
/// served.
#[derive(Clone, Debug, Default)]
pub(crate) struct Server {
    free_at: f64,
    /// Total time requests spent queueing here.
    pub(crate) waited: f64,
    /// Accesses served.
    pub(crate) accesses: u64,
}

impl Server {
    /// An access arriving at `arrive` that holds the resource for `hold`: returns when it ends.
    pub(crate) fn access(&mut self, arrive: f64, hold: f64) -> f64 {
        let start = arrive.max(self.free_at);
        self.waited += start - arrive;
        self.accesses += 1;
        self.free_at = start + hold;
        self.free_at
    }
}
