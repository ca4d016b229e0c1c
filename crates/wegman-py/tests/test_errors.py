"""Bad input: each a clear exception (ValueError naming the problem,
TypeError for non-buffers, InvalidTag for forgeries), never a panic."""

import mmap
import os
import pathlib
from typing import Any, Callable, List

import numpy as np
import pytest

import wegman
from wegman import cwc, mmh, poly1305aes

K, N, T = bytes(32), bytes(16), bytes(16)


def test_invalid_tag_is_not_a_value_error() -> None:
    assert issubclass(wegman.InvalidTag, Exception)
    assert not issubclass(wegman.InvalidTag, ValueError)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: poly1305aes.authenticate(bytes(31), N, b""), "invalid key length: expected 32 bytes, got 31"),
        (lambda: poly1305aes.authenticate(K, bytes(15), b""), "invalid nonce length: expected 16 bytes, got 15"),
        (lambda: poly1305aes.verify(K, bytes(17), N, b""), "invalid tag length: expected 16 bytes, got 17"),
        (lambda: poly1305aes.Poly1305AES(bytes(33), N), "invalid key length"),
        (lambda: poly1305aes.ExpandedKey(b""), "invalid key length: expected 32 bytes, got 0"),
        (lambda: poly1305aes.clamp(bytes(16)), "invalid key length"),
        (lambda: poly1305aes.authenticate(bytes(19) + b"\x10" + bytes(12), N, b""), r"r\[3\] must have its top four"),
        (lambda: poly1305aes.authenticate(bytes(20) + b"\x01" + bytes(11), N, b""), r"r\[4\] must have its bottom two"),
        (lambda: poly1305aes.authenticate_many([(K, bytes(3), b"")]), "invalid nonce length"),
        (lambda: mmh.mac("mmh33", K, N, b""), "unknown algorithm name"),
        (lambda: mmh.mac("mmh32", bytes(16), N, b""), "invalid key length: expected 32 bytes, got 16"),
        (lambda: mmh.mac("mmh32", K, bytes(11), b""), "invalid nonce length"),
        (lambda: mmh.verify("mmh32", K, bytes(16), N, b""), "invalid tag length: expected 4 bytes, got 16"),
        (lambda: mmh.MacKey("mmh64", bytes(31)), "invalid key length"),
        (lambda: mmh.Mmh("mmh64", K, N).verify(bytes(4)), "invalid tag length: expected 8 bytes, got 4"),
        (lambda: cwc.CWC(bytes(20)), "invalid CWC-AES key length 20: must be 16, 24 or 32 bytes"),
        (lambda: cwc.CWC(bytes(16)).encrypt(bytes(12), b"", None), "invalid nonce length: expected 11 bytes, got 12"),
        (lambda: cwc.CWC(bytes(16)).encrypt(bytes(11), b"", None, 0), "invalid tag length 0: must be 1 to 16"),
        (lambda: cwc.CWC(bytes(16)).encrypt(bytes(11), b"", None, 17), "invalid tag length 17"),
        (lambda: cwc.CWC(bytes(16)).decrypt(bytes(11), bytes(40), None, 17), "invalid tag length 17"),
        (lambda: cwc.CWC.generate_key(100), "bit_length must be 128, 192 or 256"),
    ],
)
def test_value_errors_name_the_problem(call: Callable[[], Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()


NOT_BUFFERS: List[Any] = [None, "text", 12, 1.5, [1, 2], object()]


@pytest.mark.parametrize("bad", NOT_BUFFERS)
def test_type_errors_for_non_buffers(bad: Any) -> None:
    calls: List[Callable[[], Any]] = [
        lambda: poly1305aes.authenticate(bad, N, b""),
        lambda: poly1305aes.authenticate(K, bad, b""),
        lambda: poly1305aes.authenticate(K, N, bad),
        lambda: poly1305aes.verify(K, bad, N, b""),
        lambda: poly1305aes.Poly1305AES(K, N).update(bad),
        lambda: mmh.mac("mmh32", K, N, bad),
        lambda: mmh.Mmh("mmh32", K, N).update(bad),
        lambda: cwc.CWC(K).encrypt(bytes(11), bad, None),
        lambda: cwc.CWC(K).decrypt(bytes(11), bad, None),
    ]
    for call in calls:
        with pytest.raises(TypeError):
            call()


def test_non_contiguous_memoryview_is_a_type_error() -> None:
    strided = memoryview(bytes(64))[::2]
    with pytest.raises(TypeError, match="C-contiguous"):
        poly1305aes.authenticate(K, N, strided)
    with pytest.raises(TypeError, match="C-contiguous"):
        # numpy declares __buffer__ in its stubs for Python >= 3.12 only
        poly1305aes.authenticate(K, N, np.zeros((8, 8), dtype=np.uint8)[:, 1])  # type: ignore[arg-type]


def test_other_buffer_kinds_are_accepted() -> None:
    import array

    data = bytes(range(256)) * 4
    want = poly1305aes.authenticate(K, N, data)
    assert poly1305aes.authenticate(K, N, array.array("B", data)) == want
    assert poly1305aes.authenticate(K, N, array.array("I", data)) == want  # item format ignored: bytes are bytes
    assert poly1305aes.authenticate(K, N, np.frombuffer(data, dtype=np.float64)) == want  # type: ignore[arg-type]
    with mmap.mmap(-1, len(data)) as mm:
        mm.write(data)
        assert poly1305aes.authenticate(K, N, mm) == want


def test_tampered_tags_and_ciphertexts() -> None:
    # an r of 0 would make every message's tag AES_k(n): use a real key
    K = poly1305aes.clamp(bytes(range(1, 33)))
    msg = b"attack at dawn"
    tag = poly1305aes.authenticate(K, N, msg)
    for i in range(16):
        bad = bytearray(tag)
        bad[i] ^= 1
        with pytest.raises(wegman.InvalidTag):
            poly1305aes.verify(K, bad, N, msg)
        with pytest.raises(wegman.InvalidTag):
            poly1305aes.Poly1305AES(K, N, msg).verify(bad)
    with pytest.raises(wegman.InvalidTag):
        poly1305aes.verify(K, tag, N, msg + b"!")
    for alg in mmh.ALGORITHMS:
        t = bytearray(mmh.mac(alg, K, N, msg))
        t[-1] ^= 0x80
        with pytest.raises(wegman.InvalidTag):
            mmh.verify(alg, K, t, N, msg)
        with pytest.raises(wegman.InvalidTag):
            mmh.MacKey(alg, K).verify(t, N, msg)
        with pytest.raises(wegman.InvalidTag):
            mmh.Mmh(alg, K, N, msg).verify(t)
    c = cwc.CWC(bytes(32))
    sealed = c.encrypt(bytes(11), msg, b"aad")
    for i in range(len(sealed)):
        bad = bytearray(sealed)
        bad[i] ^= 4
        with pytest.raises(wegman.InvalidTag):
            c.decrypt(bytes(11), bad, b"aad")
    for wrong in [(bytes(11), sealed, b"aaD"), (bytes(11), sealed, None), (b"\x01" + bytes(10), sealed, b"aad")]:
        with pytest.raises(wegman.InvalidTag):
            c.decrypt(*wrong)
    for cut in range(len(sealed)):
        with pytest.raises(wegman.InvalidTag):
            c.decrypt(bytes(11), sealed[:cut], b"aad")


def test_cwc_decrypt_returns_nothing_on_a_bad_tag() -> None:
    c = cwc.CWC(bytes(16))
    sealed = bytearray(c.encrypt(bytes(11), b"x" * 5000, None))
    sealed[-1] ^= 1
    out: Any = "untouched"
    with pytest.raises(wegman.InvalidTag):
        out = c.decrypt(bytes(11), sealed, None)
    assert out == "untouched"


def test_cwc_lengths_past_the_limit(tmp_path: pathlib.Path) -> None:
    """The limit is 2^32 - 1 blocks (64 GiB): a sparse file of one byte more,
    mapped, is refused before any byte is read or any output allocated."""
    path = tmp_path / "huge"
    with open(path, "wb") as out:
        out.truncate(cwc.MAX_BYTES + 1)
    c = cwc.CWC(bytes(16))
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as big:
        with pytest.raises(ValueError, match="message too long"):
            c.encrypt(bytes(11), big, None)
        with pytest.raises(ValueError, match="associated data too long"):
            c.encrypt(bytes(11), b"", big)
        with pytest.raises(ValueError, match="associated data too long"):
            c.decrypt(bytes(11), bytes(16), big)
    with open(path, "ab") as out:
        out.truncate(cwc.MAX_BYTES + 17)
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as big:
        with pytest.raises(ValueError, match="ciphertext too long"):
            c.decrypt(bytes(11), big, None)
    os.unlink(path)


def test_no_bad_input_reaches_a_panic() -> None:
    """A sweep of malformed calls: every one raises an ordinary exception,
    none the PanicException PyO3 raises for a Rust panic (a BaseException)."""
    weird: List[Any] = [b"", bytes(1), bytes(15), bytes(17), bytes(33), bytes(64), b"\xff" * 32, None, "x", -1]
    calls: List[Callable[[Any], Any]] = [
        lambda a: poly1305aes.authenticate(a, N, b"m"),
        lambda a: poly1305aes.authenticate(K, a, b"m"),
        lambda a: poly1305aes.verify(K, a, N, b"m"),
        lambda a: poly1305aes.clamp(a),
        lambda a: poly1305aes.ExpandedKey(a),
        lambda a: poly1305aes.authenticate_many([(a, a, a)]),
        lambda a: poly1305aes.authenticate_many([a]),
        lambda a: mmh.mac("mmh64x2", a, N, b"m"),
        lambda a: mmh.verify("mmh32x3", K, a, N, b"m"),
        lambda a: mmh.Mmh("nmh32", K, a),
        lambda a: cwc.CWC(a),
        lambda a: cwc.CWC(bytes(24)).decrypt(bytes(11), a, a),
        lambda a: cwc.CWC(bytes(24)).encrypt(a, b"", None),
        lambda a: cwc.CWC(bytes(24)).encrypt(bytes(11), b"", None, a if isinstance(a, int) else 99),
    ]
    refused = 0
    for call in calls:
        for a in weird:
            try:
                call(a)
            except (ValueError, TypeError, OverflowError, wegman.InvalidTag):
                refused += 1
            except BaseException as e:  # PanicException derives from BaseException
                pytest.fail(f"{type(e).__name__}: {e}")
    print(f"Python bad-input sweep: {len(calls) * len(weird)} calls, {refused} refused, 0 panics")


def test_keys_never_in_repr() -> None:
    key = bytes(range(32))
    objs: List[Any] = [
        poly1305aes.Poly1305AES(poly1305aes.clamp(key), N),
        poly1305aes.ExpandedKey(poly1305aes.clamp(key)),
        mmh.MacKey("mmh32", key),
        mmh.Mmh("mmh32", key, N),
        cwc.CWC(key),
    ]
    for o in objs:
        text = repr(o) + str(o)
        assert "(key hidden)" in text
        for secret in (key.hex(), key[:8].hex(), repr(key)):
            assert secret not in text
