//! The parallel sorts behind `ParallelSliceMut::par_sort*`: a stable merge sort whose merges are
//! themselves split in parallel, and an unstable quicksort whose two sides are sorted in
//! parallel, partitioning in blocks without a branch on the comparisons ([`block_partition`]).
//! Both first check whether the slice is already in order or in strictly descending order
//! ([`presorted`]): such input is left as it is or reversed, in one pass; then whether it is in
//! order but for a few elements, which one pass moves into place ([`nearly_sorted`]). The
//! stable sort's leaves merge the runs they find in their input ([`find_runs`]: in order, or
//! strictly descending and turned round), and its merges copy two runs that are already in
//! order instead of merging them. The unstable sort takes its pivots from nine elements on
//! large slices ([`choose_pivot`]), turns round input whose samples descend
//! ([`runs_downwards`]), and after a partition that moved nothing tries the one-pass repair on
//! each side before sorting it ([`tidy_side`]).
//!
//! **Comparisons that are not a total order** (a random answer, `partial_cmp` of floats with
//! NaNs mapped to `Equal`) leave the slice in some order, never a panic, as in rayon: no
//! sequential step is `std`'s sort, which since Rust 1.81 may panic when it detects such a
//! comparison. Every step here only compares, swaps, copies and merges, with loop bounds that
//! do not depend on the answers, so it ends whatever they are.
//!
//! **Panic safety.** A comparison may panic at any point; the slice must then still hold every
//! element exactly once (in some order), and nothing may be dropped twice. The unstable sort
//! swaps elements, moves them in cycles during which no comparison runs ([`exchange`]), or
//! inserts them past a hole that a guard fills if a comparison panics
//! ([`insert_tail`]), so the slice is a permutation whenever a comparison can unwind. The stable sort
//! copies elements bitwise between the slice and a scratch buffer that never owns anything (it
//! is never dropped element by element); its invariant, argued at [`sort_into`], is that
//! whenever a comparison can panic, the slice's region being sorted holds a permutation of its
//! original elements, or a merge guard restores one before the unwind leaves the merge.

use std::cmp::Ordering;
use std::mem::MaybeUninit;
use std::ptr;

/// Slices up to this long are sorted on one worker (stable: [`leaf_merge_sort`]; unstable:
/// [`seq_quicksort`]).
const SORT_LEAF: usize = 4096;
/// Runs of up to this many elements are sorted by insertion.
const INSERTION: usize = 20;
/// Merges of up to this many elements in all run on one worker.
const MERGE_LEAF: usize = 8192;
/// Slices up to this long are checked for order, or reversed, on one thread (the caller's,
/// when the whole slice is this short: a pass over 2^16 `u64`s costs about as much as handing
/// half of it to another worker, so shorter input never enters the pool for the check).
const ORDER_LEAF: usize = 1 << 16;

/// A raw pointer that may cross to another worker: every use splits the memory behind it into
/// disjoint regions, one per worker, and `join` waits for both before the region is used again.
struct Shared<T>(*mut T);

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Shared<T> {}

// SAFETY: see the type's documentation; the elements themselves are `Send` (bound on every use).
unsafe impl<T: Send> Send for Shared<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for Shared<T> {}

impl<T> Shared<T> {
    fn at(self, offset: usize) -> *mut T {
        // SAFETY of callers: `offset` stays within the allocation the pointer came from.
        self.0.wrapping_add(offset)
    }
}

/// At most this many out-of-order neighbours [`nearly_sorted`] repairs before it gives up.
const MAX_FIXES: usize = 8;

/// Sorts `v` stably by `compare`, in parallel.
pub(crate) fn par_merge_sort<T, F>(v: &mut [T], compare: &F)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    let len = v.len();
    if std::mem::size_of::<T>() == 0 || len < 2 {
        // Every zero-sized value is interchangeable with every other: nothing to move.
        return;
    }
    if len <= INSERTION {
        insertion_sort(v, compare);
        return;
    }
    if presorted(v, compare) || nearly_sorted(v, compare) {
        return;
    }
    let mut scratch: Vec<MaybeUninit<T>> = Vec::with_capacity(len);
    let buf = Shared(scratch.as_mut_ptr().cast::<T>());
    let v_ptr = Shared(v.as_mut_ptr());
    // SAFETY: `v_ptr` and `buf` each cover `len` elements and do not overlap; `v` is borrowed
    // mutably for the whole call, and `scratch` owns no element (its length stays 0), so the
    // bitwise copies it holds are never dropped.
    unsafe { sort_into(v_ptr, buf, len, false, compare) };
}

/// Whether `v` is already in order, or in strictly descending order (then it is reversed here,
/// which keeps a stable sort stable: no two elements compare equal). The check stops at the
/// first pair that rules both out, so on unordered input it costs a few comparisons; on input
/// sorted but for a few elements it costs up to `len - 1` comparisons before the sort proper,
/// spread over the workers above [`ORDER_LEAF`] elements. It only compares until it decides, so
/// a comparison that panics leaves `v` as it was.
fn presorted<T, F>(v: &mut [T], compare: &F) -> bool
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    let descending = match v {
        [a, b, ..] => compare(a, b) == Ordering::Greater,
        _ => return true,
    };
    let ordered = if descending {
        par_is_sorted_by(v, &|a: &T, b: &T| compare(a, b) == Ordering::Greater)
    } else {
        par_is_sorted_by(v, &|a: &T, b: &T| compare(a, b) != Ordering::Greater)
    };
    if ordered && descending {
        par_reverse(v);
    }
    ordered
}

