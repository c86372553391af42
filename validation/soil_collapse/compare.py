"""Compare a soil-collapse run with the Bui et al. (2008) experiment.

Metrics (SI units):
- surface RMS: the simulated free surface (top of the highest particle, y + spacing/2, within
  half a spacing of x) minus the measured surface (surface.csv), RMS over the measured points
  with x in [0, 0.44] m; beyond the simulated deposit the surface is the floor, y = 0.
- runout: the farthest x of the continuous deposit. Walking outward from the wall over the
  particles sorted by x, the deposit ends at the first gap wider than the kernel support radius
  h (particles farther apart do not interact: the deposit is broken at the method's
  resolution); runout = that particle's x + spacing/2. The measured one is the last point of
  surface.csv, where the bars form a single layer. The farthest particle is reported too; the
  toe is one particle thick, so the two can differ by a few centimetres.
- failure line: a particle "moved" if its final displacement exceeds one spacing. For each point
  of failure.csv the simulated failure height is the lowest initial y of a moved particle in that
  initial column; RMS against the measured line, and the fraction of particles on the side of
  the measured line they should be (moved above it, at rest below it). The figure draws the
  simulated line through every column (failure_line) next to the measured one.
- x90: the x that 90 % of the soil's particles (equal masses) lie behind: the body of the
  deposit, which a front one particle thick does not move.
- numerical share: the pair dissipation's work (Monaghan's viscosity or the Riemann solver's,
  diagnostics.csv) as a fraction of the potential energy released (the issue's acceptance
  figure; nearly all of it is dissipated by the end), flagged above
  validation.NUMERICAL_SHARE_FLAG.
"""
import json
import os
from pathlib import Path

import h5py
import numpy as np

from regosph import validation

REFERENCE = Path(os.environ.get(
    "REGOSPH_REFERENCE_DIR",
    Path(__file__).resolve().parents[3] / "shared" / "reference" / "bui2008_soil_collapse"))
SURFACE_RMS_LIMIT = 5e-3   # m (issue acceptance)
RUNOUT_LIMIT = 2e-2        # m
SURFACE_X_RANGE = (0.0, 0.44)


def load_reference(directory=REFERENCE):
    directory = Path(directory)
    for name in ("surface.csv", "failure.csv"):
        if not (directory / name).is_file():
            raise FileNotFoundError(f"reference data '{directory / name}' not found "
                                    "(set REGOSPH_REFERENCE_DIR)")
    surface = np.loadtxt(directory / "surface.csv", delimiter=",", skiprows=1)
    failure = np.loadtxt(directory / "failure.csv", delimiter=",", skiprows=1)
    return surface, failure


def read_soil(snapshot):
    """Positions (N, 2) and ids of the dynamic particles of one snapshot file, sorted by id."""
    with h5py.File(snapshot, "r") as f:
        kind = f["particles/kind"][:]
        pos = f["particles/position"][:, :2][kind == 0]
        ids = f["particles/id"][:][kind == 0]
        time = float(f.attrs["time"])
    order = np.argsort(ids)
    return pos[order], ids[order], time


def surface_height(pos, x, spacing):
    """Top of the deposit [m] at each x: highest y + spacing/2 within spacing/2 of x."""
    out = np.zeros_like(x, dtype=float)
    for i, xi in enumerate(x):
        near = np.abs(pos[:, 0] - xi) <= 0.5 * spacing
        if near.any():
            out[i] = pos[near, 1].max() + 0.5 * spacing
    return out


def runout(pos, spacing, support_radius):
    xs = np.sort(pos[:, 0])
    gaps = np.flatnonzero(np.diff(xs) > support_radius)
    end = xs[gaps[0]] if gaps.size else xs[-1]
    return float(end + 0.5 * spacing)


def x90(pos):
    """The x [m] behind which 90 % of the particles (N, 2) lie."""
    return float(np.sort(pos[:, 0])[int(0.9 * len(pos)) - 1])


def failure_height(initial, moved, x, spacing):
    """Simulated failure height [m] in the initial column at x (particles within spacing/2):
    the lowest initial y of a moved particle; the column's top when none moved (NaN for an
    empty column)."""
    column = np.abs(initial[:, 0] - x) <= 0.5 * spacing
    if not column.any():
        return float("nan")
    m = column & moved
    return float(initial[m, 1].min()) if m.any() else float(initial[column, 1].max())


