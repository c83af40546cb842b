//! Programs that must not compile: the borrow and thread-safety guarantees rayon users rely on
//! hold for hypersteal's `join`, `scope` and parallel iterators too. Built only by `rustdoc`'s
//! doctest pass (`#[cfg(doctest)]`); each snippet is a `compile_fail` test with the error code
//! the compiler must report.

/// Both closures of a `join` cannot hold the same mutable borrow:
///
/// ```compile_fail,E0524
/// fn halves(v: &mut [u32]) {
///     if v.len() < 2 {
///         return;
///     }
///     let (left, _right) = v.split_at_mut(v.len() / 2);
///     hypersteal::join(|| halves(left), || halves(left));
/// }
/// ```
///
/// nor may one closure borrow the whole while the other borrows a part:
///
/// ```compile_fail,E0500
/// fn halves(v: &mut [u32]) {
///     if v.len() < 2 {
///         return;
///     }
///     let (_left, right) = v.split_at_mut(v.len() / 2);
///     hypersteal::join(|| halves(right), || halves(v));
/// }
/// ```
///
/// The well-formed version, for comparison:
///
/// ```
/// fn halves(v: &mut [u32]) {
///     if v.len() < 2 {
///         v.iter_mut().for_each(|x| *x += 1);
///         return;
///     }
///     let (left, right) = v.split_at_mut(v.len() / 2);
///     hypersteal::join(|| halves(left), || halves(right));
/// }
/// let mut v = vec![0; 100];
/// halves(&mut v);
/// assert!(v.iter().all(|&x| x == 1));
/// ```
mod join_borrows {}

/// A closure of `join` must return something that may cross threads: an `Rc` may not, from `a`
///
/// ```compile_fail,E0277
/// let _ = hypersteal::join(|| std::rc::Rc::new(1), || 2);
/// ```
///
/// or from `b`:
///
/// ```compile_fail,E0277
/// let _ = hypersteal::join(|| 1, || std::rc::Rc::new(2));
/// ```
///
/// and neither closure may capture one:
///
/// ```compile_fail,E0277
/// let shared = std::rc::Rc::new(7);
/// let _ = hypersteal::join(|| *shared + 1, || *shared + 2);
/// ```
mod join_send {}

/// A scope's task cannot borrow a local of the scope's closure, which ends before the task may
/// run:
///
/// ```compile_fail,E0373
/// fn run<F: FnOnce(&u32) + Send>(f: F) {
///     hypersteal::scope(|s| {
///         let local = 5;
///         s.spawn(|_| f(&local));
///     });
/// }
/// ```
///
/// while borrowing from outside the scope is fine:
///
/// ```
/// fn run<F: FnOnce(&u32) + Send>(f: F) {
///     let outside = 5;
///     hypersteal::scope(|s| {
///         s.spawn(|_| f(&outside));
///     });
/// }
/// run(|x| assert_eq!(*x, 5));
/// ```
mod scope_borrows {}

/// `collect_into_vec` needs to know every item's index: a `filter_map` loses it.
///
/// ```compile_fail,E0599
/// use hypersteal::prelude::*;
/// let input: Vec<u32> = (0..100).collect();
/// let mut out = Vec::new();
/// input.par_iter().filter_map(|&x| x.checked_sub(1)).collect_into_vec(&mut out);
/// ```
///
/// Nor can a filtered iterator be zipped, since `zip` pairs items by index:
///
/// ```compile_fail,E0277
/// use hypersteal::prelude::*;
/// let a: Vec<u32> = (0..100).collect();
/// let b: Vec<u32> = (0..100).collect();
/// let _ = a.par_iter().zip(b.par_iter().filter(|&&x| x % 2 == 0));
/// ```
mod indexed_only {}

