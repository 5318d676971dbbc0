"""simkit's version: the installed distribution's, or ``0+unknown`` in a source tree that is not installed."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("simkit")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0+unknown"