/// Whether every pair of neighbours `(a, b)` of `v` satisfies `pred(a, b)`: the pair across
/// the middle first, then the halves side by side above [`ORDER_LEAF`] elements. Compares
/// only (the slice is borrowed mutably so that its halves may go to two workers with `T: Send`
/// alone).
fn par_is_sorted_by<T, P>(v: &mut [T], pred: &P) -> bool
where
    T: Send,
    P: Fn(&T, &T) -> bool + Sync,
{
    if v.len() <= ORDER_LEAF {
        return is_sorted_by(v, pred);
    }
    let mid = v.len() / 2;
    if !pred(&v[mid - 1], &v[mid]) {
        return false;
    }
    let (left, right) = v.split_at_mut(mid);
    let (left, right) = crate::join(
        || par_is_sorted_by(left, pred),
        || par_is_sorted_by(right, pred),
    );
    left && right
}

/// Whether every pair of neighbours `(a, b)` of `v` satisfies `pred(a, b)`, on this thread:
/// [`ORDER_CHUNK`] pairs at a time, all of a chunk's answers combined before one branch (a
/// chunk's loop has fixed bounds and no exit, which the compiler can unroll or vectorise for
/// simple comparisons), so shuffled input stops within the first chunk and sorted input runs
/// at a few instructions a pair.
fn is_sorted_by<T, P>(v: &[T], pred: &P) -> bool
where
    P: Fn(&T, &T) -> bool,
{
    let mut chunks = v.windows(ORDER_CHUNK + 1).step_by(ORDER_CHUNK);
    let whole = (v.len().saturating_sub(1) / ORDER_CHUNK) * ORDER_CHUNK;
    if !chunks.all(|w| {
        let mut ok = true;
        for k in 0..ORDER_CHUNK {
            ok &= pred(&w[k], &w[k + 1]);
        }
        ok
    }) {
        return false;
    }
    v[whole..].windows(2).all(|w| pred(&w[0], &w[1]))
}

/// Pairs [`is_sorted_by`] compares between two branches.
const ORDER_CHUNK: usize = 16;

/// Reverses `v`, pieces of [`ORDER_LEAF`] elements side by side.
fn par_reverse<T: Send>(v: &mut [T]) {
    let half = v.len() / 2;
    let (front, rest) = v.split_at_mut(half);
    let back_start = rest.len() - half;
    swap_mirrored(front, &mut rest[back_start..]);
}

/// Swaps `a[i]` with `b[b.len() - 1 - i]` for every `i` (`a` and `b` of one length).
fn swap_mirrored<T: Send>(a: &mut [T], b: &mut [T]) {
    debug_assert_eq!(a.len(), b.len());
    let n = a.len();
    if n <= ORDER_LEAF {
        for (x, y) in a.iter_mut().zip(b.iter_mut().rev()) {
            std::mem::swap(x, y);
        }
        return;
    }
    let mid = n / 2;
    // `a[..mid]` meets the last `mid` elements of `b`, `a[mid..]` the first `n - mid`.
    let (a_front, a_back) = a.split_at_mut(mid);
    let (b_front, b_back) = b.split_at_mut(n - mid);
    crate::join(
        || swap_mirrored(a_front, b_back),
        || swap_mirrored(a_back, b_front),
    );
}

/// Input sorted but for a few elements (a swapped pair, an element appended to a sorted
/// slice): walks `v` once, and each time an element is less than its predecessor, moves it
/// left to where it belongs, as insertion sort does ([`insert_tail`]; stable: it passes only
/// elements greater than itself). Gives up, returning `false`, at the
/// `MAX_FIXES + 1`-th such element; `v` is then still a permutation of itself, only partly
/// tidied, and the caller sorts it. On shuffled input the first inversions come within the
/// first few elements, so giving up costs a handful of comparisons; on sorted input with up to
/// [`MAX_FIXES`] misplaced elements the whole sort is this one pass plus the moves.
fn nearly_sorted<T, F>(v: &mut [T], compare: &F) -> bool
where
    F: Fn(&T, &T) -> Ordering,
{
    let mut fixes = 0;
    for i in 1..v.len() {
        if compare(&v[i], &v[i - 1]) != Ordering::Less {
            continue;
        }
        if fixes == MAX_FIXES {
            return false;
        }
        fixes += 1;
        insert_tail(v, i, compare);
    }
    true
}

/// Sorts the `len` elements at `v` stably. With `into_buf`, the sorted result ends in `buf`
/// (and `v` keeps bitwise copies that nobody will drop twice: the caller merges from `buf`
/// back into `v`); without it, in `v`.
///
/// Invariant on unwind: `v[..len]` holds a permutation of its elements at the call. Leaves sort
/// in place with `std`'s (panic-safe) sort and then only copy. An inner node sorts its halves
/// into the *other* array and merges them into the target: halves sorted into `v` (target
/// `buf`) leave `v` a permutation whatever the merge does; halves sorted into `buf` (target `v`)
/// are merged by [`merge`], whose guard copies the elements not yet merged into the rest of the
/// target if a comparison panics, so `v` again holds each element once.
///
/// # Safety
///
/// `v` and `buf` are valid for `len` elements and disjoint; `v[..len]` is initialised and not
/// accessed by anything else during the call.
unsafe fn sort_into<T, F>(v: Shared<T>, buf: Shared<T>, len: usize, into_buf: bool, compare: &F)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    if len <= SORT_LEAF {
        // SAFETY: the contract of this function is `leaf_merge_sort`'s.
        unsafe { leaf_merge_sort(v.0, buf.0, len, into_buf, compare) };
        return;
    }
    let mid = len / 2;
    // The halves go to the other array, so that the merge below lands in the target.
    crate::join(
        // SAFETY: the halves are disjoint regions of `v` and of `buf`.
        || unsafe { sort_into(v, buf, mid, !into_buf, compare) },
        // SAFETY: as above.
        || unsafe {
            sort_into(
                Shared(v.at(mid)),
                Shared(buf.at(mid)),
                len - mid,
                !into_buf,
                compare,
            )
        },
    );
    let (src, dst) = if into_buf { (v, buf) } else { (buf, v) };
    // SAFETY: `src[..mid]` and `src[mid..len]` are the sorted halves; `dst[..len]` is the target,
    // disjoint from `src`.
    unsafe { par_merge(src, mid, Shared(src.at(mid)), len - mid, dst, compare) };
}

