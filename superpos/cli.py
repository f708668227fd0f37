"""The ``superpos`` command line: parses, calls the library, prints; nothing else."""
from __future__ import annotations

import contextlib
import sys
import time
from pathlib import Path
from typing import List, Optional

import numpy as np
import typer

from .exceptions import SuperposError

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Predict the structure of the formula behind a data set.")


def _fail(exc: Exception) -> None:
    typer.echo(f"error: {exc}", err=True)
    raise typer.Exit(code=2)


@contextlib.contextmanager
def _progress(quiet: bool):
    """Rich progress bars on standard error, one line per stage of the work (silent with
    --quiet). Yields ``update(stage, done, total)``; a stage with ``total=None`` has no
    count and shows a spinner with its elapsed time; a new stage completes the previous."""
    if quiet:
        yield lambda stage, done, total: None
        return
    from rich.console import Console
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn,
                               TimeElapsedColumn, TimeRemainingColumn)

    tasks: dict = {}
    columns = (SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn())
    bars = Progress(*columns, console=Console(stderr=True))

    def finish(task) -> None:
        t = bars.tasks[task]
        bars.update(task, total=t.total or 1, completed=t.total or 1)
        bars.stop_task(task)

    def update(stage: str, done: int, total) -> None:
        if not tasks:
            bars.start()  # on the first report: an error before any work prints its one line alone
        if stage not in tasks:
            for task in tasks.values():
                finish(task)
            tasks[stage] = bars.add_task(stage, total=total)
        bars.update(tasks[stage], completed=done, total=total)

    try:
        yield update
        for task in tasks.values():
            finish(task)
    finally:
        if tasks:
            bars.stop()


def _check_folder(path: Optional[Path]) -> None:
    """Fail before long work, not after it, when an output's folder is missing."""
    if path is not None and not path.parent.is_dir():
        raise SuperposError(f"cannot write {path}: the folder {path.parent} does not exist")


def _basis(names: Optional[str], n_variables: int):
    from .basis import Basis

    if names:
        return Basis([n.strip() for n in names.split(",") if n.strip()], n_variables=n_variables)
    return Basis.default(n_variables=n_variables)


@app.command()
def basis(
    names: Optional[str] = typer.Option(None, help="comma-separated subset, e.g. add,mul,sin,x1,c"),
    n_variables: int = typer.Option(1, "--variables", help="number of input variables"),
) -> None:
    """List the basis functions with their arities.

    Example: superpos basis --variables 2
    """
    try:
        b = _basis(names, n_variables)
    except SuperposError as exc:
        _fail(exc)
    for k, f in enumerate(b.functions):
        typer.echo(f"{k:3d}  {f.name:6s}  arity {f.arity}  {f.kind}")


@app.command()
def generate(
    output: Path = typer.Argument(..., help="corpus file to write (.npz), or a new folder to stream shards into"),
    n: int = typer.Option(10_000, "--n", help="number of formulas"),
    n_variables: int = typer.Option(1, "--variables", help="input variables (1-3)"),
    names: Optional[str] = typer.Option(None, "--basis", help="comma-separated basis subset"),
    max_depth: int = typer.Option(5, help="deepest tree"),
    max_size: int = typer.Option(12, help="largest tree (nodes)"),
    seed: int = typer.Option(0, help="random seed"),
    jobs: int = typer.Option(1, "--jobs", help="parallel workers"),
    shard_size: int = typer.Option(50_000, help="formulas per shard when OUTPUT is a folder"),
    quiet: bool = typer.Option(False, "--quiet", help="no progress display"),
) -> None:
    """Generate a corpus of random formulas and their data sets. An OUTPUT without the .npz
    suffix is a new folder of shards, streamed to disk (for corpora larger than memory).

    Example: superpos generate train.npz --n 20000 --jobs 2        or: superpos generate big/ --n 1000000
    """
    from .corpus import generate_corpus, write_corpus

    try:
        b = _basis(names, n_variables)
        _check_folder(output)
        t = time.perf_counter()
        with _progress(quiet) as update:
            kw = dict(random_state=seed, max_depth=max_depth, max_size=max_size, n_jobs=jobs,
                      n_variables=(1, n_variables), progress=lambda d, total: update("formulas", d, total))
            if output.suffix.lower() == ".npz":
                generate_corpus(b, n, **kw).save(output)
            else:
                write_corpus(output, b, n, shard_size=shard_size, **kw)
    except SuperposError as exc:
        _fail(exc)
    if not quiet:
        typer.echo(f"wrote {n} formulas to {output} in {time.perf_counter() - t:.1f} s", err=True)


