"""The outcome of :func:`olearn.evaluate.compare.compare`: :class:`ComparisonResult`,
its table (text, markdown, CSV) and its plots (the curves, the updates and seconds)."""
import json

import numpy as np


def _mean_or_none(values):
    return None if any(v is None for v in values) else float(np.mean(values))


def _fmt_value(v):
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


class ComparisonResult:
    """What :func:`compare` measured.

    Attributes: ``names`` (learners in the given order), ``params`` (the tuned values),
    ``estimators`` (unfitted, with those values), ``grids`` and ``tuning`` (each grid
    point with its score on the tuning order), ``metric``, and per learner the arrays
    over evaluation orders ``scores``, ``updates``, ``seconds`` (and ``densities``, the
    fraction of non-zero weights of a sparse learner, None for others); ``curves[name]`` is
    ``(permutations, len(checkpoints))``: the cumulative mistake rate (or loss) after
    ``checkpoints`` rows.  ``tuning_order`` and ``orders`` are the row orders used.
    """

    def __init__(self, **kw):
        self.__dict__.update(kw)

    @property
    def permutations(self):
        return len(self.orders)

    def rows(self):
        """One dict per learner, best mean score first."""
        out = []
        for nm in self.names:
            s, u, t = self.scores[nm], self.updates[nm], self.seconds[nm]
            out.append({"learner": nm,
                        "params": ", ".join(f"{k}={_fmt_value(v)}"
                                            for k, v in self.params[nm].items()),
                        "score_mean": float(s.mean()), "score_std": float(s.std()),
                        "updates_mean": float(u.mean()), "updates_std": float(u.std()),
                        "seconds_mean": float(t.mean()), "seconds_std": float(t.std()),
                        "density_mean": _mean_or_none(self.__dict__.get("densities", {})
                                                      .get(nm, [None]))})
        sign = -1.0 if self.__dict__.get("higher_is_better") else 1.0
        order = np.argsort([sign * r["score_mean"] for r in out], kind="stable")
        return [out[i] for i in order]

    def _cells(self):
        head = ["learner", "tuned", f"{self.metric}", "updates", "seconds"]
        rows = self.rows()
        body = [[r["learner"], r["params"] or "-",
                 f"{r['score_mean']:.4f} ± {r['score_std']:.4f}",
                 f"{r['updates_mean']:.1f} ± {r['updates_std']:.1f}",
                 f"{r['seconds_mean']:.4f} ± {r['seconds_std']:.4f}"] for r in rows]
        if any(r["density_mean"] is not None for r in rows):  # sparse learners compared
            head.append("density")
            for cells, r in zip(body, rows):
                d = r["density_mean"]
                cells.append("-" if d is None else f"{d:.4f}")
        return head, body

    def _title(self):
        data = f"{self.dataset}: " if self.dataset else ""
        held = f", {self.holdout:g} of rows held out for tuning" if self.holdout else \
            ", tuned on a separate order"
        return (f"{data}{self.n_samples} rows, {self.n_features} features; mean ± std over "
                f"{self.permutations} random orders{held} (seed {self.random_state})")

    def __str__(self):
        head, body = self._cells()
        widths = [max(len(h), *(len(r[i]) for r in body)) for i, h in enumerate(head)]
        line = "  ".join(h.ljust(w) for h, w in zip(head, widths))
        out = [self._title(), line, "-" * len(line)]
        out += ["  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in body]
        return "\n".join(out)

    def __repr__(self):
        return f"<ComparisonResult {len(self.names)} learners>\n{self}"

    def to_markdown(self):
        """The table in GitHub markdown, under a line saying how it was made."""
        head, body = self._cells()
        out = [self._title(), "", "| " + " | ".join(head) + " |",
               "|" + "|".join(["---"] * 2 + ["---:"] * (len(head) - 2)) + "|"]
        out += ["| " + " | ".join(r) + " |" for r in body]
        return "\n".join(out) + "\n"

    def to_csv(self, path=None):
        """The table as CSV (one row per learner, means and stds); written to ``path``
        when given.  Returns the text."""
        import csv
        import io
        buf = io.StringIO()
        rows = self.rows()
        fields = ["learner", "params", "score_mean", "score_std", "updates_mean",
                  "updates_std", "seconds_mean", "seconds_std"]
        if any(r["density_mean"] is not None for r in rows):
            fields.append("density_mean")
        w = csv.DictWriter(buf, fieldnames=fields, lineterminator="\n",
                           extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({**r, "params": json.dumps(self.params[r["learner"]])})
        text = buf.getvalue()
        if path is not None:
            with open(path, "w", newline="") as f:
                f.write(text)
        return text

    def plot(self, path=None, ax=None, band=None):
        """Cumulative mistake rate (or loss) along the stream: for every learner the mean
        over orders and (``band``; default: when at most 6 learners) a band of one
        standard deviation.  Learners are listed best first.  Saved to ``path`` if
        given; returns the figure."""
        from .._plots import colors, figure_and_axes, finish
        ranked = [r["learner"] for r in self.rows()]
        many = len(ranked) > 8
        # the legend beside the axes, in as many columns of at most 18 entries as it
        # takes to fit the figure's height (a longer single column was cut off)
        ncol = -(-len(ranked) // 18)
        fig, ax = figure_and_axes(ax, figsize=(7.5 + 2.0 * ncol, 5.2) if many else (7.0, 4.5))
        if band is None:
            band = len(ranked) <= 6
        t = self.checkpoints
        tail = []
        styles = ("-", "--", "-.", ":")
        for i, (nm, c) in enumerate(zip(ranked, colors(len(ranked)))):
            curves = self.curves[nm]
            mean, std = curves.mean(axis=0), curves.std(axis=0)
            ax.plot(t, mean, color=c, lw=1.7, ls=styles[(i // 10) % 4] if many else "-",
                    label=f"{nm} ({mean[-1]:.4f})")
            if band and len(curves) > 1:
                ax.fill_between(t, mean - std, mean + std, color=c, lw=0, alpha=0.15)
            tail.append(mean[len(t) // 10:])
        ax.set_xlabel("examples seen")
        curve_metric = self.__dict__.get("curve_metric", self.metric)
        ax.set_ylabel(f"cumulative {curve_metric}")
        top = max(float(np.max(v)) for v in tail if len(v)) if tail else 1.0
        ax.set_ylim(0, top * 1.15 if top > 0 else 1.0)
        ax.set_xlim(1, t[-1])
        ax.grid(alpha=0.3)
        ax.set_title(f"Online {curve_metric}" + (f" on {self.dataset}" if self.dataset
                                                else "") +
                     f": mean over {self.permutations} random orders" +
                     (" (band: one std)" if band else ""), fontsize=11)
        if many:
            ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), ncol=ncol,
                      title="best first (final value)", title_fontsize=8)
        else:
            ax.legend(fontsize=8, loc="upper right")
        return finish(fig, path)

    def plot_bars(self, path=None):
        """Two bar charts: mean number of updates and mean seconds per pass (with one
        standard deviation).  Saved to ``path`` if given; returns the figure."""
        from .._plots import colors, figure_and_axes, finish
        fig, (a1, a2) = figure_and_axes(ncols=2, figsize=(10.0, 4.2))
        ranked = [r["learner"] for r in self.rows()]
        cols = colors(len(ranked))
        pos = np.arange(len(ranked))
        for ax, data, label in ((a1, self.updates, "updates per pass"),
                                (a2, self.seconds, "seconds per pass")):
            means = [data[nm].mean() for nm in ranked]
            stds = [data[nm].std() for nm in ranked]
            low = np.minimum(stds, means)  # a bar's error never goes below zero
            ax.bar(pos, means, yerr=[low, stds], color=cols, capsize=3)
            ax.set_xticks(pos, ranked, rotation=45, ha="right", fontsize=8)
            ax.set_ylabel(label)
            ax.grid(axis="y", alpha=0.3)
        fig.suptitle("Updates and time" + (f" on {self.dataset}" if self.dataset else "")
                     + f" ({self.permutations} orders)", fontsize=11)
        return finish(fig, path)
