//! Random programs under every policy, topology and worker count: trees of `join`, `scope` with
//! sibling spawns, `in_place_scope`, `scope_fifo`, `broadcast`, `'static` spawns, calls into a
//! second pool, and panics, each node counted when it runs. Every node must run exactly once,
//! a panic must reach the caller (after its siblings finished), every `'static` spawn must run,
//! and every pool must keep working afterwards.
//!
//! CI runs one small tree per configuration (12 policies x 5 topologies x {1, 2, 3, 4, 8, 16,
//! 64} workers), in a child process under a time limit. `HYPERSTEAL_SOAK=N` runs `N` trees per
//! configuration, each up to `N` times larger, for a longer hunt:
//! `HYPERSTEAL_SOAK=20 cargo test --release --test runtime soak::`.

use crate::common;

use common::*;
use hypersteal::{Policy, ThreadPool, ThreadPoolBuilder, Topology};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The soak factor (`HYPERSTEAL_SOAK`, default 1).
fn soak() -> usize {
    match std::env::var("HYPERSTEAL_SOAK") {
        Err(_) => 1,
        Ok(v) => v
            .parse::<usize>()
            .ok()
            .filter(|&n| n >= 1)
            .unwrap_or_else(|| panic!("HYPERSTEAL_SOAK={v:?}: expected a whole number >= 1")),
    }
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// One node of a random program. Every node counts itself once when it runs.
enum Node {
    Leaf,
    /// A leaf that panics after counting itself.
    Panic,
    Join(Box<Node>, Box<Node>),
    /// A scope whose first task spawns the rest as its siblings through its `&Scope`.
    Scope(Vec<Node>),
    InPlaceScope(Vec<Node>),
    ScopeFifo(Vec<Node>),
    /// `broadcast`: the child runs once, on worker 0 (the others only count a visit).
    Broadcast(Box<Node>),
    /// A `'static` spawn running the child; it must not panic (its panic would go to the pool's
    /// handler, not to the caller).
    Static(Box<Node>),
    /// The child runs inside the second pool (`install`).
    Cross(Box<Node>),
}

impl Node {
    fn random(rng: &mut Rng, budget: &mut usize, depth: u32, panics: bool) -> Node {
        if *budget == 0 || depth > 12 {
            return Node::Leaf;
        }
        *budget -= 1;
        let kind = rng.below(12);
        let child = |rng: &mut Rng, budget: &mut usize| {
            Box::new(Node::random(rng, budget, depth + 1, panics))
        };
        let children = |rng: &mut Rng, budget: &mut usize| {
            let n = 1 + rng.below(4) as usize;
            (0..n)
                .map(|_| Node::random(rng, budget, depth + 1, panics))
                .collect::<Vec<_>>()
        };
        match kind {
            0 => Node::Leaf,
            1 if panics && rng.below(4) == 0 => Node::Panic,
            1..=3 => Node::Join(child(rng, budget), child(rng, budget)),
            4 => Node::Scope(children(rng, budget)),
            5 => Node::InPlaceScope(children(rng, budget)),
            6 => Node::ScopeFifo(children(rng, budget)),
            7 => Node::Broadcast(child(rng, budget)),
            8 => Node::Static(Box::new(Node::random(rng, budget, depth + 1, false))),
            9 => Node::Cross(child(rng, budget)),
            _ => Node::Join(child(rng, budget), child(rng, budget)),
        }
    }

    /// Nodes that count themselves when the program runs.
    fn size(&self) -> usize {
        1 + match self {
            Node::Leaf | Node::Panic => 0,
            Node::Join(a, b) => a.size() + b.size(),
            Node::Scope(c) | Node::InPlaceScope(c) | Node::ScopeFifo(c) => {
                c.iter().map(Node::size).sum()
            }
            Node::Broadcast(c) | Node::Static(c) | Node::Cross(c) => c.size(),
        }
    }

    /// Whether running the program panics at its caller: a panic outside every `'static`
    /// spawn (whose panics go to the pool's handler).
    fn panics(&self) -> bool {
        match self {
            Node::Leaf | Node::Static(_) => false,
            Node::Panic => true,
            Node::Join(a, b) => a.panics() || b.panics(),
            Node::Scope(c) | Node::InPlaceScope(c) | Node::ScopeFifo(c) => {
                c.iter().any(Node::panics)
            }
            Node::Broadcast(c) | Node::Cross(c) => c.panics(),
        }
    }
}

/// What every node of one program shares.
struct Run {
    hits: AtomicUsize,
    other: Arc<ThreadPool>,
}

/// Runs `node` (on a worker of some pool) and counts it.
fn run(node: &Arc<Node>, path: &[usize], ctx: &Arc<Run>) {
    // A node is named by the root and a path to it: the `'static` spawns need an owned
    // handle on their subtree, and the root's `Arc` is one.
    let here = subtree(node, path);
    // Counted when the node ends, normally or by a panic: a node ends after its children.
    struct Count<'a>(&'a AtomicUsize);
    impl Drop for Count<'_> {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }
    let _count = Count(&ctx.hits);
    let step = |i: usize| {
        let mut p = path.to_vec();
        p.push(i);
        p
    };
    match here {
        Node::Leaf => {}
        Node::Panic => panic!("a planned panic"),
        Node::Join(_, _) => {
            hypersteal::join(|| run(node, &step(0), ctx), || run(node, &step(1), ctx));
        }
        Node::Scope(children) => hypersteal::scope(|s| {
            let n = children.len();
            s.spawn(move |s| {
                for i in 1..n {
                    s.spawn(move |_| run(node, &step(i), ctx));
                }
                run(node, &step(0), ctx);
            });
        }),
        Node::InPlaceScope(children) => hypersteal::in_place_scope(|s| {
            for i in 0..children.len() {
                s.spawn(move |_| run(node, &step(i), ctx));
            }
        }),
        Node::ScopeFifo(children) => hypersteal::scope_fifo(|s| {
            for i in 0..children.len() {
                s.spawn_fifo(move |_| run(node, &step(i), ctx));
            }
        }),
        Node::Broadcast(_) => {
            hypersteal::broadcast(|b| {
                if b.index() == 0 {
                    run(node, &step(0), ctx);
                }
            });
        }
        Node::Static(_) => {
            let (node, ctx, path) = (Arc::clone(node), Arc::clone(ctx), step(0));
            hypersteal::spawn(move || run(&node, &path, &ctx));
        }
        Node::Cross(_) => ctx.other.install(|| run(node, &step(0), ctx)),
    }
}

