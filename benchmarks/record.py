"""Run a benchmark command and keep its raw output under ``benchmarks/results/``, headed by
the command, the commit and the machine (every README figure has such a file).

    python benchmarks/record.py benchmarks/results/nguyen_k200.txt -- python benchmarks/recovery.py --top-k 200
"""
from __future__ import annotations

import os
import platform
import shlex
import subprocess
import sys
import time
from pathlib import Path


def header(cmd: list[str]) -> str:
    root = Path(__file__).resolve().parents[1]
    commit = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or os.environ.get("BENCH_COMMIT", "unknown")
    dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor()) if Path("/proc/cpuinfo").exists() else ""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (f"# command: {shlex.join(cmd)}\n# commit: {commit}{' (with uncommitted changes)' if dirty else ''}\n"
            f"# machine: {platform.machine()}, {os.cpu_count()} cores ({cpu}), Python {platform.python_version()}, "
            f"load average {load:.2f} at start\n# started: {time.strftime('%Y-%m-%d %H:%M:%S %Z')}\n\n")


def main() -> int:
    if "--" not in sys.argv[2:3] or len(sys.argv) < 4:
        print(__doc__)
        return 2
    out, cmd = Path(sys.argv[1]), sys.argv[3:]
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".part")
    t = time.perf_counter()
    with tmp.open("w") as fh:
        fh.write(header(cmd))
        fh.flush()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for line in proc.stdout:
            sys.stdout.write(line)
            fh.write(line)
            fh.flush()
        rc = proc.wait()
        fh.write(f"\n# exit status {rc}, {time.perf_counter() - t:.1f} s wall\n")
    os.replace(tmp, out)
    return rc


if __name__ == "__main__":
    sys.exit(main())
