//! `collect`: an indexed loop writes every item straight into its place in one `Vec`; any other
//! loop collects piece by piece, and the pieces are concatenated in order.

use crate::iter::plumbing::{sealed, Consumer};
use crate::iter::{FromParallelIterator, IntoParallelIterator, ParallelIterator};
use crate::sync::{AtomicBool, AtomicUsize, Ordering};
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::hash::{BuildHasher, Hash};
use std::marker::PhantomData;
use std::sync::OnceLock;

/// Appends `pieces`, in order, to `out`.
pub(crate) fn append_pieces<T>(out: &mut Vec<T>, pieces: Vec<Vec<T>>) {
    out.reserve(pieces.iter().map(Vec::len).sum());
    for mut piece in pieces {
        out.append(&mut piece);
    }
}

/// Collects into a new `Vec` ([`collect_into`]).
pub(crate) fn collect_vec<T: Send, I: IntoParallelIterator<Item = T>>(par_iter: I) -> Vec<T> {
    let mut out = Vec::new();
    collect_into(&mut out, par_iter);
    out
}

/// Appends the loop's items, in order, to `target`. An indexed loop whose wrappers keep items
/// one to one tells the consumer its length before it starts ([`Consumer::begin`]); the
/// consumer then reserves room for all of them in `target` once, and every piece writes its
/// items straight into their places after `target`'s own (the driver gives each piece its own
/// range of positions, disjoint by construction). A `Vec` that is collected into again and
/// again (`collect_into_vec`, `par_extend`) thus reuses its allocation. Any other loop collects
/// piece by piece, and the pieces are appended in order.
///
/// If the loop panics, `target` keeps its own items (and possibly more capacity); the items
/// written so far are dropped.
pub(crate) fn collect_into<T: Send, I: IntoParallelIterator<Item = T>>(
    target: &mut Vec<T>,
    par_iter: I,
) {
    let place = Place::new(target);
    let pieces = par_iter
        .into_par_iter()
        .drive(DirectConsumer { place: &place });
    place.assemble(pieces);
}

/// Where a direct collect writes: `target`'s spare capacity, reserved once, by the first
/// `begin`.
struct Place<'t, T> {
    /// The `Vec` collected into, borrowed mutably for the whole collect. While the loop runs
    /// only the one `begin` that initialises `buffer` touches it (to reserve); afterwards
    /// `assemble`, on the calling thread, sets its length or appends to it.
    target: *mut Vec<T>,
    /// `target`'s length before the collect.
    base: usize,
    buffer: OnceLock<Buffer<T>>,
    /// A second loop announced itself to the same consumer: its pieces are collected apart.
    conflict: AtomicBool,
    _target: PhantomData<&'t mut Vec<T>>,
}

// SAFETY: the pointer to the target is dereferenced by one thread at a time: by the `begin`
// that wins `buffer`'s initialisation (`OnceLock` runs it once), while the caller waits for the
// loop, then by the caller in `assemble`. The items that cross threads are `Send`.
unsafe impl<T: Send> Sync for Place<'_, T> {}

/// `len` slots of the target's spare capacity, from `ptr` on. Owns neither memory nor
/// elements: the target owns the allocation, and each piece's [`Written`] its items.
struct Buffer<T> {
    ptr: *mut T,
    len: usize,
}

// SAFETY: the buffer is written by several workers at disjoint positions (the driver's ranges,
// checked against `len` before each write); its elements are `Send`.
unsafe impl<T: Send> Send for Buffer<T> {}
// SAFETY: as above; shared references only hand out the pointer for those disjoint writes.
unsafe impl<T: Send> Sync for Buffer<T> {}

/// A piece's result: written in place, or collected on its own.
enum Piece<T> {
    Direct(Written<T>),
    Owned(Vec<T>),
}

/// Items a piece wrote in place: `count` of them from position `start` (at `at`); `overflow`
/// if its iterator had more items than its range. Dropping it drops those items (a loop that
/// unwinds, or pieces that do not add up); a successful collect forgets it.
struct Written<T> {
    at: *mut T,
    start: usize,
    count: usize,
    overflow: bool,
}

// SAFETY: the written items are `Send`, and each `Written` is the only owner of its range.
unsafe impl<T: Send> Send for Written<T> {}

