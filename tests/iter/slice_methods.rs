//! The slice methods beyond `par_chunks` (`par_windows`, `par_chunks_exact`, `par_rchunks`,
//! `par_rchunks_exact`, `par_split`, `par_split_inclusive`, `par_chunk_by` and their `_mut`
//! forms) give std's sequential answers: the same sub-slices (the very same positions of the
//! slice), in the same order, on empty, short and long slices with sizes from 1 to more than the
//! length, in every pool of `common::iter_pools`. The indexed ones are also checked under `rev`,
//! `zip`, `enumerate`, `skip`/`take`, `with_min_len`/`with_max_len` and every loop schedule.

use crate::common;

use common::{in_every_iter_pool, iter_pools, schedules, within};
use hypersteal::prelude::*;
use hypersteal::ThreadPool;
use proptest::prelude::*;
use std::time::Duration;

const LENS: [usize; 6] = [0, 1, 2, 7, 100, 10_007];
const SIZES: [usize; 8] = [1, 2, 3, 7, 64, 1000, 20_000, usize::MAX];
const LIMIT: Duration = Duration::from_secs(300);

/// `n` pseudo-random values below `modulus` from a fixed seed.
fn data(n: usize, seed: u64, modulus: u32) -> Vec<u32> {
    common::lcg(n, seed, u64::from(modulus))
        .into_iter()
        .map(|x| x as u32)
        .collect()
}

/// Each sub-slice as (position in `base`, length): equal lists mean the very same pieces.
fn spans(base: &[u32], pieces: &[&[u32]]) -> Vec<(usize, usize)> {
    let start = base.as_ptr() as usize;
    pieces
        .iter()
        .map(|p| {
            let at = (p.as_ptr() as usize - start) / std::mem::size_of::<u32>();
            assert!(at + p.len() <= base.len(), "a piece outside the slice");
            (at, p.len())
        })
        .collect()
}

