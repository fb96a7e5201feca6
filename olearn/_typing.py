"""Type aliases of the public API's annotations (checked by mypy: ``[tool.mypy]`` in
pyproject.toml).  Importing this module costs nothing: the aliases exist for type
checkers only (the annotated modules say ``from __future__ import annotations``, so
no annotation is evaluated when olearn runs, and numpy and scipy stay unimported)."""
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import os
    from collections.abc import Hashable, Mapping
    from typing import Any, Union

    from numpy.typing import ArrayLike, NDArray

    #: a batch of rows: an (n, d) array-like or a SciPy sparse matrix
    Matrix = Any
    #: one row: a dict ``{feature: value}`` or a 1-D array-like
    Row = Union[Mapping[Hashable, float], ArrayLike]
    #: one label (a class of any hashable type, or a regression target)
    Label = Any
    #: labels or weights of a batch, one per row
    Vector = ArrayLike
    #: what ``export_state`` returns: JSON-able metadata and named arrays
    State = tuple[dict[str, Any], dict[str, NDArray[Any]]]
    #: a file name
    Path = Union[str, os.PathLike[str]]