@app.command()
def fit(
    corpus: Path = typer.Argument(..., help="corpus file or folder from `superpos generate`"),
    output: Path = typer.Argument(..., help="model file to write (.npz)"),
    context: str = typer.Option("grandparent+parent+position+depth", help="edge context mode"),
    seed: int = typer.Option(0, help="random seed"),
    jobs: int = typer.Option(1, "--jobs", help="parallel workers for features"),
    quiet: bool = typer.Option(False, "--quiet", help="no progress display"),
) -> None:
    """Train a structure predictor on a corpus and save it.

    Example: superpos fit train.npz model.npz
    """
    from .corpus import Corpus
    from .features import DatasetFeatures
    from .predictor import StructurePredictor

    try:
        _check_folder(output)
        c = Corpus.load(corpus)
        t = time.perf_counter()
        m = StructurePredictor(context=context, random_state=seed, n_jobs=jobs,
                               features=DatasetFeatures(max_variables=max(1, c.basis.n_variables), n_jobs=jobs))
        with _progress(quiet) as update:
            m.fit(c, progress=update)
            m.save(output)
    except SuperposError as exc:
        _fail(exc)
    if not quiet:
        typer.echo(f"trained on {len(c)} formulas in {time.perf_counter() - t:.1f} s; wrote {output}", err=True)


@app.command()
def evaluate(
    target: str = typer.Argument(..., help="held-out corpus (.npz), a benchmark TSV, or a shipped set: nguyen, keijzer"),
    model: Optional[Path] = typer.Option(None, "--model", help="model file (default: the shipped model)"),
    k: Optional[int] = typer.Option(None, help="corpus: a hit when the true tree is among the k most likely (default 10)"),
    search: int = typer.Option(2, "--search", help="benchmark and --decision fit: rounds of local search (as in predict)"),
    decision: str = typer.Option("ml", "--decision", help="corpus: the top-1 tree is the most likely (ml), the one "
                                 "of least expected Hamming loss (mbr), or the formula predict finds (fit: "
                                 "constants fitted to the data; see --top-k and --search)"),
    top_k: int = typer.Option(200, "--top-k", help="benchmark and --decision fit: candidate skeletons per data set (as in predict)"),
    problems: Optional[str] = typer.Option(None, help="benchmark: comma-separated problem names"),
    seed: int = typer.Option(0, help="benchmark: random seed for the points"),
    jobs: int = typer.Option(1, "--jobs", help="parallel workers (corpus: features and decoding; benchmark: problems)"),
    quiet: bool = typer.Option(False, "--quiet", help="no progress display"),
) -> None:
    """Structure metrics on a corpus (exact match, top-k, Hamming loss, size error), or formula
    recovery on benchmark problems (exact recovery, R^2 on fresh points, seconds).

    Example: superpos evaluate test.npz --model model.npz        or: superpos evaluate nguyen --top-k 200
    """
    from .formula import load_predictor

    try:
        if jobs < 1:
            raise SuperposError(f"--jobs must be at least 1, got {jobs}")
        m = load_predictor(str(model) if model else None)
        p = Path(target)
        if p.suffix == ".npz":
            from .corpus import Corpus
            from .evaluate import structure_metrics

            c = Corpus.load(p)
            k = 10 if k is None else k
            m.features_.set_params(n_jobs=jobs)
            with _progress(quiet) as update:
                res = structure_metrics(m, c, k=k, progress=lambda d, n: update("data sets", d, n),
                                        decision=decision, fit_options=dict(top_k=top_k, search_rounds=search),
                                        n_jobs=jobs)
        else:
            from .problems import load_problems

            if k is not None:
                raise SuperposError("--k is the top-k hit list of a corpus; a benchmark's candidate count is --top-k")
            folder, name = (p.parent, p.stem) if p.suffix == ".tsv" else (None, target)
            names = [n.strip() for n in problems.split(",")] if problems else None
            probs = load_problems(name, folder=folder, names=names)
            from joblib import Parallel, delayed

            rows = []
            with _progress(quiet) as update:
                update("problems", 0, len(probs))
                for row in Parallel(n_jobs=jobs, return_as="generator")(
                        delayed(_solve_problem)(m, pr, dict(top_k=top_k, search_rounds=search), seed) for pr in probs):
                    rows.append(row)
                    update("problems", len(rows), len(probs))
    except SuperposError as exc:
        _fail(exc)
    if p.suffix == ".npz":
        typer.echo(f"{'nodes':8s} {'n':>6s} {'top-1':>7s} {'top-' + str(k):>7s} {'Hamming':>8s} {'size err':>9s}")
        for key, r in res.items():
            if r["n"]:
                typer.echo(f"{key:8s} {r['n']:6d} {r['top1']:7.3f} {r['topk']:7.3f} {r['hamming']:8.2f} "
                           f"{r['size_error']:+9.2f}")
        return
    typer.echo(f"{'problem':14s} {'exact':>5s} {'R^2':>9s} {'s':>7s}  formula")
    for name, exact, r2, secs, formula in rows:
        typer.echo(f"{name:14s} {'yes' if exact else 'no':>5s} {r2:9.5f} {secs:7.3f}  {formula}")
    n = len(rows)
    typer.echo(f"total: exact {sum(r[1] for r in rows)}/{n}, R^2 > 0.99 {sum(r[2] > 0.99 for r in rows)}/{n}, "
               f"R^2 > 0.999 {sum(r[2] > 0.999 for r in rows)}/{n}, "
               f"median s {sorted(r[3] for r in rows)[n // 2]:.3f}")


