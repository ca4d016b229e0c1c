//! The one error type of the library.

use core::fmt;

/// Everything that can go wrong in wegman. No variant carries secret bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The r half of a Poly1305 key has bits set that §2 of the paper
    /// requires to be clear. `byte` is the offset within r (0..16).
    ForbiddenRBits {
        /// Offset of the first offending byte within r.
        byte: usize,
        /// Which §2 rule that byte breaks.
        rule: RRule,
    },
    /// An input had the wrong length.
    InvalidLength {
        /// What was being read ("key", "nonce", "tag", ...).
        what: &'static str,
        /// The length required.
        expected: usize,
        /// The length given.
        got: usize,
    },
    /// A tag did not verify.
    TagMismatch,
    /// A name that is not one of the algorithms wegman implements (for
    /// example in `"mmh33".parse::<mmh::Alg>()`).
    UnknownAlgorithm,
    /// An input is longer than the algorithm allows (checked before any output).
    TooLong {
        /// Which input ("associated data", "message", ...).
        what: &'static str,
        /// The largest length allowed, in bytes.
        max: u64,
    },
    /// A range that does not lie within the message (an incremental
    /// update's `replace`).
    OutOfRange {
        /// Where the range starts.
        offset: u64,
        /// Its length.
        len: u64,
        /// The message's length.
        message_len: u64,
    },
    /// Bytes shown as the message's current bytes are not the ones an
    /// incremental state was made from ([`Incremental::replace`]): the
    /// message changed behind the state's back, or the bytes are forged.
    /// Nothing was updated.
    ///
    /// [`Incremental::replace`]: crate::poly1305aes::Incremental::replace
    NotTheMessage,
    /// A tag length the algorithm does not allow.
    InvalidTagLength {
        /// The length asked for.
        got: usize,
        /// The smallest allowed.
        min: usize,
        /// The largest allowed.
        max: usize,
    },
    /// A key length the algorithm does not support.
    UnsupportedKeyLength {
        /// What the key is for.
        what: &'static str,
        /// The length given.
        got: usize,
        /// The lengths allowed, for the message.
        allowed: &'static str,
    },
}

/// The two bit restrictions of Poly1305-AES §2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RRule {
    /// `r[3]`, `r[7]`, `r[11]`, `r[15]` must be in 0..=15 (top four bits clear).
    TopFourBitsClear,
    /// `r[4]`, `r[8]`, `r[12]` must be multiples of 4 (bottom two bits clear).
    BottomTwoBitsClear,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::ForbiddenRBits { byte, rule } => {
                let what = match rule {
                    RRule::TopFourBitsClear => "have its top four bits clear (be at most 15)",
                    RRule::BottomTwoBitsClear => "have its bottom two bits clear (be a multiple of 4)",
                };
                write!(
                    f,
                    "invalid Poly1305 key: r[{byte}] must {what} (Poly1305-AES §2); \
                     clamp r explicitly if you want the nearest valid key"
                )
            }
            Error::InvalidLength { what, expected, got } => {
                write!(f, "invalid {what} length: expected {expected} bytes, got {got}")
            }
            Error::TagMismatch => f.write_str("authenticator does not match"),
            Error::UnknownAlgorithm => f.write_str("unknown algorithm name"),
            Error::TooLong { what, max } => write!(f, "{what} too long: at most {max} bytes allowed"),
            Error::OutOfRange { offset, len, message_len } => {
                write!(f, "range of {len} bytes at offset {offset} is not within the {message_len}-byte message")
            }
            Error::NotTheMessage => f.write_str(
                "the bytes given as the message's current bytes are not the ones the incremental state was made \
                 from: refused, nothing updated",
            ),
            Error::InvalidTagLength { got, min, max } => {
                write!(f, "invalid tag length {got}: must be {min} to {max} bytes")
            }
            Error::UnsupportedKeyLength { what, got, allowed } => {
                write!(f, "invalid {what} key length {got}: must be {allowed} bytes")
            }
        }
    }
}

impl std::error::Error for Error {}