/// Sorts the `len` elements at `v` (at most [`SORT_LEAF`]) stably on this thread, with
/// `buf[..len]` as scratch: the runs already there ([`find_runs`]), then passes that merge pairs
/// of neighbouring runs from one array into the other. The result ends in `buf` with
/// `into_buf`, else in `v`.
///
/// Invariant on unwind (as [`sort_into`] needs): `v[..len]` holds each of its elements once.
/// Finding the runs only permutes `v` (swaps, and insertions whose guard writes the held
/// element back if a comparison panics). A pass from `v` into `buf` leaves `v` as it was. A
/// pass from `buf` into `v` merges region by region: the regions before the one that panicked
/// are complete, [`merge`]'s guard completes that one, and the regions after it still hold, in
/// `v`, the elements they held before the pass into `buf` (each region of a pass holds the
/// same elements in both arrays).
///
/// # Safety
///
/// As for [`sort_into`].
unsafe fn leaf_merge_sort<T, F>(v: *mut T, buf: *mut T, len: usize, into_buf: bool, compare: &F)
where
    F: Fn(&T, &T) -> Ordering,
{
    debug_assert!(len <= SORT_LEAF);
    // SAFETY: `v[..len]` is initialised and ours (contract).
    let slice = unsafe { std::slice::from_raw_parts_mut(v, len) };
    let mut ends = [0usize; MAX_RUNS];
    let mut runs = find_runs(slice, &mut ends, compare);
    let (mut src, mut dst) = (v, buf);
    while runs > 1 {
        let mut merged = 0;
        let mut start = 0;
        for pair in (0..runs).step_by(2) {
            let mid = ends[pair];
            let end = if pair + 1 < runs { ends[pair + 1] } else { mid };
            // SAFETY: `src[start..mid]` and `src[mid..end]` are sorted runs (or one run and an
            // empty one); `dst[start..end]` is the other array's same region, disjoint from
            // both (contract).
            unsafe {
                merge(
                    src.add(start),
                    mid - start,
                    src.add(mid),
                    end - mid,
                    dst.add(start),
                    compare,
                )
            };
            ends[merged] = end;
            merged += 1;
            start = end;
        }
        runs = merged;
        std::mem::swap(&mut src, &mut dst);
    }
    // The sorted elements are in `src`.
    let target = if into_buf { buf } else { v };
    if src != target {
        // SAFETY: both arrays are valid for `len` elements and disjoint (contract).
        unsafe { ptr::copy_nonoverlapping(src, target, len) };
    }
}

/// Runs shorter than this are lengthened by insertion ([`find_runs`]).
const MIN_RUN: usize = 10;
/// The most runs [`find_runs`] makes of a leaf: every run but the last has [`MIN_RUN`] elements
/// or more.
const MAX_RUNS: usize = SORT_LEAF / MIN_RUN + 1;

/// Cuts `v` into sorted runs, writing each run's end into `ends` and returning how many there
/// are: each run is the longest stretch from its start that is in order (kept) or strictly
/// descending (turned round, which keeps the sort stable: no two of its elements compare
/// equal), lengthened by insertion to [`MIN_RUN`] elements when shorter. Input that is already
/// made of long runs (ascending, descending, or a few swaps away from either) is then merged
/// from those runs, with about as many comparisons as it has runs' boundaries times their
/// merge levels, where fixed runs of insertion would sort every stretch again; on shuffled
/// input the runs are short and the cost is insertion's, on runs of [`MIN_RUN`] rather than
/// longer ones (an insertion costs about as many comparisons as its run's length).
/// Only permutes `v` ([`insert_tail`]'s guard included), so `v` holds each of its
/// elements once whenever a comparison runs.
fn find_runs<T, F>(v: &mut [T], ends: &mut [usize; MAX_RUNS], compare: &F) -> usize
where
    F: Fn(&T, &T) -> Ordering,
{
    let len = v.len();
    let mut runs = 0;
    let mut start = 0;
    while start < len {
        let mut end = start + 1;
        if end < len {
            if compare(&v[end], &v[start]) == Ordering::Less {
                while end + 1 < len && compare(&v[end + 1], &v[end]) == Ordering::Less {
                    end += 1;
                }
                end += 1;
                v[start..end].reverse();
            } else {
                while end + 1 < len && compare(&v[end + 1], &v[end]) != Ordering::Less {
                    end += 1;
                }
                end += 1;
            }
        }
        let short = (start + MIN_RUN).min(len);
        if end < short {
            insertion_sort_from(&mut v[start..short], end - start, compare);
            end = short;
        }
        ends[runs] = end;
        runs += 1;
        start = end;
    }
    runs
}

