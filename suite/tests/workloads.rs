//! Every workload, at a small size, under every runtime the suite knows:
//! the plain sequential code, the `Sequential` context, rayon (a 2-thread
//! pool) and chili (a 2-thread pool). Each outcome must pass its check.

use std::num::NonZero;

use hypersteal_suite::workloads::{tautology, uts};
use hypersteal_suite::{Chili, Fork, Outcome, Rayon, Sequential, Workload};

/// Worker stacks large enough for the deepest recursion here (UTS T3 nests
/// about 1,200 joins).
const STACK: usize = 64 << 20;

fn rayon_pool() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .stack_size(STACK)
        .build()
        .expect("a rayon pool")
}

fn chili_pool() -> chili::ThreadPool {
    chili::ThreadPool::with_config(chili::Config {
        thread_count: NonZero::new(2),
        ..Default::default()
    })
}

/// Runs `f` on a thread with a large stack (the calling thread takes part in
/// chili's and the sequential runs).
fn on_big_stack<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(STACK)
            .spawn_scoped(s, f)
            .expect("a thread")
            .join()
            .expect("no panic")
    })
}

/// Runs `spelling` plain-sequentially and under every context, checks every
/// outcome, and returns them (plain sequential first).
fn run_everywhere(spelling: &str) -> Vec<Outcome> {
    let workload: Workload = spelling.parse().expect("a valid spelling");
    on_big_stack(|| {
        let mut instance = workload.prepare();
        let mut outcomes = Vec::new();
        let mut record = |label: &str, instance: &mut hypersteal_suite::Instance, o: Outcome| {
            if let Err(e) = instance.check(&o) {
                panic!("{spelling} under {label}: {e}");
            }
            outcomes.push(o);
        };

        let o = instance.run_sequential();
        record("plain sequential code", &mut instance, o);

        let o = instance.run(&mut Sequential);
        record("Sequential", &mut instance, o);

        let pool = rayon_pool();
        let o = pool.install(|| instance.run(&mut Rayon));
        record("Rayon", &mut instance, o);

        let chili = chili_pool();
        let mut scope: Chili<'_> = chili.scope();
        let o = instance.run(&mut scope);
        record("Chili", &mut instance, o);
        outcomes
    })
}

#[test]
fn fib() {
    for o in run_everywhere("fib:25") {
        assert_eq!(o, Outcome::Fib(75_025));
    }
    run_everywhere("fib:22,cutoff=0");
}

#[test]
fn nqueens_10_is_724() {
    for o in run_everywhere("nqueens:10") {
        assert_eq!(o, Outcome::NQueens(724));
    }
    run_everywhere("nqueens:8,depth=8");
}

