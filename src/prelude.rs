//! The traits a parallel loop needs: `use hypersteal::prelude::*;` (the same names as rayon's
//! prelude, so switching is a change of import).

pub use crate::iter::{
    FromParallelIterator, IndexedParallelIterator, IntoParallelIterator, IntoParallelRefIterator,
    IntoParallelRefMutIterator, ParallelBridge, ParallelDrainFull, ParallelDrainRange,
    ParallelExtend, ParallelIterator, ParallelSlice, ParallelSliceMut, ParallelString,
};
