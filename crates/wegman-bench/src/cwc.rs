//! CWC-AES-128 against the AEADs people use instead: AES-128-GCM (OpenSSL,
//! RustCrypto `aes-gcm`, aws-lc-rs, ring) and ChaCha20-Poly1305 (OpenSSL,
//! aws-lc-rs, ring).
//!
//! All encrypt with a 16-byte tag and **no associated data**; nonces are 11
//! bytes for CWC (its only size) and 12 for GCM and ChaCha20-Poly1305.
//! AES keys are 128-bit; ChaCha20 only has 256-bit keys.
//!
//! Tables (`encrypt.rs` and `decrypt.rs` hold their contenders, but for
//! aws-lc-rs and ring, whose shared API `ring_api.rs` serves for both):
//!
//! * `encrypt`, `encrypt-precomputed` — encryption of the message;
//! * `decrypt`, `decrypt-precomputed` — decryption of the message as a
//!   ciphertext, given its right tag (made before timing, `sealed.rs`);
//!   every call must accept, and is counted to have;
//! * `decrypt-forged`, `decrypt-forged-precomputed` — the same calls given
//!   that tag with one bit flipped: every call must return an error (counted
//!   while timing). wegman must also release nothing (checked before
//!   timing): no plaintext returned, and the in-place buffer zeroed.
//!   The peers are only held to the error: OpenSSL's EVP has decrypted into
//!   the caller's buffer before its tag check fails (its API's contract is
//!   that the caller discards it); aws-lc-rs and ring leave their in-place
//!   buffer overwritten (with zeros, in the versions locked here).
//!
//! The calls:
//!
//! * one-shot — the key set-up is inside the call: `CwcKey::new(k)` +
//!   `encrypt` / `decrypt` (return a fresh `Vec`; `decrypt` takes
//!   `ciphertext || tag` as one slice, copied into place before timing),
//!   `Aes128Gcm::new(k).encrypt(..)` / `decrypt(..)` likewise, OpenSSL
//!   `EncryptInit_ex2(key, nonce)` + Update + Final + GET_TAG, or
//!   `DecryptInit_ex2(key, nonce)` + Update + SET_TAG + Final, into a reused
//!   output buffer (OpenSSL's API writes to the caller's buffer);
//! * precomputed — the key made once: `CwcKey` and `encrypt_into` /
//!   `decrypt_into` from the message to a reused buffer (out of place, as
//!   OpenSSL's calls write theirs), `Aes128Gcm` and `encrypt_inout_detached`
//!   / `decrypt_inout_detached` (in place, so the call first copies the
//!   plaintext or ciphertext into a reused buffer), and an OpenSSL context
//!   keyed once per key, given only the nonce per call;
//! * aws-lc-rs and ring: `LessSafeKey::new(UnboundKey::new(..))` inside the
//!   call (one-shot) or once per key, then `seal_in_place_separate_tag` /
//!   `open_in_place` on a reused buffer the call first fills.
//!
//! The ratio printed beside each row and in the summary is wegman's median
//! over the fastest peer's (`report.rs`, the same rule for every family):
//! every peer counts, GCM and ChaCha20-Poly1305 alike.

mod checks;
mod decrypt;
mod encrypt;
mod ring_api;
mod sealed;

use self::ring_api::{AwsLc, Ring};
use self::sealed::{Alg, Given, Tags};
use crate::contender::{Check, Contender, Expect, Family, Table};
use crate::peers::openssl::{AeadAlg, Libcrypto};
use crate::peers::sodium::Sodium;
use crate::workload::{ALIGN, Rng, SLOTS};

const NAME: &str = "cwc";
const TAG: usize = 16;

/// Secrets and nonces, slot by slot: AES uses the first 16 key bytes,
/// ChaCha20 all 32; CWC the first 11 nonce bytes, the others all 12.
#[derive(Clone)]
pub struct Keys {
    key: Vec<[u8; 32]>,
    nonce: Vec<[u8; 12]>,
}

impl Keys {
    fn random(n: usize, seed: u64) -> Keys {
        let mut rng = Rng::new(seed);
        Keys { key: (0..n).map(|_| rng.bytes()).collect(), nonce: (0..n).map(|_| rng.bytes()).collect() }
    }

