//! Loop schedules: how a parallel loop's iterations are cut into chunks.
//!
//! [`Schedule::Adaptive`] (the default) halves the range recursively through [`crate::join`] and
//! keeps splitting pieces that were stolen. Every other schedule is *counter based*, after the
//! self-scheduling schemes of Xu and Chronopoulos (seed 003) and Kazouris (seed 004): one
//! participant per worker repeatedly takes the next chunk from a shared counter, and the chunk
//! sizes follow those papers' formulas (each [`Schedule`] variant states its own).
//! [`Schedule::plan`] lists the sizes a schedule hands out; the sizes always sum to the number of
//! iterations, the last chunk being cut short where a formula would overshoot.

use std::fmt;
use std::str::FromStr;

/// How a parallel loop cuts its iterations into chunks. Parse one from its name:
///
/// ```
/// use hypersteal::iter::Schedule;
/// let s: Schedule = "chunk:64".parse().unwrap();
/// assert_eq!(s, Schedule::Chunk(64));
/// assert_eq!(s.to_string(), "chunk:64");
/// assert_eq!(Schedule::Guided.plan(10, 2), vec![5, 3, 1, 1]);
/// assert!("fastest".parse::<Schedule>().unwrap_err().to_string().contains("trapezoid"));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Schedule {
    /// `adaptive`: recursive halving with `join`; a stolen piece splits further (the default).
    #[default]
    Adaptive,
    /// `static`: `P` contiguous blocks of `ceil(I/P)`, one per participant.
    Static,
    /// `self`: pure self-scheduling, one iteration at a time.
    SelfScheduling,
    /// `chunk:K`: chunk self-scheduling, `K` iterations at a time (`K >= 1`).
    Chunk(usize),
    /// `guided`: guided self-scheduling (GSS), `ceil(R/P)` of the `R` iterations left.
    Guided,
    /// `trapezoid`: trapezoid self-scheduling (TSS), chunks decreasing linearly from
    /// `ceil(I/2P)` to 1.
    Trapezoid,
    /// `factoring`: batches of `P` equal chunks of `ceil(R/2P)`, `R` taken at the batch start.
    Factoring,
    /// `weighted`: distributed trapezoid self-scheduling (DTSS): trapezoid over virtual
    /// processors, each worker served in proportion to its speed (from
    /// [`crate::ThreadPoolBuilder::worker_speeds`]) or, without speeds, to its throughput
    /// measured during the loop.
    Weighted,
}

impl Schedule {
    /// Every schedule name (`chunk` takes `:K`).
    pub const NAMES: [&'static str; 8] = [
        "adaptive",
        "static",
        "self",
        "chunk:K",
        "guided",
        "trapezoid",
        "factoring",
        "weighted",
    ];

    /// Whether the schedule hands chunks out from a shared counter (all but `adaptive`).
    pub fn is_counter_based(&self) -> bool {
        !matches!(self, Schedule::Adaptive)
    }

    /// The chunk sizes this schedule hands out for `iterations` iterations on `workers` workers,
    /// in order; they sum to `iterations`.
    ///
    /// For `weighted` this is the plan with all workers equally fast (the trapezoid); at run time
    /// its chunks follow the workers' speeds. For `adaptive` it is the pieces of recursive halving
    /// when nothing is stolen; at run time stolen pieces split further.
    ///
    /// ```
    /// use hypersteal::iter::Schedule;
    /// let plan = Schedule::Trapezoid.plan(1000, 4);
    /// assert_eq!(plan[0], 125);
    /// assert_eq!(plan.iter().sum::<usize>(), 1000);
    /// ```
    pub fn plan(&self, iterations: usize, workers: usize) -> Vec<usize> {
        let workers = workers.max(1);
        if let Schedule::Adaptive = self {
            let mut pieces = Vec::new();
            halving_plan(iterations, initial_splits(workers), &mut pieces);
            return pieces;
        }
        let mut chunker = Chunker::new(*self, iterations, workers, 1, workers as f64);
        let mut plan = Vec::new();
        let mut remaining = iterations;
        while remaining > 0 {
            let chunk = chunker.next(remaining, 1.0);
            plan.push(chunk);
            remaining -= chunk;
        }
        plan
    }
}

/// The halving depth a fresh (or freshly stolen) adaptive piece may still split: about eight
/// pieces per worker when nothing is stolen.
pub(crate) fn initial_splits(workers: usize) -> u32 {
    workers.next_power_of_two().trailing_zeros() + 3
}

fn halving_plan(len: usize, splits: u32, out: &mut Vec<usize>) {
    if len == 0 {
        return;
    }
    if splits > 0 && len >= 2 {
        halving_plan(len / 2, splits - 1, out);
        halving_plan(len - len / 2, splits - 1, out);
    } else {
        out.push(len);
    }
}

impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Schedule::Adaptive => f.write_str("adaptive"),
            Schedule::Static => f.write_str("static"),
            Schedule::SelfScheduling => f.write_str("self"),
            Schedule::Chunk(k) => write!(f, "chunk:{k}"),
            Schedule::Guided => f.write_str("guided"),
            Schedule::Trapezoid => f.write_str("trapezoid"),
            Schedule::Factoring => f.write_str("factoring"),
            Schedule::Weighted => f.write_str("weighted"),
        }
    }
}

