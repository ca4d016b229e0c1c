//! The Python exceptions: `wegman.InvalidTag` for a failed verification
//! (a tag, or the old bytes an `Incremental` checks),
//! `ValueError` (with the core's message) for everything else wrong with an
//! input, `wegman.NonceStoreError` for key files and nonce stores.

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;

create_exception!(
    wegman,
    InvalidTag,
    PyException,
    "A tag did not verify: the message, nonce, tag or key is not the one that was authenticated.\n\n\
     A subclass of Exception (not ValueError), so that a forgery is never mistaken for a malformed argument.\n\n\
     >>> import wegman\n\
     >>> try:\n\
     ...     wegman.poly1305aes.verify(bytes(32), bytes(16), bytes(16), b\"message\")\n\
     ... except wegman.InvalidTag:\n\
     ...     print(\"rejected\")\n\
     rejected"
);

create_exception!(
    wegman,
    NonceStoreError,
    PyException,
    "A key file or nonce store that cannot be used: missing, damaged, of another key, locked by a process that \
     lost its lock, or exhausted (the same checks as the `wegman` command).\n\n\
     >>> import wegman\n\
     >>> try:\n\
     ...     wegman.NonceStore(\"/nonexistent/key\")\n\
     ... except wegman.NonceStoreError as e:\n\
     ...     print(\"refused\")\n\
     refused"
);

/// A core error as a Python exception.
pub fn to_py(e: wegman::Error) -> PyErr {
    match e {
        // Old bytes that are not the ones an incremental state was made
        // from: an authentication failure, like a wrong tag.
        wegman::Error::TagMismatch | wegman::Error::NotTheMessage => InvalidTag::new_err(e.to_string()),
        _ => PyValueError::new_err(e.to_string()),
    }
}

/// A fixed-size argument (key, nonce, tag) of exactly `N` bytes.
pub fn exact<'a, const N: usize>(what: &'static str, b: &'a [u8]) -> PyResult<&'a [u8; N]> {
    b.try_into().map_err(|_| to_py(wegman::Error::InvalidLength { what, expected: N, got: b.len() }))
}