/// Sorts `v` stably by insertion ([`insert_tail`]).
fn insertion_sort<T, F>(v: &mut [T], compare: &F)
where
    F: Fn(&T, &T) -> Ordering,
{
    insertion_sort_from(v, 1, compare);
}

/// [`insertion_sort`] of `v` whose first `sorted` elements are already in order.
fn insertion_sort_from<T, F>(v: &mut [T], sorted: usize, compare: &F)
where
    F: Fn(&T, &T) -> Ordering,
{
    for i in sorted.max(1)..v.len() {
        if compare(&v[i], &v[i - 1]) == Ordering::Less {
            insert_tail(v, i, compare);
        }
    }
}

/// Moves `v[i]`, which the caller found less than `v[i - 1]`, left into the sorted `v[..i]`,
/// past the elements greater than it (stable). It is held aside while those move up one place
/// each, and then written into the hole they leave: one copy per place moved, where a swap of
/// neighbours costs three, which counts for large elements. If a comparison panics, a guard
/// writes the held element into the hole first, so `v` holds each of its elements once
/// whenever a comparison runs, as with swaps.
fn insert_tail<T, F>(v: &mut [T], i: usize, compare: &F)
where
    F: Fn(&T, &T) -> Ordering,
{
    /// The element held aside and the hole it goes into, written when dropped (also when a
    /// comparison unwinds).
    struct Hole<T> {
        held: std::mem::ManuallyDrop<T>,
        dst: *mut T,
    }
    impl<T> Drop for Hole<T> {
        fn drop(&mut self) {
            // SAFETY: `dst` is the one place of the slice whose element was moved out (a copy
            // of it sits one place up, or `held` came from there), so writing `held` into it
            // makes the slice hold each element once again.
            unsafe { ptr::copy_nonoverlapping(&*self.held, self.dst, 1) };
        }
    }
    assert!(0 < i && i < v.len());
    let base = v.as_mut_ptr();
    // SAFETY: `i` and every `j < i` below are in bounds (checked above), and the slice is only
    // reached through `base` here. `v[i]` is read into `held` and its place filled from
    // `i - 1`; from then on exactly one place, `hole.dst`, holds a stale copy, which each step
    // fills from the place below it (moving the hole down) and which the guard fills with
    // `held` at the end or on a panic. Comparisons read `held` and places below the hole, none
    // of which is stale.
    unsafe {
        let mut hole = Hole {
            held: std::mem::ManuallyDrop::new(ptr::read(base.add(i))),
            dst: base.add(i - 1),
        };
        ptr::copy_nonoverlapping(hole.dst, base.add(i), 1);
        for j in (0..i - 1).rev() {
            let below = base.add(j);
            if compare(&hole.held, &*below) != Ordering::Less {
                break;
            }
            ptr::copy_nonoverlapping(below, hole.dst, 1);
            hole.dst = below;
        }
    }
}

/// Merges the sorted runs `a[..a_len]` and `b[..b_len]` into `dst`, stably (on ties, `a`'s
/// elements first), splitting large merges in two with a binary search and merging the parts
/// in parallel.
///
/// # Safety
///
/// The runs are initialised, sorted and readable; `dst` is valid for `a_len + b_len` writes and
/// overlaps neither run.
unsafe fn par_merge<T, F>(
    a: Shared<T>,
    a_len: usize,
    b: Shared<T>,
    b_len: usize,
    dst: Shared<T>,
    compare: &F,
) where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    if a_len + b_len <= MERGE_LEAF || a_len == 0 || b_len == 0 {
        // SAFETY: the contract of this function is `merge`'s.
        unsafe { merge(a.0, a_len, b.0, b_len, dst.0, compare) };
        return;
    }
    // If a comparison of the search below panics, nothing of this merge has been written yet:
    // fill `dst` with both runs as they are, so that it holds each element once.
    struct Fill<T> {
        a: *const T,
        a_len: usize,
        b: *const T,
        b_len: usize,
        dst: *mut T,
    }
    impl<T> Drop for Fill<T> {
        fn drop(&mut self) {
            // SAFETY: `dst` has room for both runs and overlaps neither (contract).
            unsafe {
                ptr::copy_nonoverlapping(self.a, self.dst, self.a_len);
                ptr::copy_nonoverlapping(self.b, self.dst.add(self.a_len), self.b_len);
            }
        }
    }
    let fill = Fill {
        a: a.0,
        a_len,
        b: b.0,
        b_len,
        dst: dst.0,
    };
    // SAFETY: both runs are initialised for their lengths (contract).
    let (run_a, run_b) = unsafe {
        (
            std::slice::from_raw_parts(a.0, a_len),
            std::slice::from_raw_parts(b.0, b_len),
        )
    };
    // Split the longer run at its middle and find where its pivot falls in the other, so that
    // every element left of the cut is ≤ every element right of it and ties keep `a` first.
    let (i, j) = if a_len >= b_len {
        let i = a_len / 2;
        let j = run_b.partition_point(|x| compare(x, &run_a[i]) == Ordering::Less);
        (i, j)
    } else {
        let j = b_len / 2;
        let i = run_a.partition_point(|x| compare(x, &run_b[j]) != Ordering::Greater);
        (i, j)
    };
    // From here each sub-merge fills its own part of `dst`, even when it unwinds.
    std::mem::forget(fill);
    crate::join(
        // SAFETY: the two sub-merges read disjoint parts of the runs and write disjoint parts
        // of `dst` (`[..i + j]` and `[i + j..]`).
        || unsafe { par_merge(a, i, b, j, dst, compare) },
        // SAFETY: as above.
        || unsafe {
            par_merge(
                Shared(a.at(i)),
                a_len - i,
                Shared(b.at(j)),
                b_len - j,
                Shared(dst.at(i + j)),
                compare,
            )
        },
    );
}

