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


def plot_loads(run, bodies=None):
    """Force, torque and power of every tool (the kinematic bodies of diagnostics.csv, or
    `bodies`) against time, one colour per tool: three stacked panels. Force components x, y, z
    and torque components z, x, y are drawn solid, dashed, dotted. Returns the Figure."""
    plt = _pyplot()
    run = run if isinstance(run, Run) else Run(run)
    bodies = list(bodies) if bodies is not None else run.loaded_bodies
    if not bodies:
        raise ValueError(f"{run.path / 'diagnostics.csv'}: no tool loads (the run has no "
                         "kinematic body)")
    fig, axes = plt.subplots(3, 1, figsize=(8, 8), sharex=True, constrained_layout=True)
    styles = {"force": {"x": "-", "y": "--", "z": ":"}, "torque": {"z": "-", "x": "--", "y": ":"}}
    units = {}
    for i, body in enumerate(bodies):
        loads = run.body_loads(body)
        colour = f"C{i % 10}"
        for quantity, ax in (("force", axes[0]), ("torque", axes[1])):
            for c in ("x", "y", "z"):
                name = f"{quantity}_{c}"
                if name in loads:
                    units[quantity] = loads.attrs["units"][name]
                    ax.plot(loads["time"], loads[name], styles[quantity][c], color=colour,
                            label=f"{body} {c}")
        if "power" in loads:
            units["power"] = loads.attrs["units"]["power"]
            axes[2].plot(loads["time"], loads["power"], color=colour, label=body)
    for ax, quantity in zip(axes, ("force", "torque", "power")):
        ax.set_ylabel(f"{quantity} [{units.get(quantity, '?')}]")
        ax.axhline(0.0, color="0.7", lw=0.5)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize="x-small", ncol=2)
    if "power" not in units:
        axes[2].text(0.5, 0.5, "power not recorded by this run", ha="center", va="center",
                     transform=axes[2].transAxes)
    axes[2].set_xlabel("time [s]")
    axes[0].set_title(f"{run.name}: loads on the tools (power: what the regolith takes)")
    return fig


# Columns of an energy budget in diagnostics.csv: energies, dissipations, works.
_ENERGY_WORDS = ("energy", "dissipat", "work")


def energy_budget_columns(run):
    """The energy budget's columns of diagnostics.csv (names with 'energy', 'dissipat' or
    'work'), or [] when the run has no budget beyond its kinetic energy and the tools' work."""
    columns = [c for c in run.diagnostics.columns
               if c != "time" and any(w in c.lower() for w in _ENERGY_WORDS)]
    budget = [c for c in columns if c != "kinetic_energy" and not c.endswith(".work")]
    return columns if budget else []


def plot_energy(run):
    """The energy budget's columns (energy_budget_columns) against time on one axis. Returns
    the Axes; ValueError naming diagnostics.csv when the run has no budget."""
    plt = _pyplot()
    run = run if isinstance(run, Run) else Run(run)
    columns = energy_budget_columns(run)
    if not columns:
        raise ValueError(f"{run.path / 'diagnostics.csv'}: no energy budget (only the kinetic "
                         "energy and the tools' work are recorded; the potential, elastic and "
                         "dissipated energies are not)")
    d = run.diagnostics
    _, ax = plt.subplots(figsize=(8, 4.5), constrained_layout=True)
    for c in columns:
        ax.plot(d["time"], d[c], label=f"{c} [{d.attrs['units'].get(c, '?')}]")
    ax.set(xlabel="time [s]", ylabel="energy", title=f"{run.name}: energy budget")
    ax.axhline(0.0, color="0.7", lw=0.5)
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
