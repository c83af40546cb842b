//! Loop schedules: parsing, the chunk plans each schedule documents, panics, weights and the
//! imbalance report.

use crate::common;

use common::schedules;
use hypersteal::iter::{LoopReport, Schedule};
use hypersteal::prelude::*;
use hypersteal::{BuildError, ThreadPoolBuilder};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

#[test]
fn names_round_trip_and_errors_list_the_valid_names() {
    for s in schedules() {
        assert_eq!(s.to_string().parse::<Schedule>().unwrap(), s);
    }
    assert_eq!(Schedule::default(), Schedule::Adaptive);
    assert_eq!("CHUNK:8".parse::<Schedule>().unwrap(), Schedule::Chunk(8));
    for bad in ["", "fast", "chunk", "chunk:0", "chunk:x", "chunk:-1"] {
        let err = bad.parse::<Schedule>().unwrap_err().to_string();
        for name in Schedule::NAMES {
            assert!(err.contains(name), "{err:?} lacks {name}");
        }
    }
}

#[test]
fn trapezoid_1000_on_4_starts_at_125_and_decreases_linearly() {
    let plan = Schedule::Trapezoid.plan(1000, 4);
    assert_eq!(plan.iter().sum::<usize>(), 1000);
    assert_eq!(plan[0], 125);
    // F = 125, L = 1, N = ceil(2000 / 126) = 16, D = 124 / 15.
    let (f, l, n) = (125.0f64, 1.0f64, 16.0f64);
    let d = (f - l) / (n - 1.0);
    for (j, &c) in plan.iter().enumerate().take(plan.len() - 1) {
        assert_eq!(
            c,
            (f - j as f64 * d).round() as usize,
            "chunk {j} of {plan:?}"
        );
    }
    // The formula's sequence ends at L = 1 (j = N - 1); the plan stops where the iterations run
    // out, cutting its last chunk short.
    assert_eq!((f - (n - 1.0) * d).round() as usize, 1);
    assert!(plan.len() <= 16);
    assert!(*plan.last().unwrap() <= (f - (plan.len() - 1) as f64 * d).round() as usize);
    for w in plan.windows(2) {
        assert!(w[0] > w[1], "strictly decreasing: {plan:?}");
        assert!(w[0] - w[1] <= 9 || w[1] == *plan.last().unwrap());
    }
}

#[test]
fn guided_hands_out_a_pth_of_the_remainder() {
    let plan = Schedule::Guided.plan(1000, 4);
    let mut remaining = 1000usize;
    for &c in &plan {
        assert_eq!(c, remaining.div_ceil(4));
        remaining -= c;
    }
    assert_eq!(remaining, 0);
    assert_eq!(&plan[..3], &[250, 188, 141]);
}

#[test]
fn factoring_hands_out_batches_of_p_equal_chunks() {
    let plan = Schedule::Factoring.plan(1000, 4);
    assert_eq!(plan.iter().sum::<usize>(), 1000);
    assert_eq!(&plan[..8], &[125, 125, 125, 125, 63, 63, 63, 63]);
    let mut remaining = 1000usize;
    for batch in plan.chunks(4) {
        let size = remaining.div_ceil(8);
        for &c in batch {
            assert_eq!(c, size.min(remaining));
            remaining -= c;
        }
    }
}

#[test]
fn static_self_and_chunk_plans() {
    assert_eq!(Schedule::Static.plan(10, 4), vec![3, 3, 3, 1]);
    assert_eq!(Schedule::SelfScheduling.plan(5, 4), vec![1; 5]);
    assert_eq!(Schedule::Chunk(4).plan(10, 3), vec![4, 4, 2]);
    assert_eq!(
        Schedule::Weighted.plan(1000, 4),
        Schedule::Trapezoid.plan(1000, 4)
    );
}

#[test]
fn every_plan_sums_to_the_iteration_count() {
    for s in schedules() {
        for iterations in [0usize, 1, 2, 3, 7, 100, 999, 1000, 12345] {
            for workers in 1..=8 {
                let plan = s.plan(iterations, workers);
                assert_eq!(
                    plan.iter().sum::<usize>(),
                    iterations,
                    "{s} {iterations} {workers}"
                );
                assert!(plan.iter().all(|&c| c > 0), "{s} {plan:?}");
            }
        }
    }
}

#[test]
fn a_panic_reaches_the_caller_after_the_other_pieces_stop() {
    for workers in [1, 2, 4] {
        let pool = ThreadPoolBuilder::new()
            .num_threads(workers)
            .build()
            .unwrap();
        for s in schedules() {
            let running = AtomicUsize::new(0);
            let done = AtomicUsize::new(0);
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                pool.install(|| {
                    (0..2000u32).into_par_iter().with_schedule(s).for_each(|i| {
                        running.fetch_add(1, Ordering::SeqCst);
                        if i == 1234 {
                            panic!("boom at {i}");
                        }
                        std::hint::black_box(i);
                        running.fetch_sub(1, Ordering::SeqCst);
                        done.fetch_add(1, Ordering::SeqCst);
                    })
                })
            }));
            let payload = result.expect_err("the panic must reach the caller");
            let msg = payload.downcast_ref::<String>().unwrap();
            assert_eq!(msg, "boom at 1234", "{s}");
            // Only the panicking iteration is still "running": every other piece had stopped.
            assert_eq!(running.load(Ordering::SeqCst), 1, "{s} on {workers}");
            assert!(done.load(Ordering::SeqCst) < 2000);
            // The pool is still usable.
            assert_eq!(
                pool.install(|| (0..100u32).into_par_iter().with_schedule(s).count()),
                100
            );
        }
    }
}