def _solve_problem(predictor, problem, opts: dict, seed: int):
    """(name, exact, R^2 on fresh points, seconds, formula) for one benchmark problem."""
    from .constants import r2
    from .problems import is_exact_recovery
    from .formula import find_formula

    X, y = problem.sample(random_state=seed)
    t = time.perf_counter()
    try:
        f = find_formula(X, y, predictor, random_state=seed, **opts)
    except SuperposError as exc:
        return problem.name, False, float("nan"), time.perf_counter() - t, f"(failed: {exc})"
    secs = time.perf_counter() - t
    Xf, yf = problem.sample(random_state=seed + 1, fresh=True)
    with np.errstate(all="ignore"):
        score = r2(yf, f.predict(Xf))
    exact = is_exact_recovery(f.expr, problem.formula, positive=problem.positive_variables)
    return problem.name, bool(exact), float(score), secs, str(f.expr)


def _rename(expr, names):
    import sympy

    subs = {s: sympy.Symbol(names[int(s.name[1:]) - 1], real=True) for s in expr.free_symbols
            if s.name[:1] == "x" and s.name[1:].isdigit() and int(s.name[1:]) <= len(names)}
    return expr.xreplace(subs)


@app.command()
def predict(
    data: List[str] = typer.Argument(..., help="CSV/TSV with a header row, .npz with X and y, or - for stdin; "
                                         "several files or a folder give one row per data set"),
    model: Optional[Path] = typer.Option(None, "--model", help="model file (default: the shipped model)"),
    target: Optional[str] = typer.Option(None, help="target column (default: the last)"),
    fmt: str = typer.Option("text", "--format", help="text, latex or json"),
    top_k: int = typer.Option(200, "--top-k", help="skeletons the data chooses between"),
    search: int = typer.Option(2, "--search", help="rounds of local search around the best candidates "
                                                  "(0: the decoder's candidates only, fastest)"),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="write here instead of stdout"),
    seed: int = typer.Option(0, help="random seed (point split, constant starts)"),
    plot: Optional[Path] = typer.Option(None, "--plot", help="PNG of the data, the formula and its tree (plot extra)"),
    resume: bool = typer.Option(False, "--resume", help="batch: skip data sets already in --output"),
    jobs: int = typer.Option(1, "--jobs", help="batch: data sets solved in parallel"),
    quiet: bool = typer.Option(False, "--quiet", help="no progress display"),
) -> None:
    """Find the formula behind a data set: structure from the model, constants from the data.

    Example: superpos predict datasets/examples/example.csv --format json

    Batch: superpos predict runs/ -o formulas.csv --resume  (one row per data set: file, formula, r2, seconds, error; a .jsonl output gives JSON lines; rows are written as they finish)
    """
    files = _expand_inputs(data)
    if len(files) != 1 or Path(data[0]).is_dir():
        _predict_batch(files, model, target, dict(top_k=top_k, search_rounds=search), output, seed, resume, jobs,
                       quiet)
        return
    import sympy

    from .io import read_dataset
    from .persist import atomic_write_text
    from .constants import r2 as r2_score
    from .formula import find_formula

    try:
        if fmt not in ("text", "latex", "json"):
            raise SuperposError(f"unknown --format {fmt!r}: use text, latex or json")
        _check_folder(output)
        _check_folder(plot)
        X, y, names = read_dataset(files[0], target)
        t = time.perf_counter()
        predictor = str(model) if model else None
        f = find_formula(X, y, predictor, top_k=top_k, search_rounds=search, random_state=seed)
        seconds = time.perf_counter() - t
        expr = _rename(f.expr, names)
        with np.errstate(all="ignore"):
            r2 = r2_score(y, f.predict(X))
        if fmt == "json":
            import json

            cands = [{"formula": str(_rename(c.formula, names)), "r2": float(c.r2_validation),
                      "loglik": float(c.log_likelihood)} for c in f.candidates[:20]]
            text = json.dumps({"formula": str(expr), "latex": sympy.latex(expr), "r2": r2, "seconds": seconds,
                               "candidates": cands}, indent=2) + "\n"
        elif fmt == "latex":
            text = sympy.latex(expr) + "\n"
        else:
            text = f"{expr}\nR^2 = {r2:.6f}   ({seconds:.3f} s)\n"
        if plot is not None:
            from .plot import plot_prediction

            plot_prediction(plot, X, y, f, predictor, names, f"{expr}   R^2 = {r2:.4f}")
        if output is None:
            typer.echo(text, nl=False)
        else:
            atomic_write_text(output, text)
    except SuperposError as exc:
        _fail(exc)


