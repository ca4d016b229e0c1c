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
}

/// The two bit restrictions of Poly1305-AES §2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RRule {
    /// r[3], r[7], r[11], r[15] must be in 0..=15 (top four bits clear).
    TopFourBitsClear,
    /// r[4], r[8], r[12] must be multiples of 4 (bottom two bits clear).
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
        }
    }
}

impl std::error::Error for Error {}