/// Sequential stable merge of `a[..a_len]` and `b[..b_len]` into `dst`.
///
/// If `compare` panics, a guard copies the elements of both runs not yet merged into the rest of
/// `dst`, so `dst[..a_len + b_len]` holds each element of the runs exactly once (bitwise).
///
/// # Safety
///
/// As for [`par_merge`].
unsafe fn merge<T, F>(
    a: *const T,
    a_len: usize,
    b: *const T,
    b_len: usize,
    dst: *mut T,
    compare: &F,
) where
    F: Fn(&T, &T) -> Ordering,
{
    /// What is left of both runs, and where it goes.
    struct Rest<T> {
        a: *const T,
        a_end: *const T,
        b: *const T,
        b_end: *const T,
        dst: *mut T,
    }
    impl<T> Drop for Rest<T> {
        fn drop(&mut self) {
            // SAFETY: `[a, a_end)` and `[b, b_end)` are the unmerged parts of the runs and `dst`
            // has exactly room for them; the regions are disjoint (the function's contract).
            unsafe {
                let na = self.a_end.offset_from(self.a) as usize;
                ptr::copy_nonoverlapping(self.a, self.dst, na);
                let nb = self.b_end.offset_from(self.b) as usize;
                ptr::copy_nonoverlapping(self.b, self.dst.add(na), nb);
            }
        }
    }
    let mut rest = Rest {
        a,
        // SAFETY: one past the end of each run is in bounds (contract).
        a_end: unsafe { a.add(a_len) },
        b,
        // SAFETY: as above.
        b_end: unsafe { b.add(b_len) },
        dst,
    };
    // Runs already in order (nearly sorted input, the halves of a sorted stretch): `b`'s first
    // element is not less than `a`'s last, so the merge is `a` then `b`, which is what the
    // guard copies. One comparison; if it panics, the guard fills `dst` the same way.
    // SAFETY: both runs are non-empty here, so their first and last elements are readable.
    if a_len != 0 && b_len != 0 && unsafe { compare(&*b, &*rest.a_end.sub(1)) } != Ordering::Less {
        drop(rest);
        return;
    }
    while rest.a < rest.a_end && rest.b < rest.b_end {
        // SAFETY: both pointers are inside their runs (loop condition).
        let take_b = unsafe { compare(&*rest.b, &*rest.a) } == Ordering::Less;
        // SAFETY: `dst` has room for every element not yet merged, at least this one; the
        // source pointer is inside its run.
        unsafe {
            if take_b {
                ptr::copy_nonoverlapping(rest.b, rest.dst, 1);
                rest.b = rest.b.add(1);
            } else {
                ptr::copy_nonoverlapping(rest.a, rest.dst, 1);
                rest.a = rest.a.add(1);
            }
            rest.dst = rest.dst.add(1);
        }
    }
    // The guard copies whichever run is left (both, if a comparison panicked).
    drop(rest);
}

/// Sorts `v` by `compare`, not necessarily stably, in parallel: a quicksort (elements less than
/// a pivot taken from three or nine elements, [`choose_pivot`], then the others; the pivot's
/// equals apart when nothing is less, see [`partition`]) whose sides are sorted with `join`.
/// Past `2 log2(n)` levels a side is heapsorted, so adversarial inputs cannot make it
/// quadratic.
pub(crate) fn par_quicksort<T, F>(v: &mut [T], compare: &F)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    if presorted(v, compare) || nearly_sorted(v, compare) {
        return;
    }
    // Input that runs downwards (descending but for a few elements) is turned round first: a
    // quicksort would otherwise move nearly every element at every level, where it now meets
    // input in order but for a few elements, which its tidy partitions finish in one pass.
    if runs_downwards(v, compare) {
        par_reverse(v);
    }
    let limit = 2 * (usize::BITS - v.len().leading_zeros());
    // Pieces are sorted on one worker below about eight pieces per worker: enough to balance.
    let leaf = (v.len() / (8 * crate::current_num_threads())).max(SORT_LEAF);
    quicksort(v, compare, limit, leaf);
}

fn quicksort<T, F>(v: &mut [T], compare: &F, limit: u32, leaf: usize)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    if v.len() <= leaf || limit == 0 {
        seq_quicksort(v, compare, limit);
        return;
    }
    let (left, right, tidy) = partition(v, compare);
    crate::join(
        || {
            if !(tidy && tidy_side(left, compare)) {
                quicksort(left, compare, limit - 1, leaf);
            }
        },
        || {
            if !(tidy && tidy_side(right, compare)) {
                quicksort(right, compare, limit - 1, leaf);
            }
        },
    );
}

/// A quicksort on one thread: a pivot from three or nine elements ([`choose_pivot`]), a
/// partition in blocks ([`partition`]), a second pass that gathers the pivot's equals when a
/// partition puts nothing before the pivot (so runs of equal elements cost linear time),
/// insertion below [`INSERTION`] elements and a heapsort once `limit` levels are used up.
fn seq_quicksort<T, F>(mut v: &mut [T], compare: &F, mut limit: u32)
where
    F: Fn(&T, &T) -> Ordering,
{
    loop {
        if v.len() <= INSERTION {
            insertion_sort(v, compare);
            return;
        }
        if limit == 0 {
            heapsort(v, compare);
            return;
        }
        limit -= 1;
        let (left, right, tidy) = partition(std::mem::take(&mut v), compare);
        // Sides already in order but for a few elements are done in one pass each.
        let left: &mut [T] = if tidy && tidy_side(left, compare) {
            &mut []
        } else {
            left
        };
        let right: &mut [T] = if tidy && tidy_side(right, compare) {
            &mut []
        } else {
            right
        };
        // Recurse into the shorter side, loop on the longer: the stack stays O(log n).
        if left.len() < right.len() {
            seq_quicksort(left, compare, limit);
            v = right;
        } else {
            seq_quicksort(right, compare, limit);
            v = left;
        }
    }
}