/// The node `path` leads to from `root`.
fn subtree<'a>(root: &'a Node, path: &[usize]) -> &'a Node {
    let mut node = root;
    for &i in path {
        node = match node {
            Node::Join(a, b) => {
                if i == 0 {
                    a
                } else {
                    b
                }
            }
            Node::Scope(c) | Node::InPlaceScope(c) | Node::ScopeFifo(c) => &c[i],
            Node::Broadcast(c) | Node::Static(c) | Node::Cross(c) => c,
            Node::Leaf | Node::Panic => unreachable!("a path below a leaf"),
        };
    }
    node
}

/// Runs one random program in `pool` and checks it.
fn check(pool: &ThreadPool, other: &Arc<ThreadPool>, seed: u64, size: usize, what: &str) {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut budget = size;
    let root = Arc::new(Node::random(&mut rng, &mut budget, 0, true));
    let expected = root.size();
    let ctx = Arc::new(Run {
        hits: AtomicUsize::new(0),
        other: Arc::clone(other),
    });
    let outcome = catch_unwind(AssertUnwindSafe(|| pool.install(|| run(&root, &[], &ctx))));
    assert_eq!(
        outcome.is_err(),
        root.panics(),
        "{what}, seed {seed}: the caller saw a panic iff the program has one"
    );
    // `'static` spawns may still run: wait for them (bounded by the child's limit).
    let start = Instant::now();
    while ctx.hits.load(Ordering::Relaxed) < expected {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "{what}, seed {seed}: {} of {expected} nodes ran",
            ctx.hits.load(Ordering::Relaxed)
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(
        ctx.hits.load(Ordering::Relaxed),
        expected,
        "{what}, seed {seed}: a node ran twice"
    );
    // The pool still works.
    assert_eq!(
        pool.install(|| fib(12)),
        fib_iter(12),
        "{what}, seed {seed}"
    );
}

/// Whether `pool`'s books balance (every task made ran, every job submitted ran).
fn quiescent(pool: &ThreadPool) -> bool {
    let stats = pool.stats();
    let total = stats.total();
    total.executed == total.spawned && total.injected == stats.submitted
}

#[test]
fn random_programs_under_every_policy_topology_and_worker_count() {
    let name = "random_programs_under_every_policy_topology_and_worker_count";
    let factor = soak();
    let limit = Duration::from_secs(300 * factor as u64);
    if let Some(out) = in_child(name, limit, |_| {}) {
        assert_child_passed(name, &out);
        return;
    }
    // The planned panics are expected: keep them off stderr, which shows the real failure.
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if info.payload().downcast_ref::<&str>() != Some(&"a planned panic") {
            default(info);
        }
    }));
    let other = Arc::new(pool(Policy::default(), Topology::Complete, 2));
    let mut seed = 0;
    for policy in Policy::all() {
        for workers in [1, 2, 3, 4, 8, 16, 64] {
            for topology in Topology::ALL {
                let built = ThreadPoolBuilder::new()
                    .num_threads(workers)
                    .policy(policy)
                    .topology(topology)
                    .pin_threads(false)
                    .panic_handler(|_| {})
                    .build();
                let Ok(pool) = built else {
                    // A topology that cannot hold this many workers (a build error, tested in
                    // tests/runtime/topology.rs).
                    continue;
                };
                let what = format!("{policy} on {topology} with {workers} workers");
                for _ in 0..factor {
                    seed += 1;
                    check(&pool, &other, seed, 24 * factor, &what);
                }
                // The last `'static` task may still be returning from its node.
                let start = Instant::now();
                while !quiescent(&pool) && start.elapsed() < Duration::from_secs(10) {
                    std::thread::sleep(Duration::from_millis(1));
                }
                assert_balanced(&pool, &what);
                pool.shutdown();
            }
        }
    }
}