    fn aes(&self) -> Vec<[u8; 16]> {
        self.key.iter().map(|k| k[..16].try_into().expect("16 bytes")).collect()
    }

    fn cwc_nonce(&self) -> Vec<[u8; 11]> {
        self.nonce.iter().map(|n| n[..11].try_into().expect("11 bytes")).collect()
    }
}

/// A reused output or in-place buffer whose window starts at the same
/// address modulo 64 as the message it was last placed for, so the
/// misaligned regimes misalign it too. Grown once, then reused.
#[derive(Default)]
struct Window {
    buf: Vec<u8>,
    at: usize,
    len: usize,
}

impl Window {
    /// A `like.len()`-byte window aligned like `like` (not filled).
    #[inline]
    fn place(&mut self, like: &[u8]) -> &mut [u8] {
        self.place_len(like, like.len())
    }

    /// A `len`-byte window aligned like `like` (not filled).
    #[inline]
    fn place_len(&mut self, like: &[u8], len: usize) -> &mut [u8] {
        if self.buf.len() < len + ALIGN {
            self.buf.resize(len + ALIGN, 0);
        }
        self.at = (like.as_ptr() as usize + ALIGN - self.buf.as_ptr() as usize % ALIGN) % ALIGN;
        self.len = len;
        &mut self.buf[self.at..self.at + len]
    }

    /// The window last placed.
    fn bytes(&self) -> &[u8] {
        &self.buf[self.at..self.at + self.len]
    }
}

/// The table name of an OpenSSL AEAD.
fn ossl_name(alg: AeadAlg) -> &'static str {
    match alg {
        AeadAlg::Aes128Gcm => "OpenSSL GCM",
        AeadAlg::ChaCha20Poly1305 => "OpenSSL ChaCha",
    }
}

fn build_tables(keys: &Keys, lib: Libcrypto) -> Vec<Table> {
    let encrypt = |precomputed| -> Vec<Box<dyn Contender>> {
        vec![
            encrypt::wegman(keys, precomputed),
            encrypt::openssl(AeadAlg::Aes128Gcm, keys, lib, precomputed),
            encrypt::rustcrypto(keys, precomputed),
            ring_api::seal::<AwsLc>(AeadAlg::Aes128Gcm, keys, precomputed),
            ring_api::seal::<Ring>(AeadAlg::Aes128Gcm, keys, precomputed),
            encrypt::openssl(AeadAlg::ChaCha20Poly1305, keys, lib, precomputed),
            ring_api::seal::<AwsLc>(AeadAlg::ChaCha20Poly1305, keys, precomputed),
            ring_api::seal::<Ring>(AeadAlg::ChaCha20Poly1305, keys, precomputed),
        ]
    };
    // One set of tags per AEAD, shared by all its decrypt contenders.
    let (cwc, gcm, chacha) =
        (Tags::new(Alg::Cwc, keys, lib), Tags::new(Alg::Gcm, keys, lib), Tags::new(Alg::ChaCha, keys, lib));
    let decrypt = |forged, precomputed| -> Vec<Box<dyn Contender>> {
        vec![
            decrypt::wegman(keys, Given::new(&cwc, forged), precomputed),
            decrypt::openssl(AeadAlg::Aes128Gcm, keys, lib, Given::new(&gcm, forged), precomputed),
            decrypt::rustcrypto(keys, Given::new(&gcm, forged), precomputed),
            ring_api::open::<AwsLc>(AeadAlg::Aes128Gcm, keys, Given::new(&gcm, forged), precomputed),
            ring_api::open::<Ring>(AeadAlg::Aes128Gcm, keys, Given::new(&gcm, forged), precomputed),
            decrypt::openssl(AeadAlg::ChaCha20Poly1305, keys, lib, Given::new(&chacha, forged), precomputed),
            ring_api::open::<AwsLc>(AeadAlg::ChaCha20Poly1305, keys, Given::new(&chacha, forged), precomputed),
            ring_api::open::<Ring>(AeadAlg::ChaCha20Poly1305, keys, Given::new(&chacha, forged), precomputed),
        ]
    };
    vec![
        Table {
            family: NAME,
            id: "encrypt",
            title: "AEAD encryption, one-shot: key set-up inside every call; 16-byte tag, no associated data",
            expect: Expect::Any,
            contenders: encrypt(false),
        },
        Table {
            family: NAME,
            id: "encrypt-precomputed",
            title: "AEAD encryption with the key set up once per key; 16-byte tag, no associated data",
            expect: Expect::Any,
            contenders: encrypt(true),
        },
        Table {
            family: NAME,
            id: "decrypt",
            title: "AEAD decryption with the right tag, one-shot: key set-up inside every call; 16-byte tag, no \
                    associated data; every call must accept",
            expect: Expect::Accept,
            contenders: decrypt(false, false),
        },
        Table {
            family: NAME,
            id: "decrypt-precomputed",
            title: "AEAD decryption with the right tag, the key set up once per key; 16-byte tag, no associated \
                    data; every call must accept",
            expect: Expect::Accept,
            contenders: decrypt(false, true),
        },
        Table {
            family: NAME,
            id: "decrypt-forged",
            title: "AEAD decryption with a forged tag (the right one with one bit flipped), one-shot: key set-up \
                    inside every call; every call must return an error",
            expect: Expect::Reject,
            contenders: decrypt(true, false),
        },
        Table {
            family: NAME,
            id: "decrypt-forged-precomputed",
            title: "AEAD decryption with a forged tag (the right one with one bit flipped), the key set up once per \
                    key; every call must return an error",
            expect: Expect::Reject,
            contenders: decrypt(true, true),
        },
    ]
}

