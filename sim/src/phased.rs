//! Seed 000's two iterative workloads, 15-puzzle/IDA* and Romberg integration 14: a sequence
//! of phases, each a tree of chares whose root starts at processor 0, with a barrier between
//! phases (the next IDA* threshold, the next Romberg row, is known only when the previous phase
//! has ended). Shu's Table 4 gives their chare counts and grains:
//!
//! | workload | Shu's chares | ms per chare | here |
//! |---|---|---|---|
//! | 15-puzzle/IDA* | 1,172 | 42.8 | 6 iterations of 19, 37, 74, 149, 298, 595 chares (twice as many per iteration, 1,172 in all); a chare's grain is exponentially distributed (mean doubling per iteration, so an iteration's work grows about 4.5-fold, the 15-puzzle's `b² ≈ 4.5` for a threshold step of 2); each iteration's chares form a random tree with up to 3 children per chare (the puzzle's moves) |
//! | Romberg 14 | 2,026 | 12.2 | 14 rows of the trapezoid rule: row 0 evaluates 2 points, row `n` the `2^(n−1)` new ones; each row's points are split in halves down to pieces of at most 8 points; a piece of `k` points costs `k` units and a split 1 unit: 2,040 chares in all |
//!
//! Neither is the paper's program: Shu gives only these characteristics. The trees are
//! deterministic (hash-drawn), so a run is reproducible.

use crate::workload::TaskTree;

/// Which of Shu's iterative workloads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phased {
    /// 15-puzzle with iterative-deepening A* (`shu-puzzle15`).
    Puzzle15,
    /// Romberg integration with 14 rows (`shu-romberg14`).
    Romberg14,
}

/// Chares per IDA* iteration (1,172 in all, as Shu's Table 4).
const PUZZLE_CHARES: [u32; 6] = [19, 37, 74, 149, 298, 595];
/// Romberg rows.
const ROMBERG_ROWS: u32 = 14;
/// The most points a Romberg chare evaluates.
const ROMBERG_PIECE: u32 = 8;

impl Phased {
    /// How many phases.
    pub fn phases(self) -> u32 {
        match self {
            Phased::Puzzle15 => PUZZLE_CHARES.len() as u32,
            Phased::Romberg14 => ROMBERG_ROWS,
        }
    }

    /// The tree of phase `phase` (`< phases()`).
    pub fn phase(self, phase: u32) -> PhaseTree {
        PhaseTree { kind: self, phase }
    }

    /// Its spelling.
    pub fn name(self) -> &'static str {
        match self {
            Phased::Puzzle15 => "shu-puzzle15",
            Phased::Romberg14 => "shu-romberg14",
        }
    }

    /// Chares and work of every phase together.
    pub fn size(self) -> (u64, f64) {
        (0..self.phases())
            .map(|k| crate::tree_size(&self.phase(k)))
            .fold((0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1))
    }
}

/// One phase of a [`Phased`] workload as a tree of chares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PhaseTree {
    kind: Phased,
    phase: u32,
}

/// A chare of a phase: an identity for the hash draws and the size of what it stands for
/// (IDA*: the chares of its subtree; Romberg: the points of its piece).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PhaseNode {
    id: u64,
    size: u32,
}

/// splitmix64: the hash every draw of these trees comes from.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A uniform draw in (0, 1) from `h`.
fn unit(h: u64) -> f64 {
    ((h >> 11) as f64 + 0.5) / (1u64 << 53) as f64
}

impl TaskTree for PhaseTree {
    type Node = PhaseNode;

    fn root(&self) -> PhaseNode {
        let size = match self.kind {
            Phased::Puzzle15 => PUZZLE_CHARES[self.phase as usize],
            Phased::Romberg14 if self.phase == 0 => 2,
            Phased::Romberg14 => 1 << (self.phase - 1),
        };
        PhaseNode {
            id: mix(u64::from(self.phase) + 1),
            size,
        }
    }

    fn cost(&self, n: &PhaseNode) -> f64 {
        match self.kind {
            // Exponential grain, mean 2^phase.
            Phased::Puzzle15 => -unit(mix(n.id ^ 0xC057)).ln() * f64::from(1u32 << self.phase),
            Phased::Romberg14 if n.size > ROMBERG_PIECE => 1.0,
            Phased::Romberg14 => f64::from(n.size),
        }
    }

    fn children(&self, n: &PhaseNode, out: &mut Vec<PhaseNode>) {
        match self.kind {
            Phased::Puzzle15 => {
                // The size - 1 chares below share 3 move slots by 2 uniform cuts; an empty slot
                // is a pruned move.
                let below = n.size - 1;
                if below == 0 {
                    return;
                }
                let c1 = (unit(mix(n.id ^ 1)) * f64::from(below + 1)) as u32;
                let c2 = (unit(mix(n.id ^ 2)) * f64::from(below + 1)) as u32;
                let (a, b) = (c1.min(c2), c1.max(c2));
                for (slot, size) in [a, b - a, below - b].into_iter().enumerate() {
                    if size > 0 {
                        out.push(PhaseNode {
                            id: mix(n.id.wrapping_mul(4).wrapping_add(slot as u64 + 1)),
                            size,
                        });
                    }
                }
            }
            Phased::Romberg14 => {
                if n.size > ROMBERG_PIECE {
                    let half = n.size / 2;
                    out.push(PhaseNode {
                        id: n.id,
                        size: half,
                    });
                    out.push(PhaseNode {
                        id: n.id,
                        size: n.size - half,
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree_size;

    #[test]
    fn chare_counts_are_shus() {
        assert_eq!(Phased::Puzzle15.size().0, 1172);
        // Shu: 2,026; halving rows down to 8 points gives 2,040.
        assert_eq!(Phased::Romberg14.size().0, 2040);
        // Romberg's points: 2 + 1 + 2 + ... + 4096 = 8,193, plus one unit per split.
        let (n, work) = Phased::Romberg14.size();
        let leaves = (0..14)
            .map(|k| {
                let pts = if k == 0 { 2 } else { 1u64 << (k - 1) };
                pts.div_ceil(8)
            })
            .sum::<u64>();
        assert_eq!(work, 8193.0 + (n - leaves) as f64);
    }

    #[test]
    fn ida_iterations_grow_about_fourfold() {
        let works: Vec<f64> = (0..6)
            .map(|k| tree_size(&Phased::Puzzle15.phase(k)).1)
            .collect();
        for w in works.windows(2) {
            let g = w[1] / w[0];
            assert!((2.5..8.0).contains(&g), "{works:?}");
        }
    }
}
