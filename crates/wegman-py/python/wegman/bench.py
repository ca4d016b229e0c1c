"""Time wegman's Python calls against the Python packages people use for the
same job: ``python -m wegman.bench`` (or ``python crates/wegman-py/bench.py``).

Each row is the call a user makes, per message, in ns:

* Poly1305-AES: ``wegman.poly1305aes.authenticate(key, nonce, data)`` vs
  pycryptodome's ``Poly1305.new(key=k||r, cipher=AES, nonce=n).update(data).digest()``
  vs ``cryptography``'s AES-ECB of the nonce then ``Poly1305.generate_tag(r||s, data)``;
* AEAD: ``wegman.cwc.CWC(key).encrypt`` vs ``cryptography``'s ``AESGCM(key).encrypt``
  (the key object made once, outside the timing, for both).

Needs pycryptodome and cryptography installed.
"""

import argparse
import os
import platform
import timeit
from typing import Callable, Dict, List

LENGTHS = [16, 64, 1024, 64 << 10, 1 << 20]


def cpu_model() -> str:
    """The CPU's model name with its family and model numbers (the name
    alone, e.g. "AMD EPYC", does not tell Zen 4 from Zen 5)."""
    fields: Dict[str, str] = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if not line.strip():
                    break
                key, _, value = line.partition(":")
                fields.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    name = fields.get("model name") or platform.processor() or "unknown CPU"
    if "cpu family" in fields and "model" in fields:
        name += f" (family {fields['cpu family']}, model {fields['model']})"
    return name


def ns_per_call(fn: Callable[[], object], budget: float) -> float:
    """Best of 5 timings, each of about `budget`/5 seconds."""
    timer = timeit.Timer(fn)
    n, t = timer.autorange()
    per = t / n
    reps = max(1, int(budget / 5 / per))
    return min(timer.repeat(5, reps)) / reps * 1e9


def contenders(length: int) -> Dict[str, Dict[str, Callable[[], object]]]:
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    from cryptography.hazmat.primitives.poly1305 import Poly1305 as CPoly1305
    from Crypto.Cipher import AES
    from Crypto.Hash import Poly1305 as DPoly1305

    import wegman

    data = os.urandom(length)
    kr = wegman.poly1305aes.clamp(os.urandom(32))
    k, r = kr[:16], kr[16:]
    nonce = os.urandom(16)

    def cryptography_poly1305aes() -> bytes:
        enc = Cipher(algorithms.AES(k), modes.ECB()).encryptor()
        s = enc.update(nonce) + enc.finalize()
        return CPoly1305.generate_tag(r + s, data)

    cwc = wegman.cwc.CWC(os.urandom(16))
    gcm = AESGCM(os.urandom(16))
    n11, n12 = os.urandom(11), os.urandom(12)
    return {
        "Poly1305-AES": {
            "wegman": lambda: wegman.poly1305aes.authenticate(kr, nonce, data),
            "pycryptodome": lambda: DPoly1305.new(key=kr, cipher=AES, nonce=nonce).update(data).digest(),
            "cryptography": cryptography_poly1305aes,
        },
        "AEAD encrypt": {
            "wegman": lambda: cwc.encrypt(n11, data, None),
            "cryptography": lambda: gcm.encrypt(n12, data, None),
        },
    }


def label(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB" if n >= 1024 else f"{n} B"


def main(argv: "List[str] | None" = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=float, default=0.5, help="seconds per measurement (default 0.5)")
    args = ap.parse_args(argv)
    print(f"CPU: {cpu_model()}")
    print(f"Python {platform.python_version()}, ns per call (best of 5)")
    print()
    print(f"{'table':<14}{'length':>8}  {'wegman':>11}  {'peer':<13}{'peer ns':>11}  {'wegman/peer':>11}")
    for table in ("Poly1305-AES", "AEAD encrypt"):
        for length in LENGTHS:
            calls = contenders(length)[table]
            ours = ns_per_call(calls["wegman"], args.budget)
            for peer, fn in calls.items():
                if peer == "wegman":
                    continue
                theirs = ns_per_call(fn, args.budget)
                shown = "AESGCM" if table.startswith("AEAD") else peer
                print(f"{table:<14}{label(length):>8}  {ours:>11.0f}  {shown:<13}{theirs:>11.0f}  {ours / theirs:>11.2f}")


if __name__ == "__main__":
    main()