/// A schedule name that does not parse; says what is allowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseScheduleError {
    input: String,
    reason: String,
}

impl fmt::Display for ParseScheduleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid schedule {:?}: {}; valid schedules: {}",
            self.input,
            self.reason,
            Schedule::NAMES.join(", ")
        )
    }
}

impl std::error::Error for ParseScheduleError {}

impl FromStr for Schedule {
    type Err = ParseScheduleError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = |reason: &str| ParseScheduleError {
            input: s.to_string(),
            reason: reason.to_string(),
        };
        let name = s.trim().to_ascii_lowercase();
        Ok(match name.as_str() {
            "adaptive" => Schedule::Adaptive,
            "static" => Schedule::Static,
            "self" => Schedule::SelfScheduling,
            "guided" => Schedule::Guided,
            "trapezoid" => Schedule::Trapezoid,
            "factoring" => Schedule::Factoring,
            "weighted" => Schedule::Weighted,
            "chunk" => return Err(err("chunk needs a size, as in chunk:64")),
            _ => match name.strip_prefix("chunk:") {
                Some(k) => match k.trim().parse::<usize>() {
                    Ok(k) if k > 0 => Schedule::Chunk(k),
                    _ => return Err(err("the chunk size must be a whole number of at least 1")),
                },
                None => return Err(err("unknown name")),
            },
        })
    }
}

/// Hands out the chunk sizes of a counter-based schedule, one call per chunk.
pub(crate) struct Chunker {
    kind: Kind,
    min_len: usize,
    /// No chunk above this (`with_max_len`), unless `min_len` asks for more.
    max_len: usize,
}

enum Kind {
    /// Every chunk the same size (`static`, `self`, `chunk:K`).
    Fixed(usize),
    Guided {
        workers: usize,
    },
    /// TSS, and DTSS over virtual processors: the next virtual processor's share is
    /// `first - step * served`.
    Trapezoid {
        first: f64,
        step: f64,
        served: f64,
    },
    Factoring {
        workers: usize,
        size: usize,
        left_in_batch: usize,
    },
}

impl Chunker {
    /// `total_power` is the sum of the participants' powers (`workers` when all are equal);
    /// only `weighted` uses it.
    pub(crate) fn new(
        schedule: Schedule,
        iterations: usize,
        workers: usize,
        min_len: usize,
        total_power: f64,
    ) -> Self {
        let kind = match schedule {
            Schedule::Static => Kind::Fixed(iterations.div_ceil(workers).max(1)),
            Schedule::SelfScheduling => Kind::Fixed(1),
            Schedule::Chunk(k) => Kind::Fixed(k.max(1)),
            Schedule::Guided => Kind::Guided { workers },
            Schedule::Trapezoid => trapezoid(iterations, workers as f64),
            Schedule::Weighted => trapezoid(iterations, total_power),
            Schedule::Factoring => Kind::Factoring {
                workers,
                size: 0,
                left_in_batch: 0,
            },
            // Adaptive never runs through a counter; treat it as one block per worker.
            Schedule::Adaptive => Kind::Fixed(iterations.div_ceil(workers).max(1)),
        };
        Chunker {
            kind,
            min_len: min_len.max(1),
            max_len: usize::MAX,
        }
    }

    /// Caps every chunk at `max_len` items (the minimum length still wins).
    pub(crate) fn with_max_len(mut self, max_len: usize) -> Self {
        self.max_len = max_len;
        self
    }

    /// The next chunk for a participant of relative power `power` (1.0 unless `weighted`),
    /// with `remaining > 0` iterations not yet handed out. Never 0, never above `remaining`.
    pub(crate) fn next(&mut self, remaining: usize, power: f64) -> usize {
        let chunk = match &mut self.kind {
            Kind::Fixed(k) => *k,
            Kind::Guided { workers } => remaining.div_ceil(*workers),
            Kind::Trapezoid {
                first,
                step,
                served,
            } => {
                // C_i = A_i * (F - D * (S_{i-1} + (A_i - 1) / 2)), each virtual PE at least L = 1.
                let per_pe = (*first - *step * (*served + (power - 1.0) / 2.0)).max(1.0);
                *served += power;
                (power * per_pe).round() as usize
            }
            Kind::Factoring {
                workers,
                size,
                left_in_batch,
            } => {
                if *left_in_batch == 0 {
                    *size = remaining.div_ceil(2 * *workers);
                    *left_in_batch = *workers;
                }
                *left_in_batch -= 1;
                *size
            }
        };
        chunk
            .min(self.max_len)
            .max(self.min_len)
            .clamp(1, remaining)
    }
}

/// TSS over `power` (virtual) processors: `F = ceil(I/2P)`, `L = 1`, `N = ceil(2I/(F+L))`,
/// `D = (F-L)/(N-1)`.
fn trapezoid(iterations: usize, power: f64) -> Kind {
    let power = power.max(1.0);
    let first = (iterations as f64 / (2.0 * power)).ceil().max(1.0);
    let last = 1.0;
    let steps = (2.0 * iterations as f64 / (first + last)).ceil();
    let step = if steps > 1.0 {
        (first - last) / (steps - 1.0)
    } else {
        0.0
    };
    Kind::Trapezoid {
        first,
        step,
        served: 0.0,
    }
}
