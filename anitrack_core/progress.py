"""Progress of a long command: a tqdm bar on a terminal, plain lines otherwise.

A bar is drawn only when the stream is a terminal; in a log or a pipe a line
``<what>: <done>/<total> (<percent>%)`` is printed at most every
:data:`LINE_INTERVAL` seconds, and once at the end.
"""

from __future__ import annotations

import sys
import time
from typing import IO, Any

#: seconds between two plain progress lines
LINE_INTERVAL = 5.0


class Progress:
    """``with Progress("projects", total) as bar: bar.advance(n)``."""

    def __init__(self, what: str, total: int | None, *, stream: IO[str] | None = None,
                 initial: int = 0, enabled: bool = True) -> None:
        self.what = what
        self.total = total
        self.done = initial
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled
        self._bar: Any = None
        self._last_line = time.monotonic()
        if enabled and _is_terminal(self.stream):
            from tqdm import tqdm

            self._bar = tqdm(total=total, initial=initial, desc=what, unit=" " + what.split()[-1],
                             file=self.stream, dynamic_ncols=True, smoothing=0.1)

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def advance(self, count: int = 1) -> None:
        self.done += count
        if self._bar is not None:
            self._bar.update(count)
        elif self.enabled and time.monotonic() - self._last_line >= LINE_INTERVAL:
            self._line()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        elif self.enabled:
            self._line()
            self.enabled = False

    def _line(self) -> None:
        self._last_line = time.monotonic()
        if self.total:
            text = f"{self.what}: {self.done}/{self.total} ({100 * self.done // self.total}%)"
        else:
            text = f"{self.what}: {self.done}"
        print(text, file=self.stream, flush=True)


def _is_terminal(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
