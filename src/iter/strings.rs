//! Parallel iterators over a string's characters, bytes and pieces: [`ParallelString`].
//!
//! Every iterator here is unindexed. The text is halved at a char boundary near its middle; the
//! splitting iterators (`par_split`, `par_lines`, …) halve it at a separator near the middle
//! instead, so that no piece of the result straddles two halves. Each half is then searched with
//! std's sequential method, and the halves' results are combined in order: the items are std's,
//! in std's order.

use crate::iter::divide::{bridge_divisible, Divisible};
use crate::iter::plumbing::Consumer;
use crate::iter::ParallelIterator;

/// A pattern of the splitting and matching methods of [`ParallelString`]: something that
/// matches single characters. Implemented for `char`, `&[char]`, `[char; N]`, `&[char; N]` and
/// closures `Fn(char) -> bool + Sync + Send` (rayon accepts the same patterns).
pub trait Pattern: Sync + Send {
    /// Whether `c` is a match.
    fn is_match(&self, c: char) -> bool;
}

impl Pattern for char {
    #[inline]
    fn is_match(&self, c: char) -> bool {
        *self == c
    }
}

impl Pattern for &[char] {
    #[inline]
    fn is_match(&self, c: char) -> bool {
        self.contains(&c)
    }
}

impl<const N: usize> Pattern for [char; N] {
    #[inline]
    fn is_match(&self, c: char) -> bool {
        self.contains(&c)
    }
}

impl<const N: usize> Pattern for &[char; N] {
    #[inline]
    fn is_match(&self, c: char) -> bool {
        self.contains(&c)
    }
}

impl<F: Fn(char) -> bool + Sync + Send> Pattern for F {
    #[inline]
    fn is_match(&self, c: char) -> bool {
        self(c)
    }
}

/// Parallel methods on `str` (and, through deref, on `String`), with rayon's names.
///
/// ```
/// use hypersteal::prelude::*;
///
/// let text = "one two  three\nfour";
/// let words: Vec<&str> = text.par_split_whitespace().collect();
/// assert_eq!(words, ["one", "two", "three", "four"]);
/// let vowels = text.par_chars().filter(|c| "aeiou".contains(*c)).count();
/// assert_eq!(vowels, 7);
/// let fields: Vec<&str> = "a,b,,c".par_split(',').collect();
/// assert_eq!(fields, ["a", "b", "", "c"]);
/// ```
pub trait ParallelString {
    /// The string itself.
    fn as_parallel_string(&self) -> &str;

    /// The characters, like [`str::chars`].
    fn par_chars(&self) -> Chars<'_> {
        Chars {
            text: self.as_parallel_string(),
        }
    }

    /// The characters with their byte positions, like [`str::char_indices`].
    fn par_char_indices(&self) -> CharIndices<'_> {
        CharIndices {
            text: self.as_parallel_string(),
        }
    }

    /// The bytes, like [`str::bytes`].
    fn par_bytes(&self) -> Bytes<'_> {
        Bytes {
            text: self.as_parallel_string(),
        }
    }

    /// The text as UTF-16 code units, like [`str::encode_utf16`].
    fn par_encode_utf16(&self) -> EncodeUtf16<'_> {
        EncodeUtf16 {
            text: self.as_parallel_string(),
        }
    }

    /// The pieces between matches of `separator`, like [`str::split`].
    fn par_split<P: Pattern>(&self, separator: P) -> Split<'_, P> {
        Split {
            text: self.as_parallel_string(),
            separator,
        }
    }

    /// The pieces each ended by a match of `separator` (kept in the piece), like
    /// [`str::split_inclusive`].
    fn par_split_inclusive<P: Pattern>(&self, separator: P) -> SplitInclusive<'_, P> {
        SplitInclusive {
            text: self.as_parallel_string(),
            separator,
        }
    }

    /// The pieces between matches of `terminator`, without a trailing empty piece, like
    /// [`str::split_terminator`].
    fn par_split_terminator<P: Pattern>(&self, terminator: P) -> SplitTerminator<'_, P> {
        SplitTerminator {
            text: self.as_parallel_string(),
            terminator,
        }
    }

    /// The non-empty pieces between runs of Unicode whitespace, like
    /// [`str::split_whitespace`].
    fn par_split_whitespace(&self) -> SplitWhitespace<'_> {
        SplitWhitespace {
            text: self.as_parallel_string(),
        }
    }

    /// The non-empty pieces between runs of ASCII whitespace, like
    /// [`str::split_ascii_whitespace`].
    fn par_split_ascii_whitespace(&self) -> SplitAsciiWhitespace<'_> {
        SplitAsciiWhitespace {
            text: self.as_parallel_string(),
        }
    }

    /// The lines, without their `\n` or `\r\n` endings, like [`str::lines`].
    fn par_lines(&self) -> Lines<'_> {
        Lines {
            text: self.as_parallel_string(),
        }
    }

    /// The matches of `pattern`, like [`str::matches`].
    fn par_matches<P: Pattern>(&self, pattern: P) -> Matches<'_, P> {
        Matches {
            text: self.as_parallel_string(),
            pattern,
        }
    }

    /// The matches of `pattern` with their byte positions, like [`str::match_indices`].
    fn par_match_indices<P: Pattern>(&self, pattern: P) -> MatchIndices<'_, P> {
        MatchIndices {
            text: self.as_parallel_string(),
            pattern,
        }
    }
}