impl<T> Drop for Written<T> {
    fn drop(&mut self) {
        // SAFETY: `count` items were written from `at` and only this value owns them.
        unsafe { std::ptr::drop_in_place(std::ptr::slice_from_raw_parts_mut(self.at, self.count)) };
    }
}

impl<'t, T> Place<'t, T> {
    fn new(target: &'t mut Vec<T>) -> Self {
        Place {
            base: target.len(),
            target,
            buffer: OnceLock::new(),
            conflict: AtomicBool::new(false),
            _target: PhantomData,
        }
    }

    /// The buffer, if exactly one loop announced its length.
    fn buffer(&self) -> Option<&Buffer<T>> {
        if self.conflict.load(Ordering::Relaxed) {
            return None;
        }
        self.buffer.get()
    }

    /// Reserves room for `len` items after the target's own and returns it.
    fn reserve(&self, len: usize) -> Buffer<T> {
        // SAFETY: only the one initialisation of `buffer` calls this, while the caller that
        // lent the target waits for the loop (see `target`).
        let target = unsafe { &mut *self.target };
        target.reserve(len);
        Buffer {
            // SAFETY: `reserve` made room for `len` more elements after the `base` ones.
            ptr: unsafe { target.as_mut_ptr().add(self.base) },
            len,
        }
    }

    /// Completes the target: its length grows over the buffer when the direct pieces cover it
    /// exactly, in order; the owned pieces are appended when nothing was written directly.
    fn assemble(self, pieces: Vec<Piece<T>>) {
        let buffer = self.buffer.into_inner();
        // SAFETY: the loop is over, so nothing else refers to the target any more.
        let target = unsafe { &mut *self.target };
        let mut next = 0;
        let mut direct = false;
        let mut owned = false;
        let mut tiled = true;
        for piece in &pieces {
            match piece {
                Piece::Direct(w) => {
                    direct = true;
                    tiled &= w.start == next && !w.overflow;
                    next = w.start + w.count;
                }
                Piece::Owned(_) => owned = true,
            }
        }
        match buffer {
            Some(buffer) if !owned && tiled && next == buffer.len => {
                // The target owns the items now.
                pieces.into_iter().for_each(std::mem::forget);
                // SAFETY: the direct pieces wrote positions `0..len` of the buffer exactly once
                // each (they tile it, in order), and the buffer starts right after the
                // target's `base` elements, within its capacity.
                unsafe { target.set_len(self.base + buffer.len) };
            }
            _ if !direct => {
                let owned: Vec<Vec<T>> = pieces
                    .into_iter()
                    .map(|p| match p {
                        Piece::Owned(v) => v,
                        Piece::Direct(_) => unreachable!("no direct piece"),
                    })
                    .collect();
                append_pieces(target, owned);
            }
            _ => {
                // Some pieces were written in place and the others do not complete them: drop
                // what was written (each piece drops its own items), then report; the target
                // keeps its own items. No loop of this crate gets here; a producer whose
                // pieces disagree with its length can.
                drop(pieces);
                pieces_do_not_add_up();
            }
        }
    }
}

/// The consumer of [`collect_vec`].
struct DirectConsumer<'p, 't, T> {
    place: &'p Place<'t, T>,
}

impl<T: Send> Consumer<T> for DirectConsumer<'_, '_, T> {
    type Result = Vec<Piece<T>>;

    fn consume<I: Iterator<Item = T>>(&self, iter: I) -> Self::Result {
        // Pushed through the iterator's own `fold` (a filter's, a tree walk's), where `collect`
        // would drive it item by item through `next`.
        let mut items = Vec::with_capacity(iter.size_hint().0);
        iter.for_each(|item| items.push(item));
        vec![Piece::Owned(items)]
    }

    fn reduce(&self, mut left: Self::Result, right: Self::Result) -> Self::Result {
        left.extend(right);
        left
    }

    fn identity(&self) -> Self::Result {
        Vec::new()
    }

    fn can_fill(&self, _: sealed::Token) -> bool {
        false
    }

    fn begin(&self, len: usize, _: sealed::Token) {
        let mut fresh = false;
        self.place.buffer.get_or_init(|| {
            fresh = true;
            self.place.reserve(len)
        });
        if !fresh {
            self.place.conflict.store(true, Ordering::Relaxed);
        }
    }

