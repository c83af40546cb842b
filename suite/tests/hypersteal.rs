//! Every workload under the `Hypersteal` context, in pools of 2 workers:
//! each outcome must pass its check. Every policy runs the join-heavy
//! workloads; UTS T1 and T3 must reproduce the published counts exactly.

use hypersteal::{Policy, ThreadPool, ThreadPoolBuilder, Topology};
use hypersteal_suite::bench::{on_big_stack, STACK};
use hypersteal_suite::{Hypersteal, Outcome, Workload};

fn pool(policy: Policy, topology: Topology, threads: usize) -> ThreadPool {
    ThreadPoolBuilder::new()
        .num_threads(threads)
        .policy(policy)
        .topology(topology)
        .pin_threads(false)
        .stack_size(STACK)
        .build()
        .expect("a pool")
}

/// Runs `spelling` twice in `pool` and checks both outcomes.
fn run_checked(pool: &ThreadPool, spelling: &str) -> Outcome {
    let w: Workload = spelling.parse().expect("a valid spelling");
    let mut instance = w.prepare();
    let mut last = None;
    for _ in 0..2 {
        let o = pool.install(|| instance.run(&mut Hypersteal));
        if let Err(e) = instance.check(&o) {
            panic!("{spelling} under {}: {e}", pool.policy());
        }
        last = Some(o);
    }
    last.unwrap()
}

#[test]
fn every_workload_small_under_rp_and_acwn() {
    on_big_stack(|| {
        for policy in ["rp", "acwn"] {
            let pool = pool(policy.parse().unwrap(), Topology::Hypercube, 2);
            for spelling in [
                "fib:20",
                "nqueens:8",
                "puzzle15:2",
                "romberg:12",
                "tautology:20",
                "mandelbrot:100,iters=200",
                "matmul:33,chunk=5",
                "quicksort:20000",
                "mergesort:20000",
                "tree-sum:12",
            ] {
                run_checked(&pool, spelling);
            }
        }
    });
}

#[test]
fn every_policy_and_topology_on_join_heavy_workloads() {
    on_big_stack(|| {
        for policy in Policy::all() {
            for (topology, threads) in [(Topology::Hypercube, 2), (Topology::Mesh, 3)] {
                let pool = pool(policy, topology, threads);
                assert_eq!(run_checked(&pool, "fib:18,cutoff=0"), Outcome::Fib(2584));
                assert_eq!(run_checked(&pool, "nqueens:8"), Outcome::NQueens(92));
                run_checked(&pool, "tree-sum:10");
                run_checked(&pool, "tautology:vars=20,terms=60,seed=3");
            }
        }
    });
}

#[test]
fn nqueens_10_is_724_and_korf_2_is_55() {
    on_big_stack(|| {
        let pool = pool(Policy::RandomPolling, Topology::Hypercube, 2);
        assert_eq!(run_checked(&pool, "nqueens:10"), Outcome::NQueens(724));
        match run_checked(&pool, "puzzle15:2") {
            Outcome::Puzzle15(s) => assert_eq!(s.moves, 55),
            o => panic!("{o:?}"),
        }
    });
}

#[test]
fn uts_t1_and_t3_exact() {
    on_big_stack(|| {
        let rp = pool(Policy::RandomPolling, Topology::Hypercube, 2);
        let Outcome::Uts(s) = run_checked(&rp, "uts:T1") else {
            panic!()
        };
        assert_eq!((s.nodes, s.leaves, s.max_depth), (4_130_071, 3_305_118, 10));
        let acwn = pool("acwn".parse().unwrap(), Topology::Hypercube, 2);
        for p in [&rp, &acwn] {
            let Outcome::Uts(s) = run_checked(p, "uts:T3") else {
                panic!()
            };
            assert_eq!(
                (s.nodes, s.leaves, s.max_depth),
                (4_112_897, 3_599_034, 1572)
            );
        }
    });
}
