//! The parallel sorts behind `ParallelSliceMut::par_sort*`: a stable merge sort whose merges are
//! themselves split in parallel, and an unstable three-way quicksort whose two sides are sorted
//! in parallel.
//!
//! **Panic safety.** A comparison may panic at any point; the slice must then still hold every
//! element exactly once (in some order), and nothing may be dropped twice. The unstable sort
//! only ever swaps elements, so the slice is a permutation at every instant. The stable sort
//! copies elements bitwise between the slice and a scratch buffer that never owns anything (it
//! is never dropped element by element); its invariant, argued at [`sort_into`], is that
//! whenever a comparison can panic, the slice's region being sorted holds a permutation of its
//! original elements, or a merge guard restores one before the unwind leaves the merge.

use std::cmp::Ordering;
use std::mem::MaybeUninit;
use std::ptr;

/// Slices up to this long are sorted by `std` (stable: `sort_by`; unstable: `sort_unstable_by`)
/// on one worker.
const SORT_LEAF: usize = 4096;
/// Merges of up to this many elements in all run on one worker.
const MERGE_LEAF: usize = 8192;

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

/// Sorts `v` stably by `compare`, in parallel.
pub(crate) fn par_merge_sort<T, F>(v: &mut [T], compare: &F)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    let len = v.len();
    if len <= SORT_LEAF {
        v.sort_by(compare);
        return;
    }
    if std::mem::size_of::<T>() == 0 {
        // Every zero-sized value is interchangeable with every other: nothing to move.
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
        // SAFETY: `v[..len]` is initialised and ours (contract).
        let slice = unsafe { std::slice::from_raw_parts_mut(v.0, len) };
        slice.sort_by(compare);
        if into_buf {
            // SAFETY: both regions are valid for `len` elements and disjoint (contract).
            unsafe { ptr::copy_nonoverlapping(v.0, buf.0, len) };
        }
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

/// Sorts `v` by `compare`, not necessarily stably, in parallel: a three-way quicksort (elements
/// less than, equal to and greater than a median-of-three pivot) whose sides are sorted with
/// `join`. Past `2 log2(n)` levels a side goes to `std`'s `sort_unstable_by` (pattern-defeating
/// quicksort, `O(n log n)` in the worst case), so adversarial inputs cannot make it quadratic.
pub(crate) fn par_quicksort<T, F>(v: &mut [T], compare: &F)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    let limit = 2 * (usize::BITS - v.len().leading_zeros());
    // Partitioning passes are slower per element than `std`'s sort, so the recursion stops at
    // about eight pieces per worker: enough to balance, few enough that most of the work is
    // `std`'s.
    let leaf = (v.len() / (8 * crate::current_num_threads())).max(SORT_LEAF);
    quicksort(v, compare, limit, leaf);
}

fn quicksort<T, F>(v: &mut [T], compare: &F, limit: u32, leaf: usize)
where
    T: Send,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    if v.len() <= leaf || limit == 0 {
        v.sort_unstable_by(compare);
        return;
    }
    // Median of three, moved to the front.
    let n = v.len();
    let (x, y, z) = (n / 4, n / 2, 3 * n / 4);
    let m = if compare(&v[x], &v[y]) == Ordering::Less {
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
    };
    v.swap(0, m);
    // Three-way partition of v[1..] around v[0], by swaps only: v[1..lt] < pivot,
    // v[lt..i] == pivot, v[gt..] > pivot.
    let (mut lt, mut i, mut gt) = (1, 1, n);
    while i < gt {
        match compare(&v[i], &v[0]) {
            Ordering::Less => {
                v.swap(lt, i);
                lt += 1;
                i += 1;
            }
            Ordering::Equal => i += 1,
            Ordering::Greater => {
                gt -= 1;
                v.swap(i, gt);
            }
        }
    }
    // Put the pivot among its equals: v[..lt - 1] < pivot, v[lt - 1..gt] == pivot.
    v.swap(0, lt - 1);
    let (left, rest) = v.split_at_mut(lt - 1);
    let right = &mut rest[gt - (lt - 1)..];
    crate::join(
        || quicksort(left, compare, limit - 1, leaf),
        || quicksort(right, compare, limit - 1, leaf),
    );
}
