//! [`MultiZip`]: tuples of indexed iterators walked in lockstep. (Collecting and extending pairs
//! side by side is in `collect.rs` and `extend.rs`.)

use crate::iter::plumbing::{Consumer, ProducerCallback};
use crate::iter::{
    IndexedParallelIterator, IntoParallelIterator, IntoParallelRefIterator,
    IntoParallelRefMutIterator, Map, ParallelIterator, Zip,
};

/// Indexed parallel iterators walked in lockstep, from a tuple's `into_par_iter()` (or
/// [`MultiZip`] built by hand): the items are tuples of the parts' items, as many as the
/// shortest part has. Tuples of one to twelve parts work, by value, by reference (the parts'
/// `par_iter()`) and by mutable reference (their `par_iter_mut()`).
///
/// ```
/// use hypersteal::prelude::*;
/// let a = [1u32, 2, 3];
/// let b = vec![10u32, 20, 30, 40];
/// let sums: Vec<u32> = (&a, &b, 0..3u32).into_par_iter().map(|(x, y, i)| x + y + i).collect();
/// assert_eq!(sums, [11, 23, 35]);
/// ```
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct MultiZip<T> {
    tuple: T,
}

macro_rules! multizip {
    ($(($($T:ident $t:ident),+) => $nested:ty, $pat:pat, [$first:ident $(. $rest:ident)*];)*) => {$(
        impl<$($T,)+> IntoParallelIterator for ($($T,)+)
        where
            $($T: IntoParallelIterator, $T::Iter: IndexedParallelIterator,)+
        {
            type Iter = MultiZip<($($T::Iter,)+)>;
            type Item = ($($T::Item,)+);

            fn into_par_iter(self) -> Self::Iter {
                let ($($t,)+) = self;
                MultiZip { tuple: ($($t.into_par_iter(),)+) }
            }
        }

        /// A tuple by reference zips its parts' `par_iter()`s.
        impl<'data, $($T,)+> IntoParallelIterator for &'data ($($T,)+)
        where
            $($T: IntoParallelRefIterator<'data>, $T::Iter: IndexedParallelIterator,)+
        {
            type Iter = MultiZip<($($T::Iter,)+)>;
            type Item = ($($T::Item,)+);

            fn into_par_iter(self) -> Self::Iter {
                let ($($t,)+) = self;
                MultiZip { tuple: ($($t.par_iter(),)+) }
            }
        }

        /// A tuple by mutable reference zips its parts' `par_iter_mut()`s.
        impl<'data, $($T,)+> IntoParallelIterator for &'data mut ($($T,)+)
        where
            $($T: IntoParallelRefMutIterator<'data>, $T::Iter: IndexedParallelIterator,)+
        {
            type Iter = MultiZip<($($T::Iter,)+)>;
            type Item = ($($T::Item,)+);

            fn into_par_iter(self) -> Self::Iter {
                let ($($t,)+) = self;
                MultiZip { tuple: ($($t.par_iter_mut(),)+) }
            }
        }

        impl<$($T,)+> MultiZip<($($T,)+)>
        where
            $($T: IndexedParallelIterator,)+
        {
            /// The parts zipped pairwise, their nested items flattened into one tuple.
            #[allow(clippy::type_complexity)]
            fn nested(self) -> Map<$nested, fn(<$nested as ParallelIterator>::Item) -> ($($T::Item,)+)> {
                let ($($t,)+) = self.tuple;
                let flatten: fn(<$nested as ParallelIterator>::Item) -> ($($T::Item,)+) =
                    |$pat| ($($t,)+);
                $first$(.zip($rest))*.map(flatten)
            }
        }

        impl<$($T,)+> ParallelIterator for MultiZip<($($T,)+)>
        where
            $($T: IndexedParallelIterator,)+
        {
            type Item = ($($T::Item,)+);

            opt_len_indexed!();

            fn drive<CONS: Consumer<Self::Item>>(self, consumer: CONS) -> CONS::Result {
                self.nested().drive(consumer)
            }
        }

        impl<$($T,)+> IndexedParallelIterator for MultiZip<($($T,)+)>
        where
            $($T: IndexedParallelIterator,)+
        {
            fn len(&self) -> usize {
                let ($($t,)+) = &self.tuple;
                [$($t.len(),)+].into_iter().min().unwrap_or(0)
            }

            fn with_producer<CALLBACK: ProducerCallback<Self::Item>>(self, callback: CALLBACK) -> CALLBACK::Output {
                self.nested().with_producer(callback)
            }
        }
    )*};
}

multizip! {
    (A a) => A, a, [a];
    (A a, B b) => Zip<A, B>, (a, b), [a.b];
    (A a, B b, C c) => Zip<Zip<A, B>, C>, ((a, b), c), [a.b.c];
    (A a, B b, C c, D d) => Zip<Zip<Zip<A, B>, C>, D>, (((a, b), c), d), [a.b.c.d];
    (A a, B b, C c, D d, E e) => Zip<Zip<Zip<Zip<A, B>, C>, D>, E>, ((((a, b), c), d), e), [a.b.c.d.e];
    (A a, B b, C c, D d, E e, F f) => Zip<Zip<Zip<Zip<Zip<A, B>, C>, D>, E>, F>, (((((a, b), c), d), e), f), [a.b.c.d.e.f];
    (A a, B b, C c, D d, E e, F f, G g) => Zip<Zip<Zip<Zip<Zip<Zip<A, B>, C>, D>, E>, F>, G>, ((((((a, b), c), d), e), f), g), [a.b.c.d.e.f.g];
    (A a, B b, C c, D d, E e, F f, G g, H h) => Zip<Zip<Zip<Zip<Zip<Zip<Zip<A, B>, C>, D>, E>, F>, G>, H>, (((((((a, b), c), d), e), f), g), h), [a.b.c.d.e.f.g.h];
    (A a, B b, C c, D d, E e, F f, G g, H h, I i) => Zip<Zip<Zip<Zip<Zip<Zip<Zip<Zip<A, B>, C>, D>, E>, F>, G>, H>, I>, ((((((((a, b), c), d), e), f), g), h), i), [a.b.c.d.e.f.g.h.i];
    (A a, B b, C c, D d, E e, F f, G g, H h, I i, J j) => Zip<Zip<Zip<Zip<Zip<Zip<Zip<Zip<Zip<A, B>, C>, D>, E>, F>, G>, H>, I>, J>, (((((((((a, b), c), d), e), f), g), h), i), j), [a.b.c.d.e.f.g.h.i.j];
    (A a, B b, C c, D d, E e, F f, G g, H h, I i, J j, K k) => Zip<Zip<Zip<Zip<Zip<Zip<Zip<Zip<Zip<Zip<A, B>, C>, D>, E>, F>, G>, H>, I>, J>, K>, ((((((((((a, b), c), d), e), f), g), h), i), j), k), [a.b.c.d.e.f.g.h.i.j.k];
    (A a, B b, C c, D d, E e, F f, G g, H h, I i, J j, K k, L l) => Zip<Zip<Zip<Zip<Zip<Zip<Zip<Zip<Zip<Zip<Zip<A, B>, C>, D>, E>, F>, G>, H>, I>, J>, K>, L>, (((((((((((a, b), c), d), e), f), g), h), i), j), k), l), [a.b.c.d.e.f.g.h.i.j.k.l];
}