    fn consume_range<I: Iterator<Item = T>>(
        &self,
        start: usize,
        len: usize,
        _: sealed::Place,
        iter: I,
        _: sealed::Token,
    ) -> Self::Result {
        let Some(buffer) = self.place.buffer() else {
            return self.consume(iter);
        };
        if start.checked_add(len).is_none_or(|end| end > buffer.len) {
            return self.consume(iter);
        }
        // SAFETY: `start + len <= buffer.len` (checked above).
        let at = unsafe { buffer.ptr.add(start) };
        // Owns what it wrote from the first item on, so an iterator that panics drops them.
        let mut written = Written {
            at,
            start,
            count: 0,
            overflow: false,
        };
        if !std::mem::needs_drop::<T>() {
            // Items that need no drop: the count stays in a register and the loop is the
            // iterator's own `fold` (a range's is a plain counted loop), so the compiler can
            // vectorise the writes; an unwind in between leaves nothing to drop. An iterator
            // with more items than its range is reported at once.
            let mut count = 0;
            iter.for_each(|item| {
                if count == len {
                    pieces_do_not_add_up();
                }
                // SAFETY: `count < len`, so the position lies in this piece's range, which no
                // other piece covers, and is written once.
                unsafe { at.add(count).write(item) };
                count += 1;
            });
            written.count = count;
            return vec![Piece::Direct(written)];
        }
        for item in iter {
            if written.count == len {
                written.overflow = true;
                drop(item);
                continue;
            }
            // SAFETY: position `start + count` lies in this piece's range, which no other piece
            // covers (the driver cuts ranges apart), and is written once.
            unsafe { at.add(written.count).write(item) };
            written.count += 1;
        }
        vec![Piece::Direct(written)]
    }
}

/// The report of a loop whose pieces yield more or fewer items than it announced: a piece
/// whose iterator has more items than its range, or pieces that do not tile the buffer.
#[cold]
#[inline(never)]
fn pieces_do_not_add_up() -> ! {
    panic!(
        "collect: the loop's pieces do not add up to the length it announced (a producer \
         whose pieces yield more or fewer items than its `len`)"
    )
}

impl<T: Send> FromParallelIterator<T> for Vec<T> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        collect_vec(par_iter)
    }
}

impl<T: Send> FromParallelIterator<T> for Box<[T]> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        collect_vec(par_iter).into_boxed_slice()
    }
}

impl<T: Send> FromParallelIterator<T> for std::rc::Rc<[T]> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        collect_vec(par_iter).into()
    }
}

impl<T: Send> FromParallelIterator<T> for std::sync::Arc<[T]> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        collect_vec(par_iter).into()
    }
}

/// `Box<str>` collects whatever `String` collects, then drops the spare capacity.
impl<T: Send> FromParallelIterator<T> for Box<str>
where
    String: FromParallelIterator<T>,
{
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        String::from_par_iter(par_iter).into_boxed_str()
    }
}

impl<T: Send + Ord> FromParallelIterator<T> for BinaryHeap<T> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        collect_vec(par_iter).into()
    }
}

/// Each piece links its own items (the nodes are allocated in parallel); the pieces' lists are
/// joined in order, in constant time each.
impl<T: Send> FromParallelIterator<T> for LinkedList<T> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        par_iter
            .into_par_iter()
            .fold(LinkedList::new, |mut list, item| {
                list.push_back(item);
                list
            })
            .reduce(LinkedList::new, |mut front, mut back| {
                front.append(&mut back);
                front
            })
    }
}

impl<T: Send> FromParallelIterator<T> for VecDeque<T> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        collect_vec(par_iter).into()
    }
}

impl<K: Send + Eq + Hash, V: Send, S: BuildHasher + Default> FromParallelIterator<(K, V)>
    for HashMap<K, V, S>
{
    fn from_par_iter<I: IntoParallelIterator<Item = (K, V)>>(par_iter: I) -> Self {
        collect_vec(par_iter).into_iter().collect()
    }
}

impl<T: Send + Eq + Hash, S: BuildHasher + Default> FromParallelIterator<T> for HashSet<T, S> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        collect_vec(par_iter).into_iter().collect()
    }
}

impl<K: Send + Ord, V: Send> FromParallelIterator<(K, V)> for BTreeMap<K, V> {
    fn from_par_iter<I: IntoParallelIterator<Item = (K, V)>>(par_iter: I) -> Self {
        collect_vec(par_iter).into_iter().collect()
    }
}

