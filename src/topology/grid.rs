//! The near-square row-major grid under the mesh and the torus: coordinates, row and column
//! lengths, neighbours, and the closed-form distances (the module docs of `topology.rs` say why
//! they equal a breadth-first search's).

use super::{cyclic, mesh_shape, Neighbors};

/// The near-square row-major grid of the mesh and the torus.
#[derive(Clone, Copy, Debug)]
pub(super) struct Grid {
    pub(super) cols: usize,
    pub(super) rows: usize,
    /// Cells in the last row, 1 to `cols`.
    pub(super) last: usize,
}

impl Grid {
    pub(super) fn new(p: usize) -> Self {
        let (cols, rows) = mesh_shape(p);
        Grid {
            cols,
            rows,
            last: p - (rows - 1) * cols,
        }
    }

    /// Row and column of worker `k`.
    pub(super) fn at(self, k: usize) -> (usize, usize) {
        (k / self.cols, k % self.cols)
    }

    pub(super) fn row_len(self, r: usize) -> usize {
        if r + 1 == self.rows {
            self.last
        } else {
            self.cols
        }
    }

    /// Column `c` holds rows `0..col_len(c)`: the last row may not reach it.
    pub(super) fn col_len(self, c: usize) -> usize {
        if c < self.last {
            self.rows
        } else {
            self.rows - 1
        }
    }

    /// Every row and column is full (the torus then wraps all of them).
    pub(super) fn is_full(self) -> bool {
        self.last == self.cols
    }

    /// The grid neighbours of `k` in increasing order. With `wrap`, a full row or column longer
    /// than one closes into a cycle.
    ///
    /// The candidates come in a fixed increasing order: in the column above `k`, the top of the
    /// column (reached by wrapping from the bottom) then the cell just above; in the row, its
    /// start (wrapping from its end) then the cell to the left; then, mirrored, the cell to the
    /// right, the row's end, the cell below and the column's bottom. Neighbouring candidates
    /// coincide only on a line of two cells, where the wrap-around meets the plain step; those
    /// repeats are skipped.
    pub(super) fn neighbors(self, k: usize, wrap: bool) -> Neighbors {
        let (r, c) = self.at(k);
        let len = self.row_len(r);
        let height = self.col_len(c);
        let row_wraps = wrap && len == self.cols && len > 1;
        let col_wraps = wrap && height == self.rows && height > 1;
        let mut list = Neighbors::empty();
        if r + 1 == height && col_wraps {
            list.push(c);
        }
        if r > 0 {
            list.push(k - self.cols);
        }
        if c + 1 == len && row_wraps {
            list.push(r * self.cols);
        }
        if c > 0 {
            list.push(k - 1);
        }
        if c + 1 < len {
            list.push(k + 1);
        }
        if c == 0 && row_wraps {
            list.push(k + len - 1);
        }
        if r + 1 < height {
            list.push(k + self.cols);
        }
        if r == 0 && col_wraps {
            list.push((height - 1) * self.cols + c);
        }
        list
    }

    pub(super) fn mesh_distance(self, a: usize, b: usize) -> usize {
        let ((r1, c1), (r2, c2)) = (self.at(a), self.at(b));
        r1.abs_diff(r2) + c1.abs_diff(c2)
    }

    /// Torus hops between `a` and `b`.
    ///
    /// A path's horizontal steps are at least the cyclic column distance `h`, its vertical steps
    /// at least the cyclic row distance; with a full last row both bounds are met at once. With a
    /// short last row (`last < cols`), call the rows above it the upper block: its rows are
    /// cycles, the columns `0..last` are cycles through the last row, the others are paths
    /// ending above it, and the last row is a path.
    ///
    /// - Both ends in the upper block, `t` rows apart: either straight, `h + t`, or round the
    ///   other way through the wrap of a column `x < last`, `detour + rows - t`, where `detour`
    ///   is the least `h(c1, x) + h(x, c2)`.
    /// - One end in the last row: along the other end's (cyclic) row to the last-row end's
    ///   column, which is below `last` and so a full cycle, then vertically either way round it.
    /// - Both in the last row: along it, or one step up into a cyclic row, along that and back
    ///   down.
    pub(super) fn torus_distance(self, a: usize, b: usize) -> usize {
        let ((r1, c1), (r2, c2)) = (self.at(a), self.at(b));
        let h = cyclic(c1.abs_diff(c2), self.cols);
        if self.is_full() {
            return h + cyclic(r1.abs_diff(r2), self.rows);
        }
        let bottom = self.rows - 1;
        match (r1 == bottom, r2 == bottom) {
            (false, false) => {
                let t = r1.abs_diff(r2);
                (h + t).min(self.detour(c1, c2) + self.rows - t)
            }
            (true, false) => h + (bottom - r2).min(r2 + 1),
            (false, true) => h + (bottom - r1).min(r1 + 1),
            (true, true) => c1.abs_diff(c2).min(h + 2),
        }
    }

