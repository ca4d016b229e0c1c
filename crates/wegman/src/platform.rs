//! Which backend a keyed object runs on, as a read-only label for
//! diagnostics and the benchmark.
//!
//! The label is reported by the object that did the work
//! (`Poly1305::platform`, `Poly1305Aes::platform`, `MacKey::platform`, …), so
//! it always names the backend that actually ran. Which instructions a key
//! may use is detected in [`crate::cpu`]; which leaf each family runs with
//! them is decided in one place, `crate::backend`, and each family's
//! `backend/mod.rs` builds its per-key state from that answer, once per
//! key, through the one dispatch shape every family shares
//! (`crate::backend::Dispatch`). Today Poly1305 has AVX2 and AVX-512 IFMA
//! backends (and the §4 float64 one when asked for), the 32-bit MMH
//! algorithms an AVX2 backend, MMH64 AVX2 and IFMA backends, CWC-HASH AVX2
//! and AVX-512 IFMA backends. AES for every family comes from `crate::aes`.

pub use crate::backend::Platform;

#[cfg(all(test, target_arch = "x86_64"))]
mod classes;

/// Which code each family runs for a set of [`Features`](crate::cpu::Features), as the labels the
/// benchmark prints: asked of each family's own dispatch (the functions that
/// pick the backend), not inferred, so a table of CPU classes can check it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Backends {
    /// Poly1305's polynomial (one-shot, streaming and `ExpandedKey`).
    pub poly1305: &'static str,
    /// The one-shot AES_k(n) of a key with no cached schedule.
    pub aes_pad: &'static str,
    /// The pads of a batch (`authenticate_many`), eight at a time.
    pub batch_pads: &'static str,
    /// The polynomials of eight equal-length messages in a batch.
    pub batch_lanes: &'static str,
    /// MMH32, its Toeplitz variants and NMH32.
    pub mmh32: &'static str,
    /// MMH64 and MMH64x2.
    pub mmh64: &'static str,
    /// CWC-HASH.
    pub cwc_hash: &'static str,
    /// CWC-CTR on long runs.
    pub cwc_ctr: &'static str,
}

impl Backends {
    /// What runs on this CPU ([`crate::cpu::Features::detect`]).
    pub fn detect() -> Self {
        Self::for_features(crate::cpu::Features::detect())
    }

    /// What runs with `features`.
    pub fn for_features(features: crate::cpu::Features) -> Self {
        // any r §2 allows: the label does not depend on it
        let mut r = [0u8; 16];
        r[0] = 1;
        let poly1305 = crate::backend::leaf_name::<crate::poly1305aes::backend::State>(&r, features);
        let (batch_pads, batch_lanes) = crate::poly1305aes::batch_backend_names(features);
        let (mmh32, mmh64) = crate::mmh::backend_names(features);
        let (cwc_hash, cwc_ctr) = crate::cwc::backend_names(features);
        Backends {
            poly1305,
            aes_pad: crate::aes::PadLeaf::best(features).name(),
            batch_pads,
            batch_lanes,
            mmh32,
            mmh64,
            cwc_hash,
            cwc_ctr,
        }
    }
}

/// `poly1305=avx2 aes-pad=aesni-fused …`, one `name=label` per family.
impl core::fmt::Display for Backends {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "poly1305={} aes-pad={} batch-pads={} batch-lanes={} mmh32={} mmh64={} cwc-hash={} cwc-ctr={}",
            self.poly1305,
            self.aes_pad,
            self.batch_pads,
            self.batch_lanes,
            self.mmh32,
            self.mmh64,
            self.cwc_hash,
            self.cwc_ctr
        )
    }
}
