"""The GIL is released while large buffers are hashed: threads run in
parallel and give the same tags as a serial run."""

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, List

from wegman import cwc, mmh, poly1305aes

KEY = poly1305aes.clamp(bytes(range(32)))
BUFFERS = [bytes([i]) * (8 << 20) for i in range(8)]
ROUNDS = 8  # each thread tags its 8 MiB buffer this many times


def work(i: int) -> bytes:
    tag = b""
    for r in range(ROUNDS):
        tag = poly1305aes.authenticate(KEY, bytes([r]) * 16, BUFFERS[i])
    return tag


def timed(run: Callable[[], List[bytes]]) -> "tuple[float, List[bytes]]":
    start = time.perf_counter()
    tags = run()
    return time.perf_counter() - start, tags


def test_eight_threads_beat_serial() -> None:
    cores = len(os.sched_getaffinity(0))
    ratios = []
    with ThreadPoolExecutor(8) as pool:
        # best of up to 5 (the machine may be busy): stop at the first pass
        for _ in range(5):
            serial, want = timed(lambda: [work(i) for i in range(8)])
            parallel, got = timed(lambda: list(pool.map(work, range(8))))
            assert got == want
            ratios.append(parallel / serial)
            if ratios[-1] <= 0.75:
                break
    if cores >= 2:
        # Two cores give at best 0.5; 0.75 leaves room for a busy machine.
        assert min(ratios) <= 0.75, ratios


def test_python_runs_while_a_large_buffer_is_hashed() -> None:
    """Independent of the core count: while one thread hashes, the main
    thread keeps executing Python bytecode."""
    big = bytes(256 << 20)
    done = threading.Event()
    ticks = 0

    def hash_big() -> None:
        for alg in ("poly", "mmh", "cwc"):
            if alg == "poly":
                poly1305aes.authenticate(KEY, bytes(16), big)
            elif alg == "mmh":
                mmh.mac("mmh32x4", KEY, bytes(16), big)
            else:
                cwc.CWC(bytes(16)).encrypt(bytes(11), big[: 64 << 20], None)
        done.set()

    t = threading.Thread(target=hash_big)
    t.start()
    while not done.is_set():
        ticks += 1
    t.join()
    assert ticks > 1000


def test_threads_share_one_expanded_key() -> None:
    ek = poly1305aes.ExpandedKey(KEY)
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda i: ek.authenticate(bytes(16), BUFFERS[i]), range(8)))
    assert got == [poly1305aes.authenticate(KEY, bytes(16), b) for b in BUFFERS]
