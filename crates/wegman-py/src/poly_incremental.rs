//! `wegman.poly1305aes.Incremental`: a Poly1305-AES tag kept up to date
//! through edits and appends without reading the message again (the core's
//! `Incremental`; docs/parallel.md has the math and why its state is as
//! secret as the key).

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use wegman::poly1305aes::Incremental as Core;

use crate::buf::{Bytes, maybe_detach};
use crate::errors::to_py;
use crate::poly::{block, key, threads};

/// Incremental(key, data, *, threads=1)
///
/// The state of a message under a Poly1305-AES key, kept to re-tag it after
/// a change: `replace(offset, old, new)` and `append(data)` cost time in
/// proportion to the bytes changed, not the message. `tag(nonce)` needs a
/// nonce never used with this key, like every tag. The state is as secret
/// as the key: never shown by `repr`, wiped when freed, never saved.
///
/// >>> from wegman.poly1305aes import Incremental, authenticate
/// >>> key, message = bytes(32), bytearray(100_000)
/// >>> kept = Incremental(key, message)
/// >>> kept.replace(message, 5000, b"edit")
/// >>> message[5000:5004] = b"edit"
/// >>> kept.append(b"!")
/// >>> message += b"!"
/// >>> kept.tag(bytes([1]) * 16) == authenticate(key, bytes([1]) * 16, message)
/// True
/// >>> len(kept)
/// 100001
#[pyclass(module = "wegman.poly1305aes")]
pub struct Incremental {
    inner: Core,
}

#[pymethods]
impl Incremental {
    #[new]
    #[pyo3(signature = (key, data, *, threads = 1))]
    fn new(py: Python<'_>, key: &Bound<'_, PyAny>, data: &Bound<'_, PyAny>, threads: usize) -> PyResult<Self> {
        let threads = self::threads(threads)?;
        let key = self::key(key)?;
        let data = Bytes::new(data, "data")?;
        let m = data.as_slice();
        Ok(Incremental { inner: maybe_detach(py, m.len(), || Core::new_parallel(&key, m, threads)) })
    }

    /// replace(message, offset, new) -> None
    ///
    /// The bytes at `offset` become `new`, in a message that stands as
    /// `message` now (the whole message; only the 64 KiB runs around the
    /// change are read). Raises `wegman.InvalidTag` if those runs are not
    /// the ones the state was made from, and `ValueError` for a range past
    /// the end or a `message` of the wrong length; either way nothing
    /// changes.
    ///
    /// >>> from wegman.poly1305aes import Incremental, authenticate
    /// >>> kept = Incremental(bytes(32), b"hello, world")
    /// >>> kept.replace(b"hello, world", 7, b"there")
    /// >>> kept.tag(bytes(16)) == authenticate(bytes(32), bytes(16), b"hello, there")
    /// True
    fn replace(
        &mut self,
        py: Python<'_>,
        message: &Bound<'_, PyAny>,
        offset: u64,
        new: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let (message, new) = (Bytes::new(message, "message")?, Bytes::new(new, "new")?);
        let (m, n) = (message.as_slice(), new.as_slice());
        let inner = &mut self.inner;
        maybe_detach(py, n.len(), || inner.replace(m, offset, n)).map_err(to_py)
    }

    /// span(offset, length) -> tuple[int, int]
    ///
    /// The range of the message, `(start, end)`, that `replace_span` needs
    /// to see for a change of `length` bytes at `offset`.
    ///
    /// >>> from wegman.poly1305aes import Incremental
    /// >>> Incremental(bytes(32), bytes(200_000)).span(70_000, 4)
    /// (65536, 131072)
    fn span(&self, offset: u64, length: usize) -> PyResult<(u64, u64)> {
        let s = self.inner.span(offset, length).map_err(to_py)?;
        Ok((s.start, s.end))
    }

    /// replace_span(offset, new, old_span) -> None
    ///
    /// `replace` for a message held elsewhere (a file): `old_span` is the
    /// message's bytes at `span(offset, len(new))`, read once; they are
    /// checked as `replace` checks them.
    ///
    /// >>> from wegman.poly1305aes import Incremental, authenticate
    /// >>> kept = Incremental(bytes(32), b"hello, world")
    /// >>> start, end = kept.span(7, 5)
    /// >>> kept.replace_span(7, b"there", b"hello, world"[start:end])
    /// >>> kept.tag(bytes(16)) == authenticate(bytes(32), bytes(16), b"hello, there")
    /// True
    fn replace_span(
        &mut self,
        py: Python<'_>,
        offset: u64,
        new: &Bound<'_, PyAny>,
        old_span: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let (new, old) = (Bytes::new(new, "new")?, Bytes::new(old_span, "old_span")?);
        let (n, o) = (new.as_slice(), old.as_slice());
        let inner = &mut self.inner;
        maybe_detach(py, o.len(), || inner.replace_span(offset, n, o)).map_err(to_py)
    }

    /// append(data) -> None
    ///
    /// Bytes added at the end of the message.
    ///
    /// >>> from wegman.poly1305aes import Incremental, authenticate
    /// >>> kept = Incremental(bytes(32), b"hello")
    /// >>> kept.append(b", world")
    /// >>> kept.tag(bytes(16)) == authenticate(bytes(32), bytes(16), b"hello, world")
    /// True
    fn append(&mut self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<()> {
        let data = Bytes::new(data, "data")?;
        let m = data.as_slice();
        let inner = &mut self.inner;
        maybe_detach(py, m.len(), || inner.append(m));
        Ok(())
    }

    /// tag(nonce) -> bytes
    ///
    /// The 16-byte tag of the message as it now stands. Use a nonce never
    /// used before with this key: a second tag under one nonce gives r away.
    ///
    /// >>> from wegman.poly1305aes import Incremental
    /// >>> Incremental(bytes(32), b"").tag(bytes(16)).hex()
    /// '66e94bd4ef8a2c3b884cfa59ca342b2e'
    fn tag<'py>(&self, py: Python<'py>, nonce: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
        let n = Bytes::new(nonce, "nonce")?;
        Ok(PyBytes::new(py, &self.inner.tag(block("nonce", &n)?)))
    }

    /// verify(tag, nonce) -> None
    ///
    /// Constant-time check of a tag of the message as it now stands; raises
    /// `wegman.InvalidTag` on a mismatch.
    ///
    /// >>> from wegman.poly1305aes import Incremental
    /// >>> kept = Incremental(bytes(32), b"m")
    /// >>> kept.verify(kept.tag(bytes(16)), bytes(16))
    fn verify(&self, tag: &Bound<'_, PyAny>, nonce: &Bound<'_, PyAny>) -> PyResult<()> {
        let (t, n) = (Bytes::new(tag, "tag")?, Bytes::new(nonce, "nonce")?);
        self.inner.verify(block("tag", &t)?, block("nonce", &n)?).map_err(to_py)
    }

    fn __len__(&self) -> usize {
        self.inner.len() as usize
    }

    fn __repr__(&self) -> String {
        format!("<wegman.poly1305aes.Incremental of {} bytes (state hidden)>", self.inner.len())
    }
}