/// Checks an indexed slice iterator made by `make` against std's pieces `expect`: collected,
/// reversed, enumerated, zipped, cut by `skip`/`take`, with length bounds and every schedule.
fn check_indexed<'a, I>(what: &str, base: &'a [u32], make: impl Fn() -> I, expect: &[&'a [u32]])
where
    I: IndexedParallelIterator<Item = &'a [u32]>,
{
    let want = spans(base, expect);
    let n = expect.len();
    assert_eq!(make().len(), n, "{what}: len");
    let got: Vec<&[u32]> = make().collect();
    assert_eq!(spans(base, &got), want, "{what}: collect");

    let rev: Vec<&[u32]> = make().rev().collect();
    let want_rev: Vec<_> = want.iter().rev().copied().collect();
    assert_eq!(spans(base, &rev), want_rev, "{what}: rev");

    let enumerated: Vec<(usize, &[u32])> = make().enumerate().collect();
    assert!(
        enumerated.iter().enumerate().all(|(i, &(j, _))| i == j),
        "{what}: enumerate indices"
    );
    let pieces: Vec<&[u32]> = enumerated.into_iter().map(|(_, p)| p).collect();
    assert_eq!(spans(base, &pieces), want, "{what}: enumerate");

    let zipped: Vec<(&[u32], &[u32])> = make().zip(make().rev()).collect();
    assert_eq!(zipped.len(), n, "{what}: zip length");
    for (i, (a, b)) in zipped.iter().enumerate() {
        assert_eq!(
            spans(base, &[a, b]),
            [want[i], want[n - 1 - i]],
            "{what}: zip"
        );
    }
    let with_range: usize = make()
        .zip(0..n)
        .map(|(p, i)| usize::from(spans(base, &[p])[0] == want[i]))
        .sum();
    assert_eq!(with_range, n, "{what}: zip with a range");

    let third = n / 3;
    let skipped: Vec<&[u32]> = make().skip(third).take(n - 2 * third).collect();
    assert_eq!(
        spans(base, &skipped),
        want[third..n - third],
        "{what}: skip/take"
    );

    for min in [1, 3, 1000] {
        let got: Vec<&[u32]> = make().with_min_len(min).collect();
        assert_eq!(spans(base, &got), want, "{what}: with_min_len({min})");
    }
    let got: Vec<&[u32]> = make().with_max_len(2).collect();
    assert_eq!(spans(base, &got), want, "{what}: with_max_len(2)");

    let total: usize = make().map(<[u32]>::len).sum();
    assert_eq!(
        total,
        expect.iter().map(|p| p.len()).sum::<usize>(),
        "{what}: sum of lengths"
    );

    if n <= 2000 {
        for schedule in schedules() {
            let got: Vec<&[u32]> = make().with_schedule(schedule).collect();
            assert_eq!(spans(base, &got), want, "{what}: schedule {schedule:?}");
        }
    }
}

/// Runs `check(what, v, size)` on every length and size, in every pool.
fn on_all_shapes(what: &'static str, check: fn(&str, &[u32], usize)) {
    within(LIMIT, what, move || {
        for (name, pool) in iter_pools() {
            for (i, &len) in LENS.iter().enumerate() {
                let v = data(len, i as u64 + 1, 1000);
                for size in SIZES {
                    let what = format!("{what}: {name}, len {len}, size {size}");
                    pool.install(|| check(&what, &v, size));
                }
            }
        }
    });
}

#[test]
fn windows_match_std() {
    on_all_shapes("par_windows", |what, v, size| {
        let expect: Vec<&[u32]> = v.windows(size).collect();
        check_indexed(what, v, || v.par_windows(size), &expect);
    });
}

#[test]
fn chunks_exact_match_std() {
    on_all_shapes("par_chunks_exact", |what, v, size| {
        let expect: Vec<&[u32]> = v.chunks_exact(size).collect();
        check_indexed(what, v, || v.par_chunks_exact(size), &expect);
        let rem = v.par_chunks_exact(size).remainder();
        let want = v.chunks_exact(size).remainder();
        assert_eq!(spans(v, &[rem]), spans(v, &[want]), "{what}: remainder");
        // A clone iterates the same chunks.
        let it = v.par_chunks_exact(size);
        let a: Vec<&[u32]> = it.clone().collect();
        let b: Vec<&[u32]> = it.collect();
        assert_eq!(a, b, "{what}: clone");
    });
}

#[test]
fn rchunks_match_std() {
    on_all_shapes("par_rchunks", |what, v, size| {
        let expect: Vec<&[u32]> = v.rchunks(size).collect();
        check_indexed(what, v, || v.par_rchunks(size), &expect);
    });
}

#[test]
fn rchunks_exact_match_std() {
    on_all_shapes("par_rchunks_exact", |what, v, size| {
        let expect: Vec<&[u32]> = v.rchunks_exact(size).collect();
        check_indexed(what, v, || v.par_rchunks_exact(size), &expect);
        let rem = v.par_rchunks_exact(size).remainder();
        let want = v.rchunks_exact(size).remainder();
        assert_eq!(spans(v, &[rem]), spans(v, &[want]), "{what}: remainder");
    });
}

/// Gives item `j` of chunk `i` the value `i * 1_000_000 + j * 1000 + old % 1000`: where every
/// item ends up says which chunk it was in and where in it.
fn mark(i: usize, chunk: &mut [u32]) {
    for (j, x) in chunk.iter_mut().enumerate() {
        *x = (i as u32).wrapping_mul(1_000_000) + (j as u32) * 1000 + *x % 1000;
    }
}

/// Checks a mutable chunk iterator against std's: marking every chunk by its index, forwards
/// and reversed, zipped with a range, and collecting the chunks.
macro_rules! check_mut {
    ($what:expr, $v:expr, |$s:ident| $par:expr, |$t:ident| $seq:expr) => {{
        let what: &str = $what;
        let v: &[u32] = $v;
        let mut want = v.to_vec();
        {
            let $t = &mut want[..];
            $seq.enumerate().for_each(|(i, c)| mark(i, c));
        }
        let mut got = v.to_vec();
        {
            let $s = &mut got[..];
            $par.enumerate().for_each(|(i, c)| mark(i, c));
        }
        assert_eq!(got, want, "{what}: enumerate, for_each");

        let mut want = v.to_vec();
        {
            let $t = &mut want[..];
            $seq.rev().enumerate().for_each(|(i, c)| mark(i, c));
        }
        let mut got = v.to_vec();
        {
            let $s = &mut got[..];
            $par.rev().enumerate().for_each(|(i, c)| mark(i, c));
        }
        assert_eq!(got, want, "{what}: rev");

        let mut want = v.to_vec();
        let mut got = v.to_vec();
        {
            let $t = &mut want[..];
            let want_chunks: Vec<Vec<u32>> = $seq.map(|c| c.to_vec()).collect();
            let $s = &mut got[..];
            let n = $par.len();
            assert_eq!(n, want_chunks.len(), "{what}: len");
            let chunks: Vec<&mut [u32]> = $par.with_min_len(2).collect();
            let chunks: Vec<Vec<u32>> = chunks.into_iter().map(|c| c.to_vec()).collect();
            assert_eq!(chunks, want_chunks, "{what}: collect");
        }
        let mut got = v.to_vec();
        let mut want = v.to_vec();
        {
            let $t = &mut want[..];
            let n = $seq.count();
            $seq.zip(0..n).for_each(|(c, i)| mark(n - i, c));
            let $s = &mut got[..];
            $par.zip((0..n).into_par_iter())
                .for_each(|(c, i)| mark(n - i, c));
        }
        assert_eq!(got, want, "{what}: zip");
    }};
}

#[test]
fn chunks_exact_mut_match_std() {
    on_all_shapes("par_chunks_exact_mut", |what, v, size| {
        check_mut!(what, v, |s| s.par_chunks_exact_mut(size), |t| t
            .chunks_exact_mut(size));
    });
}

#[test]
fn rchunks_mut_match_std() {
    on_all_shapes("par_rchunks_mut", |what, v, size| {
        check_mut!(what, v, |s| s.par_rchunks_mut(size), |t| t
            .rchunks_mut(size));
    });
}

#[test]
fn rchunks_exact_mut_match_std() {
    on_all_shapes("par_rchunks_exact_mut", |what, v, size| {
        check_mut!(what, v, |s| s.par_rchunks_exact_mut(size), |t| t
            .rchunks_exact_mut(size));
    });
}

#[test]
fn exact_mut_remainders() {
    in_every_iter_pool(LIMIT, "exact remainders", |pool, name| {
        pool.install(|| {
            for len in LENS {
                for size in SIZES {
                    let what = format!("{name}, len {len}, size {size}");
                    let v = data(len, 7, 1000);

                    // Forwards: the tail.
                    let tail = len % size;
                    let mut w = v.clone();
                    assert_eq!(w.par_chunks_exact_mut(size).remainder(), &v[len - tail..]);
                    assert_eq!(
                        w.par_chunks_exact_mut(size).into_remainder(),
                        &v[len - tail..]
                    );
                    let mut it = w.par_chunks_exact_mut(size);
                    let rem = it.take_remainder();
                    assert_eq!(rem, &v[len - tail..], "{what}");
                    assert!(it.take_remainder().is_empty(), "{what}: taken twice");
                    assert!(it.remainder().is_empty(), "{what}: taken");
                    // The chunks are still all there once the remainder is taken.
                    it.for_each(|c| c.fill(1));
                    rem.fill(2);
                    let mut want = vec![1; len - tail];
                    want.resize(len, 2);
                    assert_eq!(w, want, "{what}: chunks and remainder");

                    // From the end: the head.
                    let mut w = v.clone();
                    assert_eq!(w.par_rchunks_exact_mut(size).remainder(), &v[..tail]);
                    assert_eq!(w.par_rchunks_exact_mut(size).into_remainder(), &v[..tail]);
                    let mut it = w.par_rchunks_exact_mut(size);
                    let rem = it.take_remainder();
                    assert_eq!(rem, &v[..tail], "{what}");
                    assert!(it.take_remainder().is_empty(), "{what}: taken twice");
                    it.for_each(|c| c.fill(1));
                    rem.fill(2);
                    let mut want = vec![2; tail];
                    want.resize(len, 1);
                    assert_eq!(w, want, "{what}: rchunks and remainder");
                }
            }
        })
    });
}

// ---------------------------------------------------------------------------------------------
// Splitting iterators

/// A separator predicate with its name.
type Separator = (&'static str, fn(&u32) -> bool);
/// A neighbour predicate with its name.
type Neighbours = (&'static str, fn(&u32, &u32) -> bool);
/// A call that must panic, with the name of the size its message names.
type ZeroCall<'a> = (&'static str, Box<dyn Fn() + std::panic::RefUnwindSafe + 'a>);

/// The separator predicates the split tests use: none, rare, common, every item.
fn separators() -> Vec<Separator> {
    vec![
        ("never", |_| false),
        ("x % 997 == 0", |x| x % 997 == 0),
        ("x % 7 == 0", |x| x % 7 == 0),
        ("x % 2 == 0", |x| x % 2 == 0),
        ("always", |_| true),
    ]
}

/// The neighbour predicates the `chunk_by` tests use.
fn neighbours() -> Vec<Neighbours> {
    vec![
        ("never", |_, _| false),
        ("always", |_, _| true),
        ("a <= b", |a, b| a <= b),
        ("a == b", |a, b| a == b),
        ("a / 3 == b / 3", |a, b| a / 3 == b / 3),
    ]
}

/// Checks unindexed pieces against std's: positions, count, lengths, first and last.
fn check_pieces<'a, I>(what: &str, base: &'a [u32], make: impl Fn() -> I, expect: &[&'a [u32]])
where
    I: ParallelIterator<Item = &'a [u32]>,
{
    let want = spans(base, expect);
    let got: Vec<&[u32]> = make().collect();
    assert_eq!(spans(base, &got), want, "{what}: collect");
    assert_eq!(make().count(), expect.len(), "{what}: count");
    let total: usize = make().map(<[u32]>::len).sum();
    assert_eq!(
        total,
        expect.iter().map(|p| p.len()).sum::<usize>(),
        "{what}: sum of lengths"
    );
    let first = make().find_first(|_| true).map(|p| spans(base, &[p])[0]);
    assert_eq!(first, want.first().copied(), "{what}: find_first");
    let last = make().find_last(|_| true).map(|p| spans(base, &[p])[0]);
    assert_eq!(last, want.last().copied(), "{what}: find_last");
}

/// Runs `check(what, v)` on every length (values below `modulus`), in every pool.
fn on_all_lengths(what: &'static str, modulus: u32, check: fn(&str, &[u32])) {
    within(LIMIT, what, move || {
        for (name, pool) in iter_pools() {
            for (i, &len) in LENS.iter().enumerate() {
                let v = data(len, i as u64 + 11, modulus);
                let what = format!("{what}: {name}, len {len}");
                pool.install(|| check(&what, &v));
            }
        }
    });
}

#[test]
fn split_matches_std() {
    on_all_lengths("par_split", 1000, |what, v| {
        for (sep_name, sep) in separators() {
            let expect: Vec<&[u32]> = v.split(sep).collect();
            let what = format!("{what}, {sep_name}");
            check_pieces(&what, v, || v.par_split(sep), &expect);
            let it = v.par_split(sep);
            assert_eq!(it.clone().count(), it.count(), "{what}: clone");
        }
    });
}

#[test]
fn split_inclusive_matches_std() {
    on_all_lengths("par_split_inclusive", 1000, |what, v| {
        for (sep_name, sep) in separators() {
            let expect: Vec<&[u32]> = v.split_inclusive(sep).collect();
            let what = format!("{what}, {sep_name}");
            check_pieces(&what, v, || v.par_split_inclusive(sep), &expect);
        }
    });
}

#[test]
fn chunk_by_matches_std() {
    // Values below 5, so that equal neighbours are common.
    on_all_lengths("par_chunk_by", 5, |what, v| {
        for (pred_name, pred) in neighbours() {
            let expect: Vec<&[u32]> = v.chunk_by(pred).collect();
            let what = format!("{what}, {pred_name}");
            check_pieces(&what, v, || v.par_chunk_by(pred), &expect);
        }
    });
}

/// Checks a mutable splitting iterator against std's: every piece reversed and marked with its
/// length, and the pieces collected.
macro_rules! check_split_mut {
    ($what:expr, $v:expr, |$s:ident| $par:expr, |$t:ident| $seq:expr) => {{
        let what: &str = $what;
        let v: &[u32] = $v;
        let touch = |p: &mut [u32]| {
            p.reverse();
            let n = p.len() as u32;
            p.iter_mut()
                .for_each(|x| *x = x.wrapping_mul(1000).wrapping_add(n));
        };
        let mut want = v.to_vec();
        {
            let $t = &mut want[..];
            $seq.for_each(touch);
        }
        let mut got = v.to_vec();
        {
            let $s = &mut got[..];
            $par.for_each(touch);
        }
        assert_eq!(got, want, "{what}: for_each");

        let mut want = v.to_vec();
        let mut got = v.to_vec();
        let $t = &mut want[..];
        let want_pieces: Vec<Vec<u32>> = $seq.map(|p| p.to_vec()).collect();
        let $s = &mut got[..];
        let pieces: Vec<&mut [u32]> = $par.collect();
        let pieces: Vec<Vec<u32>> = pieces.into_iter().map(|p| p.to_vec()).collect();
        assert_eq!(pieces, want_pieces, "{what}: collect");
    }};
}

#[test]
fn split_mut_matches_std() {
    on_all_lengths("par_split_mut", 1000, |what, v| {
        for (sep_name, sep) in separators() {
            let what = format!("{what}, {sep_name}");
            check_split_mut!(&what, v, |s| s.par_split_mut(sep), |t| t.split_mut(sep));
        }
    });
}

#[test]
fn split_inclusive_mut_matches_std() {
    on_all_lengths("par_split_inclusive_mut", 1000, |what, v| {
        for (sep_name, sep) in separators() {
            let what = format!("{what}, {sep_name}");
            check_split_mut!(&what, v, |s| s.par_split_inclusive_mut(sep), |t| t
                .split_inclusive_mut(sep));
        }
    });
}

#[test]
fn chunk_by_mut_matches_std() {
    on_all_lengths("par_chunk_by_mut", 5, |what, v| {
        for (pred_name, pred) in neighbours() {
            let what = format!("{what}, {pred_name}");
            check_split_mut!(&what, v, |s| s.par_chunk_by_mut(pred), |t| t
                .chunk_by_mut(pred));
        }
    });
}

#[test]
fn zero_sizes_panic() {
    let message = |r: std::thread::Result<()>| -> String {
        let payload = r.expect_err("a zero size must panic");
        payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_default()
    };
    let v = vec![1u32, 2, 3];
    let calls: Vec<ZeroCall<'_>> = vec![
        (
            "window_size",
            Box::new(|| {
                let _ = v.par_windows(0);
            }),
        ),
        (
            "chunk_size",
            Box::new(|| {
                let _ = v.par_chunks_exact(0);
            }),
        ),
        (
            "chunk_size",
            Box::new(|| {
                let _ = v.par_rchunks(0);
            }),
        ),
        (
            "chunk_size",
            Box::new(|| {
                let _ = v.par_rchunks_exact(0);
            }),
        ),
        (
            "chunk_size",
            Box::new(|| {
                let _ = v.clone().par_chunks_exact_mut(0);
            }),
        ),
        (
            "chunk_size",
            Box::new(|| {
                let _ = v.clone().par_rchunks_mut(0);
            }),
        ),
        (
            "chunk_size",
            Box::new(|| {
                let _ = v.clone().par_rchunks_exact_mut(0);
            }),
        ),
    ];
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let messages: Vec<(&str, String)> = calls
        .iter()
        .map(|(name, call)| (*name, message(std::panic::catch_unwind(call))))
        .collect();
    std::panic::set_hook(hook);
    for (name, msg) in messages {
        assert_eq!(msg, format!("{name} must not be zero"));
    }
}

/// The iterators are usable where rayon's are: named through `hypersteal::slice`, debug
/// printed, and sendable.
#[test]
fn types_are_nameable() {
    use hypersteal::slice::{ChunkBy, ChunksExact, RChunks, Split, SplitInclusive, Windows};
    let v = [1u32, 2, 0, 3];
    let w: Windows<'_, u32> = v.par_windows(2);
    let c: ChunksExact<'_, u32> = v.par_chunks_exact(3);
    let r: RChunks<'_, u32> = v.par_rchunks(3);
    let s: Split<'_, u32, _> = v.par_split(|x| *x == 0);
    let i: SplitInclusive<'_, u32, _> = v.par_split_inclusive(|x| *x == 0);
    let b: ChunkBy<'_, u32, _> = v.par_chunk_by(|a, b| a < b);
    assert!(format!("{w:?}").contains("Windows"));
    assert!(format!("{c:?}").contains("ChunksExact"));
    assert!(format!("{r:?}").contains("RChunks"));
    assert!(format!("{s:?}").contains("Split"));
    assert!(format!("{i:?}").contains("SplitInclusive"));
    assert!(format!("{b:?}").contains("ChunkBy"));
    let runs: Vec<&[u32]> = b.collect();
    assert_eq!(runs, [&[1, 2][..], &[0, 3]]);
}

/// The pools with the most workers, where the halving of unindexed slices goes deepest.
fn wide_pools() -> Vec<&'static ThreadPool> {
    iter_pools()
        .iter()
        .filter(|(_, p)| p.current_num_threads() == 4)
        .map(|(_, p)| p)
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn prop_split_matches_std(
        v in proptest::collection::vec(0u32..6, 0..400),
        sep in 0u32..7,
    ) {
        for pool in wide_pools() {
            let (split, inclusive): (Vec<&[u32]>, Vec<&[u32]>) = pool.install(|| {
                (
                    v.par_split(|x| *x == sep).collect(),
                    v.par_split_inclusive(|x| *x == sep).collect(),
                )
            });
            let want: Vec<&[u32]> = v.split(|x| *x == sep).collect();
            prop_assert_eq!(spans(&v, &split), spans(&v, &want));
            let want: Vec<&[u32]> = v.split_inclusive(|x| *x == sep).collect();
            prop_assert_eq!(spans(&v, &inclusive), spans(&v, &want));

            let mut got = v.clone();
            pool.install(|| got.par_split_mut(|x| *x == sep).for_each(|p| p.reverse()));
            let mut want = v.clone();
            want.split_mut(|x| *x == sep).for_each(|p| p.reverse());
            prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn prop_chunk_by_matches_std(
        v in proptest::collection::vec(0u32..4, 0..400),
        strict in any::<bool>(),
    ) {
        let pred = move |a: &u32, b: &u32| if strict { a < b } else { a == b };
        for pool in wide_pools() {
            let got: Vec<&[u32]> = pool.install(|| v.par_chunk_by(pred).collect());
            let want: Vec<&[u32]> = v.chunk_by(pred).collect();
            prop_assert_eq!(spans(&v, &got), spans(&v, &want));

            let mut got = v.clone();
            pool.install(|| got.par_chunk_by_mut(pred).for_each(|p| p.reverse()));
            let mut want = v.clone();
            want.chunk_by_mut(pred).for_each(|p| p.reverse());
            prop_assert_eq!(got, want);
        }
    }
}
