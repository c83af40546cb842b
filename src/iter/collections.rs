//! The std collections, `Option`, `Result` and arrays as parallel iterators, by value
//! (`into_par_iter`), by reference (`par_iter`) and by mutable reference (`par_iter_mut`), with
//! rayon's module layout (`collections::hash_map::IntoIter`, `option::Iter`, …).
//!
//! How each one is cut into pieces:
//!
//! * `VecDeque` by reference iterates its two slices as one chained indexed iterator; by value it
//!   becomes a `Vec` first (`Vec::from`, which moves the items only when the deque wraps around).
//! * `BinaryHeap` iterates its backing vector (`as_slice`, `into_vec`): in no particular order,
//!   like std's `iter`. Both are indexed, as in rayon.
//! * `HashMap`, `HashSet`, `BTreeMap`, `BTreeSet` and `LinkedList` cannot be cut without walking
//!   them, so they are first walked sequentially into a `Vec` of the items (or of references to
//!   them), which is then iterated in parallel. That walk costs one sequential pass and one
//!   allocation; the iterators are unindexed, as in rayon. Hash containers yield their items in
//!   their (arbitrary) iteration order, B-trees in key order.
//! * `Option` and `Result` yield at most one item (`Err` yields none); arrays become a `Vec`.

use crate::iter::plumbing::Producer;
use crate::iter::IntoParallelIterator;

