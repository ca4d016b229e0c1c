"""Poly1305-AES (D. J. Bernstein, FSE 2005): a 16-byte tag of a message
under a 32-byte key ``k || r`` and a 16-byte nonce that never repeats.

>>> from wegman import poly1305aes
>>> key, nonce = bytes(32), bytes(16)
>>> tag = poly1305aes.authenticate(key, nonce, b"message")
>>> poly1305aes.verify(key, tag, nonce, b"message")
"""

from wegman._wegman import poly1305aes as _impl

authenticate = _impl.authenticate
verify = _impl.verify
clamp = _impl.clamp
authenticate_many = _impl.authenticate_many
Poly1305AES = _impl.Poly1305AES
ExpandedKey = _impl.ExpandedKey
Incremental = _impl.Incremental
KEY_SIZE: int = _impl.KEY_SIZE
NONCE_SIZE: int = _impl.NONCE_SIZE
TAG_SIZE: int = _impl.TAG_SIZE

__all__ = [
    "ExpandedKey",
    "Incremental",
    "KEY_SIZE",
    "NONCE_SIZE",
    "Poly1305AES",
    "TAG_SIZE",
    "authenticate",
    "authenticate_many",
    "clamp",
    "verify",
]