/// The closures of a parallel iterator run on several threads, so they cannot read a `Cell`
///
/// ```compile_fail,E0277
/// use hypersteal::prelude::*;
/// let cell = std::cell::Cell::new(3u32);
/// let _ = (0u32..100).into_par_iter().map(|x| x + cell.get()).max();
/// ```
///
/// nor iterate over `Rc`s by value:
///
/// ```compile_fail,E0599
/// use hypersteal::prelude::*;
/// let v = vec![std::rc::Rc::new(1), std::rc::Rc::new(2)];
/// let _: Vec<u32> = v.into_par_iter().map(|rc| *rc).collect();
/// ```
///
/// nor make items that may not cross threads: here `Pinned` may be shared (`Sync`) but not
/// sent, so a reference to it is fine and a copy of it is not, whichever adapter makes the copy.
///
/// ```compile_fail,E0277
/// use hypersteal::prelude::*;
/// #[derive(Clone, Copy)]
/// struct Pinned(*const u8);
/// // SAFETY (of this test): `Pinned` is never dereferenced.
/// unsafe impl Sync for Pinned {}
/// let v = [Pinned(std::ptr::null())];
/// let _ = v.par_iter().map(|&p| p).count();
/// ```
///
/// ```compile_fail,E0277
/// use hypersteal::prelude::*;
/// #[derive(Clone, Copy)]
/// struct Pinned(*const u8);
/// // SAFETY (of this test): `Pinned` is never dereferenced.
/// unsafe impl Sync for Pinned {}
/// let v = [Pinned(std::ptr::null())];
/// let _ = v.par_iter().copied().count();
/// ```
///
/// ```compile_fail,E0277
/// use hypersteal::prelude::*;
/// #[derive(Clone, Copy)]
/// struct Pinned(*const u8);
/// // SAFETY (of this test): `Pinned` is never dereferenced.
/// unsafe impl Sync for Pinned {}
/// let v = [Pinned(std::ptr::null())];
/// let _ = v.par_iter().filter_map(|&p| Some(p)).count();
/// ```
///
/// The same loop over references compiles:
///
/// ```
/// use hypersteal::prelude::*;
/// #[derive(Clone, Copy)]
/// struct Pinned(*const u8);
/// // SAFETY (of this test): `Pinned` is never dereferenced.
/// unsafe impl Sync for Pinned {}
/// let v = [Pinned(std::ptr::null())];
/// assert_eq!(v.par_iter().filter(|p| p.0.is_null()).count(), 1);
/// ```
mod thread_safety {}

/// An adapter does nothing until a consumer runs it, so dropping one unused is flagged.
/// Each case below first compiles when its result is bound, then fails under
/// `#![deny(unused_must_use)]` when it is not.
macro_rules! adapters_are_must_use {
    ($($name:ident: $call:literal,)*) => {
        $(
            #[doc = concat!(
                "```\n#![deny(unused_must_use)]\nuse hypersteal::prelude::*;\n",
                "let v: Vec<Option<u32>> = (0..50).map(Some).collect();\nlet _ = ",
                $call, ";\n```\n\n",
                "```compile_fail\n#![deny(unused_must_use)]\nuse hypersteal::prelude::*;\n",
                "let v: Vec<Option<u32>> = (0..50).map(Some).collect();\n",
                $call, ";\n```"
            )]
            mod $name {}
        )*
    };
}

adapters_are_must_use! {
    map: "v.par_iter().map(|x| x)",
    filter: "v.par_iter().filter(|_| true)",
    filter_map: "v.par_iter().filter_map(|x| *x)",
    inspect: "v.par_iter().inspect(|_| {})",
    update: "v.par_iter().cloned().update(|_| {})",
    while_some: "v.par_iter().cloned().while_some()",
    copied: "v.par_iter().copied()",
    cloned: "v.par_iter().cloned()",
    fold: "v.par_iter().fold(|| 0, |a, _| a)",
    fold_with: "v.par_iter().fold_with(0, |a, _| a)",
    try_fold: "v.par_iter().try_fold(|| 0, |a, _| Some(a))",
    try_fold_with: "v.par_iter().try_fold_with(0, |a, _| Some(a))",
    map_with: "v.par_iter().map_with(0, |_, x| x)",
    map_init: "v.par_iter().map_init(|| 0, |_, x| x)",
    chain: "v.par_iter().chain(&v)",
    flat_map: "v.par_iter().flat_map(|_| vec![1u8])",
    flat_map_iter: "v.par_iter().flat_map_iter(|x| *x)",
    flatten: "v.par_iter().map(|_| vec![1u8]).flatten()",
    flatten_iter: "v.par_iter().flatten_iter()",
    enumerate: "v.par_iter().enumerate()",
    zip: "v.par_iter().zip(&v)",
    zip_eq: "v.par_iter().zip_eq(&v)",
    with_min_len: "v.par_iter().with_min_len(2)",
    with_max_len: "v.par_iter().with_max_len(2)",
    rev: "v.par_iter().rev()",
    skip: "v.par_iter().skip(1)",
    take: "v.par_iter().take(1)",
    step_by: "v.par_iter().step_by(2)",
    chunks: "v.par_iter().chunks(2)",
    fold_chunks: "v.par_iter().fold_chunks(2, || 0, |a, _| a)",
    positions: "v.par_iter().positions(|x| x.is_some())",
    par_chunks: "v.par_chunks(2)",
}