/// A public iterator type that forwards to an inner parallel iterator (unindexed).
macro_rules! delegate {
    ($(#[$doc:meta])* $name:ident <$($lt:lifetime,)* $($p:ident),*> => $inner:ty) => {
        $(#[$doc])*
        #[derive(Debug)]
        #[must_use = "parallel iterators do nothing until consumed"]
        pub struct $name<$($lt,)* $($p),*> {
            pub(crate) inner: $inner,
        }

        impl<$($lt,)* $($p),*> Clone for $name<$($lt,)* $($p),*>
        where
            $inner: Clone,
        {
            fn clone(&self) -> Self {
                $name { inner: self.inner.clone() }
            }
        }

        impl<$($lt,)* $($p),*> $crate::iter::ParallelIterator for $name<$($lt,)* $($p),*>
        where
            $inner: $crate::iter::ParallelIterator,
        {
            type Item = <$inner as $crate::iter::ParallelIterator>::Item;

            fn opt_len(&self) -> Option<usize> {
                self.inner.opt_len()
            }

            fn drive<C: $crate::iter::plumbing::Consumer<Self::Item>>(
                self,
                consumer: C,
            ) -> C::Result {
                self.inner.drive(consumer)
            }
        }
    };
}

/// Like `delegate!`, for an indexed inner iterator.
macro_rules! delegate_indexed {
    ($(#[$doc:meta])* $name:ident <$($lt:lifetime,)* $($p:ident),*> => $inner:ty) => {
        delegate!($(#[$doc])* $name<$($lt,)* $($p),*> => $inner);

        impl<$($lt,)* $($p),*> $crate::iter::IndexedParallelIterator for $name<$($lt,)* $($p),*>
        where
            $inner: $crate::iter::IndexedParallelIterator,
        {
            fn len(&self) -> usize {
                self.inner.len()
            }

            fn with_producer<CB: $crate::iter::plumbing::ProducerCallback<Self::Item>>(
                self,
                callback: CB,
            ) -> CB::Output {
                self.inner.with_producer(callback)
            }
        }
    };
}

/// Collects an iterator into a `Vec` and iterates that in parallel.
fn via_vec<T: Send>(items: impl Iterator<Item = T>) -> crate::iter::IntoIter<T> {
    items.collect::<Vec<T>>().into_par_iter()
}

/// `VecDeque`: indexed parallel iterators.
pub mod vec_deque {
    use super::via_vec;
    use crate::iter::ParallelIterator;
    use crate::iter::{Chain, IntoParallelIterator, Iter as SliceIter, IterMut as SliceIterMut};
    use std::collections::VecDeque;

    delegate_indexed!(
        /// The items of a `VecDeque`, moved out (`into_par_iter`), in order.
        IntoIter<T> => crate::iter::IntoIter<T>
    );
    delegate_indexed!(
        /// References to the items of a `VecDeque` (`par_iter`), in order.
        Iter<'a, T> => Chain<SliceIter<'a, T>, SliceIter<'a, T>>
    );
    delegate_indexed!(
        /// Mutable references to the items of a `VecDeque` (`par_iter_mut`), in order.
        IterMut<'a, T> => Chain<SliceIterMut<'a, T>, SliceIterMut<'a, T>>
    );
    delegate_indexed!(
        /// The items of a range of a `VecDeque`, removed from it (`par_drain`), in order.
        ///
        /// The range is taken out of the deque when `par_drain` is called (sequentially, into
        /// a `Vec`), so the deque is valid, and shorter, from then on; items the loop does not
        /// consume are dropped with the iterator.
        Drain<'a, T> => crate::iter::drain::Owned<'a, T>
    );

    impl<T: Send> IntoParallelIterator for VecDeque<T> {
        type Iter = IntoIter<T>;
        type Item = T;

        fn into_par_iter(self) -> IntoIter<T> {
            IntoIter {
                inner: Vec::from(self).into_par_iter(),
            }
        }
    }

    impl<'a, T: Sync> IntoParallelIterator for &'a VecDeque<T> {
        type Iter = Iter<'a, T>;
        type Item = &'a T;

        fn into_par_iter(self) -> Iter<'a, T> {
            let (front, back) = self.as_slices();
            Iter {
                inner: front.into_par_iter().chain(back.into_par_iter()),
            }
        }
    }

    impl<'a, T: Send> IntoParallelIterator for &'a mut VecDeque<T> {
        type Iter = IterMut<'a, T>;
        type Item = &'a mut T;

        fn into_par_iter(self) -> IterMut<'a, T> {
            let (front, back) = self.as_mut_slices();
            IterMut {
                inner: front.into_par_iter().chain(back.into_par_iter()),
            }
        }
    }

    impl<'a, T: Send> crate::iter::ParallelDrainRange<usize> for &'a mut VecDeque<T> {
        type Iter = Drain<'a, T>;
        type Item = T;

        fn par_drain<R: std::ops::RangeBounds<usize>>(self, range: R) -> Drain<'a, T> {
            let items = via_vec(self.drain(range));
            Drain {
                inner: crate::iter::drain::Owned::new(items),
            }
        }
    }
}

/// Defines the by-value, by-reference (and by-mutable-reference) iterators of a collection
/// that is first walked into a `Vec` (see the module docs).
macro_rules! walked_collection {
    (
        $(#[$mdoc:meta])* $module:ident, $coll:ident <$($p:ident),*> [$($extra:ident),*],
        item $item:ty, ref $ref_item:ty, iter $iter:ident
        $(, mut $mut_item:ty, iter_mut $iter_mut:ident [$($mextra:ident),*])? $(, drain $drain:ident <$($dp:ident),*>)?
    ) => {
        $(#[$mdoc])*
        pub mod $module {
            use super::via_vec;
            use crate::iter::IntoParallelIterator;
            use std::collections::$coll;

            delegate!(
                /// The items, moved out of the collection (`into_par_iter`).
                IntoIter<$($p),*> => crate::iter::IntoIter<$item>
            );
            delegate!(
                /// References to the items (`par_iter`).
                Iter<'a, $($p),*> => crate::iter::IntoIter<$ref_item>
            );

            impl<$($p: Send,)* $($extra),*> IntoParallelIterator for $coll<$($p,)* $($extra),*> {
                type Iter = IntoIter<$($p),*>;
                type Item = $item;

                fn into_par_iter(self) -> IntoIter<$($p),*> {
                    IntoIter { inner: via_vec(self.into_iter()) }
                }
            }

            impl<'a, $($p: Sync,)* $($extra),*> IntoParallelIterator
                for &'a $coll<$($p,)* $($extra),*>
            {
                type Iter = Iter<'a, $($p),*>;
                type Item = $ref_item;

                fn into_par_iter(self) -> Iter<'a, $($p),*> {
                    Iter { inner: via_vec(self.$iter()) }
                }
            }

            $(
                delegate!(
                    /// All the items, removed from the collection (`par_drain`). The
                    /// collection is emptied when `par_drain` is called (sequentially, into a
                    /// `Vec`); items the loop does not consume are dropped with the iterator.
                    $drain<'a, $($dp),*> => crate::iter::drain::Owned<'a, $item>
                );
            )?

            $(
                delegate!(
                    /// Mutable references to the items (`par_iter_mut`).
                    IterMut<'a, K, V> => crate::iter::IntoIter<$mut_item>
                );

                impl<'a, K: Sync, V: Send, $($mextra),*> IntoParallelIterator
                    for &'a mut $coll<K, V, $($mextra),*>
                {
                    type Iter = IterMut<'a, K, V>;
                    type Item = $mut_item;

                    fn into_par_iter(self) -> IterMut<'a, K, V> {
                        IterMut { inner: via_vec(self.$iter_mut()) }
                    }
                }
            )?
        }
    };
}

walked_collection!(
    /// `HashMap`: walked into a `Vec` first (see [`crate::iter::collections`]); unindexed.
    hash_map, HashMap<K, V> [S],
    item (K, V), ref (&'a K, &'a V), iter iter,
    mut (&'a K, &'a mut V), iter_mut iter_mut [S], drain Drain<K, V>
);
walked_collection!(
    /// `BTreeMap`: walked into a `Vec` first (see [`crate::iter::collections`]); unindexed.
    btree_map, BTreeMap<K, V> [],
    item (K, V), ref (&'a K, &'a V), iter iter,
    mut (&'a K, &'a mut V), iter_mut iter_mut []
);
walked_collection!(
    /// `HashSet`: walked into a `Vec` first (see [`crate::iter::collections`]); unindexed.
    hash_set, HashSet<T> [S],
    item T, ref &'a T, iter iter, drain Drain<T>
);
walked_collection!(
    /// `BTreeSet`: walked into a `Vec` first (see [`crate::iter::collections`]); unindexed.
    btree_set, BTreeSet<T> [],
    item T, ref &'a T, iter iter
);

/// `LinkedList`: walked into a `Vec` first (see [`crate::iter::collections`]); unindexed.
pub mod linked_list {
    use super::via_vec;
    use crate::iter::IntoParallelIterator;
    use std::collections::LinkedList;

    delegate!(
        /// The items, moved out of the list (`into_par_iter`), in order.
        IntoIter<T> => crate::iter::IntoIter<T>
    );
    delegate!(
        /// References to the items (`par_iter`), in order.
        Iter<'a, T> => crate::iter::IntoIter<&'a T>
    );
    delegate!(
        /// Mutable references to the items (`par_iter_mut`), in order.
        IterMut<'a, T> => crate::iter::IntoIter<&'a mut T>
    );

    impl<T: Send> IntoParallelIterator for LinkedList<T> {
        type Iter = IntoIter<T>;
        type Item = T;

        fn into_par_iter(self) -> IntoIter<T> {
            IntoIter {
                inner: via_vec(self.into_iter()),
            }
        }
    }

    impl<'a, T: Sync> IntoParallelIterator for &'a LinkedList<T> {
        type Iter = Iter<'a, T>;
        type Item = &'a T;

        fn into_par_iter(self) -> Iter<'a, T> {
            Iter {
                inner: via_vec(self.iter()),
            }
        }
    }

    impl<'a, T: Send> IntoParallelIterator for &'a mut LinkedList<T> {
        type Iter = IterMut<'a, T>;
        type Item = &'a mut T;

        fn into_par_iter(self) -> IterMut<'a, T> {
            IterMut {
                inner: via_vec(self.iter_mut()),
            }
        }
    }
}

