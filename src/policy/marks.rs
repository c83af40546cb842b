//! The water marks `acwn` and `gradient` share: `low` and `high` bound a worker's or a
//! neighbourhood's load, and `interval` counts heartbeats between two standing-phase steps.
//! Each policy gives its own defaults (`super::acwn::SPEC`, `super::gradient::SPEC`).

use super::spec::{Param, Values};
use super::{ParsePolicyError, Policy, MAX_PARAM};

/// The parameters `low`, `high` and `interval`, in the order `Display` writes them.
pub(super) const MARKS: &[Param] = &[
    Param {
        key: "low",
        values: Values::Int {
            lo: 0,
            hi: MAX_PARAM,
        },
        allowed: "an integer 0 to 1000000",
        get: |p| marks(p).0,
        set: |p, v| *marks_mut(p).0 = v,
    },
    Param {
        key: "high",
        values: Values::Int {
            lo: 1,
            hi: MAX_PARAM,
        },
        allowed: "an integer 1 to 1000000",
        get: |p| marks(p).1,
        set: |p, v| *marks_mut(p).1 = v,
    },
    Param {
        key: "interval",
        values: Values::Int {
            lo: 1,
            hi: MAX_PARAM,
        },
        allowed: "an integer 1 to 1000000 (tasks)",
        get: |p| marks(p).2 as usize,
        set: |p, v| *marks_mut(p).2 = v as u32,
    },
];

/// `(low, high, interval)` of an `acwn` or `gradient` policy.
pub(super) fn marks(policy: &Policy) -> (usize, usize, u32) {
    match *policy {
        Policy::Acwn {
            low,
            high,
            interval,
        }
        | Policy::Gradient {
            low,
            high,
            interval,
        } => (low, high, interval),
        _ => unreachable!("only acwn's and gradient's specs have marks"),
    }
}

fn marks_mut(policy: &mut Policy) -> (&mut usize, &mut usize, &mut u32) {
    match policy {
        Policy::Acwn {
            low,
            high,
            interval,
        }
        | Policy::Gradient {
            low,
            high,
            interval,
        } => (low, high, interval),
        _ => unreachable!("only acwn's and gradient's specs have marks"),
    }
}

/// The check across the marks: `low` may not exceed `high`.
pub(super) fn low_within_high(policy: &Policy) -> Result<(), ParsePolicyError> {
    let (low, high, _) = marks(policy);
    if low > high {
        return Err(ParsePolicyError::new(format!(
            "policy `{}`: low={low} is above high={high}; `low` must not exceed `high`",
            policy.name()
        )));
    }
    Ok(())
}
