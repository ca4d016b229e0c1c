//! Python bindings for wegman (PyO3, stable ABI): the extension module
//! `wegman._wegman`, re-exported by the pure-Python package `wegman`
//! (`python/wegman/`). Every algorithm runs in the core crate `wegman`; this
//! crate only converts arguments, errors and results.
//!
//! Files: `buf.rs` (bytes-like inputs, GIL release), `errors.rs`
//! (exceptions), `poly.rs`, `mmh.rs`, `cwc.rs` (the three submodules),
//! `store.rs` (key files, nonce stores, manifests), `distributed.rs` (the
//! compiled half of `wegman.distributed`).
//!
//! `unsafe` lives only in the buffer glue: `buf.rs`, and `cwc.rs`'s copies
//! out of a caller's buffer that another thread may be writing.

#![deny(unsafe_code)]

#[allow(unsafe_code)]
mod buf;
#[allow(unsafe_code)]
mod cwc;
mod distributed;
mod errors;
mod mmh;
mod poly;
mod poly_incremental;
mod store;

use pyo3::prelude::*;

/// The compiled half of the `wegman` package; import `wegman` instead.
#[pymodule]
fn _wegman(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("InvalidTag", py.get_type::<errors::InvalidTag>())?;
    m.add("NonceStoreError", py.get_type::<errors::NonceStoreError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    let poly = poly::module(py)?;
    // `Incremental` belongs to `wegman.poly1305aes` too; it is added here so
    // that `poly_incremental.rs` depends on `poly.rs` and not the reverse.
    poly.add_class::<poly_incremental::Incremental>()?;
    m.add_submodule(&poly)?;
    m.add_submodule(&mmh::module(py)?)?;
    m.add_submodule(&cwc::module(py)?)?;
    store::register(m)?;
    distributed::register(m)?;
    Ok(())
}