    /// The least `h(c1, x) + h(x, c2)` over the wrapping columns `x < last`, `h` being the
    /// cyclic column distance.
    ///
    /// If `0..last` meets a shortest arc from `c1` to `c2`, that arc holds an end of the range
    /// or the range holds `c1` or `c2`, and the sum there is `h(c1, c2)`. Otherwise the range
    /// lies on the long arc, where the sum is concave in `x`: its least value is at an end of
    /// the range. So the ends of the range and the ends of the pair are the only candidates.
    pub(super) fn detour(self, c1: usize, c2: usize) -> usize {
        let n = self.cols;
        let via = |x: usize| cyclic(c1.abs_diff(x), n) + cyclic(x.abs_diff(c2), n);
        let mut best = via(0).min(via(self.last - 1));
        for c in [c1, c2] {
            if c < self.last {
                best = best.min(via(c));
            }
        }
        best
    }

    /// The torus diameter with a short last row: the largest distance of each kind of pair
    /// (see [`Grid::torus_distance`]), over every pair of columns.
    pub(super) fn short_torus_diameter(self) -> usize {
        let (cols, rows, last) = (self.cols, self.rows, self.last);
        // Upper-block row differences run over 0..=rows - 2.
        let top_t = rows - 2;
        let mut best = 0;
        for c1 in 0..cols {
            for c2 in 0..cols {
                let h = cyclic(c1.abs_diff(c2), cols);
                let detour = self.detour(c1, c2);
                // min(h + t, detour + rows - t) rises then falls in t: its peak is next to
                // where the two lines cross.
                let cross = (detour + rows - h) / 2;
                for t in [cross.min(top_t), (cross + 1).min(top_t)] {
                    best = best.max((h + t).min(detour + rows - t));
                }
                if c2 < last {
                    // min(rows - 1 - r, r + 1) over r in 0..rows - 1 peaks at rows / 2.
                    best = best.max(h + rows / 2);
                    if c1 < last {
                        best = best.max(c1.abs_diff(c2).min(h + 2));
                    }
                }
            }
        }
        best
    }

    /// `Σ distance(a, b)` over ordered pairs of a torus with a short last row, one pair of
    /// columns at a time (see [`Grid::torus_distance`]).
    pub(super) fn short_torus_sum(self) -> u64 {
        let (cols, rows, last) = (self.cols, self.rows, self.last);
        let upper = rows - 1;
        // Ordered pairs of upper-block rows `t` apart: `upper` for t = 0, else 2 (upper - t).
        let pairs = |t: usize| if t == 0 { upper } else { 2 * (upper - t) } as u64;
        // Prefix sums over t of pairs(t) and of t * pairs(t).
        let mut count = vec![0u64; upper + 1];
        let mut moment = vec![0u64; upper + 1];
        for t in 0..upper {
            count[t + 1] = count[t] + pairs(t);
            moment[t + 1] = moment[t] + t as u64 * pairs(t);
        }
        // Σ over upper-block rows r of min(rows - 1 - r, r + 1): the vertical part of the
        // distance from an upper-block cell to the last row.
        let to_bottom: u64 = (0..upper).map(|r| (rows - 1 - r).min(r + 1) as u64).sum();
        let mut total = 0u64;
        for c1 in 0..cols {
            for c2 in 0..cols {
                let h = cyclic(c1.abs_diff(c2), cols);
                let around = (self.detour(c1, c2) + rows) as u64;
                // Row differences t < k go straight (h + t), the others round the wrap.
                let k = ((around as usize - h) / 2 + 1).min(upper);
                total += h as u64 * count[k] + moment[k] + around * (count[upper] - count[k])
                    - (moment[upper] - moment[k]);
                if c2 < last {
                    // The upper-block cells of c1 to the last-row cell of c2, and back.
                    total += 2 * (upper as u64 * h as u64 + to_bottom);
                    if c1 < last {
                        total += c1.abs_diff(c2).min(h + 2) as u64;
                    }
                }
            }
        }
        total
    }
}