/// Moves the elements of `v` for which `goes_first(x, pivot)` holds to the front, by swaps
/// only and without a branch on the answer (Lomuto's scheme: every element is swapped with the
/// first one not known to go first); returns how many go first, and whether one of them had to
/// move forward past an element that does not (`false`: `v` was already partitioned, though
/// the elements that do not go first may have been rotated among themselves).
fn partition_by<T>(v: &mut [T], pivot: &T, goes_first: impl Fn(&T, &T) -> bool) -> (usize, bool) {
    let mut first = 0;
    // Whether an element that goes first came after one that does not (then it moved).
    let mut moved = false;
    for i in 0..v.len() {
        let moves = goes_first(&v[i], pivot);
        v.swap(first, i);
        moved |= moves & (first != i);
        first += usize::from(moves);
    }
    (first, moved)
}

/// Elements examined at a time from each end by [`block_partition`]; their offsets fit a `u8`.
const BLOCK: usize = 128;

/// Fewer elements than this left between the ends of a [`block_partition`] (with no block
/// holding misplaced elements) are partitioned by [`partition_by`]: on a short stretch of
/// shuffled input its single pass of swaps costs less than the blocks' bookkeeping. On longer
/// stretches it would cost more, and in input nearly in order its rotations would scatter the
/// elements that stay, which the levels below then pay for.
const SHORT_PARTITION: usize = 64;

/// Moves the elements of `v` for which `goes_first(x, pivot)` holds to the front; returns how
/// many there are, and whether one of them had to move forward past an element that does not
/// (`false`: `v` was already partitioned). It makes one comparison per element, with no branch
/// on the answers, and moves only misplaced elements: it takes a block of up to [`BLOCK`]
/// elements from each end, notes the offsets of the misplaced ones (those of the front block
/// that do not go first, those of the back block that do), and exchanges them in pairs
/// ([`exchange`]); a block all of whose misplaced elements have been exchanged is done, and
/// the next one from that end is examined.
///
/// Everything before `front` goes first and nothing from `back` on does. While more than two
/// blocks' worth lies between them, both blocks hold [`BLOCK`] elements and cannot overlap.
/// The last round divides what is left exactly between the two blocks (a block still holding
/// misplaced elements keeps its size, the other takes the rest), so the blocks meet; the
/// misplaced elements left over in one of them are then swapped, one by one, to that block's
/// end that faces the other side. Elements already on their side at either end are passed over
/// before the first round, and fewer than [`SHORT_PARTITION`] left between the ends (with no
/// block holding misplaced elements) go to [`partition_by`]: an input already partitioned is
/// left exactly as it was. Only swaps and [`exchange`]'s cycles, in which no comparison runs, move elements, so `v` is
/// a permutation of itself whenever `goes_first` is called (and if it panics), and the loop
/// ends whatever it answers: every round but the last finishes a block at one end at least.
fn block_partition<T>(
    v: &mut [T],
    pivot: &T,
    goes_first: impl Fn(&T, &T) -> bool,
) -> (usize, bool) {
    let (mut front, mut back) = (0, v.len());
    // Elements already on their side at either end stay where they are: in input in order but
    // for a few elements that is nearly all of them, passed over at one comparison each.
    while front < back && goes_first(&v[front], pivot) {
        front += 1;
    }
    while front < back && !goes_first(&v[back - 1], pivot) {
        back -= 1;
    }
    // Offsets of misplaced elements in the current front and back blocks; `*_done` of them
    // have been exchanged, `*_len` were found.
    let mut front_offsets = [0u8; BLOCK];
    let mut back_offsets = [0u8; BLOCK];
    let (mut front_done, mut front_len) = (0, 0);
    let (mut back_done, mut back_len) = (0, 0);
    let mut moved = false;
    loop {
        let width = back - front;
        if width < SHORT_PARTITION && front_done == front_len && back_done == back_len {
            let (first, moved_rest) = partition_by(&mut v[front..back], pivot, goes_first);
            return (front + first, moved || moved_rest);
        }
        let last = width <= 2 * BLOCK;
        let (mut front_size, mut back_size) = (BLOCK, BLOCK);
        if last {
            // A block with misplaced elements left was examined in an earlier round, at full
            // size, and more than `BLOCK` elements remain (the previous round had more than
            // `2 * BLOCK` and finished one block at most).
            if front_done < front_len {
                back_size = width - BLOCK;
            } else if back_done < back_len {
                front_size = width - BLOCK;
            } else {
                front_size = width / 2;
                back_size = width - front_size;
            }
        }
        if front_done == front_len {
            front_done = 0;
            front_len = 0;
            for (i, x) in v[front..front + front_size].iter().enumerate() {
                // (`front_len <= i < BLOCK`: the remainder only spares a bounds check.)
                front_offsets[front_len % BLOCK] = i as u8;
                front_len += usize::from(!goes_first(x, pivot));
            }
        }
        if back_done == back_len {
            back_done = 0;
            back_len = 0;
            for (i, x) in v[back - back_size..back].iter().rev().enumerate() {
                back_offsets[back_len % BLOCK] = i as u8;
                back_len += usize::from(goes_first(x, pivot));
            }
        }
        let pairs = (front_len - front_done).min(back_len - back_done);
        if pairs > 0 {
            let fronts = &front_offsets[front_done..front_done + pairs];
            let backs = &back_offsets[back_done..back_done + pairs];
            // SAFETY: every index is inside `v`: `front + offset < front + front_size <= back`
            // and `back - 1 - offset >= back - back_size >= front`; the front block's indices
            // are all below the back block's (`front_size + back_size <= back - front`), and
            // the offsets within each block are distinct, so the `2 * pairs` positions are
            // distinct.
            unsafe { exchange(v.as_mut_ptr(), front, fronts, back - 1, backs) };
        }
        moved |= pairs > 0;
        front_done += pairs;
        back_done += pairs;
        if front_done == front_len {
            front += front_size;
        }
        if back_done == back_len {
            back -= back_size;
        }
        if last {
            break;
        }
    }
    // The two blocks of the last round covered `front..back` between them, and at most one of
    // them still holds misplaced elements: `front..back` is now that block. Its misplaced
    // elements go to the block's end that faces the other side, the one nearest that end
    // first, each swapped with the element at the end: every element between it and that end
    // is on its right side (misplaced ones there have been moved already), so the swap puts
    // one element on each side, or none when the misplaced element is at the end already.
    if front_done < front_len {
        while front_done < front_len {
            front_len -= 1;
            let at = front + usize::from(front_offsets[front_len]);
            back -= 1;
            moved |= at != back;
            v.swap(at, back);
        }
        front = back;
    }
    while back_done < back_len {
        back_len -= 1;
        let at = back - 1 - usize::from(back_offsets[back_len]);
        moved |= at != front;
        v.swap(at, front);
        front += 1;
    }
    (front, moved)
}