impl<T: Send + Ord> FromParallelIterator<T> for BTreeSet<T> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        collect_vec(par_iter).into_iter().collect()
    }
}

impl FromParallelIterator<char> for String {
    fn from_par_iter<I: IntoParallelIterator<Item = char>>(par_iter: I) -> Self {
        collect_vec(par_iter).into_iter().collect()
    }
}

impl<'a> FromParallelIterator<&'a str> for String {
    fn from_par_iter<I: IntoParallelIterator<Item = &'a str>>(par_iter: I) -> Self {
        collect_vec(par_iter).concat()
    }
}

impl FromParallelIterator<String> for String {
    fn from_par_iter<I: IntoParallelIterator<Item = String>>(par_iter: I) -> Self {
        collect_vec(par_iter).concat()
    }
}

impl<'a> FromParallelIterator<&'a char> for String {
    fn from_par_iter<I: IntoParallelIterator<Item = &'a char>>(par_iter: I) -> Self {
        collect_vec(par_iter).into_iter().collect()
    }
}

impl FromParallelIterator<Box<str>> for String {
    fn from_par_iter<I: IntoParallelIterator<Item = Box<str>>>(par_iter: I) -> Self {
        collect_vec(par_iter).concat()
    }
}

impl<'a> FromParallelIterator<std::borrow::Cow<'a, str>> for String {
    fn from_par_iter<I: IntoParallelIterator<Item = std::borrow::Cow<'a, str>>>(
        par_iter: I,
    ) -> Self {
        collect_vec(par_iter).concat()
    }
}

/// Concatenates the collected pieces of an `OsString`, in order.
fn concat_os<S: AsRef<std::ffi::OsStr>>(parts: Vec<S>) -> std::ffi::OsString {
    let mut out = std::ffi::OsString::with_capacity(parts.iter().map(|p| p.as_ref().len()).sum());
    for part in &parts {
        out.push(part);
    }
    out
}

impl<'a> FromParallelIterator<&'a std::ffi::OsStr> for std::ffi::OsString {
    fn from_par_iter<I: IntoParallelIterator<Item = &'a std::ffi::OsStr>>(par_iter: I) -> Self {
        concat_os(collect_vec(par_iter))
    }
}

impl FromParallelIterator<std::ffi::OsString> for std::ffi::OsString {
    fn from_par_iter<I: IntoParallelIterator<Item = std::ffi::OsString>>(par_iter: I) -> Self {
        concat_os(collect_vec(par_iter))
    }
}

impl<'a> FromParallelIterator<std::borrow::Cow<'a, std::ffi::OsStr>> for std::ffi::OsString {
    fn from_par_iter<I: IntoParallelIterator<Item = std::borrow::Cow<'a, std::ffi::OsStr>>>(
        par_iter: I,
    ) -> Self {
        concat_os(collect_vec(par_iter))
    }
}

/// A `Cow` collects into its owned form.
impl<'a, C, T> FromParallelIterator<T> for std::borrow::Cow<'a, C>
where
    C: ToOwned + ?Sized,
    C::Owned: FromParallelIterator<T>,
    T: Send,
{
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        std::borrow::Cow::Owned(C::Owned::from_par_iter(par_iter))
    }
}

/// Pairs collect into two collections, in order: `unzip`.
impl<A, B, FromA, FromB> FromParallelIterator<(A, B)> for (FromA, FromB)
where
    A: Send,
    B: Send,
    FromA: Default + Send + crate::iter::ParallelExtend<A>,
    FromB: Default + Send + crate::iter::ParallelExtend<B>,
{
    fn from_par_iter<I: IntoParallelIterator<Item = (A, B)>>(par_iter: I) -> Self {
        par_iter.into_par_iter().unzip()
    }
}

/// `Either`s collect into two collections, lefts and rights, in order: `partition_map`.
impl<L, R, A, B> FromParallelIterator<either::Either<L, R>> for (A, B)
where
    L: Send,
    R: Send,
    A: Default + Send + crate::iter::ParallelExtend<L>,
    B: Default + Send + crate::iter::ParallelExtend<R>,
{
    fn from_par_iter<I: IntoParallelIterator<Item = either::Either<L, R>>>(par_iter: I) -> Self {
        par_iter.into_par_iter().partition_map(|e| e)
    }
}

