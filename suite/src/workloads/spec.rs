//! Parsing of the size part of a workload spelling (`name:SIZE`), and the
//! error types shared by every workload.

use std::fmt;

/// A workload spelling that could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    message: String,
}

impl ParseError {
    /// An error with the given message.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ParseError {}

/// A result that does not match the known answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckError {
    /// The workload and size that was checked (`fib:32`).
    pub workload: String,
    /// What the answer should have been, and where that figure comes from.
    pub expected: String,
    /// What the run produced.
    pub got: String,
}

impl CheckError {
    /// A mismatch for `workload`: `expected` versus `got`.
    pub fn new(
        workload: impl fmt::Display,
        expected: impl fmt::Display,
        got: impl fmt::Display,
    ) -> Self {
        Self {
            workload: workload.to_string(),
            expected: expected.to_string(),
            got: got.to_string(),
        }
    }
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: wrong answer: expected {}, got {}",
            self.workload, self.expected, self.got
        )
    }
}

impl std::error::Error for CheckError {}

/// The size part of a spelling, split into an optional leading positional
/// value and `key=value` pairs, all separated by commas: `32`,
/// `32,cutoff=10`, `vars=40,seed=3`.
#[derive(Debug)]
pub(crate) struct Spec<'a> {
    workload: &'static str,
    positional: Option<&'a str>,
    pairs: Vec<(&'a str, &'a str)>,
}

impl<'a> Spec<'a> {
    /// Splits `s`; `keys` are the keys `workload` accepts.
    pub(crate) fn parse(
        workload: &'static str,
        s: &'a str,
        keys: &[&str],
    ) -> Result<Self, ParseError> {
        let mut positional = None;
        let mut pairs: Vec<(&str, &str)> = Vec::new();
        let s = s.trim();
        if s.is_empty() {
            return Ok(Self {
                workload,
                positional,
                pairs,
            });
        }
        for (index, token) in s.split(',').map(str::trim).enumerate() {
            match token.split_once('=') {
                None if index == 0 && !token.is_empty() => positional = Some(token),
                None => {
                    return Err(ParseError::new(format!(
                        "{workload}: `{token}` in `{s}` is not KEY=VALUE (valid keys: {})",
                        keys.join(", ")
                    )))
                }
                Some((key, value)) => {
                    let key = key.trim();
                    if !keys.contains(&key) {
                        return Err(ParseError::new(format!(
                            "{workload}: unknown key `{key}` in `{s}` (valid keys: {})",
                            keys.join(", ")
                        )));
                    }
                    if pairs.iter().any(|(k, _)| *k == key) {
                        return Err(ParseError::new(format!(
                            "{workload}: key `{key}` given twice in `{s}`"
                        )));
                    }
                    pairs.push((key, value.trim()));
                }
            }
        }
        Ok(Self {
            workload,
            positional,
            pairs,
        })
    }

    /// The leading value without a key, if any.
    pub(crate) fn positional(&self) -> Option<&'a str> {
        self.positional
    }

    /// The raw value of `key`, if given.
    pub(crate) fn raw(&self, key: &str) -> Option<&'a str> {
        self.pairs.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
    }

    /// The value of `key` parsed as `T`, if given.
    pub(crate) fn get<T: std::str::FromStr>(&self, key: &str) -> Result<Option<T>, ParseError> {
        match self.raw(key) {
            None => Ok(None),
            Some(v) => parse_value(self.workload, key, v).map(Some),
        }
    }

    /// The size: the positional value or the value of `key`, parsed as `T`.
    /// Giving both is an error; giving neither yields `None`.
    pub(crate) fn size<T: std::str::FromStr>(&self, key: &str) -> Result<Option<T>, ParseError> {
        match (self.positional, self.raw(key)) {
            (Some(_), Some(_)) => Err(ParseError::new(format!(
                "{}: `{key}` given both as the leading value and as {key}=...",
                self.workload
            ))),
            (Some(v), None) | (None, Some(v)) => parse_value(self.workload, key, v).map(Some),
            (None, None) => Ok(None),
        }
    }
}

/// Parses `value` of `key` for `workload`, with a message that names all three.
pub(crate) fn parse_value<T: std::str::FromStr>(
    workload: &str,
    key: &str,
    value: &str,
) -> Result<T, ParseError> {
    value.parse().map_err(|_| {
        ParseError::new(format!(
            "{workload}: bad {key} `{value}` (expected a {})",
            short_type_name::<T>()
        ))
    })
}

fn short_type_name<T>() -> &'static str {
    let full = std::any::type_name::<T>();
    match full {
        "u8" | "u16" | "u32" | "u64" | "usize" => "non-negative integer",
        "f64" | "f32" => "number",
        _ => full.rsplit("::").next().unwrap_or(full),
    }
}

/// Fails unless `lo <= value <= hi`.
pub(crate) fn in_range<T: PartialOrd + fmt::Display>(
    workload: &str,
    key: &str,
    value: T,
    lo: T,
    hi: T,
) -> Result<T, ParseError> {
    if value < lo || value > hi {
        Err(ParseError::new(format!(
            "{workload}: {key} {value} out of range {lo}..={hi}"
        )))
    } else {
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_positional_and_pairs() {
        let s = Spec::parse("fib", "32, cutoff=10", &["n", "cutoff"]).unwrap();
        assert_eq!(s.size::<u32>("n").unwrap(), Some(32));
        assert_eq!(s.get::<u32>("cutoff").unwrap(), Some(10));
        let s = Spec::parse("fib", "n=30", &["n", "cutoff"]).unwrap();
        assert_eq!(s.size::<u32>("n").unwrap(), Some(30));
        assert_eq!(s.get::<u32>("cutoff").unwrap(), None);
    }

    #[test]
    fn rejects_bad_input() {
        assert!(Spec::parse("fib", "32,bogus=1", &["n", "cutoff"]).is_err());
        assert!(Spec::parse("fib", "32,7", &["n", "cutoff"]).is_err());
        assert!(Spec::parse("fib", "cutoff=1,cutoff=2", &["n", "cutoff"]).is_err());
        let s = Spec::parse("fib", "x", &["n"]).unwrap();
        assert!(s.size::<u32>("n").is_err());
        let s = Spec::parse("fib", "3,n=4", &["n"]).unwrap();
        assert!(s.size::<u32>("n").is_err());
    }
}
