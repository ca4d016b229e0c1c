//! The `ALG` argument: the store's [`MacAlg`] as clap parses it and lists
//! it in `--help` (a newtype, since neither clap's trait nor the type is
//! this crate's).

use std::sync::LazyLock;

use clap::ValueEnum;
use clap::builder::PossibleValue;
use wegman_store::algs::MacAlg;

/// A MAC algorithm named on the command line.
#[derive(Clone, Copy)]
pub struct AlgArg(pub MacAlg);

/// Every algorithm, in [`MacAlg::ALL`]'s order.
static ALL: LazyLock<[AlgArg; MacAlg::ALL.len()]> = LazyLock::new(|| MacAlg::ALL.map(AlgArg));

impl AlgArg {
    /// One line for `--help`.
    fn help(self) -> &'static str {
        match (self.0, self.0.tag_bytes()) {
            (MacAlg::Poly1305aes, _) => "Poly1305-AES (Bernstein 2005): key = k || r; 16-byte tag",
            (_, 4) => "MMH family: key = kp || ks; 4-byte tag (short-lived links only)",
            (_, 8) => "MMH family: key = kp || ks; 8-byte tag",
            (_, 12) => "MMH family: key = kp || ks; 12-byte tag",
            _ => "MMH family: key = kp || ks; 16-byte tag",
        }
    }
}

impl ValueEnum for AlgArg {
    fn value_variants<'a>() -> &'a [Self] {
        &*ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.0.name()).help(self.help()))
    }
}
