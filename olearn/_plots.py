"""Small matplotlib helpers shared by the plots of results (evaluation, the sparse
learners' sparsity curve), imported lazily.

Figures are made with ``matplotlib.figure.Figure`` directly, not through pyplot, so
saving a PNG never needs a display or a GUI backend; in a notebook a returned Figure
shows as usual.  When ``ax`` is given, drawing goes into it instead.
"""


def figure_and_axes(ax=None, ncols=1, figsize=(7.0, 4.5)):
    """(figure, axes): a new figure with ``ncols`` axes, or ``ax``'s figure."""
    if ax is not None:
        return ax.figure, ax
    try:
        from matplotlib.figure import Figure
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("plotting needs matplotlib: pip install 'olearn[plot]'") from None
    fig = Figure(figsize=figsize, layout="constrained")
    axes = fig.subplots(1, ncols)
    return fig, axes


def colors(n):
    """``n`` distinct colors (tab10, then tab20, then a continuous map)."""
    from matplotlib import colormaps
    if n <= 10:
        return [colormaps["tab10"](i) for i in range(n)]
    if n <= 20:
        cmap = colormaps["tab20"]
        return [cmap(i) for i in list(range(0, 20, 2)) + list(range(1, 20, 2))][:n]
    cmap = colormaps["turbo"]
    return [cmap(i / max(1, n - 1)) for i in range(n)]


def finish(fig, path=None, dpi=120):
    """Save ``fig`` to ``path`` when given; return the figure."""
    if path is not None:
        fig.savefig(path, dpi=dpi)
    return fig