def failure_line(initial, moved, spacing):
    """The simulated failure line in the initial configuration: (x, y) [m] through every initial
    column in which something moved, y the column's failure height (failure_height), sorted
    by x. The boundary of the region that moved more than the threshold."""
    column = np.floor(initial[:, 0] / spacing).astype(int)  # the lattice's columns
    xs = np.array([initial[column == c, 0].mean() for c in np.unique(column[moved])])
    return xs, np.array([failure_height(initial, moved, x, spacing) for x in xs])


def compare(initial, final, spacing, support_radius, reference=REFERENCE):
    """Metrics dict for the initial and final positions (N, 2), matched by id order."""
    surface_ref, failure_ref = load_reference(reference)
    sel = (surface_ref[:, 0] >= SURFACE_X_RANGE[0]) & (surface_ref[:, 0] <= SURFACE_X_RANGE[1])
    xs, ys = surface_ref[sel, 0], surface_ref[sel, 1]
    y_sim = surface_height(final, xs, spacing)
    surface_rms = float(np.sqrt(np.mean((y_sim - ys) ** 2)))
    runout_sim = runout(final, spacing, support_radius)
    runout_ref = float(surface_ref[-1, 0])

    moved = np.linalg.norm(final - initial, axis=1) > spacing
    fail_sim = np.array([failure_height(initial, moved, xf, spacing) for xf in failure_ref[:, 0]])
    failure_rms = float(np.sqrt(np.mean((fail_sim - failure_ref[:, 1]) ** 2)))
    # Measured line as y(x), decreasing in x; material right of its foot all moves.
    order = np.argsort(failure_ref[:, 0])
    line_y = np.interp(initial[:, 0], failure_ref[order, 0], failure_ref[order, 1],
                       left=np.inf, right=-np.inf)
    should_move = initial[:, 1] > line_y
    agreement = float(np.mean(should_move == moved))

    metrics = {
        "surface_rms_m": surface_rms,
        "surface_rms_limit_m": SURFACE_RMS_LIMIT,
        "runout_m": runout_sim,
        "runout_experiment_m": runout_ref,
        "runout_error_m": runout_sim - runout_ref,
        "runout_limit_m": RUNOUT_LIMIT,
        "farthest_particle_m": float(final[:, 0].max() + 0.5 * spacing),
        "x90_m": x90(final),
        "top_at_wall_m": float(surface_height(final, np.array([0.5 * spacing]), spacing)[0]),
        "failure_line_rms_m": failure_rms,
        "failure_classification_agreement": agreement,
        "moved_fraction": float(moved.mean()),
        "surface_points": {"x_m": xs.tolist(), "experiment_m": ys.tolist(),
                           "simulation_m": y_sim.tolist()},
        "failure_points": {"x_m": failure_ref[:, 0].tolist(),
                           "experiment_m": failure_ref[:, 1].tolist(),
                           "simulation_m": fail_sim.tolist()},
    }
    metrics["passed"] = validation.passed(acceptance(metrics))
    return metrics


def energy_shares(diagnostics_csv):
    """The energy budget at the end of a run (diagnostics.csv): the potential energy released,
    and the pair dissipation's (the numerical scheme's) and the plastic dissipation's
    fractions of it."""
    import pandas as pd
    d = pd.read_csv(diagnostics_csv)
    d.columns = [c.split(" [")[0] for c in d.columns]
    released = float(d["potential_energy"].iloc[0] - d["potential_energy"].iloc[-1])
    scheme = sum(float(d[c].iloc[-1]) for c in validation.SCHEME_TERMS if c in d.columns)
    return {"released_energy": released,
            "numerical_share": scheme / released,
            "plastic_share": float(d["plastic_dissipation"].iloc[-1]) / released}


def acceptance(metrics):
    """The acceptance checks of the comparison: surface RMS and runout within their limits."""
    rms, runout_error = metrics["surface_rms_m"], metrics["runout_error_m"]
    return [validation.Check("surface RMS", rms <= metrics["surface_rms_limit_m"],
                             f"{rms * 1e3:.2f} mm"),
            validation.Check("runout", abs(runout_error) <= metrics["runout_limit_m"],
                             f"{runout_error * 1e2:+.1f} cm")]


def plot(initial, final, metrics, path, title, spacing):
    """Writes collapse.png (collapse_figure) to path; returns path."""
    import matplotlib.pyplot as plt

    fig = collapse_figure(initial, final, metrics, title, spacing)
    fig.savefig(path, dpi=150)
    plt.close(fig)
    return path