/// `BinaryHeap`: its backing vector, in no particular order; indexed.
pub mod binary_heap {
    use crate::iter::IntoParallelIterator;
    use std::collections::BinaryHeap;

    delegate_indexed!(
        /// The items, moved out of the heap (`into_par_iter`), in no particular order.
        IntoIter<T> => crate::iter::IntoIter<T>
    );
    delegate_indexed!(
        /// References to the items (`par_iter`), in no particular order.
        Iter<'a, T> => crate::iter::Iter<'a, T>
    );
    delegate_indexed!(
        /// All the items, removed from the heap (`par_drain`), in no particular order. The heap
        /// is emptied when `par_drain` is called.
        Drain<'a, T> => crate::iter::drain::Owned<'a, T>
    );

    impl<T: Send> IntoParallelIterator for BinaryHeap<T> {
        type Iter = IntoIter<T>;
        type Item = T;

        fn into_par_iter(self) -> IntoIter<T> {
            IntoIter {
                inner: self.into_vec().into_par_iter(),
            }
        }
    }

    impl<'a, T: Sync> IntoParallelIterator for &'a BinaryHeap<T> {
        type Iter = Iter<'a, T>;
        type Item = &'a T;

        fn into_par_iter(self) -> Iter<'a, T> {
            Iter {
                inner: self.as_slice().into_par_iter(),
            }
        }
    }

    impl<'a, T: Send> crate::iter::ParallelDrainFull for &'a mut BinaryHeap<T> {
        type Iter = Drain<'a, T>;
        type Item = T;

        fn par_drain(self) -> Drain<'a, T> {
            let items = std::mem::take(self).into_vec().into_par_iter();
            Drain {
                inner: crate::iter::drain::Owned::new(items),
            }
        }
    }
}