/// The CWC family.
pub struct CwcFamily {
    keys: Keys,
    lib: Libcrypto,
    sodium: Sodium,
}

impl CwcFamily {
    /// [`SLOTS`] random keys and nonces.
    pub fn new(lib: Libcrypto, sodium: Sodium) -> Self {
        CwcFamily { keys: Keys::random(SLOTS, 0x4357_4341_4541_4144), lib, sodium }
    }
}

impl Family for CwcFamily {
    fn name(&self) -> &'static str {
        NAME
    }

    fn check_contenders(&self) -> Result<Vec<Check>, String> {
        Ok(vec![self.check_cwc_vectors()?, self.check_gcm_kat()?, self.check_random()?])
    }

    fn tables(&self) -> Result<Vec<Table>, String> {
        Ok(build_tables(&self.keys, self.lib))
    }

    fn notes(&self) -> Vec<String> {
        vec![
            "CWC family: CWC-AES-128 (11-byte nonce) vs AES-128-GCM and ChaCha20-Poly1305 (12-byte nonces, ChaCha20 \
             with its only key size, 256 bits); all with 16-byte tags and no associated data; encryption, and \
             decryption with the right tag and with a forged one (one bit flipped)."
                .into(),
            "One-shot wegman and RustCrypto return a new Vec (their APIs; its alignment is the allocator's); OpenSSL \
             writes into the caller's reused buffer, and so does precomputed wegman (encrypt_into / \
             decrypt_into, from the message). Precomputed RustCrypto, and aws-lc-rs and ring either way, work in \
             place, so their call includes copying the plaintext (ciphertext, and for aws-lc-rs and ring the tag \
             after it) into the reused buffer. Reused buffers sit at the message's address modulo 64, so the \
             misaligned regimes misalign them too."
                .into(),
            "Decrypt calls decrypt the message itself as a ciphertext (for counter-mode AEADs any bytes are the \
             ciphertext of some plaintext); its tag is computed before timing, and where an API takes \
             ciphertext || tag as one slice (one-shot wegman and RustCrypto) the two are copied together, at the \
             message's address modulo 64, before timing."
                .into(),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reused_buffers_take_the_message_alignment() {
        let msg = vec![0u8; 300];
        let mut w = Window::default();
        for off in 0..ALIGN {
            let like = &msg[off..off + 100];
            let addr = w.place(like).as_ptr() as usize;
            assert_eq!(addr % ALIGN, like.as_ptr() as usize % ALIGN, "offset {off}");
            assert_eq!(w.bytes().len(), like.len());
        }
    }
}
