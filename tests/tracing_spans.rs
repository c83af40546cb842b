//! The `tracing` feature: tasks run under the span that was current where they were made
//! (`join`'s `b`, scope spawns, `spawn`, `install`), whichever worker runs them, and the
//! runtime's own events reach a `tracing` subscriber at `trace` level. The subscriber here is
//! written for the test: it keeps each thread's stack of entered spans and records, for every
//! event, its target, its fields and the span current on its thread.
#![cfg(feature = "tracing")]

mod common;

use common::*;
use hypersteal::{Policy, Topology};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

/// One event as the subscriber saw it.
#[derive(Clone, Debug)]
struct Seen {
    target: String,
    fields: HashMap<String, String>,
    /// The name of the span current on the event's thread, if any.
    span: Option<String>,
    thread: std::thread::ThreadId,
}

#[derive(Default)]
struct Recorder {
    next: AtomicU64,
    names: Mutex<HashMap<u64, &'static Metadata<'static>>>,
    events: Mutex<Vec<Seen>>,
}

std::thread_local! {
    static STACK: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
}

struct Fields<'a>(&'a mut HashMap<String, String>);

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_string(), value.to_string());
    }
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0
            .insert(field.name().to_string(), format!("{value:?}"));
    }
}

impl Subscriber for Recorder {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, span: &Attributes<'_>) -> Id {
        let id = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        self.names.lock().unwrap().insert(id, span.metadata());
        Id::from_u64(id)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        let mut fields = HashMap::new();
        event.record(&mut Fields(&mut fields));
        let current = STACK.with(|s| s.borrow().last().copied());
        let span = current.and_then(|id| {
            let names = self.names.lock().unwrap();
            names.get(&id).map(|m| m.name().to_string())
        });
        self.events.lock().unwrap().push(Seen {
            target: event.metadata().target().to_string(),
            fields,
            span,
            thread: std::thread::current().id(),
        });
    }
    /// What `Span::current` asks: the innermost span entered on this thread (the runtime
    /// captures it where it makes a task).
    fn current_span(&self) -> tracing_core::span::Current {
        let top = STACK.with(|s| s.borrow().last().copied());
        match top.and_then(|id| Some((id, *self.names.lock().unwrap().get(&id)?))) {
            Some((id, meta)) => tracing_core::span::Current::new(Id::from_u64(id), meta),
            None => tracing_core::span::Current::none(),
        }
    }
    fn enter(&self, span: &Id) {
        STACK.with(|s| s.borrow_mut().push(span.into_u64()));
    }
    fn exit(&self, span: &Id) {
        STACK.with(|s| {
            let mut s = s.borrow_mut();
            if let Some(i) = s.iter().rposition(|&id| id == span.into_u64()) {
                s.remove(i);
            }
        });
    }
}

/// Installs the recorder for the whole process once (workers are other threads, so a
/// thread-local default would not reach them).
fn recorder() -> &'static Recorder {
    static RECORDER: std::sync::OnceLock<Arc<Recorder>> = std::sync::OnceLock::new();
    RECORDER.get_or_init(|| {
        let recorder = Arc::new(Recorder::default());
        tracing::subscriber::set_global_default(Arc::clone(&recorder))
            .expect("one global subscriber");
        recorder
    })
}

/// The events of the tests' own tasks recorded so far whose `tag` field is `tag`.
fn tasks_tagged(tag: &str) -> Vec<Seen> {
    recorder()
        .events
        .lock()
        .unwrap()
        .iter()
        .filter(|e| {
            e.target != "hypersteal" && e.fields.get("tag").map(String::as_str) == Some(tag)
        })
        .cloned()
        .collect()
}

/// Every task made inside a span runs inside it, on whichever thread it runs; at least one of
/// them ran on another thread than the one that made it (tried until one did).
#[test]
fn tasks_run_under_the_span_current_where_they_were_made() {
    recorder();
    within(Duration::from_secs(60), "spans follow tasks", || {
        for policy in [Policy::RandomPolling, Policy::RandomAlloc] {
            let pool = common::pool(policy, Topology::Complete, 2);
            let tag = format!("{policy}");
            let mut migrated = false;
            for _ in 0..200 {
                let span = tracing::info_span!("user_span");
                let caller = span.in_scope(|| {
                    pool.install(|| {
                        let here = std::thread::current().id();
                        hypersteal::join(
                            || spin_for(Duration::from_micros(200)),
                            || tracing::info!(tag = tag.as_str(), form = "join"),
                        );
                        hypersteal::scope(|s| {
                            for _ in 0..4 {
                                s.spawn(|_| tracing::info!(tag = tag.as_str(), form = "scope"));
                            }
                            spin_for(Duration::from_micros(200));
                        });
                        here
                    })
                });
                let seen = tasks_tagged(&tag);
                assert!(!seen.is_empty());
                for event in &seen {
                    assert_eq!(
                        event.span.as_deref(),
                        Some("user_span"),
                        "{policy}: {event:?}"
                    );
                }
                if seen.iter().any(|e| e.thread != caller) {
                    migrated = true;
                    break;
                }
            }
            assert!(migrated, "{policy}: no task ever ran on another worker");
        }
    });
}

/// The runtime's own events reach the subscriber at `trace` level, named by `event` and
/// attributed to a worker: transfers under a receiver-initiated policy, placements under a
/// sender-initiated one, idle stretches under both.
#[test]
fn the_runtimes_events_reach_the_subscriber() {
    recorder();
    within(Duration::from_secs(60), "runtime events", || {
        let runtime_events = || -> Vec<String> {
            recorder()
                .events
                .lock()
                .unwrap()
                .iter()
                .filter(|e| e.target == "hypersteal")
                .filter_map(|e| e.fields.get("event").cloned())
                .collect()
        };
        let done = AtomicUsize::new(0);
        for policy in [Policy::RandomPolling, Policy::RandomAlloc] {
            let pool = common::pool(policy, Topology::Complete, 2);
            for _ in 0..50 {
                assert_eq!(pool.install(|| fib(22)), fib_iter(22));
                let seen = runtime_events();
                let has = |name: &str| seen.iter().any(|e| e.contains(name));
                let moved = if policy.is_sender_initiated() {
                    has("placed")
                } else {
                    has("stolen") || has("promoted")
                };
                if moved && has("idle begin") {
                    done.fetch_add(1, Ordering::Relaxed);
                    break;
                }
            }
        }
        assert_eq!(done.into_inner(), 2, "events seen: {:?}", runtime_events());
        let with_worker = recorder()
            .events
            .lock()
            .unwrap()
            .iter()
            .filter(|e| e.target == "hypersteal")
            .all(|e| e.fields.contains_key("worker"));
        assert!(with_worker, "every runtime event names its worker");
    });
}
