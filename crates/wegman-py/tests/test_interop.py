"""wegman.poly1305aes against pycryptodome's Poly1305-AES on random keys,
nonces and messages up to 70,000 bytes."""

import random

from Crypto.Cipher import AES
from Crypto.Hash import Poly1305

from wegman import poly1305aes


def test_same_tags_as_pycryptodome() -> None:
    rng = random.Random(20050221)
    lengths = list(range(0, 300)) + [rng.randrange(70_001) for _ in range(700)] + [70_000, 65_536, 4096]
    for length in lengths:
        # pycryptodome clamps r itself, so give it an r that is already clamped
        kr = poly1305aes.clamp(rng.randbytes(32))
        nonce, msg = rng.randbytes(16), rng.randbytes(length)
        # pycryptodome takes k || r, as Bernstein does
        theirs = Poly1305.new(key=kr, cipher=AES, nonce=nonce).update(msg).digest()
        assert poly1305aes.authenticate(kr, nonce, msg) == theirs, length
    assert len(lengths) >= 1000
