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
  the measured line they should be (moved above it, at rest below it).
"""
import json
import os
from pathlib import Path

import h5py
import numpy as np

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
    fail_sim = []
    for xf in failure_ref[:, 0]:
        column = np.abs(initial[:, 0] - xf) <= 0.5 * spacing
        m = column & moved
        fail_sim.append(float(initial[m, 1].min()) if m.any() else float(initial[column, 1].max()))
    fail_sim = np.array(fail_sim)
    failure_rms = float(np.sqrt(np.mean((fail_sim - failure_ref[:, 1]) ** 2)))
    # Measured line as y(x), decreasing in x; material right of its foot all moves.
    order = np.argsort(failure_ref[:, 0])
    line_y = np.interp(initial[:, 0], failure_ref[order, 0], failure_ref[order, 1],
                       left=np.inf, right=-np.inf)
    should_move = initial[:, 1] > line_y
    agreement = float(np.mean(should_move == moved))

    return {
        "surface_rms_m": surface_rms,
        "surface_rms_limit_m": SURFACE_RMS_LIMIT,
        "runout_m": runout_sim,
        "runout_experiment_m": runout_ref,
        "runout_error_m": runout_sim - runout_ref,
        "runout_limit_m": RUNOUT_LIMIT,
        "farthest_particle_m": float(final[:, 0].max() + 0.5 * spacing),
        "top_at_wall_m": float(surface_height(final, np.array([0.5 * spacing]), spacing)[0]),
        "failure_line_rms_m": failure_rms,
        "failure_classification_agreement": agreement,
        "moved_fraction": float(moved.mean()),
        "surface_points": {"x_m": xs.tolist(), "experiment_m": ys.tolist(),
                           "simulation_m": y_sim.tolist()},
        "failure_points": {"x_m": failure_ref[:, 0].tolist(),
                           "experiment_m": failure_ref[:, 1].tolist(),
                           "simulation_m": fail_sim.tolist()},
        "passed": bool(surface_rms <= SURFACE_RMS_LIMIT
                       and abs(runout_sim - runout_ref) <= RUNOUT_LIMIT),
    }


def plot(initial, final, metrics, path, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    surface_ref, failure_ref = load_reference()
    disp = np.linalg.norm(final - initial, axis=1)
    fig, ax = plt.subplots(figsize=(10, 3.6), constrained_layout=True)
    ax.scatter(initial[:, 0], initial[:, 1], s=2, c="0.8", label="initial particles")
    sc = ax.scatter(final[:, 0], final[:, 1], s=2, c=disp * 1e3, cmap="viridis",
                    label="final particles")
    ax.plot(surface_ref[:, 0], surface_ref[:, 1], "o-", color="tab:red", ms=3,
            label="experiment: final surface")
    ax.plot(failure_ref[:, 0], failure_ref[:, 1], "s--", color="k", ms=3,
            label="experiment: failure line")
    fig.colorbar(sc, ax=ax, label="displacement [mm]", pad=0.01)
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.set_aspect("equal")
    ax.set_xlim(-0.01, 0.5)
    ax.set_ylim(-0.005, 0.11)
    ax.set_title(f"{title}\nsurface RMS {metrics['surface_rms_m'] * 1e3:.2f} mm, runout "
                 f"{metrics['runout_m']:.3f} m (experiment {metrics['runout_experiment_m']:.3f} m)")
    ax.legend(loc="upper right", fontsize=7, markerscale=3)
    fig.savefig(path, dpi=150)
    plt.close(fig)


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
        f"  farthest particle {metrics['farthest_particle_m']:6.3f} m\n"
        f"  top at the wall  {metrics['top_at_wall_m']:7.4f} m    (experiment ~0.099 m)",
        f"  failure line RMS {metrics['failure_line_rms_m'] * 1e3:7.2f} mm; "
        f"{metrics['failure_classification_agreement'] * 100:.1f} % of particles on the "
        "measured side of it",
        f"  result: {'PASS' if metrics['passed'] else 'FAIL'}",
    ]
    text = "\n".join(lines) + "\n"
    (directory / "report.txt").write_text(text)
    return text
