"""CWC-AES authenticated encryption (Kohno, Viega & Whiting), in the shape
of ``cryptography``'s ``AESGCM``: 16/24/32-byte keys, 11-byte nonces,
``encrypt`` returns ``ciphertext || tag``.

>>> from wegman.cwc import CWC
>>> c = CWC(bytes(16))
>>> c.decrypt(bytes(11), c.encrypt(bytes(11), b"secret", b"header"), b"header")
b'secret'
"""

from wegman._wegman import cwc as _impl

CWC = _impl.CWC
NONCE_SIZE: int = _impl.NONCE_SIZE
MAX_TAG_SIZE: int = _impl.MAX_TAG_SIZE
MAX_BYTES: int = _impl.MAX_BYTES

__all__ = ["CWC", "MAX_BYTES", "MAX_TAG_SIZE", "NONCE_SIZE"]
