"""Every vector of ../shared/vectors/*.json through the Python API: one-shot
with each buffer type, streaming with random splits (hypothesis)."""

import random
from typing import Dict, List, Tuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import wegman
from wegman import cwc, mmh, poly1305aes

from conftest import Vector, as_each_buffer, h, splits, vectors

POLY = vectors("poly1305aes")
# The Poly1305-AES groups with a full (k, r, n, m, tag); the Poly1305-core
# groups (r, s given directly) test an interface the Python API does not offer.
POLY_TAGS: List[Vector] = [v for name in ("paper-appendix-A", "random-lengths", "edge-cases") for v in POLY[name]]
MMH = vectors("mmh")["mac"]
CWC_GROUPS = vectors("cwc")
CWC_OK: List[Vector] = [v for name, vs in CWC_GROUPS.items() if name != "decrypt-negative" for v in vs]


def test_vector_counts() -> None:
    assert len(POLY_TAGS) >= 370 and len(MMH) >= 2000 and len(CWC_OK) >= 600


def test_poly1305aes_one_shot_every_buffer_type() -> None:
    for v in POLY_TAGS:
        kr, n, m, tag = h(v["k"]) + h(v["r"]), h(v["n"]), h(v["m"]), h(v["tag"])
        ek = poly1305aes.ExpandedKey(kr)
        for key, nonce, data in zip(as_each_buffer(kr), as_each_buffer(n), as_each_buffer(m)):
            assert poly1305aes.authenticate(key, nonce, data) == tag, v["name"]
            poly1305aes.verify(key, tag, nonce, data)
            assert ek.authenticate(nonce, data) == tag
            ek.verify(tag, nonce, data)
            assert poly1305aes.Poly1305AES(key, nonce, data).digest() == tag


def test_poly1305aes_batch() -> None:
    items = [(h(v["k"]) + h(v["r"]), h(v["n"]), h(v["m"])) for v in POLY_TAGS]
    assert poly1305aes.authenticate_many(items) == [h(v["tag"]) for v in POLY_TAGS]


def test_poly1305aes_invalid_r_rejected_and_clamped() -> None:
    for v in POLY["invalid-r"]:
        kr = h(v["k"]) + h(v["r"])
        with pytest.raises(ValueError, match=r"r\[\d+\] must"):
            poly1305aes.authenticate(kr, h(v["n"]), h(v["m"]))
        assert poly1305aes.clamp(kr) == h(v["k"]) + h(v["r_clamped"])


def test_poly1305aes_streaming_random_splits() -> None:
    rng = random.Random(1305)
    for v in POLY_TAGS:
        kr, n, m = h(v["k"]) + h(v["r"]), h(v["n"]), h(v["m"])
        s = poly1305aes.Poly1305AES(kr, n)
        for part in splits(m, [rng.randrange(len(m) + 1) for _ in range(rng.randrange(4))]):
            s.update(part)
        assert s.hexdigest() == v["tag"]
        s.verify(h(v["tag"]))


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(POLY_TAGS), st.lists(st.integers(0, 2000), max_size=8), st.sampled_from(range(5)))
def test_poly1305aes_streaming_hypothesis(v: Vector, cuts: List[int], kind: int) -> None:
    kr, n, m = h(v["k"]) + h(v["r"]), h(v["n"]), h(v["m"])
    s = poly1305aes.Poly1305AES(kr, n)
    for part in splits(m, cuts):
        s.update(list(as_each_buffer(part))[kind])
    fork = s.copy()
    assert s.digest() == h(v["tag"])
    assert fork.digest() == h(v["tag"])


def test_mmh_one_shot_every_buffer_type() -> None:
    keys: Dict[Tuple[str, str], mmh.MacKey] = {}
    for v in MMH:
        key, n, m, tag = h(v["key"]), h(v["nonce"]), h(v["m"]), h(v["tag"])
        mk = keys.setdefault((v["alg"], v["key"]), mmh.MacKey(v["alg"], key))
        for kb, nb, data in zip(as_each_buffer(key), as_each_buffer(n), as_each_buffer(m)):
            assert mmh.mac(v["alg"], kb, nb, data) == tag
            mmh.verify(v["alg"], kb, tag, nb, data)
            assert mk.mac(nb, data) == tag
            mk.verify(tag, nb, data)
        assert mmh.Mmh(v["alg"], key, n, m).digest() == tag


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(MMH), st.lists(st.integers(0, 5000), max_size=8))
def test_mmh_streaming_hypothesis(v: Vector, cuts: List[int]) -> None:
    s = mmh.Mmh(v["alg"], h(v["key"]), h(v["nonce"]))
    for part in splits(h(v["m"]), cuts):
        s.update(part)
    assert s.hexdigest() == v["tag"]
    s.copy().verify(h(v["tag"]))


def test_mmh_streaming_random_splits_all() -> None:
    rng = random.Random(97)
    for v in MMH:
        m = h(v["m"])
        s = mmh.Mmh(v["alg"], h(v["key"]), h(v["nonce"]))
        for part in splits(m, [rng.randrange(len(m) + 1) for _ in range(rng.randrange(4))]):
            s.update(memoryview(part))
        assert s.hexdigest() == v["tag"]


def test_mmh_algorithms() -> None:
    assert mmh.ALGORITHMS == ("mmh32", "mmh32x2", "mmh32x3", "mmh32x4", "nmh32", "mmh64", "mmh64x2")
    assert {v["alg"] for v in MMH} == set(mmh.ALGORITHMS)


def test_cwc_every_vector_every_buffer_type() -> None:
    for v in CWC_OK:
        c = cwc.CWC(h(v["key"]))
        n, aad, pt, ct, tl = h(v["nonce"]), h(v["aad"]), h(v["pt"]), h(v["ct"]), v["tag_len"]
        for nb, ab, pb, cb in zip(as_each_buffer(n), as_each_buffer(aad), as_each_buffer(pt), as_each_buffer(ct)):
            assert c.encrypt(nb, pb, ab, tl) == ct, v["name"]
            assert c.decrypt(nb, cb, ab, tag_len=tl) == pt
        if not aad:
            assert c.encrypt(n, pt, None, tl) == ct


def test_cwc_negative_vectors() -> None:
    """Every INVALID case raises InvalidTag; the control decrypts."""
    for v in CWC_GROUPS["decrypt-negative"]:
        c = cwc.CWC(h(v["key"]))
        args = (h(v["nonce"]), h(v["ct"]), h(v["aad"]), int(v["tag_len"]))
        if v["expect"] == "INVALID":
            with pytest.raises(wegman.InvalidTag):
                c.decrypt(*args)
        else:
            assert c.decrypt(*args) == h(v["expect"])
