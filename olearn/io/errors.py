"""The exception raised for malformed input files.

A ``DataFormatError`` always reads as one line, ``place: what is wrong``, where
the place is ``path:line`` (or just ``path`` for problems with the file as a
whole, such as a corrupt ``.gz``).  A command-line tool can print ``str(exc)``
and exit: the message is meant to stand on its own.
"""

__all__ = ["DataFormatError"]


class DataFormatError(ValueError):
    """Malformed input: ``str(exc)`` is ``"path:line: reason"`` on one line.

    Attributes ``path`` (str), ``line`` (1-based int, or None when the problem
    concerns the whole file) and ``reason`` give the parts separately.
    """

    def __init__(self, path, line, reason):
        super().__init__(str(path), line, str(reason))

    @property
    def path(self):
        return self.args[0]

    @property
    def line(self):
        return self.args[1]

    @property
    def reason(self):
        return self.args[2]

    def __str__(self):
        place = self.path if self.line is None else f"{self.path}:{self.line}"
        text = f"{place}: {self.reason}"
        # One line, whatever the path or the quoted input contained.
        return text.replace("\r", "\\r").replace("\n", "\\n")
