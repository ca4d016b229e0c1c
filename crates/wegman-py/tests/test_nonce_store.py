"""Key files, nonce stores and manifests shared with the `wegman` command:
the CLI and Python alternating on one key never repeat a nonce."""

import os
import pathlib
import re
import subprocess
import threading
from typing import List

import pytest

import wegman
from wegman import mmh, poly1305aes

from conftest import REPO


def cli() -> pathlib.Path:
    """The `wegman` binary: $WEGMAN_CLI, or the workspace's release build."""
    given = os.environ.get("WEGMAN_CLI")
    path = pathlib.Path(given) if given else REPO / "target" / "release" / "wegman"
    if not path.exists():
        if given:
            pytest.fail(f"WEGMAN_CLI={given} does not exist")
        pytest.skip("build it with `cargo build --release -p wegman-cli` or set WEGMAN_CLI")
    return path


def run(*args: str, cwd: pathlib.Path) -> str:
    out = subprocess.run([str(cli()), *args], cwd=cwd, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout


def nonces_of(lines: List[str]) -> List[str]:
    return [m.group(1) for line in lines for m in [re.search(r"nonce=([0-9a-f]{32})", line)] if m]


def read_key(path: pathlib.Path) -> bytes:
    return bytes.fromhex(path.read_text().split("key ")[-1].strip())


def test_cli_and_python_alternate_without_repeating(tmp_path: pathlib.Path) -> None:
    run("keygen", "-o", "key", cwd=tmp_path)
    (tmp_path / "a.txt").write_bytes(b"alpha")
    (tmp_path / "b.txt").write_bytes(b"beta" * 1000)
    seen: List[str] = []
    for round in range(4):
        seen += nonces_of(run("tag", "-k", "key", "a.txt", "b.txt", cwd=tmp_path).splitlines())
        with wegman.NonceStore(tmp_path / "key") as store:
            seen.append(store.next_nonce().hex())
            nonce, tag = store.mac(b"message")
            seen.append(nonce.hex())
            poly1305aes.verify(read_key(tmp_path / "key"), tag, nonce, b"message")
            seen += nonces_of(store.tag_files([str(tmp_path / "a.txt")]))
        if round % 2:
            # left open without close(): the reserved block is skipped, never reused
            leaked = wegman.NonceStore(tmp_path / "key", reserve=16)
            seen.append(leaked.next_nonce().hex())
            del leaked
    assert len(seen) == 4 * 3 + 4 * 4 + 2  # per round: CLI seal + 2 files; Python 2 + seal + 1 file
    assert len(set(seen)) == len(seen), "a nonce was handed out twice"


def test_manifests_are_interchangeable(tmp_path: pathlib.Path) -> None:
    wegman.keygen(tmp_path / "key", "mmh32x4")
    (tmp_path / "f").write_bytes(b"x" * 5000)
    cli_manifest = run("tag", "-k", "key", "f", cwd=tmp_path)
    (tmp_path / "cli.manifest").write_text(cli_manifest)
    os.chdir(tmp_path)
    with wegman.NonceStore("key") as store:
        py_lines = store.tag_file("f")
    assert [line.split(" ")[0] for line in py_lines] == ["MMH32X4/2", "MMH32X4/2"]
    (tmp_path / "py.manifest").write_text("\n".join(py_lines) + "\n")
    assert run("check", "-k", "key", "py.manifest", cwd=tmp_path) == "f: OK\n"
    result = wegman.check_manifest("key", "cli.manifest")
    assert result.ok and result.status == 0 and result.lines == ["f: OK"] and bool(result)
    (tmp_path / "f").write_bytes(b"y" * 5000)
    bad = wegman.check_manifest("key", "py.manifest")
    assert not bad.ok and bad.status == 1 and bad.lines == ["f: FAILED"]
    assert any("did NOT match" in w for w in bad.warnings)


def test_python_keygen_matches_the_cli_format(tmp_path: pathlib.Path) -> None:
    for alg in ("poly1305aes",) + mmh.ALGORITHMS:
        wegman.keygen(tmp_path / alg, alg)
        text = (tmp_path / alg).read_text()
        assert text.startswith("wegman-key v1\n") and f"\nalg {alg}\nkey " in text
        # a sealed base, with generation 1 beside it
        assert (tmp_path / (alg + ".nonce")).read_text().startswith("wegman-nonce-state v3\n")
        assert (tmp_path / (alg + ".nonce.1")).read_text().startswith("wegman-nonce-generation v3\n")
        assert oct((tmp_path / alg).stat().st_mode & 0o777) == "0o600"
    with pytest.raises(wegman.NonceStoreError):
        wegman.keygen(tmp_path / "poly1305aes")  # never overwrites
    with pytest.raises(ValueError):
        wegman.keygen(tmp_path / "other", "sha256")
    # the CLI reads a key Python made
    (tmp_path / "f").write_bytes(b"")
    assert "POLY1305-AES/2 (f)" in run("tag", "-k", "poly1305aes", "f", cwd=tmp_path)


def test_python_cwc_keys_seal_with_fresh_nonces_through_the_cli(tmp_path: pathlib.Path) -> None:
    wegman.keygen(tmp_path / "c.key", "cwc-aes-256")
    text = (tmp_path / "c.key").read_text()
    assert "\nalg cwc-aes-256\nkey " in text and len(read_key(tmp_path / "c.key")) == 32
    (tmp_path / "p").write_bytes(b"same plaintext")
    sealed = []
    for i in range(3):
        run("seal", "cwc", "--key-file", "c.key", "p", "-o", f"s{i}", cwd=tmp_path)
        sealed.append((tmp_path / f"s{i}").read_bytes())
        assert run("open", "cwc", "--key-file", "c.key", f"s{i}", cwd=tmp_path) == "same plaintext"
    assert len({nonce_of(s) for s in sealed}) == 3  # a fresh nonce each time, in the header


def test_store_errors(tmp_path: pathlib.Path) -> None:
    wegman.keygen(tmp_path / "key")
    os.unlink(tmp_path / "key.nonce")
    with pytest.raises(wegman.NonceStoreError, match="missing"):
        wegman.NonceStore(tmp_path / "key")
    wegman.keygen(tmp_path / "k2")
    store = wegman.NonceStore(tmp_path / "k2")
    store.close()
    store.close()
    with pytest.raises(ValueError, match="closed"):
        store.next_nonce()
    assert "closed" in repr(store)
    with wegman.NonceStore(tmp_path / "k2") as s2:
        with pytest.raises(OSError):
            s2.tag_files([str(tmp_path / "does-not-exist")])


# A store opened in the parent, inherited by forked workers:
# module-level, so that multiprocessing's fork context runs it.
_INHERITED: "List[wegman.NonceStore]" = []


def _take_in_child(count: int) -> List[str]:
    store = _INHERITED[0]
    taken = [store.next_nonce().hex() for _ in range(count)]
    store.close()  # must not give the parent's range back
    return taken


def test_forked_workers_never_reuse_a_nonce(tmp_path: pathlib.Path) -> None:
    import multiprocessing

    wegman.keygen(tmp_path / "key")
    store = wegman.NonceStore(tmp_path / "key", reserve=100)
    first = store.next_nonce().hex()  # the parent has a reserved range now
    _INHERITED[:] = [store]
    try:
        ctx = multiprocessing.get_context("fork")
        # one task per worker: each closes the store it inherited
        with ctx.Pool(8, maxtasksperchild=1) as pool:
            per_worker = pool.map(_take_in_child, [5] * 16)
        later = [store.next_nonce().hex() for _ in range(5)]
        store.close()
    finally:
        _INHERITED.clear()
    everything = [first, *later, *(n for ns in per_worker for n in ns)]
    assert len(everything) == 1 + 5 + 16 * 5
    assert len(set(everything)) == len(everything), "a nonce was handed out twice"
    # and the state is above all of them
    with wegman.NonceStore(tmp_path / "key") as again:
        nxt = int.from_bytes(again.next_nonce(), "little")
    assert nxt > max(int.from_bytes(bytes.fromhex(n), "little") for n in everything)


def test_opening_one_store_twice_is_an_error_not_a_deadlock(tmp_path: pathlib.Path) -> None:
    wegman.keygen(tmp_path / "key")
    with wegman.NonceStore(tmp_path / "key"):
        with pytest.raises(wegman.NonceStoreError, match="already open in this process"):
            wegman.NonceStore(tmp_path / "key")
    with wegman.NonceStore(tmp_path / "key") as s:
        s.next_nonce()


def test_threads_share_one_store(tmp_path: pathlib.Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    wegman.keygen(tmp_path / "key")
    with wegman.NonceStore(tmp_path / "key", reserve=3) as store:
        with ThreadPoolExecutor(8) as pool:
            results = list(pool.map(lambda i: store.mac(b"message %d" % i), range(400)))
    nonces = [n for n, _ in results]
    assert len(set(nonces)) == 400
    key = next(x for x in (tmp_path / "key").read_text().splitlines() if x.startswith("key "))[4:]
    for i, (nonce, tag) in enumerate(results):
        poly1305aes.verify(bytes.fromhex(key), tag, nonce, b"message %d" % i)  # raises if wrong


def test_the_fork_hook_makes_an_inherited_store_reserve_its_own(tmp_path: pathlib.Path) -> None:
    # What os.register_at_fork's after_in_child does in a forked child, here
    # in this process: the store must forget the reserved block as the
    # parent's, whatever the process id says (a child can be given the PID
    # its grandparent had), and not give it back at close.
    import importlib

    after_fork_in_child = getattr(importlib.import_module("wegman._wegman"), "_after_fork_in_child")

    wegman.keygen(tmp_path / "key")
    def next_int(store: "wegman.NonceStore") -> int:
        return int.from_bytes(store.next_nonce(), "little")

    with wegman.NonceStore(tmp_path / "key", reserve=100) as store:
        assert next_int(store) == 0  # block [0, 100)
        after_fork_in_child()
        assert next_int(store) == 100  # its own block [100, 200), not 1
    # its own block's rest was given back at close, the "parent's" was not
    with wegman.NonceStore(tmp_path / "key", reserve=100) as store:
        assert next_int(store) == 101  # block [101, 201)
        after_fork_in_child()
    with wegman.NonceStore(tmp_path / "key") as again:
        assert next_int(again) == 201  # the inherited block was not given back


def _spin(store: wegman.NonceStore, stop: threading.Event, taken: List[str]) -> None:
    while not stop.is_set():
        taken.append(store.mac(b"busy %d" % len(taken))[0].hex())


def test_fork_while_other_threads_use_the_store(tmp_path: pathlib.Path) -> None:
    # The forking thread waits until no other thread is inside a store call
    # (os.register_at_fork's before hook), so a child never inherits a store
    # locked by a thread it does not have: the workers finish.
    import multiprocessing
    import warnings

    wegman.keygen(tmp_path / "key")
    store = wegman.NonceStore(tmp_path / "key", reserve=2)
    stop = threading.Event()
    taken: List[List[str]] = [[], [], []]
    spinners = [threading.Thread(target=_spin, args=(store, stop, t)) for t in taken]
    _INHERITED[:] = [store]
    try:
        for t in spinners:
            t.start()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # 3.12+: fork with threads
            with multiprocessing.get_context("fork").Pool(2, maxtasksperchild=1) as pool:
                per_worker = pool.map_async(_take_in_child, [3] * 8).get(timeout=120)
    finally:
        stop.set()
        for t in spinners:
            t.join()
        _INHERITED.clear()
    later = store.next_nonce().hex()
    store.close()
    in_threads = [n for ns in taken for n in ns]
    everything = [later, *in_threads, *(n for ns in per_worker for n in ns)]
    assert len(everything) == 1 + len(in_threads) + 8 * 3
    assert len(set(everything)) == len(everything), "a nonce was handed out twice"


HEADER = 30  # docs/sealed-format.md: magic, version, algorithm, key id, tag length, nonce


def nonce_of(sealed: bytes) -> bytes:
    return sealed[19:HEADER]


@pytest.mark.parametrize("alg", ["cwc-aes-128", "cwc-aes-192", "cwc-aes-256"])
def test_cwc_seal_takes_each_nonce_from_the_store(tmp_path: pathlib.Path, alg: str) -> None:
    from wegman.cwc import CWC

    wegman.keygen(tmp_path / "key", alg)
    key = bytes.fromhex(next(x for x in (tmp_path / "key").read_text().splitlines() if x.startswith("key "))[4:])
    with wegman.NonceStore(tmp_path / "key", reserve=3) as store:
        assert store.alg == alg
        sealed = [store.seal(b"message %d" % i, b"aad", tag_len=12) for i in range(10)]
        for i, s in enumerate(sealed):
            assert s[:8] == b"WEGMCWC\0" and s[8] == 1 and s[9] == {16: 1, 24: 2, 32: 3}[len(key)] and s[18] == 12
            assert store.open(s, b"aad") == b"message %d" % i  # the tag length from the header
            assert store.open(s, b"aad", tag_len=12) == b"message %d" % i
            # the plain CWC under the header's nonce, the header (length first) before the caller's data
            aad = HEADER.to_bytes(2, "big") + s[:HEADER] + b"aad"
            assert CWC(key).encrypt(nonce_of(s), b"message %d" % i, aad, tag_len=12) == s[HEADER:]
        headerless = store.seal(b"old format", b"aad", headerless=True)
        assert store.open(headerless, b"aad", headerless=True) == b"old format"
        nonces = [nonce_of(s) for s in sealed] + [headerless[:11]]
    assert len(set(nonces)) == 11
    assert [int.from_bytes(n, "little") for n in nonces] == sorted(int.from_bytes(n, "little") for n in nonces)
    # a reopened store goes on above them
    with wegman.NonceStore(tmp_path / "key") as store:
        assert int.from_bytes(nonce_of(store.seal(b"")), "little") > max(int.from_bytes(n, "little") for n in nonces)


def test_cwc_open_refuses_and_releases_nothing(tmp_path: pathlib.Path) -> None:
    wegman.keygen(tmp_path / "key", "cwc-aes-128")
    wegman.keygen(tmp_path / "other", "cwc-aes-128")
    with wegman.NonceStore(tmp_path / "key") as store:
        sealed = store.seal(b"secret payload", b"aad")
        for i in range(len(sealed)):  # the header, the ciphertext and the tag
            bad = bytearray(sealed)
            bad[i] ^= 0x10
            # an edited magic, version, algorithm, key id or tag length is
            # named (ValueError); anything else fails the tag
            with pytest.raises((wegman.InvalidTag, ValueError)):
                store.open(bad, b"aad")
        with pytest.raises(wegman.InvalidTag):
            store.open(sealed, b"other aad")
        # the tag cut short fails, whatever tag_len says
        with pytest.raises(wegman.InvalidTag):
            store.open(sealed[:-8], b"aad")
        with pytest.raises(ValueError, match="header says"):
            store.open(sealed[:-8], b"aad", tag_len=8)
        for short in (b"", sealed[:10], sealed[:29]):
            with pytest.raises(ValueError):
                store.open(short, b"aad")
        with pytest.raises(wegman.InvalidTag):
            store.open(sealed[:HEADER + 4], b"aad")
        with pytest.raises(ValueError, match="headerless=True"):
            store.open(bytes(60), b"aad")
        with pytest.raises(ValueError):
            store.seal(b"x", tag_len=17)
    with wegman.NonceStore(tmp_path / "other") as store:
        with pytest.raises(ValueError, match="key id"):
            store.open(sealed, b"aad")


def test_a_key_kind_is_refused_before_any_nonce_is_taken(tmp_path: pathlib.Path) -> None:
    wegman.keygen(tmp_path / "mac")
    wegman.keygen(tmp_path / "cwc", "cwc-aes-128")
    with wegman.NonceStore(tmp_path / "mac") as store:
        with pytest.raises(ValueError, match="CWC key"):
            store.seal(b"x")
        with pytest.raises(ValueError, match="CWC key"):
            store.open(bytes(40))
        assert store.next_nonce() == bytes(16)  # nothing was taken
    with wegman.NonceStore(tmp_path / "cwc") as store:
        with pytest.raises(ValueError, match="seal"):
            store.mac(b"x")
        with pytest.raises(ValueError, match="seal"):
            store.tag_files([str(tmp_path / "mac")])
        assert nonce_of(store.seal(b"")) == bytes(11)  # nothing was taken


def test_cwc_seal_and_the_cli_take_turns(tmp_path: pathlib.Path) -> None:
    # NonceStore.seal and `wegman seal cwc` write one format (the header);
    # each opens the other's, and with --headerless / headerless=True the
    # format before it.
    wegman.keygen(tmp_path / "key", "cwc-aes-256")
    (tmp_path / "plain").write_bytes(b"from the command line")
    nonces = []
    for headerless in (False, True):
        flag = ["--headerless"] if headerless else []
        for _ in range(2):
            with wegman.NonceStore(tmp_path / "key") as store:
                sealed = store.seal(b"from python", headerless=headerless)
                nonces.append(sealed[:11] if headerless else nonce_of(sealed))
                (tmp_path / "py.sealed").write_bytes(sealed)
            out = subprocess.run(
                [str(cli()), "seal", "cwc", *flag, "--key-file", "key", "plain"],
                cwd=tmp_path,
                capture_output=True,
                check=True,
            ).stdout
            nonces.append(out[:11] if headerless else nonce_of(out))
            with wegman.NonceStore(tmp_path / "key") as store:
                assert store.open(out, headerless=headerless) == b"from the command line"
            opened = subprocess.run(
                [str(cli()), "open", "cwc", *flag, "--key-file", "key", "py.sealed"],
                cwd=tmp_path,
                capture_output=True,
                check=True,
            ).stdout
            assert opened == b"from python"
    assert len(set(nonces)) == 8