impl ParallelString for str {
    fn as_parallel_string(&self) -> &str {
        self
    }
}

/// Where a piece of text may be cut in two.
#[derive(Clone, Copy)]
enum Cut {
    /// At any char boundary.
    Anywhere,
    /// Around a separator, which neither half keeps.
    Around,
    /// Just after a separator, which the left half keeps.
    After,
}

/// What one of the iterators below does with a piece of its text.
trait Leaf<'ch>: Sync {
    type Item;
    const CUT: Cut;

    /// Whether `c` is a separator (for the cuts `Around` and `After`).
    fn separates(&self, c: char) -> bool {
        let _ = c;
        false
    }

    /// Folds the items of `piece`, which starts at byte `offset` of the text and ends it if
    /// `last`.
    fn fold<C: Consumer<Self::Item>>(
        &self,
        piece: &'ch str,
        offset: usize,
        last: bool,
        consumer: &C,
    ) -> C::Result;
}

/// A piece of the text being iterated.
struct Piece<'l, 'ch, L> {
    text: &'ch str,
    offset: usize,
    /// Whether the piece ends the text.
    last: bool,
    leaf: &'l L,
}

/// The first char boundary at or after the middle of `text`, if it is not an end.
fn middle_boundary(text: &str) -> Option<usize> {
    let mut mid = text.len() / 2;
    while !text.is_char_boundary(mid) {
        mid += 1;
    }
    (mid > 0 && mid < text.len()).then_some(mid)
}

/// The byte range of a separator near the middle of `text`: the first one from the middle on,
/// else the last one before it.
fn separator_near_middle(text: &str, separates: impl Fn(char) -> bool) -> Option<(usize, usize)> {
    let mut mid = text.len() / 2;
    while !text.is_char_boundary(mid) {
        mid += 1;
    }
    let span = |(i, c): (usize, char)| (i, i + c.len_utf8());
    text[mid..]
        .char_indices()
        .find(|&(_, c)| separates(c))
        .map(|(i, c)| span((mid + i, c)))
        .or_else(|| {
            text[..mid]
                .char_indices()
                .rfind(|&(_, c)| separates(c))
                .map(span)
        })
}

impl<'ch, L: Leaf<'ch>> Divisible for Piece<'_, 'ch, L> {
    type Item = L::Item;

    fn divide(self) -> (Self, Option<Self>) {
        let leaf = self.leaf;
        let cut = match L::CUT {
            Cut::Anywhere => middle_boundary(self.text).map(|m| (m, m)),
            Cut::Around => separator_near_middle(self.text, |c| leaf.separates(c)),
            Cut::After => {
                separator_near_middle(self.text, |c| leaf.separates(c)).map(|(_, e)| (e, e))
            }
        };
        let Some((left_end, right_start)) = cut else {
            return (self, None);
        };
        let left = Piece {
            text: &self.text[..left_end],
            offset: self.offset,
            last: false,
            leaf,
        };
        let right = Piece {
            text: &self.text[right_start..],
            offset: self.offset + right_start,
            last: self.last,
            leaf,
        };
        (left, Some(right))
    }

    fn fold_with<C: Consumer<L::Item>>(self, consumer: &C) -> C::Result {
        self.leaf.fold(self.text, self.offset, self.last, consumer)
    }
}

/// Drives every item of `text` through `consumer`.
fn drive_text<'ch, L, C>(text: &'ch str, leaf: &L, consumer: C) -> C::Result
where
    L: Leaf<'ch>,
    C: Consumer<L::Item>,
{
    let piece = Piece {
        text,
        offset: 0,
        last: true,
        leaf,
    };
    bridge_divisible(piece, &consumer)
}

