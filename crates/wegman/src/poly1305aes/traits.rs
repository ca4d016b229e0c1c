//! RustCrypto trait integration.
//!
//! - [`Poly1305Aes`] is a `digest::Mac` built with `KeyIvInit` (key `k || r`,
//!   IV = the nonce). `KeyIvInit::new` cannot fail, so it **clamps** r exactly
//!   as `poly1305aes_clamp` does; `new_from_slices` instead **rejects** an r
//!   with forbidden bits (as `InvalidLength`, the only error the trait has).
//!   Use [`Key::from_bytes`] for a descriptive error.
//! - [`Poly1305`] is a `universal_hash::UniversalHash` over 16-byte blocks
//!   (each block gets its 2^128 bit). Note `update_padded` zero-pads a final
//!   partial block as RFC 8439's AEAD does, which is *not* §2's padding; use
//!   [`Poly1305::update`] for the paper's function on arbitrary lengths.

use digest::common::{InvalidLength, IvSizeUser, KeyIvInit, KeySizeUser};
use digest::consts::{U1, U16, U32};
use digest::{FixedOutput, MacMarker, Output, OutputSizeUser, Update};
use universal_hash::common::{BlockSizeUser, ParBlocksSizeUser};
use universal_hash::{UhfBackend, UhfClosure, UniversalHash};

use super::key::{KEY_BYTES, Key};
use super::mac::Poly1305Aes;
use super::poly1305::Poly1305;

impl KeySizeUser for Poly1305Aes {
    type KeySize = U32;
}

impl IvSizeUser for Poly1305Aes {
    type IvSize = U16;
}

impl KeyIvInit for Poly1305Aes {
    fn new(key: &digest::Key<Self>, iv: &digest::common::Iv<Self>) -> Self {
        // Borrowed as arrays, not copied into locals nobody would wipe.
        let kr: &[u8; KEY_BYTES] = key.into();
        let key = Key::from_bytes_clamped(kr);
        Poly1305Aes::new(&key, iv.into())
    }

    fn new_from_slices(key: &[u8], iv: &[u8]) -> Result<Self, InvalidLength> {
        let key = Key::from_slice(key).map_err(|_| InvalidLength)?;
        let nonce: &[u8; 16] = iv.try_into().map_err(|_| InvalidLength)?;
        Ok(Poly1305Aes::new(&key, nonce))
    }
}

impl OutputSizeUser for Poly1305Aes {
    type OutputSize = U16;
}

impl Update for Poly1305Aes {
    fn update(&mut self, data: &[u8]) {
        Poly1305Aes::update(self, data);
    }
}

impl FixedOutput for Poly1305Aes {
    fn finalize_into(self, out: &mut Output<Self>) {
        out.copy_from_slice(&Poly1305Aes::finalize(self));
    }
}

impl MacMarker for Poly1305Aes {}

impl BlockSizeUser for Poly1305 {
    type BlockSize = U16;
}

impl ParBlocksSizeUser for Poly1305 {
    type ParBlocksSize = U1;
}

impl UhfBackend for Poly1305 {
    fn proc_block(&mut self, block: &universal_hash::Block<Self>) {
        self.update_blocks(block.as_slice());
    }
}

impl UniversalHash for Poly1305 {
    fn update_with_backend(&mut self, f: impl UhfClosure<BlockSize = Self::BlockSize>) {
        f.call(self);
    }

    fn finalize(self) -> universal_hash::Block<Self> {
        Poly1305::finalize(self).into()
    }
}
