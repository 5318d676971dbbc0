"""Progress of long work wherever it runs: a terminal, a Jupyter notebook, or a log.

:func:`progress_bar` picks the display: tqdm's bar on a terminal, tqdm's notebook widget in Jupyter
(``tqdm.notebook``; a text bar redrawn in place when ipywidgets is not installed), and, when
stderr is neither (a log file, ``nohup``, a CI job), one plain line every :data:`LOG_INTERVAL`
seconds and one at the end, so that a long run is never silent until its last line.
"""

from __future__ import annotations

import sys
import time

from tqdm import tqdm

__all__ = ["progress_bar", "LogProgress", "LOG_INTERVAL"]

#: Seconds between two progress lines in a log (stderr not a terminal, not a notebook).
LOG_INTERVAL = 10.0


def _in_notebook() -> bool:
    """Whether this process is a Jupyter kernel (IPython's ZMQ shell)."""
    ipython = sys.modules.get("IPython")
    if ipython is None or "ipykernel" not in sys.modules:
        return False
    shell = ipython.get_ipython() if hasattr(ipython, "get_ipython") else None
    return shell is not None and type(shell).__name__ == "ZMQInteractiveShell"


def _is_terminal(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def progress_bar(total=None, *, unit: str = "hand", desc: str = "simulate", enabled: bool = True, file=None):
    """A progress display with tqdm's interface (``update``, ``n``, settable ``total``, ``close``).

    ``enabled=False`` gives a silent one. Otherwise: in Jupyter, tqdm's widget (or text bar); on a terminal
    (``file``, default stderr), tqdm's bar; anywhere else a :class:`LogProgress`.
    """

    stream = sys.stderr if file is None else file
    options = dict(total=total, unit=unit, unit_scale=True, desc=desc, smoothing=0.1)
    if not enabled:
        return tqdm(disable=True, **options)
    if _in_notebook():
        try:
            import ipywidgets  # noqa: F401  (tqdm's widget needs it)
            from tqdm.notebook import tqdm as notebook_tqdm

            return notebook_tqdm(**options)
        except ImportError:  # a text bar: the notebook's output area redraws it in place
            return tqdm(file=stream, disable=False, **options)
    if _is_terminal(stream):
        return tqdm(file=stream, dynamic_ncols=True, **options)
    return LogProgress(total, unit=unit, desc=desc, file=stream)


class LogProgress:
    """Progress as plain lines for a log: ``desc: 12,345 / 40,000 hands (31%), 22,000 hands/s,
    about 1 min 10 s left`` every :data:`LOG_INTERVAL` seconds (read when the display is made) and
    once at :meth:`close`."""

    def __init__(self, total=None, *, unit: str = "hand", desc: str = "simulate", file=None, interval=None):
        self.total = total
        self.n = 0
        self.unit = unit
        self.desc = desc
        self.file = sys.stderr if file is None else file
        self.interval = LOG_INTERVAL if interval is None else float(interval)
        self._start = time.monotonic()
        self._last = self._start
        self._closed = False

    def update(self, n: int = 1) -> None:
        self.n += n
        now = time.monotonic()
        if now - self._last >= self.interval:
            self._last = now
            self._write(now)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._write(time.monotonic(), final=True)

    def _write(self, now: float, final: bool = False) -> None:
        elapsed = max(now - self._start, 1e-9)
        rate = self.n / elapsed
        units = self.unit + ("es" if self.unit.endswith(("ch", "sh", "s", "x")) else "s")  # hands, matches
        done = f"{self.n:,}"
        if self.total:
            done += f" / {int(self.total):,} {units} ({100 * self.n / self.total:.0f}%)"
        else:
            done += f" {units}"
        line = f"{self.desc}: {done}, {rate:,.0f} {units}/s"
        if final:
            line += f", done in {_duration(elapsed)}"
        elif self.total and rate > 0 and self.n < self.total:
            line += f", about {_duration((self.total - self.n) / rate)} left"
        print(line, file=self.file, flush=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min"
