"""Commands around the structure model: ``basis``, ``generate``, ``fit`` and ``evaluate``."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Optional

import typer

from ..exceptions import SuperposError
from .base import basis_from_option, check_folder, command
from .progress import progress_bars


@command()
def basis(
    names: Optional[str] = typer.Option(None, "--basis", "--names", help="comma-separated subset, e.g. add,mul,sin,x1,c"),
    n_variables: int = typer.Option(1, "--variables", help="number of input variables"),
) -> None:
    """List the basis functions with their arities.

    Example: superpos basis --variables 2
    """
    b = basis_from_option(names, n_variables)
    for k, f in enumerate(b.functions):
        typer.echo(f"{k:3d}  {f.name:6s}  arity {f.arity}  {f.kind}")


@command()
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
    offset_share: float = typer.Option(0.0, help="share of input ranges narrow and far from zero (offsets)"),
    noisy_share: float = typer.Option(0.0, help="share of noisy targets (y + N(0, gamma rms y), gamma 0.001, 0.01, 0.1)"),
    quiet: bool = typer.Option(False, "--quiet", help="no progress display"),
) -> None:
    """Generate a corpus of random formulas and their data sets. An OUTPUT without the .npz
    suffix is a new folder of shards, streamed to disk (for corpora larger than memory).

    Example: superpos generate train.npz --n 20000 --jobs 2        or: superpos generate big/ --n 1000000
    """
    from ..structure.corpus import generate_corpus, write_corpus
    from ..structure.prior import check_prior

    b = basis_from_option(names, n_variables)
    check_prior(b, n, max_depth, max_size, 1, (20, 200), (1, n_variables), 0.75, offset_share, noisy_share)
    if jobs < 1 or shard_size < 1:
        raise SuperposError("--jobs and --shard-size must be at least 1")
    if output.suffix.lower() == ".npz":
        check_folder(output)
    t = time.perf_counter()
    with progress_bars(quiet) as update:
        kw = dict(random_state=seed, max_depth=max_depth, max_size=max_size, n_jobs=jobs,
                  n_variables=(1, n_variables), offset_share=offset_share, noisy_share=noisy_share,
                  progress=lambda d, total: update("formulas", d, total))
        if output.suffix.lower() == ".npz":
            generate_corpus(b, n, **kw).save(output)
        else:
            write_corpus(output, b, n, shard_size=shard_size, **kw)
    if not quiet:
        typer.echo(f"wrote {n} formulas to {output} in {time.perf_counter() - t:.1f} s", err=True)


@command()
def fit(
    corpus: Path = typer.Argument(..., help="corpus file or folder from `superpos generate`"),
    output: Path = typer.Argument(..., help="model file to write (.npz)"),
    context: str = typer.Option("grandparent+parent+position+depth", help="edge context mode"),
    seed: int = typer.Option(0, help="random seed"),
    jobs: int = typer.Option(1, "--jobs", help="parallel workers for features"),
    stream: bool = typer.Option(False, "--stream", help="a shard folder: mini-batches, one shard in memory at a time"),
    epochs: int = typer.Option(3, "--epochs", help="--stream: passes over the corpus"),
    checkpoint: Optional[Path] = typer.Option(None, "--checkpoint", help="--stream: save the state here after each "
                                              "shard; a later run with the same options resumes from it"),
    max_shards: Optional[int] = typer.Option(None, "--max-shards", help="--stream: stop after this many shards "
                                             "(resume later from --checkpoint)"),
    quiet: bool = typer.Option(False, "--quiet", help="no progress display"),
) -> None:
    """Train a structure predictor on a corpus and save it.

    Example: superpos fit train.npz model.npz

    Larger than memory: superpos fit big/ model.npz --stream --checkpoint ckpt.npz --max-shards 20
    """
    from ..structure.corpus import Corpus
    from ..structure.features import DatasetFeatures
    from ..structure.predictor import StructurePredictor

    inputs = [corpus, *(corpus.iterdir() if corpus.is_dir() else ())]  # a shard folder: each shard
    check_folder(output, inputs + [checkpoint])
    if checkpoint is not None:
        check_folder(checkpoint, inputs + [output], "checkpoint")
    if stream:
        from ..structure.corpus import _shard_files
        from ..structure.streaming import fit_streamed

        if not corpus.is_dir():
            raise SuperposError(f"--stream reads a shard folder (superpos generate big/ ...), not {corpus.name!r}")
        basis = Corpus.load(corpus / _shard_files(corpus)[0][0]).basis
        t = time.perf_counter()
        m = StructurePredictor(context=context, random_state=seed, n_jobs=jobs,
                               features=DatasetFeatures(max_variables=max(1, basis.n_variables), n_jobs=jobs))
        with progress_bars(quiet) as update:
            fit_streamed(m, corpus, epochs=epochs, checkpoint=checkpoint, max_shards=max_shards, progress=update)
            if not hasattr(m, "classifier_"):
                typer.echo(f"stopped after {max_shards} shards; run the same command again to resume from "
                           f"{checkpoint}", err=True)
                return
            m.save(output)
        if not quiet:
            typer.echo(f"trained in {time.perf_counter() - t:.1f} s; wrote {output}", err=True)
        return
    c = Corpus.load(corpus)
    t = time.perf_counter()
    m = StructurePredictor(context=context, random_state=seed, n_jobs=jobs,
                           features=DatasetFeatures(max_variables=max(1, c.basis.n_variables), n_jobs=jobs))
    with progress_bars(quiet) as update:
        m.fit(c, progress=update)
        m.save(output)
    if not quiet:
        typer.echo(f"trained on {len(c)} formulas in {time.perf_counter() - t:.1f} s; wrote {output}", err=True)


@command()
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
    from ..structure.shipped import load_predictor
    from ..symreg.settings import FormulaSettings

    if jobs < 1:
        raise SuperposError(f"--jobs must be at least 1, got {jobs}")
    settings = FormulaSettings(top_k=top_k, search_rounds=search, random_state=seed)
    m = load_predictor(str(model) if model else None)
    p = Path(target)
    if p.suffix == ".npz":
        from ..structure.corpus import Corpus
        from ..structure.metrics import structure_metrics

        c = Corpus.load(p)
        k = 10 if k is None else k
        m.features_.set_params(n_jobs=jobs)
        with progress_bars(quiet) as update:
            res = structure_metrics(m, c, k=k, progress=lambda d, n: update("data sets", d, n),
                                    decision=decision, fit_options=dict(top_k=top_k, search_rounds=search),
                                    n_jobs=jobs)
    else:
        from ..datasets.problems import load_problems, solve_problem

        if k is not None:
            raise SuperposError("--k is the top-k hit list of a corpus; a benchmark's candidate count is --top-k")
        folder, name = (p.parent, p.stem) if p.suffix == ".tsv" else (None, target)
        names = [n.strip() for n in problems.split(",")] if problems else None
        probs = load_problems(name, folder=folder, names=names)
        from joblib import Parallel, delayed

        rows = []
        with progress_bars(quiet) as update:
            update("problems", 0, len(probs))
            for row in Parallel(n_jobs=jobs, return_as="generator")(
                    delayed(solve_problem)(m, pr, settings, seed) for pr in probs):
                rows.append(row)
                update("problems", len(rows), len(probs))
    if p.suffix == ".npz":
        if decision != "ml":  # the top-1 is the decision's tree, the top-k list the most likely trees
            typer.echo(f"top-1: the {decision} tree; top-{k}: the true tree among the {k} most likely (ml)")
        typer.echo(f"{'nodes':8s} {'n':>6s} {'top-1':>7s} {'top-' + str(k):>7s} {'Hamming':>8s} {'size err':>9s}")
        for key, r in res.items():
            if r["n"]:
                typer.echo(f"{key:8s} {r['n']:6d} {r['top1']:7.3f} {r['topk']:7.3f} {r['hamming']:8.2f} "
                           f"{r['size_error']:+9.2f}")
        return
    typer.echo(f"{'problem':14s} {'exact':>5s} {'R^2':>9s} {'s':>7s}  formula")
    for r in rows:
        typer.echo(f"{r.name:14s} {'yes' if r.exact else 'no':>5s} {r.r2:9.5f} {r.seconds:7.3f}  {r.formula}")
    n = len(rows)
    typer.echo(f"total: exact {sum(r.exact for r in rows)}/{n}, R^2 > 0.99 {sum(r.r2 > 0.99 for r in rows)}/{n}, "
               f"R^2 > 0.999 {sum(r.r2 > 0.999 for r in rows)}/{n}, "
               f"median s {sorted(r.seconds for r in rows)[n // 2]:.3f}")