/// `HashMap` and `HashSet` drains (`par_drain`): the collection is emptied when `par_drain` is
/// called (sequentially, into a `Vec`); items the loop does not consume are dropped with the
/// iterator. Unindexed, as in rayon.
mod hash_drains {
    use super::hash_map::Drain as MapDrain;
    use super::hash_set::Drain as SetDrain;
    use super::via_vec;
    use crate::iter::drain::Owned;
    use crate::iter::ParallelDrainFull;
    use std::collections::{HashMap, HashSet};

    impl<'a, K: Send, V: Send, S> ParallelDrainFull for &'a mut HashMap<K, V, S> {
        type Iter = MapDrain<'a, K, V>;
        type Item = (K, V);

        fn par_drain(self) -> MapDrain<'a, K, V> {
            MapDrain {
                inner: Owned::new(via_vec(self.drain())),
            }
        }
    }

    impl<'a, T: Send, S> ParallelDrainFull for &'a mut HashSet<T, S> {
        type Iter = SetDrain<'a, T>;
        type Item = T;

        fn par_drain(self) -> SetDrain<'a, T> {
            SetDrain {
                inner: Owned::new(via_vec(self.drain())),
            }
        }
    }
}

/// `Option`: one item or none; indexed.
pub mod option {
    use super::OptionProducer;
    use crate::iter::plumbing::{Consumer, ProducerCallback};
    use crate::iter::ParallelIterator;
    use crate::iter::{DriveCallback, IndexedParallelIterator, IntoParallelIterator};

    /// The item of an `Option`, moved out (`into_par_iter`).
    #[derive(Clone, Debug)]
    #[must_use = "parallel iterators do nothing until consumed"]
    pub struct IntoIter<T> {
        pub(crate) item: Option<T>,
    }

    impl<T: Send> ParallelIterator for IntoIter<T> {
        type Item = T;

        opt_len_indexed!();

        fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
            self.with_producer(DriveCallback { consumer })
        }
    }

    impl<T: Send> IndexedParallelIterator for IntoIter<T> {
        fn len(&self) -> usize {
            usize::from(self.item.is_some())
        }

        fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
            callback.callback(OptionProducer { item: self.item })
        }
    }

    delegate_indexed!(
        /// A reference to the item of an `Option` (`par_iter`).
        Iter<'a, T> => IntoIter<&'a T>
    );
    delegate_indexed!(
        /// A mutable reference to the item of an `Option` (`par_iter_mut`).
        IterMut<'a, T> => IntoIter<&'a mut T>
    );

    impl<T: Send> IntoParallelIterator for Option<T> {
        type Iter = IntoIter<T>;
        type Item = T;

        fn into_par_iter(self) -> IntoIter<T> {
            IntoIter { item: self }
        }
    }

    impl<'a, T: Sync> IntoParallelIterator for &'a Option<T> {
        type Iter = Iter<'a, T>;
        type Item = &'a T;

        fn into_par_iter(self) -> Iter<'a, T> {
            Iter {
                inner: IntoIter {
                    item: self.as_ref(),
                },
            }
        }
    }

    impl<'a, T: Send> IntoParallelIterator for &'a mut Option<T> {
        type Iter = IterMut<'a, T>;
        type Item = &'a mut T;

        fn into_par_iter(self) -> IterMut<'a, T> {
            IterMut {
                inner: IntoIter {
                    item: self.as_mut(),
                },
            }
        }
    }
}

