"""Rebuild the shipped default model, superpos/models/default.npz, from a fixed seed.

    python examples/train_default_model.py              # under an hour on 2 cores
    python examples/train_default_model.py --n 20000    # a smaller model, to try the recipe
    python examples/train_default_model.py --n 1000000 --stream big/ --max-shards 10
        # larger than memory: shards in big/, mini-batches, a checkpoint in big/checkpoint.npz
        # after every shard; run the same command again (in a later session) to go on

Default basis over 3 variables; each formula uses 1 to 3 of them (n_variables=(1, 3)),
depth <= 5, <= 12 nodes. ``--offset-share`` and ``--noisy-share`` add measured data's habits
to the prior (narrow input ranges far from zero, targets with SRBench's noise); the shipped
model has neither. A 200,000-formula model with 0.1 and 0.25 was measured against it and lost
(README, "The shipped model"):

    python examples/train_default_model.py --n 200000 --offset-share 0.1 --noisy-share 0.25 --output m200k.npz

and so was one of 200,000 formulas on the shipped (clean) prior, ``--n 200000``.

``--extra powc erf`` adds functions to the default basis (a power with a fitted exponent, the
error function); a model so trained was measured against the shipped one (benchmarks/README.md).

The same recipe trains your own model on your own basis:
generate a corpus, fit a StructurePredictor, save it.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

from superpos import Basis, DatasetFeatures, StructurePredictor, generate_corpus

OUT = Path(__file__).resolve().parents[1] / "superpos" / "models" / "default.npz"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=100_000, help="formulas in the training corpus")
    ap.add_argument("--seed", type=int, default=20261125)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--offset-share", type=float, default=0.0, help="share of narrow input ranges far from zero")
    ap.add_argument("--noisy-share", type=float, default=0.0, help="share of targets with SRBench noise")
    ap.add_argument("--corpus", type=Path, default=None, help="reuse or keep the corpus here")
    ap.add_argument("--output", type=Path, default=OUT)
    ap.add_argument("--extra", nargs="*", default=[], metavar="NAME",
                    help="functions added to the default basis (e.g. powc erf), after its own")
    ap.add_argument("--stream", type=Path, default=None, help="shard folder: streamed, resumable training")
    ap.add_argument("--epochs", type=int, default=3, help="--stream: passes over the corpus")
    ap.add_argument("--max-shards", type=int, default=None, help="--stream: stop after this many shards")
    args = ap.parse_args()
    if args.stream:
        return _streamed(args)

    basis = _basis(args.extra)
    t = time.perf_counter()
    if args.corpus and args.corpus.exists():
        from superpos import Corpus

        corpus = Corpus.load(args.corpus)
    else:
        corpus = generate_corpus(basis, args.n, random_state=args.seed, n_variables=(1, 3), n_jobs=args.jobs,
                                 offset_share=args.offset_share, noisy_share=args.noisy_share, progress=_report(t))
        if args.corpus:
            corpus.save(args.corpus)
    print(f"corpus: {len(corpus)} formulas in {time.perf_counter() - t:.0f} s", flush=True)
    t = time.perf_counter()
    model = StructurePredictor(basis=basis, random_state=args.seed, n_jobs=args.jobs,
                               features=DatasetFeatures(max_variables=3, n_jobs=args.jobs))
    model.fit(corpus)
    print(f"fit: {time.perf_counter() - t:.0f} s, size bonus {model.size_bonus_}, "
          f"held-out exact match {getattr(model, 'validation_exact_match_', float('nan')):.3f}", flush=True)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    model.save(args.output)
    print(f"wrote {args.output} ({args.output.stat().st_size / 1e6:.1f} MB)")


def _basis(extra: list[str]) -> Basis:
    """The default basis over 3 variables with the ``extra`` functions after its own."""
    names = Basis.default(n_variables=3).to_list()
    first_leaf = next(k for k, n in enumerate(names) if n.startswith("x"))
    return Basis(names[:first_leaf] + [n for n in extra if n not in names] + names[first_leaf:])


def _report(t0: float):
    """Print the corpus's progress about every 5 % (a long run shows where it is)."""
    last = [0.0]

    def report(done: int, total: int) -> None:
        if done >= total or done >= last[0] + 0.05 * total:
            last[0] = done
            print(f"  {done:,} / {total:,} formulas, {time.perf_counter() - t0:.0f} s", flush=True)
    return report


def _streamed(args) -> None:
    from superpos.structure.corpus import corpus_length, write_corpus
    from superpos.structure.streaming import fit_streamed

    basis = _basis(args.extra)
    t = time.perf_counter()
    if not (args.stream / "manifest.json").exists():
        write_corpus(args.stream, basis, args.n, shard_size=20_000, random_state=args.seed, n_variables=(1, 3),
                     n_jobs=args.jobs, offset_share=args.offset_share, noisy_share=args.noisy_share,
                     progress=_report(t))
    print(f"corpus: {corpus_length(args.stream)} formulas in {time.perf_counter() - t:.0f} s", flush=True)
    t = time.perf_counter()
    model = StructurePredictor(basis=basis, random_state=args.seed, n_jobs=args.jobs,
                               features=DatasetFeatures(max_variables=3, n_jobs=args.jobs))
    fit_streamed(model, args.stream, epochs=args.epochs, checkpoint=args.stream / "checkpoint.npz",
                 max_shards=args.max_shards)
    if not hasattr(model, "classifier_"):
        print(f"stopped after {args.max_shards} shards ({time.perf_counter() - t:.0f} s); run again to go on")
        return
    print(f"fit: {time.perf_counter() - t:.0f} s, size bonus {model.size_bonus_}", flush=True)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    model.save(args.output)
    print(f"wrote {args.output} ({args.output.stat().st_size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
