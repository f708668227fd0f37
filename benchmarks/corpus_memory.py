"""Peak memory of generating and featurising a large corpus, streamed to disk.

Generates ``--n`` formulas of ``--points`` points with :func:`superpos.write_corpus`
(shards on disk), then featurises them with :func:`superpos.write_features` (rows
appended to one ``.npy``). A thread samples the resident memory (RSS) of this process
and of its worker processes every 0.2 s; the table gives each stage's time and peak.
Linux only (reads /proc).

    python benchmarks/corpus_memory.py --n 1000000 --points 100 --jobs 2 --out /tmp/corpus1m
"""
from __future__ import annotations

import argparse
import os
import shutil
import threading
import time
from pathlib import Path

from superpos import Basis
from superpos.structure.corpus import write_corpus
from superpos.structure.features import DatasetFeatures, write_features


def _tree_rss(root: int) -> int:
    """Resident bytes of ``root`` and all its descendants."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as fh:
                ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{d}/statm") as fh:
                rss[int(d)] = int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(d))
    total, stack = 0, [root]
    while stack:
        p = stack.pop()
        total += rss.get(p, 0)
        stack.extend(children.get(p, []))
    return total


class PeakRSS:
    def __init__(self, every: float = 0.2):
        self.every, self.peak, self._stop = every, 0, threading.Event()

    def __enter__(self):
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, _tree_rss(os.getpid()))
            self._stop.wait(self.every)

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, _tree_rss(os.getpid()))


def report(stage: str, mem: PeakRSS, every: int = 1):
    """A ``progress(done, total)`` callback printing the running peak at most every ``every`` items."""
    last = [0]

    def progress(done: int, total: int) -> None:
        if done - last[0] >= every or done == total:
            last[0] = done
            print(f"  {stage} {done}/{total}, peak RSS so far {mem.peak / 2**30:.2f} GiB", flush=True)

    return progress


def _du(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--points", type=int, default=100)
    ap.add_argument("--variables", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--shard-size", type=int, default=50_000)
    ap.add_argument("--out", type=Path, required=True, help="a new folder for the corpus and features")
    ap.add_argument("--keep", action="store_true", help="keep the files afterwards")
    args = ap.parse_args()
    basis = Basis.default(args.variables)
    args.out.mkdir(parents=True, exist_ok=False)
    print(f"{os.cpu_count()} cores; {args.n} formulas x {args.points} points, {args.variables} variable(s), "
          f"{args.jobs} jobs, shards of {args.shard_size}", flush=True)
    rows = []
    with PeakRSS() as mem:
        t = time.perf_counter()
        folder = write_corpus(args.out / "corpus", basis, args.n, random_state=0, n_points=args.points,
                              n_jobs=args.jobs, shard_size=args.shard_size,
                              progress=report("generated", mem, 50_000))
        rows.append(("generate", time.perf_counter() - t, mem.peak, _du(folder)))
    with PeakRSS() as mem:
        t = time.perf_counter()
        phi = write_features(folder, args.out / "phi.npy",
                             DatasetFeatures(max_variables=args.variables, n_jobs=args.jobs),
                             progress=report("featurised", mem, 50_000))
        rows.append((f"featurise ({phi.shape[1]} features)", time.perf_counter() - t, mem.peak,
                     (args.out / "phi.npy").stat().st_size))
    print("\n| stage | seconds | formulas / s | peak RSS (process + workers) | on disk |")
    print("|---|---:|---:|---:|---:|")
    for name, secs, peak, size in rows:
        print(f"| {name} | {secs:.0f} | {args.n / secs:.0f} | {peak / 2**30:.2f} GiB | {size / 2**30:.2f} GiB |")
    if not args.keep:
        shutil.rmtree(args.out)


if __name__ == "__main__":
    main()
