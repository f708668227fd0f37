#!/usr/bin/env python
"""Decoder throughput: best-tree decodes per second.

For |H| = 10, 20, 40 colours and depth bounds 4, 6, 8 it times

* the numba kernel ``superpos._kernels.tree_dp_batch`` on a batch of random
  log-probability tensors of shape (D, 1, H, 2, H) (parent + position + depth),
* the plain-Python ``tree_dp_reference`` of ``tests/twins.py`` on a few of the same tensors,
* the speed-up of the former over the latter,
* and the numba kernel with the grandparent context, tensors (D, H, H, 2, H).

Single thread (NUMBA_NUM_THREADS=1 is set before numba is imported). The machine may be
shared: each numba figure is the best of a few rounds.

    python benchmarks/decoder_throughput.py            # about a minute
    python benchmarks/decoder_throughput.py --quick    # about 10 seconds
"""
from __future__ import annotations

import os

os.environ["NUMBA_NUM_THREADS"] = "1"
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import argparse  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numba  # noqa: E402
import numpy as np  # noqa: E402

from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the plain-Python twin
import twins  # noqa: E402

from superpos import _kernels  # noqa: E402


def make_arities(H: int) -> np.ndarray:
    """Root h0 (arity 1), then about a quarter binary, a quarter unary, the rest leaves."""
    n_bin = max(1, H // 4)
    n_un = max(1, H // 4)
    n_leaf = H - 1 - n_bin - n_un
    assert n_leaf >= 1
    return np.array([1] + [2] * n_bin + [1] * n_un + [0] * n_leaf, dtype=np.int64)


def random_log_probs(rng: np.random.Generator, B: int, Dd: int, G: int, H: int, A: int) -> np.ndarray:
    """B tensors (Dd, G, H, A, H) of log-probabilities over the child colour (h0 never a child)."""
    S = rng.standard_normal((B, Dd, G, H, A, H)) * 2.0
    S[..., 0] = -np.inf
    S -= S.max(axis=-1, keepdims=True)
    S -= np.log(np.exp(S).sum(axis=-1, keepdims=True))
    return np.ascontiguousarray(S)


def time_numba(S: np.ndarray, arities: np.ndarray, max_depth: int, min_time: float, rounds: int) -> float:
    """Best-of-rounds decodes per second of tree_dp_batch on the batch S."""
    _kernels.tree_dp_batch(S[:2], arities, max_depth)  # warm up: compile or load the cache
    best = 0.0
    for _ in range(rounds):
        n = 0
        t0 = time.perf_counter()
        while True:
            _kernels.tree_dp_batch(S, arities, max_depth)
            n += S.shape[0]
            elapsed = time.perf_counter() - t0
            if elapsed >= min_time:
                break
        best = max(best, n / elapsed)
    return best


def time_reference(S: np.ndarray, arities: np.ndarray, max_depth: int, calls: int,
                   min_time: float) -> tuple[float, int]:
    """Decodes per second of the plain-Python reference: at least ``calls`` tensors, more
    (up to the batch) until ``min_time`` has passed. The values are checked against the
    numba kernel. Returns (rate, number of calls)."""
    values = []
    t0 = time.perf_counter()
    while len(values) < S.shape[0]:
        values.append(twins.tree_dp_reference(S[len(values)], arities, max_depth)[0])
        elapsed = time.perf_counter() - t0
        if len(values) >= calls and elapsed >= min_time:
            break
    calls = len(values)
    for b in range(calls):
        v, _ = _kernels.tree_dp(S[b], arities, max_depth)
        if not np.isclose(v, values[b], rtol=1e-9, atol=1e-9):
            raise AssertionError(f"numba and reference disagree: {v} vs {values[b]}")
    return calls / elapsed, calls


def batch_size(wanted: int, bytes_per_tensor: int, budget_mb: float) -> int:
    return int(max(2, min(wanted, budget_mb * 2**20 // bytes_per_tensor)))


def machine_info() -> list[str]:
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"
    return [
        f"platform      : {platform.platform()}",
        f"cpu           : {cpu or 'unknown'} ({os.cpu_count()} logical CPUs, load average {load})",
        f"python        : {platform.python_version()} ({platform.python_implementation()})",
        f"numpy / numba : {np.__version__} / {numba.__version__} (NUMBA_NUM_THREADS={numba.config.NUMBA_NUM_THREADS})",
    ]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small batches and short timings (about 10 s)")
    ap.add_argument("--sizes", type=int, nargs="+", default=[10, 20, 40], help="numbers of colours |H|")
    ap.add_argument("--depths", type=int, nargs="+", default=[4, 6, 8], help="depth bounds")
    ap.add_argument("--positions", type=int, default=2, help="argument-position axis length A")
    ap.add_argument("--batch", type=int, default=None, help="tensors per batch (default 2000, 200 with --quick)")
    ap.add_argument("--budget-mb", type=float, default=None,
                    help="memory cap of one batch; bigger tensors get smaller batches (default 256, 48 with --quick)")
    ap.add_argument("--min-time", type=float, default=None, help="seconds per numba timing round")
    ap.add_argument("--ref-calls", type=int, default=None,
                    help="minimum plain-Python reference calls per cell (more until --min-time has passed)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    batch = args.batch or (200 if args.quick else 2000)
    budget = args.budget_mb or (48.0 if args.quick else 256.0)
    min_time = args.min_time or (0.1 if args.quick else 0.5)
    rounds = 2 if args.quick else 3
    ref_calls = args.ref_calls or (2 if args.quick else 3)
    A = args.positions
    rng = np.random.default_rng(args.seed)

    print("superpos decoder throughput: best-tree decodes per second (single thread)")
    for line in machine_info():
        print("  " + line)
    print(f"  settings      : {'--quick, ' if args.quick else ''}batch <= {batch} (<= {budget:g} MB), "
          f">= {min_time:g} s x {rounds} rounds per numba cell (best), >= {ref_calls} reference calls and >= {min_time:g} s per cell")
    print("  parent context: S (D, 1, H, A, H)    grandparent context: S (D, H, H, A, H)    "
          f"A = {A}, random log-probabilities")
    print()
    header = (f"{'|H|':>4} {'depth':>5} | {'batch':>5} {'numba /s':>11} {'python /s':>10} {'speed-up':>9} | "
              f"{'batch':>5} {'numba gp /s':>12} | {'ref calls':>9}")
    print(header)
    print("-" * len(header))
    t_start = time.perf_counter()
    for H in args.sizes:
        ar = make_arities(H)
        for D in args.depths:
            # parent + position + depth
            B = batch_size(batch, D * H * A * H * 8, budget)
            S = random_log_probs(rng, B, D, 1, H, A)
            rate = time_numba(S, ar, D, min_time, rounds)
            ref_rate, n_ref = time_reference(S, ar, D, ref_calls, min_time)
            del S
            # grandparent
            Bg = batch_size(batch, D * H * H * A * H * 8, budget)
            Sg = random_log_probs(rng, Bg, D, H, H, A)
            rate_g = time_numba(Sg, ar, D, min_time, rounds)
            del Sg
            print(f"{H:>4} {D:>5} | {B:>5} {rate:>11,.0f} {ref_rate:>10,.1f} {rate / ref_rate:>8,.0f}x | "
                  f"{Bg:>5} {rate_g:>12,.0f} | {n_ref:>9}", flush=True)
    print()
    print(f"arities: root, {{|H|//4}} binary, {{|H|//4}} unary, the rest leaves; "
          f"numba values checked against the reference; total {time.perf_counter() - t_start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
