"""The MMH/NMH Wegman-Carter MACs (Halevi & Krawczyk, FSE 1997), byte-exact
to the project's spec: a 32-byte key ``kp || ks``, a 16-byte nonce, and a
4- to 16-byte tag depending on the algorithm (see ``ALGORITHMS``).

>>> from wegman import mmh
>>> tag = mmh.mac("mmh32x4", bytes(32), bytes(16), b"message")
>>> mmh.verify("mmh32x4", bytes(32), tag, bytes(16), b"message")
"""

from wegman._wegman import mmh as _impl

mac = _impl.mac
verify = _impl.verify
MacKey = _impl.MacKey
Mmh = _impl.Mmh
ALGORITHMS: "tuple[str, ...]" = _impl.ALGORITHMS
KEY_SIZE: int = _impl.KEY_SIZE
NONCE_SIZE: int = _impl.NONCE_SIZE

__all__ = ["ALGORITHMS", "KEY_SIZE", "MacKey", "Mmh", "NONCE_SIZE", "mac", "verify"]