/// Exchanges the misplaced elements of a front and a back block ([`block_partition`]): the
/// element at `v + front + fronts[k]` with the one at `v + back - backs[k]`, for every `k`, as
/// one cycle of moves rather than as swaps: the first front element is held aside, each hole
/// is filled from the other block, and the held element fills the last hole. That moves each
/// element once instead of three times per pair, which is what counts when elements are large
/// (rayon-demo's `par_sort_unstable_big`, 128-byte elements). Which front element lands on
/// which back position does not matter: every front one goes after the pivot and every back
/// one before. No comparison runs inside, so nothing can unwind while an element is held
/// aside: `v` is a permutation of itself again when this returns, as the unstable sort's panic
/// safety needs.
///
/// # Safety
///
/// All `2 * fronts.len()` positions are distinct elements of one initialised slice starting at
/// `v`, which nothing else accesses meanwhile; `fronts` is not empty and as long as `backs`.
unsafe fn exchange<T>(v: *mut T, front: usize, fronts: &[u8], back: usize, backs: &[u8]) {
    let at_front = |k: usize| v.wrapping_add(front + usize::from(fronts[k]));
    let at_back = |k: usize| v.wrapping_add(back - usize::from(backs[k]));
    // SAFETY: the positions are distinct elements of the slice (contract). Each copy fills the
    // hole left by the previous one: the first front position's element is held in `held`
    // and its hole filled from the first back position; each back hole is then filled from the
    // next front position and that front hole from the next back position; the last back hole
    // takes `held`. Every element ends in exactly one place and none is dropped or duplicated
    // (`held` is not dropped: its bits are moved back into the slice).
    unsafe {
        let held = std::mem::ManuallyDrop::new(ptr::read(at_front(0)));
        ptr::copy_nonoverlapping(at_back(0), at_front(0), 1);
        for k in 1..fronts.len() {
            ptr::copy_nonoverlapping(at_front(k), at_back(k - 1), 1);
            ptr::copy_nonoverlapping(at_back(k), at_front(k), 1);
        }
        ptr::copy_nonoverlapping(&*held, at_back(fronts.len() - 1), 1);
    }
}

/// Slices at least this long take the pivot from nine elements rather than three
/// ([`choose_pivot`]).
const NINTHER: usize = 128;

/// The index of the pivot: the median of the elements at a quarter, a half and three quarters
/// of `v`, or from [`NINTHER`] elements on, the median of the medians of those three and their
/// neighbours (Tukey's ninther). The better pivot splits closer to the middle, which on large
/// slices saves more comparisons in the partitions than its nine cost.
fn choose_pivot<T, F>(v: &[T], compare: &F) -> usize
where
    F: Fn(&T, &T) -> Ordering,
{
    let n = v.len();
    let (x, y, z) = (n / 4, n / 2, 3 * n / 4);
    if n < NINTHER {
        return median_of_three(v, [x, y, z], compare);
    }
    let around = |i: usize| median_of_three(v, [i - 1, i, i + 1], compare);
    median_of_three(v, [around(x), around(y), around(z)], compare)
}

/// Of the indices `[x, y, z]`, the one whose element is the median of the three.
fn median_of_three<T, F>(v: &[T], [x, y, z]: [usize; 3], compare: &F) -> usize
where
    F: Fn(&T, &T) -> Ordering,
{
    if compare(&v[x], &v[y]) == Ordering::Less {
        if compare(&v[y], &v[z]) == Ordering::Less {
            y
        } else if compare(&v[x], &v[z]) == Ordering::Less {
            z
        } else {
            x
        }
    } else if compare(&v[x], &v[z]) == Ordering::Less {
        x
    } else if compare(&v[y], &v[z]) == Ordering::Less {
        z
    } else {
        y
    }
}

