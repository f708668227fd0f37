"""The ``predict`` command: one data set's formula, or one row per data set for a batch."""
from __future__ import annotations

import gc
import os
import time
from contextlib import contextmanager
from pathlib import Path
from typing import List, Optional

import numpy as np
import typer

from .._console import library_text_to_stderr
from ..exceptions import SuperposError
from .answer import columns, dimensions, dimensions_line, finite, units_by_name
from .base import check_folder, command, option_names, soft_interrupts
from .progress import progress_bars


@command()
def predict(
    data: List[str] = typer.Argument(..., help="CSV/TSV with a header row, .npz with X and y, or - for stdin; "
                                         "several files or a folder give one row per data set"),
    model: Optional[Path] = typer.Option(None, "--model", help="model file (default: the shipped model)"),
    target: Optional[str] = typer.Option(None, help="target column (default: the last)"),
    fmt: Optional[str] = typer.Option(None, "--format", help="text (default), latex or json; a batch: csv "
                                      "(default), json or jsonl"),
    top_k: int = typer.Option(200, "--top-k", help="skeletons the data chooses between"),
    search: int = typer.Option(2, "--search", help="rounds of local search around the best candidates "
                                                  "(0: the decoder's candidates only, fastest)"),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="write here instead of stdout (never over "
                                          "an input)"),
    seed: int = typer.Option(0, help="random seed (point split, constant starts)"),
    plot: Optional[Path] = typer.Option(None, "--plot", help="PNG of the data, the formula and its tree (plot extra)"),
    resume: bool = typer.Option(False, "--resume", help="batch: skip data sets already in --output"),
    jobs: int = typer.Option(1, "--jobs", help="batch: data sets solved in parallel"),
    quiet: bool = typer.Option(False, "--quiet", help="no progress display"),
    selection: str = typer.Option("best", "--selection", help="how the finalists are chosen between: "
                                  "best (PySR's), validation (least cross-validated error, ties to the "
                                  "simpler) or mdl (description length)"),
    max_fits: int = typer.Option(200_000, "--max-fits", help="effort budget: trees fitted at most"),
    time_limit: Optional[float] = typer.Option(None, "--time-limit", help="seconds after which the search stops "
                                               "proposing (default: none, reproducible)"),
    proposers: Optional[str] = typer.Option(None, "--proposers", help="comma-separated candidate sources "
                                            "(default: all): model, dimensions, powers, families, rational, search, reductions, separable, "
                                            "outer, affine, baselines, sums, laws, residual"),
    decompose: bool = typer.Option(True, "--decompose/--no-decompose", help="solve separable laws (sums or "
                                   "products of parts over disjoint inputs) part by part"),
    decompose_depth: int = typer.Option(3, "--decompose-depth", help="levels of parts within parts (0: off)"),
    precision: str = typer.Option("auto", "--precision", help="the data's relative precision: auto (from the "
                                  "digits written in the file), float64, or a number such as 5e-4"),
    explain: bool = typer.Option(False, "--explain", help="also say how the search went: each proposer "
                                 "of each context, run or skipped and why, its fits and candidates, and what chose "
                                 "the winner (text, or 'trace' in JSON; docs/trace.md)"),
    units: Optional[str] = typer.Option(None, "--units", help="the columns' units, e.g. 'T=K, P=Pa, y=J' (the "
                                        "target by its name or as y), beside or instead of units in the header "
                                        "('T [K]'); with every column's unit, dimensional analysis (docs/units.md)"),
    template: Optional[str] = typer.Option(None, "--template", help="the law's form with unknown parts, e.g. "
                                           "'f(x1, x2) + g(x3)' or 'exp(f(mass)) * c' (column names or x1, x2, "
                                           "...; the same name twice is one function; c: a constant)"),
) -> None:
    """Find the formula behind a data set: structure from the model, constants from the data.

    Example: superpos predict datasets/examples/example.csv --format json

    Template: superpos predict data.csv --template "f(x1, x2) + g(x3)"  (the unknown parts found; a batch uses it for every file)

    Batch: superpos predict runs/ -o formulas.csv --resume  (one row per data set: file, formula, status, r2, seconds, error; the output's suffix chooses CSV, .json or .jsonl; it is written whole at the end, the finished rows kept meanwhile for --resume; exit 1 when some data sets failed)
    """
    from ..symreg.settings import FormulaSettings

    names = tuple(n.strip() for n in proposers.split(",") if n.strip()) if proposers is not None else None
    try:
        given = None if precision in ("auto", "float64") else _precision(precision)
        settings = FormulaSettings(top_k=top_k, search_rounds=search, random_state=seed, selection=selection,
                                   max_fits=max_fits, time_limit=time_limit, proposers=names, precision=given,
                                   decompose=decompose, decompose_depth=decompose_depth)
        if names is not None:  # imported only then: the registry pulls in sympy, whose import the
            # collector would slow by 70 ms outside _collector_paused
            from ..symreg.plan import check_proposer_names

            check_proposer_names(settings.proposers)
        if template is not None:
            from ..symreg.template import check_template

            check_template(template)
    except SuperposError as exc:
        raise option_names(exc) from None
    auto = precision == "auto"
    from ..core.units import units_option

    given = units_option(units) if units is not None else None
    if jobs < 1:
        raise SuperposError(f"--jobs must be at least 1, got {jobs}")
    if plot is not None and plot.suffix.lower() != ".png":
        raise SuperposError(f"--plot writes a PNG image: give a file name ending in .png, not {plot.name!r}")
    from .batch import expand_inputs

    files = expand_inputs(data)
    if len(files) != 1 or Path(data[0]).is_dir():
        if plot is not None:
            raise SuperposError("--plot draws one data set; a batch has no plot (run predict on one file)")
        if explain:
            raise SuperposError("--explain traces one data set's search; a batch has none (run predict on one file)")
        _predict_batch(files, model, target, settings, output, resume, jobs, quiet, fmt, auto, template, given)
        return
    if fmt is None:
        fmt = "text"
    if fmt not in ("text", "latex", "json"):
        raise SuperposError(f"unknown --format {fmt!r}: use text, latex or json")
    if explain and fmt == "latex":
        raise SuperposError("--explain writes text or JSON: use --format text or --format json with it")
    if resume:
        raise SuperposError("--resume continues a batch (a folder or several files); one data set has nothing "
                            "to resume")
    inputs = [files[0], model]
    check_folder(output, inputs)
    check_folder(plot, inputs + [output], "plot")
    with _collector_paused():
        from ..symreg.render import units_unimported  # sympy's import, too, without the collector

        with units_unimported():
            _predict_one(files[0], model, target, settings, fmt, output, plot, quiet, auto, template, explain, given)


