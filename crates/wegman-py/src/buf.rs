//! Read-only views of Python bytes-like objects, without copying, and the
//! rule for when to release the GIL while hashing them.
//!
//! `bytes` is read directly; every other object goes through the buffer
//! protocol with `PyBUF_SIMPLE` (one C-contiguous run of bytes, whatever
//! the item format: `bytearray`, `memoryview`, `array.array`, numpy arrays,
//! `mmap`). While the view is held the exporter may not resize or free its
//! memory (a `bytearray` refuses to grow), so the slice stays valid with the
//! GIL released. Another thread may still *write* into a mutable buffer
//! meanwhile, as with `hashlib`: the tag is then of some mix of old and new
//! bytes — don't change a buffer while it is being authenticated.

use std::marker::PhantomData;

use pyo3::exceptions::{PyBufferError, PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// Inputs of at least this many bytes are processed with the GIL released,
/// so other Python threads run meanwhile (below it, releasing and
/// re-acquiring the GIL costs more than it frees).
pub const DETACH_BYTES: usize = 2048;

/// Run `f`, with the GIL released if `len` is at least [`DETACH_BYTES`].
pub fn maybe_detach<T: Send>(py: Python<'_>, len: usize, f: impl FnOnce() -> T + Send) -> T {
    if len >= DETACH_BYTES { py.detach(f) } else { f() }
}

/// The bytes of a Python object, borrowed for `'a` (the life of the
/// reference to the object). Not `Send`: it is released, with the GIL held,
/// where it was taken; only [`Bytes::as_slice`] crosses into code that runs
/// without the GIL.
pub struct Bytes<'a> {
    ptr: *const u8,
    len: usize,
    /// The buffer-protocol view to release, if the object is not `bytes`.
    /// Boxed: some exporters keep pointers into the view, so it must not move.
    view: Option<Box<ffi::Py_buffer>>,
    _object: PhantomData<&'a Bound<'a, PyAny>>,
}

impl<'a> Bytes<'a> {
    /// View `obj`, which must support the buffer protocol and be
    /// C-contiguous; `what` names the argument in a `TypeError`.
    pub fn new(obj: &'a Bound<'_, PyAny>, what: &str) -> PyResult<Self> {
        if let Ok(b) = obj.cast::<PyBytes>() {
            let s = b.as_bytes();
            return Ok(Bytes { ptr: s.as_ptr(), len: s.len(), view: None, _object: PhantomData });
        }
        let mut view = Box::new(ffi::Py_buffer::new());
        // SAFETY: `obj` is a live object (we hold a reference and the GIL)
        // and `view` points to a writable, pinned Py_buffer.
        let rc = unsafe { ffi::PyObject_GetBuffer(obj.as_ptr(), &mut *view, ffi::PyBUF_SIMPLE) };
        if rc != 0 {
            let err = PyErr::fetch(obj.py());
            let py = obj.py();
            let kind = obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into());
            // A buffer that is not one contiguous run of bytes: exporters
            // say so with BufferError (memoryview) or ValueError (numpy).
            let strided = err.is_instance_of::<PyBufferError>(py) || err.is_instance_of::<PyValueError>(py);
            return Err(if strided {
                PyTypeError::new_err(format!("{what}: a C-contiguous bytes-like object is required ({err})"))
            } else if err.is_instance_of::<PyTypeError>(py) {
                PyTypeError::new_err(format!("{what}: a bytes-like object is required, not '{kind}'"))
            } else {
                err
            });
        }
        let len = usize::try_from(view.len).unwrap_or(0);
        Ok(Bytes { ptr: view.buf.cast_const().cast(), len, view: Some(view), _object: PhantomData })
    }

    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        if self.len == 0 {
            return &[];
        }
        // SAFETY: `ptr` and `len` describe the object's bytes, which stay
        // allocated while `self` holds the `bytes` object's reference or the
        // buffer view (released only in `drop`).
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl Drop for Bytes<'_> {
    fn drop(&mut self) {
        if let Some(view) = self.view.as_mut() {
            // SAFETY: the view was filled by a successful PyObject_GetBuffer
            // and is released once; `Bytes` is not `Send`, so this runs on
            // the thread that took it, with the GIL held (it is never moved
            // into a GIL-released closure).
            unsafe { ffi::PyBuffer_Release(&mut **view) };
        }
    }
}

/// Lowercase hex of a (public) tag, for `hexdigest`.
pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}