macro_rules! string_iterators {
    ($(
        $(#[$doc:meta])*
        $name:ident [$($p:ident)?] { $($field:ident : $fty:ty),* }
        item $item:ty, cut $cut:ident,
        separates($sself:ident, $c:ident) $sep:block
        fold($fself:ident, $piece:ident, $offset:ident, $last:ident) $fold:expr;
    )*) => {$(
        $(#[$doc])*
        #[derive(Clone, Debug)]
        #[must_use = "parallel iterators do nothing until consumed"]
        pub struct $name<'ch $(, $p)?> {
            text: &'ch str,
            $($field: $fty),*
        }

        impl<'ch $(, $p: Pattern)?> Leaf<'ch> for $name<'ch $(, $p)?> {
            type Item = $item;
            const CUT: Cut = Cut::$cut;

            #[allow(unused_variables)]
            fn separates(&$sself, $c: char) -> bool $sep

            #[allow(unused_variables)]
            fn fold<C: Consumer<$item>>(
                &$fself,
                $piece: &'ch str,
                $offset: usize,
                $last: bool,
                consumer: &C,
            ) -> C::Result {
                consumer.consume($fold)
            }
        }

        impl<'ch $(, $p: Pattern)?> ParallelIterator for $name<'ch $(, $p)?> {
            type Item = $item;

            fn drive<C: Consumer<$item>>(self, consumer: C) -> C::Result {
                drive_text(self.text, &self, consumer)
            }
        }
    )*};
}

string_iterators! {
    /// The iterator of [`ParallelString::par_chars`].
    Chars [] {}
    item char, cut Anywhere,
    separates(self, c) { false }
    fold(self, piece, offset, last) piece.chars();

    /// The iterator of [`ParallelString::par_char_indices`].
    CharIndices [] {}
    item (usize, char), cut Anywhere,
    separates(self, c) { false }
    fold(self, piece, offset, last) piece.char_indices().map(move |(i, c)| (offset + i, c));

    /// The iterator of [`ParallelString::par_bytes`].
    Bytes [] {}
    item u8, cut Anywhere,
    separates(self, c) { false }
    fold(self, piece, offset, last) piece.bytes();

    /// The iterator of [`ParallelString::par_encode_utf16`].
    EncodeUtf16 [] {}
    item u16, cut Anywhere,
    separates(self, c) { false }
    fold(self, piece, offset, last) piece.encode_utf16();

    /// The iterator of [`ParallelString::par_split`].
    Split [P] { separator: P }
    item &'ch str, cut Around,
    separates(self, c) { self.separator.is_match(c) }
    fold(self, piece, offset, last) piece.split(|c| self.separator.is_match(c));

    /// The iterator of [`ParallelString::par_split_inclusive`].
    SplitInclusive [P] { separator: P }
    item &'ch str, cut After,
    separates(self, c) { self.separator.is_match(c) }
    fold(self, piece, offset, last) piece.split_inclusive(|c| self.separator.is_match(c));

    /// The iterator of [`ParallelString::par_split_terminator`].
    SplitTerminator [P] { terminator: P }
    item &'ch str, cut Around,
    separates(self, c) { self.terminator.is_match(c) }
    fold(self, piece, offset, last) {
        // Only the piece that ends the text may drop a trailing empty piece.
        let mut pieces = piece.split(|c| self.terminator.is_match(c)).peekable();
        std::iter::from_fn(move || {
            let next = pieces.next()?;
            (!(last && next.is_empty() && pieces.peek().is_none())).then_some(next)
        })
    };

    /// The iterator of [`ParallelString::par_split_whitespace`].
    SplitWhitespace [] {}
    item &'ch str, cut Around,
    separates(self, c) { c.is_whitespace() }
    fold(self, piece, offset, last) piece.split_whitespace();

    /// The iterator of [`ParallelString::par_split_ascii_whitespace`].
    SplitAsciiWhitespace [] {}
    item &'ch str, cut Around,
    separates(self, c) { c.is_ascii_whitespace() }
    fold(self, piece, offset, last) piece.split_ascii_whitespace();

    /// The iterator of [`ParallelString::par_lines`].
    Lines [] {}
    item &'ch str, cut After,
    separates(self, c) { c == '\n' }
    fold(self, piece, offset, last) piece.lines();

    /// The iterator of [`ParallelString::par_matches`].
    Matches [P] { pattern: P }
    item &'ch str, cut Anywhere,
    separates(self, c) { false }
    fold(self, piece, offset, last) piece.matches(|c| self.pattern.is_match(c));

    /// The iterator of [`ParallelString::par_match_indices`].
    MatchIndices [P] { pattern: P }
    item (usize, &'ch str), cut Anywhere,
    separates(self, c) { false }
    fold(self, piece, offset, last) piece
        .match_indices(|c| self.pattern.is_match(c))
        .map(move |(i, m)| (offset + i, m));
}