impl FromParallelIterator<()> for () {
    fn from_par_iter<I: IntoParallelIterator<Item = ()>>(par_iter: I) -> Self {
        par_iter.into_par_iter().drive(UnitConsumer)
    }
}

struct UnitConsumer;

impl Consumer<()> for UnitConsumer {
    type Result = ();

    fn consume<I: Iterator<Item = ()>>(&self, iter: I) {
        iter.for_each(drop);
    }

    fn reduce(&self, _: (), _: ()) {}

    fn identity(&self) {}

    fn can_fill(&self, _: sealed::Token) -> bool {
        false
    }
}

/// Collects `Ok` values into `Vec`s until the first `Err` in order. A failing piece publishes
/// its start so that pieces starting later stop early (see `find.rs`); earlier pieces go on,
/// since a failure of theirs would come first.
struct TryCollectConsumer {
    /// The smallest start of a piece that failed (`usize::MAX`: none yet).
    first: AtomicUsize,
}

impl<T: Send, E: Send> Consumer<Result<T, E>> for TryCollectConsumer {
    type Result = Result<Vec<Vec<T>>, E>;

    fn consume<I: Iterator<Item = Result<T, E>>>(&self, iter: I) -> Self::Result {
        iter.collect::<Result<Vec<T>, E>>().map(|v| vec![v])
    }

    fn consume_at<I: Iterator<Item = Result<T, E>>>(&self, start: usize, iter: I) -> Self::Result {
        let mut out = Vec::new();
        for item in iter {
            if self.first.load(Ordering::Relaxed) < start {
                // An earlier piece failed: its error is the answer.
                return Ok(Vec::new());
            }
            match item {
                Ok(x) => out.push(x),
                Err(e) => {
                    self.first.fetch_min(start, Ordering::Relaxed);
                    return Err(e);
                }
            }
        }
        Ok(vec![out])
    }

    fn reduce(&self, left: Self::Result, right: Self::Result) -> Self::Result {
        let mut left = left?;
        left.extend(right?);
        Ok(left)
    }

    fn identity(&self) -> Self::Result {
        Ok(Vec::new())
    }
}

fn try_collect_vec<T: Send, E: Send, I>(par_iter: I) -> Result<Vec<T>, E>
where
    I: IntoParallelIterator<Item = Result<T, E>>,
{
    let pieces = par_iter.into_par_iter().drive(TryCollectConsumer {
        first: AtomicUsize::new(usize::MAX),
    })?;
    let mut out = Vec::new();
    append_pieces(&mut out, pieces);
    Ok(out)
}

/// Collects the `Ok` values, in order, or returns the first `Err` in order.
///
/// ```
/// use hypersteal::prelude::*;
/// let ok: Result<Vec<u32>, String> = (0..4u32).into_par_iter().map(Ok).collect();
/// assert_eq!(ok, Ok(vec![0, 1, 2, 3]));
/// let err: Result<Vec<u32>, u32> =
///     (0..100u32).into_par_iter().map(|x| if x % 30 == 29 { Err(x) } else { Ok(x) }).collect();
/// assert_eq!(err, Err(29));
/// ```
impl<C, T, E> FromParallelIterator<Result<T, E>> for Result<C, E>
where
    C: FromParallelIterator<T>,
    T: Send,
    E: Send,
{
    fn from_par_iter<I: IntoParallelIterator<Item = Result<T, E>>>(par_iter: I) -> Self {
        try_collect_vec(par_iter).map(C::from_par_iter)
    }
}

/// Collects the `Some` values, in order, or returns `None` if there is a `None`.
///
/// ```
/// use hypersteal::prelude::*;
/// let all: Option<Vec<u32>> = (0..4u32).into_par_iter().map(Some).collect();
/// assert_eq!(all, Some(vec![0, 1, 2, 3]));
/// let gap: Option<Vec<u32>> = (0..4u32).into_par_iter().map(|x| (x != 2).then_some(x)).collect();
/// assert_eq!(gap, None);
/// ```
impl<C, T> FromParallelIterator<Option<T>> for Option<C>
where
    C: FromParallelIterator<T>,
    T: Send,
{
    fn from_par_iter<I: IntoParallelIterator<Item = Option<T>>>(par_iter: I) -> Self {
        let results = par_iter.into_par_iter().map(|x| x.ok_or(()));
        try_collect_vec(results).ok().map(C::from_par_iter)
    }
}
