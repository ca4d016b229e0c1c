"""Poly1305-AES on several threads (`threads=`) and `Incremental`:
the same tags as the one-thread calls, against the core's Rust tests of the
same against the reference."""

import random

import pytest

import wegman
from wegman import poly1305aes

KEY = poly1305aes.clamp(bytes(range(7, 39)))
NONCE = bytes(range(16))
# Past the 8 MiB from which a second thread starts, ending in a partial block.
BIG = (bytes(range(251)) * ((9 << 20) // 251 + 1))[: (9 << 20) + 4101]


@pytest.mark.parametrize("threads", [1, 2, 3, 16])
def test_threads_give_the_one_thread_tag(threads: int) -> None:
    want = poly1305aes.authenticate(KEY, NONCE, BIG)
    assert poly1305aes.authenticate(KEY, NONCE, BIG, threads=threads) == want
    assert poly1305aes.authenticate(KEY, NONCE, memoryview(BIG), threads=threads) == want
    ek = poly1305aes.ExpandedKey(KEY)
    assert ek.authenticate(NONCE, BIG, threads=threads) == want
    poly1305aes.verify(KEY, want, NONCE, BIG, threads=threads)
    ek.verify(want, NONCE, BIG, threads=threads)
    bad = bytes([want[0] ^ 1]) + want[1:]
    with pytest.raises(wegman.InvalidTag):
        poly1305aes.verify(KEY, bad, NONCE, BIG, threads=threads)
    with pytest.raises(wegman.InvalidTag):
        ek.verify(bad, NONCE, BIG, threads=threads)


def test_zero_or_negative_threads_are_refused() -> None:
    with pytest.raises(ValueError, match="threads must be at least 1"):
        poly1305aes.authenticate(KEY, NONCE, b"x", threads=0)
    with pytest.raises((ValueError, OverflowError)):
        poly1305aes.authenticate(KEY, NONCE, b"x", threads=-1)
    with pytest.raises(ValueError):
        poly1305aes.Incremental(KEY, b"x", threads=0)


def test_incremental_follows_random_edits_and_appends() -> None:
    rng = random.Random(22)
    message = bytearray(rng.randbytes(20_000))
    kept = poly1305aes.Incremental(KEY, message)
    for step in range(200):
        if rng.random() < 0.3:
            more = rng.randbytes(rng.randrange(0, 2000))
            kept.append(more)
            message += more
        else:
            offset = rng.randrange(0, len(message))
            n = rng.randrange(0, min(600, len(message) - offset) + 1)
            new = rng.randbytes(n)
            kept.replace(message, offset, new)
            message[offset : offset + n] = new
        assert len(kept) == len(message)
        nonce = step.to_bytes(16, "little")
        tag = kept.tag(nonce)
        assert tag == poly1305aes.authenticate(KEY, nonce, message), step
        kept.verify(tag, nonce)


def test_incremental_on_threads_then_a_4_kib_edit() -> None:
    kept = poly1305aes.Incremental(KEY, BIG, threads=2)
    message = bytearray(BIG)
    new = bytes(4096)
    kept.replace(message, 5_000_003, new)
    message[5_000_003 : 5_000_003 + 4096] = new
    assert kept.tag(NONCE) == poly1305aes.authenticate(KEY, NONCE, message)


def test_incremental_refuses_bad_ranges_and_hides_its_state() -> None:
    kept = poly1305aes.Incremental(KEY, bytes(40))
    before = kept.tag(NONCE)
    with pytest.raises(ValueError, match="not within the 40-byte message"):
        kept.replace(bytes(40), 38, b"abc")
    with pytest.raises(ValueError, match="message length"):
        kept.replace(bytes(39), 0, b"a")
    with pytest.raises((ValueError, OverflowError)):
        kept.replace(bytes(40), -1, b"")
    assert kept.tag(NONCE) == before
    with pytest.raises(wegman.InvalidTag):
        kept.verify(before, bytes(16))
    assert repr(kept) == "<wegman.poly1305aes.Incremental of 40 bytes (state hidden)>"


def test_incremental_refuses_old_bytes_that_are_not_the_messages() -> None:
    """The attack a believed `old` allowed: bytes written over the range
    just before an edit (X = old - D) made the new tag authenticate
    NEW + D. The runs read are checked first: any change raises
    InvalidTag and the state is untouched."""
    rng = random.Random(33)
    message = bytearray(rng.randbytes(200_000))
    kept = poly1305aes.Incremental(KEY, message)
    before = kept.tag(NONCE)
    for _ in range(50):
        offset = rng.randrange(0, len(message) - 16)
        start, end = kept.span(offset, 16)
        forged = bytearray(message)
        forged[rng.randrange(start, end)] ^= 1 << rng.randrange(8)
        with pytest.raises(wegman.InvalidTag):
            kept.replace(forged, offset, b"N" * 16)
        with pytest.raises(wegman.InvalidTag):
            kept.replace_span(offset, b"N" * 16, bytes(forged[start:end]))
        assert kept.tag(NONCE) == before
    start, end = kept.span(70_000, 4)
    kept.replace_span(70_000, b"edit", bytes(message[start:end]))
    message[70_000:70_004] = b"edit"
    assert kept.tag(NONCE) == poly1305aes.authenticate(KEY, NONCE, message)


@pytest.mark.parametrize("alg", ["mmh32", "mmh32x4", "nmh32", "mmh64x2"])
def test_mmh_threads_give_the_one_thread_tag(alg: str) -> None:
    from wegman import mmh

    key = bytes(range(32))
    want = mmh.mac(alg, key, NONCE, BIG)
    for threads in (2, 3):
        assert mmh.mac(alg, key, NONCE, BIG, threads=threads) == want
        assert mmh.MacKey(alg, key).mac(NONCE, BIG, threads=threads) == want
        mmh.verify(alg, key, want, NONCE, BIG, threads=threads)
        mmh.MacKey(alg, key).verify(want, NONCE, BIG, threads=threads)
    with pytest.raises(wegman.InvalidTag):
        mmh.MacKey(alg, key).verify(bytes([want[0] ^ 1]) + want[1:], NONCE, BIG, threads=2)


def test_cwc_threads_give_the_one_thread_bytes_and_release_nothing_on_a_bad_tag() -> None:
    from wegman.cwc import CWC

    c = CWC(bytes(range(16)))
    nonce = bytes(11)
    want = c.encrypt(nonce, BIG, b"aad")
    for threads in (2, 3):
        assert c.encrypt(nonce, BIG, b"aad", threads=threads) == want
        assert c.decrypt(nonce, want, b"aad", threads=threads) == BIG
        assert c.decrypt(nonce, bytearray(want), b"aad", threads=threads) == BIG
    bad = bytearray(want)
    bad[7 << 20] ^= 1
    with pytest.raises(wegman.InvalidTag):
        c.decrypt(nonce, bad, b"aad", threads=2)
    with pytest.raises(ValueError):
        c.encrypt(nonce, BIG, None, threads=0)