@contextmanager
def _collector_paused():
    """Python's cyclic garbage collector off while one data set is solved. The command ends
    within seconds and its objects are freed by reference counting; the collector's full
    passes over sympy's and numba's objects cost 0.15 s of a 1.4 s call on the example and
    0.7 s of 3.3 s on a law of 9 inputs, for no smaller peak memory (measured:
    219 and 229 MB paused, 218 and 243 MB not). A batch keeps the collector: it runs for long."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _precision(text: str) -> float:
    """The ``--precision`` number (checked by FormulaSettings)."""
    try:
        return float(text)
    except ValueError:
        raise SuperposError(f"--precision must be auto, float64 or a number such as 5e-4, got {text!r}") from None


def _with_precision(settings, info: dict, auto: bool):
    """``settings`` with the precision the file was written with, where ``--precision auto``."""
    from dataclasses import replace

    p = info.get("precision")
    return replace(settings, precision=min(p, 0.05)) if auto and p is not None and p > 1e-15 else settings


def _with_units(settings, names: list[str], info: dict, given: dict | None):
    """``settings`` with each column's unit, from the file's header and ``--units`` (one clear
    error where they disagree or name no column)."""
    from dataclasses import replace

    from ..core.units import column_units

    units = column_units(names, info.get("target", "y"), info.get("units"), given)
    return settings if units is None else replace(settings, units=units)


def _with_template(settings, template: str | None, names: list[str], notes: list[str]):
    """``settings`` with the ``--template`` written over x1, x2, ... (column names replaced), and
    a note naming the columns it leaves out."""
    if template is None:
        return settings
    from dataclasses import replace

    from ..symreg.template import template_over_inputs

    text, unused = template_over_inputs(template, names)
    if unused:
        notes.append(f"the template does not name {', '.join(unused)}: ignored")
    return replace(settings, template=text)


def _predict_one(path: str, model, target, settings, fmt: str, output, plot, quiet: bool, auto: bool,
                 template: str | None = None, explain: bool = False, given: dict | None = None) -> None:
    import sympy

    from ..core.files import atomic_write_text
    from ..core.numeric import r2 as r2_score
    from ..datasets.reader import read_dataset
    from ..symreg.engine import MODEL_SCORED
    from ..symreg.pipeline import find_formula
    from ..symreg.render import rename_variables

    notes: list[str] = []
    info: dict = {}
    X, y, names = read_dataset(path, target, notes, info)
    settings = _with_template(_with_units(_with_precision(settings, info, auto), names, info, given), template,
                              names, notes)
    for note in notes if not quiet else ():
        typer.echo(f"note: {note}", err=True)
    predictor = str(model) if model else None
    t = time.perf_counter()
    with progress_bars(quiet or X.shape[0] <= 100_000) as update, library_text_to_stderr():
        f = find_formula(X, y, predictor, settings, progress=lambda stage: update(stage, 0, None))
    seconds = time.perf_counter() - t
    expr = rename_variables(f.expr, names)
    with np.errstate(all="ignore"):
        r2 = r2_score(y, f.predict(X))
    if fmt == "json":
        import json

        cands = [{"formula": str(e), "r2": finite(c.r2_validation),
                  "loglik": finite(c.log_likelihood) if c.source in MODEL_SCORED else None,
                  "source": c.source, "code_length": finite(c.code_length)}
                 for c, e in f.distinct_candidates(20, names)]
        consts = [{"value": finite(v), "standard_error": finite(e)} for v, e in zip(f.constants, f.standard_errors)]
        front = [{"complexity": k, "validation_nmse": finite(e), "formula": str(g)} for k, e, g in f.pareto_front(names)]
        params = {k: finite(v) for k, v in f.parameters.items()}
        parts = [{"inputs": [names[j] for j in g], "formula": str(rename_variables(e, names))} for g, e in f.parts]
        text = json.dumps({"formula": f.shown(names), "status": f.status, "family": f.family or None,
                           "parameters": params or None, "decomposition": f.decomposition or None,
                           "parts": parts or None, "latex": sympy.latex(expr), "r2": finite(r2),
                           "seconds": seconds, "precision": settings.precision,
                           "constants": consts, "confidence": finite(f.confidence), "noise": finite(f.noise),
                           "inputs": [names[j] for j in f.inputs], "units": units_by_name(settings.units, names, info),
                           "columns": columns(X, names, settings.units, f.inputs),
                           "dimensions": dimensions(f.dimensions),
                           "alike": [str(e) for e in f.alike_formulas(names)] or None,
                           "left_out_but_related": [{"input": names[j], "F": finite(F)} for j, F in f.left_out],
                           "front": front, "candidates": cands}
                          | ({"trace": f.trace.to_dict()} if explain else {}), indent=2, allow_nan=False) + "\n"
    elif fmt == "latex":
        text = sympy.latex(expr) + "\n"
    else:
        text = f"{f.shown(names)}\n{f.status}{'   ' + f.family.replace('_', ' ') if f.family else ''}   R^2 = {r2:.6f}   confidence {f.confidence:.2f}   ({seconds:.3f} s)\n"
        if f.parts:
            text += f"  {f.decomposition} of {len(f.parts)} parts: " + "; ".join(
                f"{str(rename_variables(e, names))} ({', '.join(names[j] for j in g)})" for g, e in f.parts) + "\n"
        if f.dimensions is not None:
            text += f"  units: {dimensions_line(f.dimensions)}\n"
        text += "".join(f"  alike: {g}   (as good on these points; another function beyond them)\n"
                        for g in f.alike_formulas(names))
        if f.status == "approximation":
            shorter = [(k, e, g) for k, e, g in f.pareto_front(names) if k < f.complexity][-3:]
            text += "".join(f"  shorter: {g}   (R^2 {1 - e:.4f} on held-out points)\n" for _, e, g in reversed(shorter))
        if explain:
            mapping = ", ".join(f"x{j + 1} = {n}" for j, n in enumerate(names))
            text += f"\nhow the search went (inputs: {mapping}):\n{f.trace.text()}\n"
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

        plot_prediction(plot, X, y, f, predictor, names, f"{f.shown(names)}   R^2 = {r2:.4f}")


def _solve_file(predictor, f: str, target, settings, auto: bool = False, template: str | None = None,
                given: dict | None = None) -> dict:
    """One batch row: the formula for one data-set file, or the error that stopped it."""
    import warnings

    from ..core.files import one_line
    from ..core.numeric import r2
    from ..datasets.reader import read_dataset
    from ..symreg.pipeline import find_formula

    row = {"file": f, "formula": "", "status": "", "r2": None, "seconds": None, "error": ""}
    t = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            info: dict = {}
            X, y, names = read_dataset(f, target, info=info)
            with library_text_to_stderr():
                found = find_formula(X, y, predictor, _with_template(
                    _with_units(_with_precision(settings, info, auto), names, info, given), template, names, []))
            with np.errstate(all="ignore"):
                row.update(formula=found.shown(names), status=found.status,
                           r2=finite(r2(y, found.predict(X))))
    except SuperposError as exc:
        row["error"] = one_line(exc, 400)
    except Exception as exc:  # noqa: BLE001 - one data set's bug must not stop the batch
        row["error"] = one_line(f"internal error ({type(exc).__name__}: {exc})", 400)
    row["seconds"] = round(time.perf_counter() - t, 4)
    return row


@contextmanager
def _open_stream(output):
    """``emit(text)`` to standard output, or written into a special file (a FIFO, a device,
    /dev/stdout) as the rows finish."""
    if output is None:
        yield lambda text: typer.echo(text, nl=False)
        return
    from ..core.files import open_descriptor

    fd = open_descriptor(output)
    try:
        fh = os.fdopen(os.dup(fd), "w") if fd is not None else open(output, "w")
    except OSError as exc:
        raise SuperposError(f"cannot write {output}: {exc.strerror or exc}") from None
    with fh:
        def emit(text: str) -> None:
            fh.write(text)
            fh.flush()

        try:
            yield emit
        except OSError as exc:
            raise SuperposError(f"cannot write {output}: {exc.strerror or exc}") from None


_QUIET_TRACKER = "ignore::UserWarning:joblib.externals.loky.backend.resource_tracker"


def quiet_resource_tracker() -> None:
    """joblib's resource tracker, a process of its own that inherits this environment, warns at
    shutdown of the semaphores of workers an interrupt stopped, then removes them (seen on a
    loaded machine: two warnings after ``error: interrupted``); the command line's contract is
    one line. Its UserWarnings are ignored through PYTHONWARNINGS, the user's own kept."""
    current = os.environ.get("PYTHONWARNINGS", "")
    if _QUIET_TRACKER not in current.split(","):
        os.environ["PYTHONWARNINGS"] = ",".join(w for w in (current, _QUIET_TRACKER) if w)