#[test]
fn puzzle15_korf_2_is_55_moves() {
    for o in run_everywhere("puzzle15:2") {
        match o {
            Outcome::Puzzle15(s) => assert_eq!(s.moves, 55),
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn romberg() {
    for o in run_everywhere("romberg:14") {
        match o {
            Outcome::Romberg(v) => assert!((v - std::f64::consts::PI).abs() < 1e-12),
            other => panic!("{other:?}"),
        }
    }
    run_everywhere("romberg:16,grain=7");
}

/// Tautology verdict and tree size must equal the sequential run's, for
/// tautologies (whole tree searched) and non-tautologies (search stops at the
/// first counterexample in depth-first order, whatever the schedule).
#[test]
fn tautology_both_outcomes() {
    let mut seen = [false, false];
    for spelling in [
        "tautology:25",
        "tautology:25,seed=5",
        "tautology:vars=30,terms=120,seed=3",
        "tautology:vars=30,terms=120,seed=3,depth=0",
        "tautology:vars=30,terms=120,seed=3,depth=100",
    ] {
        let outcomes = run_everywhere(spelling);
        let Outcome::Tautology(first) = outcomes[0] else {
            panic!("{:?}", outcomes[0]);
        };
        assert!(first.nodes > 1000, "{spelling}: {first}");
        seen[usize::from(first.tautology)] = true;
        for o in &outcomes {
            assert_eq!(*o, Outcome::Tautology(first), "{spelling}");
        }
    }
    assert_eq!(seen, [true, true], "both verdicts covered");
}

#[test]
fn tautology_check_catches_wrong_node_count() {
    let w: Workload = "tautology:20".parse().unwrap();
    let mut instance = w.prepare();
    let Outcome::Tautology(mut v) = instance.run_sequential() else {
        panic!()
    };
    v.nodes += 1;
    let e = instance.check(&Outcome::Tautology(v)).unwrap_err();
    assert!(e.to_string().contains("sequential"), "{e}");
    let p = match w {
        Workload::Tautology(p) => p,
        _ => unreachable!(),
    };
    assert!(tautology::check(&p, &v).is_err());
}

#[test]
fn uts_t1_exact() {
    for o in run_everywhere("uts:T1") {
        let Outcome::Uts(s) = o else { panic!("{o:?}") };
        assert_eq!((s.nodes, s.leaves, s.max_depth), (4_130_071, 3_305_118, 10));
    }
}

#[test]
fn uts_t3_exact() {
    for o in run_everywhere("uts:T3") {
        let Outcome::Uts(s) = o else { panic!("{o:?}") };
        assert_eq!(
            (s.nodes, s.leaves, s.max_depth),
            (4_112_897, 3_599_034, 1572)
        );
    }
}

#[test]
fn uts_check_catches_wrong_counts() {
    let w: Workload = "uts:T1".parse().unwrap();
    let mut instance = w.prepare();
    let mut s = uts::tree("T1").unwrap().published;
    assert!(instance.check(&Outcome::Uts(s)).is_ok());
    s.max_depth = 11;
    let e = instance.check(&Outcome::Uts(s)).unwrap_err().to_string();
    assert!(e.contains("depth 10") && e.contains("depth 11"), "{e}");
}

#[test]
fn mandelbrot() {
    run_everywhere("mandelbrot:200");
    run_everywhere("mandelbrot:150,iters=300,grain=7");
}

#[test]
fn matmul() {
    run_everywhere("matmul:64");
    run_everywhere("matmul:37,chunk=5");
}

#[test]
fn sorts() {
    for spelling in [
        "quicksort:100000",
        "quicksort:5000,cutoff=0",
        "mergesort:100000",
        "mergesort:5000,cutoff=1",
    ] {
        run_everywhere(spelling);
    }
}

#[test]
fn sort_check_catches_unsorted_output() {
    let w: Workload = "quicksort:1000".parse().unwrap();
    let mut instance = w.prepare();
    // A run that never happened: the keys are still in input order.
    let e = instance
        .check(&Outcome::Sorted { len: 1000 })
        .unwrap_err()
        .to_string();
    assert!(e.contains("ascending"), "{e}");
}

#[test]
fn tree_sum() {
    for o in run_everywhere("tree-sum:16") {
        assert_eq!(o, Outcome::TreeSum(65_535 * 65_536 / 2));
    }
    run_everywhere("tree-sum:12,cutoff=3");
}

#[test]
fn a_wrong_answer_is_an_error() {
    let mut fib = "fib:30".parse::<Workload>().unwrap().prepare();
    let e = fib.check(&Outcome::Fib(832_041)).unwrap_err().to_string();
    assert!(e.contains("832040") && e.contains("832041"), "{e}");
    // An outcome of another workload.
    assert!(fib.check(&Outcome::NQueens(832_040)).is_err());
    let mut q = "nqueens:10".parse::<Workload>().unwrap().prepare();
    assert!(q.check(&Outcome::NQueens(725)).is_err());
    let mut m = "matmul:16".parse::<Workload>().unwrap().prepare();
    assert!(m.check(&Outcome::Matmul(0)).is_err());
    let mut r = "romberg:10".parse::<Workload>().unwrap().prepare();
    assert!(r
        .check(&Outcome::Romberg(std::f64::consts::PI - 1e-4))
        .is_err());
}

#[test]
fn unknown_workload_lists_all_names() {
    for bad in ["nope", "nope:3", "Fib:3", ""] {
        let e = bad.parse::<Workload>().unwrap_err().to_string();
        for name in Workload::NAMES {
            assert!(e.contains(name), "`{bad}`: {e}");
        }
    }
}

#[test]
fn bad_sizes_are_errors() {
    for bad in [
        "fib:x",
        "fib:-1",
        "fib:1000",
        "fib:",
        "fib:30,bogus=1",
        "nqueens:0",
        "nqueens:40",
        "puzzle15:4",
        "puzzle15:0",
        "romberg:99",
        "tautology:0",
        "tautology:10,width=20",
        "uts:T9",
        "uts:T1,chunk=3",
        "mandelbrot:0",
        "matmul:0",
        "quicksort:lots",
        "mergesort:1.5",
        "tree-sum:0",
        "tree-sum:64",
    ] {
        assert!(bad.parse::<Workload>().is_err(), "`{bad}` parsed");
    }
}

#[test]
fn spellings_round_trip() {
    let mut all = Workload::all_quick();
    all.extend(Workload::all_paper());
    all.push(
        "tautology:vars=30,terms=77,width=4,seed=9,depth=3"
            .parse()
            .unwrap(),
    );
    all.push("uts:T3L".parse().unwrap());
    for w in all {
        let spelled = w.to_string();
        assert!(spelled.starts_with(w.name()));
        assert_eq!(spelled.parse::<Workload>().as_ref(), Ok(&w), "{spelled}");
    }
    assert_eq!(Workload::NAMES.len(), Workload::all_quick().len());
    assert_eq!("fib".parse::<Workload>().unwrap().to_string(), "fib:32");
    assert_eq!("uts".parse::<Workload>().unwrap().to_string(), "uts:T1");
}

#[test]
fn sizes_of_the_papers() {
    for (name, spelled) in [
        ("fib", "fib:32"),
        ("nqueens", "nqueens:10"),
        ("romberg", "romberg:14"),
        ("mandelbrot", "mandelbrot:1200"),
        ("puzzle15", "puzzle15:2"),
    ] {
        assert_eq!(Workload::paper(name).unwrap().to_string(), spelled);
    }
    assert!(Workload::quick("nope").is_err());
}

/// A context with Ctx = Self that counts joins: any zero-sized runtime with a
/// free `join` plugs in the same way.
#[test]
fn a_user_defined_context_runs_every_quickish_workload() {
    struct Counting(u64);
    impl Fork for Counting {
        type Ctx<'a> = Counting;
        fn join<A, B, RA, RB>(&mut self, a: A, b: B) -> (RA, RB)
        where
            A: FnOnce(&mut Counting) -> RA + Send,
            B: FnOnce(&mut Counting) -> RB + Send,
            RA: Send,
            RB: Send,
        {
            self.0 += 1;
            let ra = a(self);
            (ra, b(self))
        }
    }
    for spelling in ["fib:20", "nqueens:8", "mandelbrot:50", "tree-sum:10"] {
        let mut instance = spelling.parse::<Workload>().unwrap().prepare();
        let mut ctx = Counting(0);
        let o = instance.run(&mut ctx);
        instance.check(&o).unwrap();
        assert!(ctx.0 > 0, "{spelling} forked");
    }
}