def collapse_figure(initial, final, metrics, title, spacing):
    """Above, the initial block coloured by each particle's final displacement on a
    logarithmic scale (at rest: ~micrometres; moved: centimetres), with the measured failure
    line and the simulated one (the boundary of the particles that moved more than one
    spacing); below, the final state in the same colours with the measured surface. Returns
    the Figure."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import LogNorm

    surface_ref, failure_ref = load_reference()
    disp = np.linalg.norm(final - initial, axis=1) * 1e3  # mm
    threshold = spacing * 1e3                             # mm: "moved"
    norm = LogNorm(vmin=threshold / 100.0, vmax=max(disp.max(), 10.0 * threshold), clip=True)
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(10, 6.4), constrained_layout=True,
                                      gridspec_kw={"height_ratios": [1.0, 1.0]})
    sc = top.scatter(initial[:, 0], initial[:, 1], s=3, c=disp, cmap="viridis", norm=norm)
    top.plot(failure_ref[:, 0], failure_ref[:, 1], "s--", color="k", ms=3,
             label="experiment: failure line")
    x_line, y_line = failure_line(initial, disp > threshold, spacing)
    # Column by column (the line's heights are those of the lowest moved particles).
    top.plot(x_line, y_line, "-", color="tab:red", lw=1.5, drawstyle="steps-mid",
             label=f"simulation: failure line (moved > {threshold:.3g} mm)")
    fig.suptitle(title)
    top.set_title(f"initial positions coloured by their final displacement: failure line RMS "
                  f"{metrics['failure_line_rms_m'] * 1e3:.1f} mm", fontsize="medium")
    bottom.scatter(initial[:, 0], initial[:, 1], s=2, c="0.85")
    bottom.scatter(final[:, 0], final[:, 1], s=3, c=disp, cmap="viridis", norm=norm)
    bottom.plot(surface_ref[:, 0], surface_ref[:, 1], "o-", color="tab:red", ms=3,
                label="experiment: final surface")
    bottom.set_title(f"final positions (initial in grey): surface RMS "
                     f"{metrics['surface_rms_m'] * 1e3:.2f} mm, runout {metrics['runout_m']:.3f} m "
                     f"(experiment {metrics['runout_experiment_m']:.3f} m)", fontsize="medium")
    for ax, xlim in ((top, (-0.01, 0.22)), (bottom, (-0.01, 0.5))):
        ax.set(xlabel="x [m]", ylabel="y [m]", aspect="equal", xlim=xlim, ylim=(-0.005, 0.11))
        ax.legend(loc="upper right", fontsize=7, markerscale=2)
    bar = fig.colorbar(sc, ax=[top, bottom], label="displacement [mm] (log scale)", pad=0.01)
    bar.ax.axhline(threshold, color="tab:red", lw=1.5)  # the "moved" threshold
    return fig


def write_report(metrics, directory):
    directory = Path(directory)
    (directory / "report.json").write_text(json.dumps(metrics, indent=2) + "\n")
    lines = [
        "Soil collapse vs Bui et al. (2008) experiment",
        f"  surface RMS      {metrics['surface_rms_m'] * 1e3:7.2f} mm   (limit "
        f"{metrics['surface_rms_limit_m'] * 1e3:.0f} mm)",
        f"  runout           {metrics['runout_m']:7.3f} m    (experiment "
        f"{metrics['runout_experiment_m']:.3f} m, error {metrics['runout_error_m'] * 1e2:+.1f} cm, "
        f"limit {metrics['runout_limit_m'] * 1e2:.0f} cm)",
        f"  farthest particle {metrics['farthest_particle_m']:6.3f} m; x90 "
        f"{metrics['x90_m']:.3f} m\n"
        f"  top at the wall  {metrics['top_at_wall_m']:7.4f} m    (experiment ~0.099 m)",
        f"  failure line RMS {metrics['failure_line_rms_m'] * 1e3:7.2f} mm; "
        f"{metrics['failure_classification_agreement'] * 100:.1f} % of particles on the "
        "measured side of it",
    ]
    if "numerical_share" in metrics:
        share = metrics["numerical_share"]
        flag = (f"  FLAG: above {validation.NUMERICAL_SHARE_FLAG:.0%}, the numerics decide "
                "the result" if share > validation.NUMERICAL_SHARE_FLAG else "")
        lines.append(f"  dissipation      {share * 100:5.1f} % of the released "
                     f"{metrics['released_energy']:.3g} J/m by the numerical scheme, "
                     f"{metrics['plastic_share'] * 100:.1f} % plastic{flag}")
    if (directory / "run.json").is_file():
        lines += ["  " + line[2:] for line in validation.physics_section([directory])[2:]]
    lines.append(f"  result: {validation.verdict(acceptance(metrics))}")
    text = "\n".join(lines) + "\n"
    (directory / "report.txt").write_text(text)
    return text
