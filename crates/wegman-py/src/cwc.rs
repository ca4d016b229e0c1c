//! `wegman.cwc`: CWC-AES authenticated encryption (Kohno, Viega & Whiting),
//! in the shape of `cryptography`'s `AESGCM`.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use wegman::cwc::{CwcKey, MAX_BYTES, NONCE_BYTES, TAG_BYTES};

use std::num::NonZeroUsize;
use std::sync::Mutex;

use crate::buf::{Bytes, RawBytes, maybe_detach};
use crate::errors::{exact, to_py};

/// The tag length, checked before anything is allocated.
pub(crate) fn tag_len(n: usize) -> PyResult<usize> {
    if (1..=TAG_BYTES).contains(&n) {
        Ok(n)
    } else {
        Err(to_py(wegman::Error::InvalidTagLength { got: n, min: 1, max: TAG_BYTES }))
    }
}

/// A length the mode allows (at most 2^32 - 1 blocks), checked before the
/// output is allocated.
fn within_limit(what: &'static str, len: usize) -> PyResult<()> {
    if len as u64 <= MAX_BYTES { Ok(()) } else { Err(to_py(wegman::Error::TooLong { what, max: MAX_BYTES })) }
}

/// The nonce, data and associated data of one call, viewed in place and
/// checked (nonce length, associated-data limit).
struct Call<'a> {
    nonce: Bytes<'a>,
    data: Bytes<'a>,
    aad: Option<Bytes<'a>>,
}

impl<'a> Call<'a> {
    fn new(
        nonce: &'a Bound<'_, PyAny>,
        data: &'a Bound<'_, PyAny>,
        aad: Option<&'a Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let call = Call {
            nonce: Bytes::new(nonce, "nonce")?,
            data: Bytes::new(data, "data")?,
            aad: aad.map(|a| Bytes::new(a, "associated_data")).transpose()?,
        };
        exact::<NONCE_BYTES>("nonce", call.nonce.as_slice())?;
        within_limit("associated data", call.aad().len())?;
        Ok(call)
    }

    fn nonce(&self) -> &[u8; NONCE_BYTES] {
        // checked in `new`
        exact::<NONCE_BYTES>("nonce", self.nonce.as_slice()).unwrap_or(&[0; NONCE_BYTES])
    }

    fn data(&self) -> &[u8] {
        self.data.as_slice()
    }

    fn aad(&self) -> &[u8] {
        self.aad.as_ref().map_or(&[][..], Bytes::as_slice)
    }
}

/// CWC(key)
///
/// CWC-AES with a 16-, 24- or 32-byte AES key (CWC-AES-128/192/256), 11-byte
/// nonces and 1- to 16-byte tags. Safe to use from several threads at once;
/// never shown by `repr`; wiped when freed. Messages and associated data of
/// 2 KiB or more are processed with the GIL released.
///
/// >>> from wegman.cwc import CWC
/// >>> c = CWC(CWC.generate_key(128))
/// >>> nonce = bytes(11)                      # never reuse one under a key
/// >>> sealed = c.encrypt(nonce, b"payload", b"header")
/// >>> c.decrypt(nonce, sealed, b"header")
/// b'payload'
#[pyclass(module = "wegman.cwc", name = "CWC", frozen)]
pub struct Cwc {
    /// Boxed: Python places objects 16-byte aligned, and the backends'
    /// precomputed powers are 64-byte aligned (a debug build caught the
    /// misaligned reference).
    inner: Box<CwcKey>,
}

#[pymethods]
impl Cwc {
    #[new]
    fn new(key: &Bound<'_, PyAny>) -> PyResult<Self> {
        let k = Bytes::new(key, "key")?;
        Ok(Cwc { inner: Box::new(CwcKey::new(k.as_slice()).map_err(to_py)?) })
    }