def _predict_batch(files, model, target, settings, output, resume, jobs, quiet, fmt, auto: bool,
                   template: str | None = None, given: dict | None = None) -> None:
    """One row per data set, in input order. To standard output: streamed (CSV, JSON Lines)
    or one JSON array at the end. To ``--output``: through a locked journal, the file written
    whole at the end (:mod:`.batch`)."""
    from joblib import Parallel, delayed

    from ..core.files import is_special
    from ..structure.shipped import load_predictor
    from .batch import Journal, batch_format, format_rows, read_results

    if resume and output is None:
        raise SuperposError("--resume needs --output: the file of rows already done")
    if not files:
        raise SuperposError("no data files (.csv, .tsv, .txt, .npz) in the folder given")
    if "-" in files:
        raise SuperposError("standard input (-) cannot be part of a batch")
    kind = batch_format(output, fmt)
    check_folder(output, files + [model])
    predictor = load_predictor(str(model) if model else None)
    # workers get the model's path, not the model: each loads it once (load_predictor's cache)
    source = str(model) if model else None

    def solve(todo):
        if jobs == 1:
            yield from (_solve_file(predictor, f, target, settings, auto, template, given) for f in todo)
            return
        quiet_resource_tracker()
        with soft_interrupts():  # the workers run the kernels; this thread only waits
            yield from Parallel(n_jobs=jobs, return_as="generator")(
                delayed(_solve_file)(source, f, target, settings, auto, template, given) for f in todo)

    failed = 0
    if output is None or is_special(output):  # standard output, a FIFO, a device: streamed, no journal
        if resume:
            raise SuperposError("--resume needs a regular results file as --output, not a device or a pipe")
        rows = []
        with _open_stream(output) as emit:
            if kind == "csv":
                emit(format_rows([], "csv"))
            for row in solve(files):
                failed += bool(row["error"])
                rows.append(row)
                if kind != "json":
                    emit(format_rows([row], kind).split("\n", 1)[1] if kind == "csv" else format_rows([row], kind))
            if kind == "json":
                emit(format_rows(rows, "json"))
        todo = files
    else:
        earlier = read_results(output, kind) if resume else []  # refuses a file that is not results, first
        with Journal(output) as journal:
            kept: dict = {}
            if resume:
                for row in earlier + journal.rows():
                    if row["formula"] and not row["error"]:
                        kept[row["file"]] = row
                journal.seal()  # the finished rows stay as they are: nothing is rewritten
            else:
                journal.restart([])
            todo = [f for f in files if f not in kept]
            rows = list(kept.values())
            with progress_bars(quiet) as update:
                update("data sets", 0, len(todo))
                for n, row in enumerate(solve(todo), start=1):
                    failed += bool(row["error"])
                    journal.append(row)
                    rows.append(row)
                    update("data sets", n, len(todo))
            journal.finish(rows, kind)
    if failed:
        typer.echo(f"error: {failed} of {len(todo)} data sets failed; see the error "
                   f"{'column' if kind == 'csv' else 'field'}", err=True)
        raise typer.Exit(code=1)
