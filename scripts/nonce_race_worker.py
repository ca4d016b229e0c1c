"""The Python side of scripts/nonce-race: one run of Python
workers taking nonces from a key's store while `wegman tag` runs take them
from the same store, and the harness removes lock files and stops and kills
processes around them.

    python nonce_race_worker.py MODE KEY MACS RESERVE

MODE is how the workers share the key:

* ``threads`` -- one store, four threads calling ``mac`` on it;
* ``fork`` -- the store is opened and used in this process, then inherited
  by forked ``multiprocessing`` workers that call ``mac`` on it (each must
  reserve nonces of its own, never hand out this process's), and used again
  here after them;
* ``spawn`` -- spawned workers, each opening the store itself.

Every ``mac`` is over data no other call uses, so a nonce handed out twice
shows as one nonce with two different tags. Each result is written as soon
as it exists, as one ``write`` of one line in the format the harness
collects from manifests (``... nonce=HEX = TAG``): the lines of a run that
is killed half-way are counted too.
"""

import multiprocessing
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import List, Optional

import wegman

_INHERITED: List["wegman.NonceStore"] = []


def _emit(mode: str, nonce: bytes, tag: bytes) -> None:
    line = f"PY {mode} {os.getpid()} nonce={nonce.hex()} = {tag.hex()}\n"
    os.write(1, line.encode())


def _unique(mode: str, i: int) -> bytes:
    return f"{mode} {os.getpid()} {threading.get_ident()} {i} {os.urandom(8).hex()}".encode()


def _macs(store: "wegman.NonceStore", mode: str, count: int) -> None:
    for i in range(count):
        nonce, tag = store.mac(_unique(mode, i))
        _emit(mode, nonce, tag)


def _in_forked_child(count: int) -> None:
    store = _INHERITED[0]
    _macs(store, "fork", count)
    store.close()  # must not give the parent's range back


def _in_spawned_child(key: str, count: int, reserve: int) -> None:
    with wegman.NonceStore(key, reserve=reserve) as store:
        _macs(store, "spawn", count)


def main(argv: List[str]) -> int:
    mode, key, count, reserve = argv[1], argv[2], int(argv[3]), int(argv[4])
    store: Optional[wegman.NonceStore] = None
    if mode == "threads":
        with wegman.NonceStore(key, reserve=reserve) as store:
            with ThreadPoolExecutor(4) as pool:
                for f in [pool.submit(_macs, store, mode, count) for _ in range(4)]:
                    f.result()
    elif mode == "fork":
        store = wegman.NonceStore(key, reserve=reserve)
        _macs(store, mode, 1)  # this process holds a reserved range now
        _INHERITED[:] = [store]
        with multiprocessing.get_context("fork").Pool(2, maxtasksperchild=1) as pool:
            pool.map(_in_forked_child, [count] * 3)
        _macs(store, mode, count)
        store.close()
    elif mode == "spawn":
        with multiprocessing.get_context("spawn").Pool(2) as pool:
            pool.starmap(_in_spawned_child, [(key, count, reserve)] * 2)
    else:
        print(f"unknown mode {mode!r} (threads, fork, spawn)", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
