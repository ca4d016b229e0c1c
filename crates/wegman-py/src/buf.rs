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
//! bytes — don't change a buffer while it is being authenticated. CWC
//! decryption reads its ciphertext through [`Bytes::raw`], each byte once,
//! so such a writer can only make it fail (with the plaintext wiped).

use std::ffi::{c_char, c_int, c_void};
use std::marker::PhantomData;

use pyo3::exceptions::{PyBufferError, PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// CPython's `Py_buffer` (PEP 3118). The wheel targets the stable ABI of
/// CPython 3.9 (abi3-py39), whose limited API lists this struct and the two
/// functions below only from 3.11 — but 3.11 added them unchanged: the
/// layout and both functions are the same in every CPython since 3.3, and
/// every CPython exports both functions. PyO3 declares them only for
/// 3.11+ builds, so they are declared here, field for field as in CPython's
/// `Include/pybuffer.h`. `scripts/test-python-versions` runs the pytest
/// suite with one wheel on every CPython from 3.9 to 3.13.
#[repr(C)]
struct RawBuffer {
    buf: *mut c_void,
    obj: *mut ffi::PyObject,
    len: ffi::Py_ssize_t,
    itemsize: ffi::Py_ssize_t,
    readonly: c_int,
    ndim: c_int,
    format: *mut c_char,
    shape: *mut ffi::Py_ssize_t,
    strides: *mut ffi::Py_ssize_t,
    suboffsets: *mut ffi::Py_ssize_t,
    internal: *mut c_void,
}

impl RawBuffer {
    fn empty() -> Self {
        RawBuffer {
            buf: std::ptr::null_mut(),
            obj: std::ptr::null_mut(),
            len: 0,
            itemsize: 0,
            readonly: 0,
            ndim: 0,
            format: std::ptr::null_mut(),
            shape: std::ptr::null_mut(),
            strides: std::ptr::null_mut(),
            suboffsets: std::ptr::null_mut(),
            internal: std::ptr::null_mut(),
        }
    }
}

/// `PyBUF_SIMPLE`: one contiguous run of bytes, read-only is fine.
const PYBUF_SIMPLE: c_int = 0;

unsafe extern "C" {
    fn PyObject_GetBuffer(obj: *mut ffi::PyObject, view: *mut RawBuffer, flags: c_int) -> c_int;
    fn PyBuffer_Release(view: *mut RawBuffer);
}

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
    view: Option<Box<RawBuffer>>,
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
        let mut view = Box::new(RawBuffer::empty());
        // SAFETY: `obj` is a live object (we hold a reference and the GIL)
        // and `view` points to a writable, pinned Py_buffer.
        let rc = unsafe { PyObject_GetBuffer(obj.as_ptr(), &mut *view, PYBUF_SIMPLE) };
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

impl Bytes<'_> {
    /// The bytes' address and length, without a `&[u8]`: for a reader that
    /// another thread may race (CWC decryption reads each ciphertext byte
    /// once through a raw pointer; a slice of bytes that change under it
    /// would be undefined behaviour in Rust).
    pub fn raw(&self) -> RawBytes {
        RawBytes { ptr: self.ptr, len: self.len }
    }
}

/// The address and length of bytes a [`Bytes`] holds; valid only while it
/// lives. `Send`, so it may be read with the GIL released.
#[derive(Clone, Copy)]
pub struct RawBytes {
    pub ptr: *const u8,
    pub len: usize,
}

impl RawBytes {
    /// The address (a method, so that a closure that calls it captures the
    /// whole `Send` value, not the bare pointer field).
    pub fn as_ptr(self) -> *const u8 {
        self.ptr
    }

    /// The first `N` bytes, copied (each read once), and the rest; `None`
    /// if there are fewer than `N`.
    pub fn split_front<const N: usize>(self) -> Option<([u8; N], RawBytes)> {
        let rest = self.len.checked_sub(N)?;
        let mut front = [0u8; N];
        // SAFETY: `ptr` has `len >= N` readable bytes (the `Bytes` this came
        // from is alive, see the type's docs); `front` is a local array of N.
        unsafe { std::ptr::copy_nonoverlapping(self.ptr, front.as_mut_ptr(), N) };
        // SAFETY: `N <= len`, so `ptr + N` is within (or one past) the bytes.
        let ptr = unsafe { self.ptr.add(N) };
        Some((front, RawBytes { ptr, len: rest }))
    }
}

// SAFETY: a plain address and length, dereferenced (with its own safety
// argument) only while the `Bytes` it came from is alive; the memory stays
// valid with the GIL released (module docs).
unsafe impl Send for RawBytes {}
// SAFETY: an address and a length, read only with `copy_nonoverlapping`
// (no reference to the bytes is made), so sharing it between the threads of
// one call is as sound as sending it to one.
unsafe impl Sync for RawBytes {}

impl Drop for Bytes<'_> {
    fn drop(&mut self) {
        if let Some(view) = self.view.as_mut() {
            // SAFETY: the view was filled by a successful PyObject_GetBuffer
            // and is released once; `Bytes` is not `Send`, so this runs on
            // the thread that took it, with the GIL held (it is never moved
            // into a GIL-released closure).
            unsafe { PyBuffer_Release(&mut **view) };
        }
    }
}

/// Lowercase hex of a (public) tag, for `hexdigest`.
pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}
