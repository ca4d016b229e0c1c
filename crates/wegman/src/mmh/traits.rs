//! RustCrypto trait integration: one concrete `digest::Mac` type per
//! algorithm, each with a fixed `OutputSize` (the tag length), built with
//! `KeyIvInit` (key `kp || ks`, IV = the nonce).
//!
//! These own their key and expand level keys lazily, as the message's
//! length makes each level necessary, so a short message costs one level's
//! expansion. To authenticate many messages under one key, a
//! [`MacKey`](super::MacKey) is cheaper.
//!
//! `digest::Update::update` cannot fail, so a message that would need a 17th
//! tree level (more than [`Alg::max_message_len`](super::Alg::max_message_len)
//! bytes: about 2^51.8 for `mmh32x4`, 2^58 for `mmh32x3`, beyond 2^64 for the
//! others) **panics** in `update`, before any output. Use
//! [`Mmh`](super::Mmh) or [`mac`](super::mac) to get an error instead.
//!
//! ```
//! use digest::Mac;
//! use digest::common::KeyIvInit;
//! use wegman::mmh::{self, Alg, Mmh32x4Mac};
//! let (key, nonce) = ([3u8; 32], [4u8; 16]);
//! let mut m = Mmh32x4Mac::new(&key.into(), &nonce.into());
//! m.update(b"hello");
//! let tag = m.finalize().into_bytes();
//! assert_eq!(tag.as_slice(), mmh::mac(Alg::Mmh32x4, &key, &nonce, b"hello").unwrap().as_bytes());
//! ```

use core::fmt;

use digest::common::{InvalidLength, IvSizeUser, KeyIvInit, KeySizeUser};
use digest::consts::{U4, U8, U12, U16, U32};
use digest::{FixedOutput, MacMarker, Output, OutputSizeUser, Update};

use super::alg::{Alg, KEY_BYTES, NONCE_BYTES};
use super::mac::Owned;

macro_rules! mac_type {
    ($(#[$doc:meta])* $name:ident, $alg:expr, $size:ty) => {
        $(#[$doc])*
        #[derive(Clone)]
        pub struct $name {
            inner: Owned,
        }

        impl $name {
            /// The algorithm this type computes.
            pub const ALG: Alg = $alg;
        }

        impl KeySizeUser for $name {
            type KeySize = U32;
        }

        impl IvSizeUser for $name {
            type IvSize = U16;
        }

        impl KeyIvInit for $name {
            fn new(key: &digest::Key<Self>, iv: &digest::common::Iv<Self>) -> Self {
                // Borrowed as arrays, not copied into a local nobody would wipe.
                let key: &[u8; KEY_BYTES] = key.into();
                let nonce: &[u8; NONCE_BYTES] = iv.into();
                $name { inner: Owned::new($alg, key, nonce) }
            }

            fn new_from_slices(key: &[u8], iv: &[u8]) -> Result<Self, InvalidLength> {
                let key: &[u8; KEY_BYTES] = key.try_into().map_err(|_| InvalidLength)?;
                let nonce: &[u8; NONCE_BYTES] = iv.try_into().map_err(|_| InvalidLength)?;
                Ok($name { inner: Owned::new($alg, key, nonce) })
            }
        }

        impl OutputSizeUser for $name {
            type OutputSize = $size;
        }

        impl Update for $name {
            /// # Panics
            /// If the message would need a 17th tree level (see the module docs).
            fn update(&mut self, data: &[u8]) {
                if let Err(e) = self.inner.update(data) {
                    panic!("{}: {e}", $alg.name());
                }
            }
        }

        impl FixedOutput for $name {
            fn finalize_into(mut self, out: &mut Output<Self>) {
                match self.inner.finalize() {
                    Ok(tag) => out.copy_from_slice(tag.as_bytes()),
                    Err(e) => panic!("{}: {e}", $alg.name()),
                }
            }
        }

        impl MacMarker for $name {}

        impl zeroize::ZeroizeOnDrop for $name {}

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(concat!(stringify!($name), " { .. }"))
            }
        }
    };
}

mac_type!(
    /// `mmh32` as a `digest::Mac`: 4-byte tag (short-lived links only, see the module docs).
    Mmh32Mac, Alg::Mmh32, U4
);
mac_type!(
    /// `mmh32x2` as a `digest::Mac`: 8-byte tag.
    Mmh32x2Mac, Alg::Mmh32x2, U8
);
mac_type!(
    /// `mmh32x3` as a `digest::Mac`: 12-byte tag.
    Mmh32x3Mac, Alg::Mmh32x3, U12
);
mac_type!(
    /// `mmh32x4` as a `digest::Mac`: 16-byte tag.
    Mmh32x4Mac, Alg::Mmh32x4, U16
);
mac_type!(
    /// `nmh32` as a `digest::Mac`: 4-byte tag (short-lived links only).
    Nmh32Mac, Alg::Nmh32, U4
);
mac_type!(
    /// `mmh64` as a `digest::Mac`: 8-byte tag.
    Mmh64Mac, Alg::Mmh64, U8
);
mac_type!(
    /// `mmh64x2` as a `digest::Mac`: 16-byte tag.
    Mmh64x2Mac, Alg::Mmh64x2, U16
);