_DATA_SUFFIXES = (".csv", ".tsv", ".txt", ".npz")


def _expand_inputs(data: List[str]) -> List[str]:
    files: List[str] = []
    for d in data:
        p = Path(d)
        if d != "-" and p.is_dir():
            files += sorted(str(f) for f in p.iterdir() if f.suffix.lower() in _DATA_SUFFIXES and f.is_file())
        else:
            files.append(d)
    return files


def _done_files(output: Path, jsonl: bool) -> set:
    import csv
    import json

    if not output.is_file():
        return set()
    with output.open(newline="") as fh:
        if jsonl:
            rows = []
            for line in fh:
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError:
                    continue  # a line cut short by an interruption is redone
            return {r.get("file") for r in rows if isinstance(r, dict) and r.get("formula")}
        return {r["file"] for r in csv.DictReader(fh) if r.get("formula")}


def _solve_file(predictor, f: str, target, opts: dict, seed: int) -> dict:
    """One batch row: the formula for one data-set file, or the error that stopped it."""
    from .io import read_dataset
    from .constants import r2
    from .formula import find_formula

    row = {"file": f, "formula": "", "r2": "", "seconds": "", "error": ""}
    t = time.perf_counter()
    try:
        X, y, names = read_dataset(f, target)
        f = find_formula(X, y, predictor, random_state=seed, **opts)
        with np.errstate(all="ignore"):
            row.update(formula=str(_rename(f.expr, names)), r2=float(r2(y, f.predict(X))))
    except SuperposError as exc:
        row["error"] = str(exc)
    row["seconds"] = round(time.perf_counter() - t, 4)
    return row


def _predict_batch(files, model, target, opts, output, seed, resume, jobs, quiet) -> None:
    """One row per data set, streamed in input order: an interrupted run keeps the rows it finished."""
    import csv
    import json

    from joblib import Parallel, delayed

    from .formula import load_predictor

    fields = ["file", "formula", "r2", "seconds", "error"]
    try:
        if resume and output is None:
            raise SuperposError("--resume needs --output: the file of rows already done")
        if jobs < 1:
            raise SuperposError(f"--jobs must be at least 1, got {jobs}")
        _check_folder(output)
        if "-" in files:
            raise SuperposError("standard input (-) cannot be part of a batch")
        predictor = load_predictor(str(model) if model else None)
        jsonl = output is not None and output.suffix.lower() in (".jsonl", ".json")
        done = _done_files(output, jsonl) if resume else set()
    except SuperposError as exc:
        _fail(exc)
    fh = sys.stdout if output is None else output.open("a" if resume else "w", newline="")
    writer = None if jsonl else csv.DictWriter(fh, fieldnames=fields)
    if writer is not None and (output is None or fh.tell() == 0):
        writer.writeheader()
    todo = [f for f in files if f not in done]
    # workers get the model's path, not the model: each loads it once (load_predictor's cache)
    source = str(model) if model else None
    rows = Parallel(n_jobs=jobs, return_as="generator")(
        delayed(_solve_file)(predictor if jobs == 1 else source, f, target, opts, seed) for f in todo)
    failed = 0
    with _progress(quiet or output is None) as update:
        update("data sets", 0, len(todo))
        for n, row in enumerate(rows, start=1):
            failed += bool(row["error"])
            if writer is None:
                fh.write(json.dumps(row) + "\n")
            else:
                writer.writerow(row)
            fh.flush()
            update("data sets", n, len(todo))
    if output is not None:
        fh.close()
    if failed:
        typer.echo(f"error: {failed} of {len(todo)} data sets failed; see the error column", err=True)
        raise typer.Exit(code=1)


def main() -> None:  # pragma: no cover
    app()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
