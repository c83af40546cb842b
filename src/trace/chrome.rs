//! Export in the Chrome Trace Event format (the JSON object form), which Perfetto
//! (<https://ui.perfetto.dev>) and `chrome://tracing` open.
//!
//! One process (the pool), one track (`tid`) per worker, named by `M` metadata events. Idle
//! stretches, sleeps and tasks run by a worker that did not create them are `B`/`E` slices;
//! requests, answers, receptions and promotions are `i` instants; each transfer (a steal by
//! request or a placement) is a 1 ns `X` slice on both the giving and the receiving track (so
//! that each end of the arrow has a slice to bind to), joined by an `s`/`f` flow arrow whose `id`
//! numbers the transfers in the trace. Timestamps are microseconds with nanosecond decimals since
//! the pool started. `otherData` reports the worker count and the events each worker dropped
//! when its ring was full.
//!
//! Every string written is one of a fixed set of ASCII names, so no escaping is needed.

use super::{EventKind, Trace, NO_PEER};
use std::io::{self, Write};

/// Microseconds with three decimals (ns precision), as Chrome's `ts` expects.
struct Micros(u64);

impl std::fmt::Display for Micros {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{:03}", self.0 / 1000, self.0 % 1000)
    }
}

/// Writes `trace` as Chrome Trace Event JSON to `out`.
pub fn write_chrome(trace: &Trace, out: &mut dyn Write) -> io::Result<()> {
    let mut out = io::BufWriter::new(out);
    let p = trace.workers.len();
    out.write_all(b"{\"displayTimeUnit\":\"ns\",\"otherData\":{\"workers\":")?;
    write!(out, "{p},\"dropped\":[")?;
    for (i, d) in trace.dropped.iter().enumerate() {
        write!(out, "{}{d}", if i == 0 { "" } else { "," })?;
    }
    out.write_all(b"]},\"traceEvents\":[\n")?;
    out.write_all(
        b"{\"ph\":\"M\",\"pid\":1,\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":\"hypersteal pool\"}}",
    )?;
    for w in 0..p {
        write!(
            out,
            ",\n{{\"ph\":\"M\",\"pid\":1,\"tid\":{w},\"name\":\"thread_name\",\"args\":{{\"name\":\"worker {w}\"}}}}"
        )?;
        write!(
            out,
            ",\n{{\"ph\":\"M\",\"pid\":1,\"tid\":{w},\"name\":\"thread_sort_index\",\"args\":{{\"sort_index\":{w}}}}}"
        )?;
    }
    let mut flow = 0u64;
    for (me, events) in trace.workers.iter().enumerate() {
        for e in events {
            let ts = Micros(e.ts_ns);
            let peer = e.peer;
            let slice = |out: &mut dyn Write, ph: &str, name: &str, cat: &str| {
                write!(
                    out,
                    ",\n{{\"ph\":\"{ph}\",\"pid\":1,\"tid\":{me},\"ts\":{ts},\"name\":\"{name}\",\"cat\":\"{cat}\""
                )?;
                if ph == "B" && peer != NO_PEER {
                    write!(out, ",\"args\":{{\"creator\":{peer}}}")?;
                }
                out.write_all(b"}")
            };
            match e.kind {
                EventKind::IdleBegin => slice(&mut out, "B", "idle", "idle")?,
                EventKind::IdleEnd => slice(&mut out, "E", "idle", "idle")?,
                EventKind::Sleep => slice(&mut out, "B", "sleep", "sleep")?,
                EventKind::Wake => slice(&mut out, "E", "sleep", "sleep")?,
                EventKind::TaskStart => slice(&mut out, "B", "transferred task", "task")?,
                EventKind::TaskEnd => slice(&mut out, "E", "transferred task", "task")?,
                EventKind::Stolen | EventKind::Rescued | EventKind::Placed => {
                    let (from, to) = if e.kind != EventKind::Placed {
                        (peer as usize, me)
                    } else {
                        (me, peer as usize)
                    };
                    if from >= p || to >= p {
                        continue;
                    }
                    let name = e.kind.name();
                    let hops = e.hops;
                    for (tid, ph, label) in [(from, "s", "give"), (to, "f", "take")] {
                        write!(
                            out,
                            ",\n{{\"ph\":\"X\",\"pid\":1,\"tid\":{tid},\"ts\":{ts},\"dur\":0.001,\"name\":\"{label}\",\"cat\":\"transfer\",\"args\":{{\"kind\":\"{name}\",\"from\":{from},\"to\":{to},\"hops\":{hops},\"transfer\":{flow}}}}}"
                        )?;
                        let bind = if ph == "f" { ",\"bp\":\"e\"" } else { "" };
                        write!(
                            out,
                            ",\n{{\"ph\":\"{ph}\",\"pid\":1,\"tid\":{tid},\"ts\":{ts},\"id\":{flow},\"name\":\"transfer\",\"cat\":\"transfer\"{bind}}}"
                        )?;
                    }
                    flow += 1;
                }
                kind => {
                    let name = kind.name();
                    write!(
                        out,
                        ",\n{{\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":{me},\"ts\":{ts},\"name\":\"{name}\",\"cat\":\"exchange\",\"args\":{{\"peer\":"
                    )?;
                    if peer == NO_PEER {
                        out.write_all(b"null")?;
                    } else {
                        write!(out, "{peer}")?;
                    }
                    write!(out, ",\"hops\":{}}}}}", e.hops)?;
                }
            }
        }
    }
    out.write_all(b"\n]}\n")?;
    out.flush()
}
