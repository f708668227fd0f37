"""Rich progress bars on standard error, one line per stage of the work."""
from __future__ import annotations

import contextlib

__all__ = ["progress_bars"]


@contextlib.contextmanager
def progress_bars(quiet: bool):
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