    /// generate_key(bit_length) -> bytes
    ///
    /// A fresh random key of 128, 192 or 256 bits from the operating
    /// system's random generator.
    ///
    /// >>> from wegman.cwc import CWC
    /// >>> len(CWC.generate_key(256))
    /// 32
    #[staticmethod]
    fn generate_key(py: Python<'_>, bit_length: usize) -> PyResult<Bound<'_, PyBytes>> {
        if ![128, 192, 256].contains(&bit_length) {
            return Err(PyValueError::new_err(format!("bit_length must be 128, 192 or 256, not {bit_length}")));
        }
        PyBytes::new_with(py, bit_length / 8, |out| {
            getrandom::fill(out)
                .map_err(|e| pyo3::exceptions::PyOSError::new_err(format!("reading OS randomness: {e}")))
        })
    }

    /// encrypt(nonce, data, associated_data, tag_len=16, *, threads=1) -> bytes
    ///
    /// CWC-ENC: `ciphertext || tag`. `associated_data` (authenticated, not
    /// encrypted) may be None. The nonce (11 bytes) must never repeat under
    /// one key. With `threads` above 1, data of 8 MiB or more is encrypted
    /// on up to that many threads (the same bytes).
    ///
    /// >>> from wegman.cwc import CWC
    /// >>> len(CWC(bytes(16)).encrypt(bytes(11), b"abc", None, tag_len=12))
    /// 15
    #[pyo3(signature = (nonce, data, associated_data, tag_len = 16, *, threads = 1))]
    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        nonce: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        associated_data: Option<&Bound<'py, PyAny>>,
        tag_len: usize,
        threads: usize,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let threads = crate::poly::threads(threads)?;
        let tag_len = self::tag_len(tag_len)?;
        let call = Call::new(nonce, data, associated_data)?;
        if threads.get() > 1 && call.data().len() >= THREADS_MIN_BYTES {
            return seal_threads(py, &self.inner, call.nonce(), call.data(), call.aad(), tag_len, threads);
        }
        seal(py, &self.inner, call.nonce(), &[], call.data(), call.aad(), tag_len)
    }

    /// decrypt(nonce, data, associated_data, tag_len=16, *, threads=1) -> bytes
    ///
    /// CWC-DEC of `ciphertext || tag`: the plaintext, or `wegman.InvalidTag`
    /// and nothing at all (no plaintext is released unless the tag
    /// verifies). Each byte of `data` is read once, so a thread that writes
    /// it meanwhile can make the call fail but never return other
    /// plaintext. `tag_len` must be fixed by the protocol, never taken from
    /// the sender. `threads` as for `encrypt` (each byte is then read once
    /// to check the tag and once more to decrypt, and the tag is checked
    /// again after: a change between the two reads also fails).
    ///
    /// >>> from wegman.cwc import CWC
    /// >>> import wegman
    /// >>> c = CWC(bytes(16))
    /// >>> sealed = bytearray(c.encrypt(bytes(11), b"abc", None))
    /// >>> sealed[0] ^= 1
    /// >>> try:
    /// ...     c.decrypt(bytes(11), sealed, None)
    /// ... except wegman.InvalidTag:
    /// ...     print("rejected")
    /// rejected
    #[pyo3(signature = (nonce, data, associated_data, tag_len = 16, *, threads = 1))]
    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        nonce: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        associated_data: Option<&Bound<'py, PyAny>>,
        tag_len: usize,
        threads: usize,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let threads = crate::poly::threads(threads)?;
        let tag_len = self::tag_len(tag_len)?;
        let call = Call::new(nonce, data, associated_data)?;
        if threads.get() > 1 && call.data.raw().len >= THREADS_MIN_BYTES + tag_len {
            return open_threads(py, &self.inner, call.nonce(), call.data.raw(), call.aad(), tag_len, threads);
        }
        // The sealed bytes may be a bytearray or mmap that another thread
        // writes meanwhile: never a `&[u8]`, and each byte read once.
        open(py, &self.inner, call.nonce(), call.data.raw(), call.aad(), tag_len)
    }

    /// The AES key length in bytes (16, 24 or 32).
    #[getter]
    fn key_size(&self) -> usize {
        self.inner.key_bytes()
    }

    fn __repr__(&self) -> String {
        format!("<wegman.cwc.CWC AES-{} (key hidden)>", 8 * self.inner.key_bytes())
    }
}

