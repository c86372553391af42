"""Figures with matplotlib. Unless a backend was chosen (MPLBACKEND, Jupyter's inline one, or
pyplot already imported), the Agg backend is used: no display needed."""
import os
import sys

import numpy as np

from .run import Run


def _pyplot():
    import matplotlib

    if "matplotlib.pyplot" not in sys.modules and not os.environ.get("MPLBACKEND"):
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_particles(snapshot, field="speed", ax=None, material=None, cmap="viridis", vmin=None,
                   vmax=None, size=2.0, xlim=None, ylim=None):
    """x-y scatter of the dynamic particles (optionally of one material) coloured by `field`
    (any stored scalar field, a stress component such as "stress_yy", or "speed",
    "pressure"); boundary and tool particles grey. Returns the Axes."""
    plt = _pyplot()
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 4))
    values = snapshot[field]
    if values.ndim != 1:
        raise ValueError(f"field: {field!r} is not a scalar field; use a component such as "
                         "'vx' or 'stress_xy'")
    x, y = snapshot["x"], snapshot["y"]
    coloured = snapshot.select(material=material, kind="dynamic")
    ax.scatter(x[~coloured], y[~coloured], s=size, c="0.65", lw=0)
    sc = ax.scatter(x[coloured], y[coloured], s=size, c=values[coloured], cmap=cmap, vmin=vmin,
                    vmax=vmax, lw=0)
    unit = snapshot.units.get(field, {"speed": "m/s", "pressure": "Pa"}.get(
        field, "Pa" if field.startswith("stress_") else ""))
    ax.figure.colorbar(sc, ax=ax, label=f"{field} [{unit}]" if unit else field)
    ax.set(aspect="equal", xlabel="x [m]", ylabel="y [m]", title=f"t = {snapshot.time:.3f} s")
    if xlim:
        ax.set_xlim(xlim)
    if ylim:
        ax.set_ylim(ylim)
    return ax


def plot_observer(runs, observer="tray", quantity="count", ax=None, labels=None, **style):
    """Observer count (or mass) against time for several runs (Run objects or paths), one line
    each, labelled with the run name unless `labels` are given. Returns the Axes."""
    plt = _pyplot()
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 4))
    runs = [r if isinstance(r, Run) else Run(r) for r in runs]
    labels = labels or [r.name for r in runs]
    if len(labels) != len(runs):
        raise ValueError(f"labels: {len(labels)} labels for {len(runs)} runs")
    unit = "-"
    for run, label in zip(runs, labels):
        s = run.observer(observer)
        unit = s.attrs["units"][quantity]
        ax.step(s["time"], s[quantity], where="post", label=label, **style)
    ax.set(xlabel="time [s]", ylabel=f"{observer} {quantity} [{unit}]")
    ax.legend(fontsize="small")
    return ax


def plot_profiles(profiles, ax=None, labels=None):
    """Bed surface profiles (surface_profile frames) against x. Returns the Axes."""
    plt = _pyplot()
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 3))
    for i, p in enumerate(profiles):
        ax.plot(p["x"], p["height"], label=labels[i] if labels else None)
    ax.set(xlabel="x [m]", ylabel="surface height [m]")
    if labels:
        ax.legend(fontsize="small")
    return ax


def save(ax_or_fig, path, dpi=120):
    """Write the figure to `path` (PNG by extension) and close it; returns the path."""
    plt = _pyplot()
    fig = getattr(ax_or_fig, "figure", ax_or_fig)
    fig.savefig(path, dpi=dpi, bbox_inches="tight")
    plt.close(fig)
    return path


def nearest_times(run, times):
    """Indices of the snapshots nearest to each of `times` [s] (duplicates removed, in order)."""
    t = run.times
    out = []
    for when in times:
        i = int(np.argmin(np.abs(t - when)))
        if i not in out:
            out.append(i)
    return out
