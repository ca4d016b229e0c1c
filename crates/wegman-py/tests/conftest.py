"""Shared helpers: the project's test vectors and the buffer types every
input is fed as."""

import json
import os
import pathlib
from typing import Any, Callable, Dict, Iterator, List

import numpy as np

REPO = pathlib.Path(__file__).resolve().parents[3]
SHARED = pathlib.Path(os.environ.get("WEGMAN_SHARED", REPO.parent / "shared"))

Vector = Dict[str, Any]


def vectors(name: str) -> Dict[str, List[Vector]]:
    """The groups of ../shared/vectors/NAME.json, by group name."""
    with open(SHARED / "vectors" / f"{name}.json") as f:
        doc = json.load(f)
    return {g["name"]: g["vectors"] for g in doc["groups"]}


def h(s: str) -> bytes:
    return bytes.fromhex(s)


def _memoryview_slice(b: bytes) -> memoryview:
    """`b` as a memoryview that starts 3 bytes into a larger buffer."""
    return memoryview(b"\xaa\xbb\xcc" + b + b"\xdd")[3 : 3 + len(b)]


def _numpy(b: bytes) -> "np.ndarray[Any, np.dtype[np.uint8]]":
    return np.frombuffer(b, dtype=np.uint8).copy()


def _numpy_offset(b: bytes) -> "np.ndarray[Any, np.dtype[np.uint8]]":
    return np.frombuffer(b"\x00" + b, dtype=np.uint8)[1:]


BUFFER_TYPES: Dict[str, Callable[[bytes], Any]] = {
    "bytes": bytes,
    "bytearray": bytearray,
    "memoryview-slice": _memoryview_slice,
    "numpy": _numpy,
    "numpy-offset": _numpy_offset,
}


def as_each_buffer(b: bytes) -> Iterator[Any]:
    for conv in BUFFER_TYPES.values():
        yield conv(b)


def splits(data: bytes, cuts: List[int]) -> List[bytes]:
    """`data` cut at the given offsets (sorted, clipped to its length)."""
    points = sorted({min(max(c, 0), len(data)) for c in cuts})
    out, start = [], 0
    for p in points + [len(data)]:
        out.append(data[start:p])
        start = p
    return out