#[test]
fn a_panic_skips_only_the_rest_of_its_own_piece_unless_the_loop_is_fused() {
    common::within(
        std::time::Duration::from_secs(120),
        "panics in pieces",
        || {
            const N: u32 = 3000;
            for workers in [1, 2, 4] {
                let pool = ThreadPoolBuilder::new()
                    .num_threads(workers)
                    .pin_threads(false)
                    .build()
                    .unwrap();
                for s in schedules() {
                    let count = |fused: bool| {
                        let done = AtomicUsize::new(0);
                        let body = |i: u32| {
                            if i == 2000 {
                                panic!("boom");
                            }
                            done.fetch_add(1, Ordering::Relaxed);
                        };
                        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                            pool.install(|| {
                                let iter = (0..N).into_par_iter().with_max_len(1).with_schedule(s);
                                if fused {
                                    iter.panic_fuse().for_each(body)
                                } else {
                                    iter.for_each(body)
                                }
                            })
                        }));
                        assert!(result.is_err());
                        done.into_inner()
                    };
                    // Pieces of one item each: every item but the panicking one is processed, as
                    // in rayon.
                    assert_eq!(count(false), N as usize - 1, "{s} on {workers}");
                    if workers == 1 {
                        // One worker goes in order, so a fuse stops it before the end.
                        assert!(count(true) < N as usize - 1, "{s} on {workers}, fused");
                    }
                }
            }
        },
    );
}

#[test]
fn a_panicking_loop_over_owned_items_drops_each_item_once() {
    static DROPS: AtomicUsize = AtomicUsize::new(0);
    struct Counted(u32);
    impl Drop for Counted {
        fn drop(&mut self) {
            DROPS.fetch_add(1, Ordering::SeqCst);
        }
    }
    let pool = ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    for s in schedules() {
        DROPS.store(0, Ordering::SeqCst);
        let items: Vec<Counted> = (0..500).map(Counted).collect();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.install(|| {
                items.into_par_iter().with_schedule(s).for_each(|c| {
                    assert!(c.0 != 321, "item 321");
                })
            })
        }));
        assert!(r.is_err());
        assert_eq!(DROPS.load(Ordering::SeqCst), 500, "{s}");
        // Short-circuiting drops the rest too.
        DROPS.store(0, Ordering::SeqCst);
        let items: Vec<Counted> = (0..500).map(Counted).collect();
        assert!(pool.install(|| items.into_par_iter().with_schedule(s).any(|c| c.0 == 7)));
        assert_eq!(DROPS.load(Ordering::SeqCst), 500, "{s}");
    }
}

#[test]
fn the_report_names_each_worker_and_its_finish_time() {
    for workers in [1, 2, 4] {
        let pool = ThreadPoolBuilder::new()
            .num_threads(workers)
            .build()
            .unwrap();
        for s in schedules() {
            let report: LoopReport = pool.install(|| {
                (0..5000u64)
                    .into_par_iter()
                    .with_schedule(s)
                    .for_each_with_report(|i| {
                        std::hint::black_box((0..i % 50).sum::<u64>());
                    })
            });
            assert_eq!(report.schedule, s);
            assert_eq!(report.iterations(), 5000, "{s}");
            assert!(!report.workers.is_empty() && report.workers.len() <= workers);
            assert!(report.workers.windows(2).all(|w| w[0].worker < w[1].worker));
            assert!(report
                .workers
                .iter()
                .all(|w| w.chunks > 0 && w.finish <= report.total));
            let times = report.finish_times();
            let spread = *times.iter().max().unwrap() - *times.iter().min().unwrap();
            assert_eq!(report.spread(), spread);
            let sd = report.sd_percent_of_mean();
            assert!(sd.is_finite() && sd >= 0.0);
            if report.workers.len() == 1 {
                assert_eq!(sd, 0.0);
            }
            if s == Schedule::Static {
                assert!(report.workers.iter().map(|w| w.chunks).sum::<usize>() <= workers);
            }
        }
    }
}

#[test]
fn weighted_uses_the_pools_worker_speeds() {
    let pool = ThreadPoolBuilder::new()
        .num_threads(2)
        .worker_speeds(vec![1.0, 3.0])
        .build()
        .unwrap();
    let order = Mutex::new(Vec::new());
    let v: Vec<u64> = pool.install(|| {
        (0..10_000u64)
            .into_par_iter()
            .with_schedule(Schedule::Weighted)
            .map(|i| {
                order.lock().unwrap().push(i);
                i * 2
            })
            .collect()
    });
    assert_eq!(v, (0..10_000u64).map(|i| i * 2).collect::<Vec<_>>());
    assert_eq!(order.into_inner().unwrap().len(), 10_000);
}

#[test]
fn invalid_worker_speeds_are_build_errors() {
    for speeds in [
        vec![1.0],
        vec![1.0, 0.0],
        vec![1.0, -2.0],
        vec![f64::NAN, 1.0],
        vec![1.0, f64::INFINITY],
    ] {
        let err = ThreadPoolBuilder::new()
            .num_threads(2)
            .worker_speeds(speeds.clone())
            .build()
            .unwrap_err();
        assert!(
            matches!(err, BuildError::WorkerSpeeds(_)),
            "{speeds:?}: {err}"
        );
    }
}

#[test]
fn loops_run_in_the_pool_they_are_called_in() {
    let pool = ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    for s in schedules() {
        let outside = pool.install(|| {
            (0..1000u32)
                .into_par_iter()
                .with_schedule(s)
                .map(|_| pool.current_thread_index().is_none())
                .any(|x| x)
        });
        assert!(!outside, "{s}: an iteration ran outside the pool");
    }
}