/// `prefix || ciphertext || tag`: CWC-ENC of `p` under `nonce`, after
/// `prefix` (empty for `CWC.encrypt`, the nonce for `NonceStore.seal`).
pub(crate) fn seal<'py>(
    py: Python<'py>,
    key: &CwcKey,
    nonce: &[u8; NONCE_BYTES],
    prefix: &[u8],
    p: &[u8],
    aad: &[u8],
    tag_len: usize,
) -> PyResult<Bound<'py, PyBytes>> {
    let tag_len = self::tag_len(tag_len)?;
    within_limit("message", p.len())?;
    within_limit("associated data", aad.len())?;
    PyBytes::new_with(py, prefix.len() + p.len() + tag_len, |out| {
        maybe_detach(py, p.len().max(aad.len()), || {
            let (head, rest) = out.split_at_mut(prefix.len());
            head.copy_from_slice(prefix);
            let (body, tail) = rest.split_at_mut(p.len());
            let tag = key.encrypt_into(nonce, aad, p, body, tag_len)?;
            tail.copy_from_slice(tag.as_slice());
            Ok(())
        })
        .map_err(to_py)
    })
}

/// CWC-DEC of the `ciphertext || tag` at `sealed`, read through its address
/// (another thread may write it meanwhile), each byte once: the plaintext,
/// or `InvalidTag` and nothing (the new object is zeroed and freed).
/// `sealed` must come from a `Bytes` that lives until this returns.
pub(crate) fn open<'py>(
    py: Python<'py>,
    key: &CwcKey,
    nonce: &[u8; NONCE_BYTES],
    sealed: RawBytes,
    aad: &[u8],
    tag_len: usize,
) -> PyResult<Bound<'py, PyBytes>> {
    let tag_len = self::tag_len(tag_len)?;
    within_limit("associated data", aad.len())?;
    // Shorter than a tag: INVALID (CWC-DEC), as the core says.
    let Some(split) = sealed.len.checked_sub(tag_len) else {
        return Err(to_py(wegman::Error::TagMismatch));
    };
    within_limit("ciphertext", split)?;
    let mut tag = [0u8; TAG_BYTES];
    // SAFETY: `sealed` is `sealed.len` readable bytes, held by the caller's
    // `Bytes` until this returns;
    // the tag is its last `tag_len` (split + tag_len == sealed.len), and
    // `tag` is a local array of at least tag_len (<= 16) bytes.
    unsafe { std::ptr::copy_nonoverlapping(sealed.ptr.add(split), tag.as_mut_ptr(), tag_len) };
    // One pass (`wegman::cwc::RawDecryptor`); on a bad tag the new bytes
    // object has been zeroed, and it is freed without reaching Python.
    PyBytes::new_with(py, split, |out| {
        maybe_detach(py, split.max(aad.len()), move || {
            let dec = key.raw_decryptor(nonce, aad, &tag[..tag_len])?;
            // SAFETY: `sealed.ptr` has `split` readable bytes (held by the
            // caller's `Bytes` until this returns), `out` is the new object's
            // `split` bytes, which nothing else can reach yet.
            unsafe { dec.decrypt(sealed.as_ptr(), out.as_mut_ptr(), split) }
        })
        .map_err(to_py)
    })
}

/// Inputs this long or longer go to the threaded calls when `threads` > 1
/// (the core starts no thread below it).
const THREADS_MIN_BYTES: usize = wegman::parallel::MIN_PARALLEL_BYTES;