/// `Result`: the `Ok` item, or none; indexed.
pub mod result {
    use super::option;
    use crate::iter::IntoParallelIterator;

    delegate_indexed!(
        /// The `Ok` item of a `Result`, moved out (`into_par_iter`).
        IntoIter<T> => option::IntoIter<T>
    );
    delegate_indexed!(
        /// A reference to the `Ok` item of a `Result` (`par_iter`).
        Iter<'a, T> => option::IntoIter<&'a T>
    );
    delegate_indexed!(
        /// A mutable reference to the `Ok` item of a `Result` (`par_iter_mut`).
        IterMut<'a, T> => option::IntoIter<&'a mut T>
    );

    impl<T: Send, E> IntoParallelIterator for Result<T, E> {
        type Iter = IntoIter<T>;
        type Item = T;

        fn into_par_iter(self) -> IntoIter<T> {
            IntoIter {
                inner: self.ok().into_par_iter(),
            }
        }
    }

    impl<'a, T: Sync, E> IntoParallelIterator for &'a Result<T, E> {
        type Iter = Iter<'a, T>;
        type Item = &'a T;

        fn into_par_iter(self) -> Iter<'a, T> {
            Iter {
                inner: self.as_ref().ok().into_par_iter(),
            }
        }
    }

    impl<'a, T: Send, E> IntoParallelIterator for &'a mut Result<T, E> {
        type Iter = IterMut<'a, T>;
        type Item = &'a mut T;

        fn into_par_iter(self) -> IterMut<'a, T> {
            IterMut {
                inner: self.as_mut().ok().into_par_iter(),
            }
        }
    }
}

/// Arrays by value (by reference they are slices, see [`crate::iter::Iter`]); indexed.
pub mod array {
    use crate::iter::plumbing::{Consumer, ProducerCallback};
    use crate::iter::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};

    /// The items of an array, moved out (`into_par_iter`), in order. The array is moved into a
    /// `Vec` first (one allocation).
    #[derive(Clone, Debug)]
    #[must_use = "parallel iterators do nothing until consumed"]
    pub struct IntoIter<T, const N: usize> {
        inner: crate::iter::IntoIter<T>,
    }

    impl<T: Send, const N: usize> IntoParallelIterator for [T; N] {
        type Iter = IntoIter<T, N>;
        type Item = T;

        fn into_par_iter(self) -> IntoIter<T, N> {
            IntoIter {
                inner: Vec::from(self).into_par_iter(),
            }
        }
    }

    impl<T: Send, const N: usize> ParallelIterator for IntoIter<T, N> {
        type Item = T;

        opt_len_indexed!();

        fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
            self.inner.drive(consumer)
        }
    }

    impl<T: Send, const N: usize> IndexedParallelIterator for IntoIter<T, N> {
        fn len(&self) -> usize {
            self.inner.len()
        }

        fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
            self.inner.with_producer(callback)
        }
    }
}

/// The item of an `Option`, as a producer of zero or one items.
struct OptionProducer<T> {
    item: Option<T>,
}

impl<T: Send> Producer for OptionProducer<T> {
    type Item = T;
    type IntoIter = std::option::IntoIter<T>;

    fn len(&self) -> usize {
        usize::from(self.item.is_some())
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        if index == 0 {
            (OptionProducer { item: None }, self)
        } else {
            (self, OptionProducer { item: None })
        }
    }

    fn into_iter(self) -> Self::IntoIter {
        self.item.into_iter()
    }
}
