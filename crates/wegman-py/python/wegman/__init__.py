"""wegman: Wegman-Carter message authenticators from Rust.

Submodules:

* ``wegman.poly1305aes`` -- Poly1305-AES (Bernstein 2005)
* ``wegman.mmh`` -- the MMH/NMH family (Halevi & Krawczyk 1997)
* ``wegman.cwc`` -- CWC-AES authenticated encryption

and, shared with the ``wegman`` command: ``keygen``, ``NonceStore`` and
``check_manifest``. A failed verification raises ``InvalidTag``.

>>> import wegman
>>> tag = wegman.poly1305aes.authenticate(bytes(32), bytes(16), b"message")
>>> len(tag)
16
"""

from wegman._wegman import (
    InvalidTag,
    ManifestCheck,
    NonceStore,
    NonceStoreError,
    __version__,
    check_manifest,
    keygen,
)
from wegman import cwc, mmh, poly1305aes

__all__ = [
    "InvalidTag",
    "ManifestCheck",
    "NonceStore",
    "NonceStoreError",
    "__version__",
    "check_manifest",
    "cwc",
    "keygen",
    "mmh",
    "poly1305aes",
]