/// CWC-ENC of `p` on up to `threads` threads: `ciphertext || tag`.
fn seal_threads<'py>(
    py: Python<'py>,
    key: &CwcKey,
    nonce: &[u8; NONCE_BYTES],
    p: &[u8],
    aad: &[u8],
    tag_len: usize,
    threads: NonZeroUsize,
) -> PyResult<Bound<'py, PyBytes>> {
    within_limit("message", p.len())?;
    within_limit("associated data", aad.len())?;
    PyBytes::new_with(py, p.len() + tag_len, |out| {
        py.detach(|| {
            let (body, tail) = out.split_at_mut(p.len());
            let body = Mutex::new(body);
            let fill = |at: u64, buf: &mut [u8]| {
                buf.copy_from_slice(&p[at as usize..at as usize + buf.len()]);
                Ok::<(), wegman::Error>(())
            };
            let sink = |at: u64, buf: &[u8]| {
                let mut body = body.lock().unwrap_or_else(|e| e.into_inner());
                body[at as usize..at as usize + buf.len()].copy_from_slice(buf);
                Ok::<(), wegman::Error>(())
            };
            let tag = key.encrypt_parallel_from(nonce, aad, p.len(), tag_len, threads, &fill, &sink)?;
            tail.copy_from_slice(tag.as_slice());
            Ok(())
        })
        .map_err(to_py)
    })
}

/// CWC-DEC of the `ciphertext || tag` at `sealed` on up to `threads`
/// threads, read through its address (another thread may write it
/// meanwhile): the plaintext, or `InvalidTag` and nothing (the new object
/// is zeroed before it is freed). `sealed` must come from a `Bytes` that
/// lives until this returns.
fn open_threads<'py>(
    py: Python<'py>,
    key: &CwcKey,
    nonce: &[u8; NONCE_BYTES],
    sealed: RawBytes,
    aad: &[u8],
    tag_len: usize,
    threads: NonZeroUsize,
) -> PyResult<Bound<'py, PyBytes>> {
    within_limit("associated data", aad.len())?;
    let split = sealed.len - tag_len; // the caller checked sealed.len >= 8 MiB + tag_len
    within_limit("ciphertext", split)?;
    let mut tag = [0u8; TAG_BYTES];
    // SAFETY: `sealed` is `sealed.len` readable bytes, held by the caller's
    // `Bytes` until this returns; the tag is its last `tag_len`.
    unsafe { std::ptr::copy_nonoverlapping(sealed.ptr.add(split), tag.as_mut_ptr(), tag_len) };
    PyBytes::new_with(py, split, |out| {
        py.detach(|| {
            let plain = Mutex::new(&mut *out);
            let fill = |at: u64, buf: &mut [u8]| {
                // SAFETY: `at + buf.len() <= split <= sealed.len` (the core
                // asks only for bytes of the ciphertext), readable while the
                // caller's `Bytes` lives; each byte copied out, never
                // borrowed as a slice another thread could change.
                unsafe { std::ptr::copy_nonoverlapping(sealed.as_ptr().add(at as usize), buf.as_mut_ptr(), buf.len()) };
                Ok::<(), wegman::Error>(())
            };
            let sink = |at: u64, buf: &[u8]| {
                let mut plain = plain.lock().unwrap_or_else(|e| e.into_inner());
                plain[at as usize..at as usize + buf.len()].copy_from_slice(buf);
                Ok::<(), wegman::Error>(())
            };
            let verdict = key.decrypt_parallel_from(nonce, aad, split, &tag[..tag_len], threads, &fill, &sink);
            if verdict.is_err() {
                plain.into_inner().unwrap_or_else(|e| e.into_inner()).fill(0);
            }
            verdict
        })
        .map_err(to_py)
    })
}

/// The `wegman.cwc` submodule.
pub fn module(py: Python<'_>) -> PyResult<Bound<'_, PyModule>> {
    let m = PyModule::new(py, "cwc")?;
    m.add_class::<Cwc>()?;
    m.add("NONCE_SIZE", NONCE_BYTES)?;
    m.add("MAX_TAG_SIZE", TAG_BYTES)?;
    m.add("MAX_BYTES", MAX_BYTES)?;
    Ok(m)
}
