"""wegman.distributed at scale on this machine, on a LocalCluster
of 2 worker processes with one thread each:

  kill  RUNS FILES [--control]   RUNS tag runs of FILES files (0 B - 1 MiB,
        log-uniform), one worker SIGKILLed in each after a random number of
        nonces were used. Counts the nonces used twice (every execution notes
        each nonce before it uses it), the runs that returned a manifest, and
        checks each manifest with `wegman check`: it must list every file and
        verify. --control puts the lease in the task's arguments (the design
        not used): the count of reused nonces must then be above 0. --stop
        SIGSTOPs the worker for 8 s instead, on a cluster whose scheduler
        counts a worker dead after 5 s of silence (its floor for a small
        cluster: ten heartbeats), then lets it go on: a
        "zombie" that finishes a task Dask has already run again elsewhere.
  bench ROUNDS FILES             `wegman tag` (one thread per core) against
        wegman.distributed.tag on the same files, alternating, ROUNDS each.

Run through tools/distributed-kill and tools/distributed-bench.
"""

import os
import pathlib
import random
import statistics
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "crates" / "wegman-py" / "tests"))

import wegman  # noqa: E402
import wegman.distributed as wd  # noqa: E402
from test_distributed import Workers, kill_run, make_files  # noqa: E402
from test_nonce_store import nonces_of  # noqa: E402

CLI = os.environ.get("WEGMAN_CLI", str(REPO / "target" / "release" / "wegman"))


def cpu() -> str:
    with open("/proc/cpuinfo") as f:
        first = f.read().split("\n\n")[0].splitlines()
    info = {k.strip(): v for k, v in (line.split(":", 1) for line in first if ":" in line)}
    get = lambda k: info.get(k, "?").strip()  # noqa: E731
    return f"{get('model name')}, family {get('cpu family')} model {get('model')}, {os.cpu_count()} CPUs"


def wegman_check(key: pathlib.Path, manifest: str, d: pathlib.Path) -> int:
    path = d / "MANIFEST"
    path.write_text(manifest)
    return subprocess.run([CLI, "check", "--quiet", "-k", str(key), str(path)], capture_output=True).returncode


def kill(runs: int, count: int, control: bool, stop: bool) -> int:
    with tempfile.TemporaryDirectory(dir="/dev/shm") as tmp:
        d = pathlib.Path(tmp)
        key = d / "key"
        wegman.keygen(str(key))
        t = time.monotonic()
        names = make_files(d, count, seed=11)
        size = sum(os.path.getsize(n) for n in names)
        print(f"{cpu()}; {count} files, {size / 2**20:.0f} MiB, made in {time.monotonic() - t:.1f} s", flush=True)
        rng = random.Random(int.from_bytes(os.urandom(8), "little"))
        everything, reused, ok, failed_check, raised, mid = [], 0, 0, 0, 0, 0
        workers = Workers(worker_ttl="1s" if stop else None)
        try:
            for run in range(runs):
                t = time.monotonic()
                manifest, used, error = kill_run(
                    workers, key, names, d / "audit", rng, lease_in_task=control, batch_size=64,
                    stop_for=8.0 if stop else 0.0,
                )
                twice = len(used) - len(set(used))
                mid += len(used) > count
                reused += twice
                everything += used
                verdict = f"no manifest: {error}"
                if manifest is None:
                    raised += 1
                else:
                    lines = manifest.splitlines()
                    everything += nonces_of(lines[-1:])
                    good = len(lines) == count + 1 and wegman_check(key, manifest, d) == 0
                    ok += good
                    failed_check += not good
                    verdict = "manifest passes wegman check" if good else "MANIFEST FAILS CHECK"
                print(
                    f"run {run + 1}: {len(used)} nonces used for {count} files, {twice} twice; {verdict}; "
                    f"{time.monotonic() - t:.1f} s",
                    flush=True,
                )
        finally:
            workers.close()
        across = len(everything) - len(set(everything))
        print(
            f"{runs} runs{' (control: lease in the task arguments)' if control else ''}: "
            f"{ok} manifests passed check, {failed_check} failed it, {raised} runs raised; "
            f"{mid} runs had a batch killed after it used nonces (so run again); "
            f"nonces used twice within a run: {reused}; across all runs and seals: {across}"
        )
        if control:
            return 0 if reused > 0 else 1
        return 0 if reused == 0 and across == 0 and failed_check == 0 else 1


def bench(rounds: int, count: int) -> int:
    with tempfile.TemporaryDirectory(dir="/dev/shm") as tmp:
        d = pathlib.Path(tmp)
        key = d / "key"
        wegman.keygen(str(key))
        names = make_files(d, count, seed=12)
        size = sum(os.path.getsize(n) for n in names)
        print(f"{cpu()}; {count} files, {size / 2**20:.0f} MiB in /dev/shm", flush=True)
        listing = d / "names"
        listing.write_text("".join(n + "\n" for n in names))
        cli_s, dask_s = [], []
        workers = Workers()
        try:
            client = workers.ready()
            wd.tag(client, key, names[:50])  # warm the workers
            for r in range(rounds):
                t = time.perf_counter()
                out = subprocess.run([CLI, "tag", "-k", str(key), *names], capture_output=True)
                cli_s.append(time.perf_counter() - t)
                assert out.returncode == 0, out.stderr
                t = time.perf_counter()
                manifest = wd.tag(client, key, names)
                dask_s.append(time.perf_counter() - t)
                assert len(manifest.splitlines()) == count + 1
                print(f"round {r + 1}: wegman tag {cli_s[-1]:.3f} s, distributed {dask_s[-1]:.3f} s", flush=True)
        finally:
            workers.close()
        ratios = sorted(b / a for a, b in zip(cli_s, dask_s))
        print(
            f"wegman tag (one thread per core) median {statistics.median(cli_s):.3f} s, "
            f"wegman.distributed.tag (2 workers x 1 thread) median {statistics.median(dask_s):.3f} s; "
            f"distributed / CLI per round: median {statistics.median(ratios):.2f} "
            f"(range {ratios[0]:.2f}-{ratios[-1]:.2f})"
        )
    return 0


if __name__ == "__main__":
    mode, n, files = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    if mode == "kill":
        sys.exit(kill(n, files, "--control" in sys.argv[4:], "--stop" in sys.argv[4:]))
    sys.exit(bench(n, files))
