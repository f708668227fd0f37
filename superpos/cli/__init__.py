"""The ``superpos`` command line: parses, calls the library, prints; nothing else.

``train`` holds the commands around the structure model (basis, generate, fit, evaluate),
``predict`` the formula of one data set or of a batch, ``progress`` the progress bars."""
from __future__ import annotations

from .base import app
from . import predict, train  # noqa: F401  (registers the commands on ``app``)

__all__ = ["app"]
