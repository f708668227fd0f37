"""The ``predict`` command: one data set's formula, or one row per data set for a batch."""
from __future__ import annotations

import gc
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import List, Optional

import numpy as np
import typer

from ..exceptions import SuperposError
from . import check_folder, command
from .progress import progress_bars


@command()
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
    from ..symreg.settings import FormulaSettings

    settings = FormulaSettings(top_k=top_k, search_rounds=search, random_state=seed)
    if fmt not in ("text", "latex", "json"):
        raise SuperposError(f"unknown --format {fmt!r}: use text, latex or json")
    if jobs < 1:
        raise SuperposError(f"--jobs must be at least 1, got {jobs}")
    if plot is not None and plot.suffix.lower() != ".png":
        raise SuperposError(f"--plot writes a PNG image: give a file name ending in .png, not {plot.name!r}")
    check_folder(output)
    check_folder(plot)
    files = _expand_inputs(data)
    if len(files) != 1 or Path(data[0]).is_dir():
        _predict_batch(files, model, target, settings, output, resume, jobs, quiet)
        return
    from ..symreg.render import units_unimported

    with _collector_paused(), units_unimported():
        _predict_one(files[0], model, target, settings, fmt, output, plot, quiet)


@contextmanager
def _collector_paused():
    """Python's cyclic garbage collector off while one data set is solved. The command ends
    within seconds and its objects are freed by reference counting; the collector's full
    passes over sympy's and numba's objects cost 0.15 s of a 1.4 s call on the example and
    0.7 s of 3.3 s on a Feynman equation with 9 inputs, for no smaller peak memory (measured:
    219 and 229 MB paused, 218 and 243 MB not). A batch keeps the collector: it runs for long."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _predict_one(path: str, model, target, settings, fmt: str, output, plot, quiet: bool) -> None:
    import sympy

    from ..core.files import atomic_write_text
    from ..core.numeric import r2 as r2_score
    from ..datasets.reader import read_dataset
    from ..symreg.pipeline import find_formula
    from ..symreg.render import distinct_formulas, rename_variables

    notes: list[str] = []
    X, y, names = read_dataset(path, target, notes)
    for note in notes if not quiet else ():
        typer.echo(f"note: {note}", err=True)
    predictor = str(model) if model else None
    t = time.perf_counter()
    with progress_bars(quiet or X.shape[0] <= 100_000) as update:
        f = find_formula(X, y, predictor, settings, progress=lambda stage: update(stage, 0, None))
    seconds = time.perf_counter() - t
    expr = rename_variables(f.expr, names)
    with np.errstate(all="ignore"):
        r2 = r2_score(y, f.predict(X))
    if fmt == "json":
        import json

        cands = [{"formula": str(e), "r2": _finite(c.r2_validation), "loglik": _finite(c.log_likelihood)}
                 for c, e in distinct_formulas(f.candidates, 20, names)]
        consts = [{"value": _finite(v), "standard_error": _finite(e)} for v, e in zip(f.constants, f.standard_errors)]
        front = [{"complexity": k, "validation_nmse": _finite(e), "formula": str(g)} for k, e, g in f.pareto_front(names)]
        text = json.dumps({"formula": str(expr), "latex": sympy.latex(expr), "r2": _finite(r2), "seconds": seconds,
                           "constants": consts, "confidence": _finite(f.confidence), "noise": _finite(f.noise),
                           "inputs": [names[j] for j in f.inputs],
                           "left_out_but_related": [{"input": names[j], "F": _finite(F)} for j, F in f.left_out],
                           "front": front, "candidates": cands}, indent=2, allow_nan=False) + "\n"
    elif fmt == "latex":
        text = sympy.latex(expr) + "\n"
    else:
        text = f"{expr}\nR^2 = {r2:.6f}   confidence {f.confidence:.2f}   ({seconds:.3f} s)\n"
    if f.left_out and not quiet:
        verb = "explains" if len(f.left_out) == 1 else "explain"
        typer.echo("warning: the formula leaves out " + ", ".join(f"{names[j]} (F = {F:.1f})" for j, F in f.left_out)
                   + f", which still {verb} part of its residuals (cubic F-test, 0.1 % level)", err=True)
    if output is None:  # the formula first: a plot that fails must not lose it
        typer.echo(text, nl=False)
    else:
        atomic_write_text(output, text)
    if plot is not None:
        from ..plot import plot_prediction

        plot_prediction(plot, X, y, f, predictor, names, f"{expr}   R^2 = {r2:.4f}")


def _finite(v) -> float | None:
    """A number for JSON: None (null) where it is not finite, so the output is valid JSON."""
    v = float(v)
    return v if np.isfinite(v) else None


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


def _solve_file(predictor, f: str, target, settings) -> dict:
    """One batch row: the formula for one data-set file, or the error that stopped it."""
    from ..core.numeric import r2
    from ..datasets.reader import read_dataset
    from ..symreg.pipeline import find_formula
    from ..symreg.render import rename_variables

    row = {"file": f, "formula": "", "r2": "", "seconds": "", "error": ""}
    t = time.perf_counter()
    try:
        X, y, names = read_dataset(f, target)
        f = find_formula(X, y, predictor, settings)
        with np.errstate(all="ignore"):
            row.update(formula=str(rename_variables(f.expr, names)), r2=_finite(r2(y, f.predict(X))))
    except SuperposError as exc:
        row["error"] = str(exc)
    except Exception as exc:  # noqa: BLE001 - one data set's bug must not stop the batch
        row["error"] = f"internal error ({type(exc).__name__}: {exc})"
    row["seconds"] = round(time.perf_counter() - t, 4)
    return row


def _predict_batch(files, model, target, settings, output, resume, jobs, quiet) -> None:
    """One row per data set, streamed in input order: an interrupted run keeps the rows it finished."""
    import csv
    import json

    from joblib import Parallel, delayed

    from ..structure.shipped import load_predictor

    fields = ["file", "formula", "r2", "seconds", "error"]
    if resume and output is None:
        raise SuperposError("--resume needs --output: the file of rows already done")
    if not files:
        raise SuperposError("no data files (.csv, .tsv, .txt, .npz) in the folder given")
    if jobs < 1:
        raise SuperposError(f"--jobs must be at least 1, got {jobs}")
    check_folder(output)
    if "-" in files:
        raise SuperposError("standard input (-) cannot be part of a batch")
    predictor = load_predictor(str(model) if model else None)
    jsonl = output is not None and output.suffix.lower() in (".jsonl", ".json")
    done = _done_files(output, jsonl) if resume else set()
    fh = sys.stdout if output is None else output.open("a" if resume else "w", newline="")
    writer = None if jsonl else csv.DictWriter(fh, fieldnames=fields)
    if writer is not None and (output is None or fh.tell() == 0):
        writer.writeheader()
    todo = [f for f in files if f not in done]
    # workers get the model's path, not the model: each loads it once (load_predictor's cache)
    source = str(model) if model else None
    rows = Parallel(n_jobs=jobs, return_as="generator")(
        delayed(_solve_file)(predictor if jobs == 1 else source, f, target, settings) for f in todo)
    failed = 0
    with progress_bars(quiet or output is None) as update:
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