/// Partitions `v` (more than [`INSERTION`] elements) around a pivot from [`choose_pivot`], by
/// swaps only; returns the elements less than the pivot and those not less, without the pivot. When
/// nothing is less, the pivot's equals are gathered too and left out, so that runs of equal
/// elements cost linear time (the first side is then empty).
///
/// The flag says that the partition moved no element but the pivot: the input was already
/// partitioned, which in input sorted but for a few elements is the common case, and the
/// caller then tries [`nearly_sorted`] on each side before sorting it.
fn partition<'v, T, F>(v: &'v mut [T], compare: &F) -> (&'v mut [T], &'v mut [T], bool)
where
    F: Fn(&T, &T) -> Ordering,
{
    let m = choose_pivot(v, compare);
    v.swap(0, m);
    let (mid, moved) = {
        let (head, tail) = v.split_at_mut(1);
        block_partition(tail, &head[0], |x, p| compare(x, p) == Ordering::Less)
    };
    if mid == 0 {
        let (equal, _) = {
            let (head, tail) = v.split_at_mut(1);
            block_partition(tail, &head[0], |x, p| compare(p, x) != Ordering::Less)
        };
        let (left, rest) = v.split_at_mut(0);
        return (left, &mut rest[1 + equal..], false);
    }
    // The pivot goes between the sides.
    v.swap(0, mid);
    let (left, rest) = v.split_at_mut(mid);
    (left, &mut rest[1..], !moved)
}

/// Whether [`SAMPLES`] elements spread evenly over `v` are in strictly descending order.
fn runs_downwards<T, F>(v: &[T], compare: &F) -> bool
where
    F: Fn(&T, &T) -> Ordering,
{
    let step = v.len() / SAMPLES;
    step > 0 && (1..SAMPLES).all(|i| compare(&v[(i - 1) * step], &v[i * step]) == Ordering::Greater)
}

/// Elements [`runs_downwards`] looks at: on shuffled input all of them fall in descending order
/// once in `SAMPLES!` (about once in 40,000 sorts), and reversing such input costs one pass.
const SAMPLES: usize = 8;

/// After a partition that moved nothing: whether `side` is sorted but for a few elements,
/// which [`nearly_sorted`] then moved into place (a side too short for it to be worth a pass is
/// left to the sort).
fn tidy_side<T, F>(side: &mut [T], compare: &F) -> bool
where
    F: Fn(&T, &T) -> Ordering,
{
    side.len() > INSERTION && nearly_sorted(side, compare)
}

/// Heapsort by `compare` (a max-heap; sift-downs are bounded by the heap's depth).
fn heapsort<T, F>(v: &mut [T], compare: &F)
where
    F: Fn(&T, &T) -> Ordering,
{
    let sift_down = |v: &mut [T], mut node: usize| loop {
        let mut child = 2 * node + 1;
        if child >= v.len() {
            return;
        }
        if child + 1 < v.len() && compare(&v[child], &v[child + 1]) == Ordering::Less {
            child += 1;
        }
        if compare(&v[node], &v[child]) != Ordering::Less {
            return;
        }
        v.swap(node, child);
        node = child;
    };
    for node in (0..v.len() / 2).rev() {
        sift_down(v, node);
    }
    for end in (1..v.len()).rev() {
        v.swap(0, end);
        sift_down(&mut v[..end], 0);
    }
}

#[cfg(test)]
mod tests {
    use super::block_partition;

    /// Every length from empty to a few blocks, shuffled, in order but for a swapped pair, in
    /// order, and reversed, with few and many distinct values: the partition keeps the
    /// elements, puts exactly those below the pivot first, and reports a move exactly when the
    /// input was not partitioned already (then it leaves the input untouched).
    #[test]
    fn block_partition_splits_every_shape_and_length() {
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for len in 0..700u64 {
            for shape in 0..8 {
                let values = if shape % 2 == 0 { 4 } else { 10 * len + 1 };
                let mut v: Vec<u64> = (0..len).map(|_| next() % values).collect();
                match shape / 2 {
                    0 => {}
                    1 => {
                        v.sort_unstable();
                        if len > 1 {
                            let (a, b) = ((next() % len) as usize, (next() % len) as usize);
                            v.swap(a, b);
                        }
                    }
                    2 => v.sort_unstable(),
                    _ => v.sort_unstable_by(|a, b| b.cmp(a)),
                }
                let pivot = next() % values;
                let before = v.clone();
                let (first, moved) = block_partition(&mut v, &pivot, |x, p| x < p);
                let below = before.iter().filter(|&&x| x < pivot).count();
                assert_eq!(first, below, "len {len}, shape {shape}");
                assert!(
                    v[..first].iter().all(|&x| x < pivot),
                    "len {len}, shape {shape}"
                );
                assert!(
                    v[first..].iter().all(|&x| x >= pivot),
                    "len {len}, shape {shape}"
                );
                let was_partitioned = before[..below].iter().all(|&x| x < pivot);
                assert_eq!(moved, !was_partitioned, "len {len}, shape {shape}");
                if !moved {
                    assert_eq!(v, before, "len {len}, shape {shape}");
                }
                let (mut kept, mut given) = (v.clone(), before.clone());
                kept.sort_unstable();
                given.sort_unstable();
                assert_eq!(kept, given, "len {len}, shape {shape}");
            }
        }
    }
}
