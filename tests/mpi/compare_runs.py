"""Checks the MPI correctness gate: every run directory given after the reference ends in the
same state as the reference (the 1-rank run).

    /usr/bin/python3 tests/mpi/compare_runs.py REF RUN [RUN ...]

For every snapshot of the reference: the same time and step, the same particle ids in the same
order (snapshots are written in id order whatever the rank count), every position within 1e-9
of the domain size (the extent of the reference's particles), and velocities, densities and
stresses within 1e-9 of their largest magnitude; observers.csv: identical counts at identical
times and steps; bodies.csv (rigid bodies), when present: identical; diagnostics.csv: the same
rows, and the energy budget's columns within 1e-9 of the budget's largest energy (the ranks'
partial sums round differently). Prints one line per run and 'RESULT ok' at the end; exits 1
on the first difference.
"""
import sys
from pathlib import Path

import h5py
import numpy as np
import pandas as pd

TOLERANCE = 1e-9  # relative to the domain size (positions) or the largest magnitude


def snapshots(run):
    files = sorted(Path(run).glob("snapshot_*.h5"))
    if not files:
        raise SystemExit(f"{run}: no snapshots")
    return files


def compare(ref, run):
    worst = 0.0
    ref_files, run_files = snapshots(ref), snapshots(run)
    if len(ref_files) != len(run_files):
        raise SystemExit(f"{run}: {len(run_files)} snapshots, the reference has {len(ref_files)}")
    for fa, fb in zip(ref_files, run_files):
        with h5py.File(fa, "r") as a, h5py.File(fb, "r") as b:
            if a.attrs["time"] != b.attrs["time"] or a.attrs["step"] != b.attrs["step"]:
                raise SystemExit(f"{fb}: time/step {b.attrs['time']}/{b.attrs['step']} differ "
                                 f"from {a.attrs['time']}/{a.attrs['step']}")
            pa, pb = a["particles"], b["particles"]
            if not np.array_equal(pa["id"][:], pb["id"][:]):
                raise SystemExit(f"{fb}: particle ids differ from the reference's")
            x = pa["position"][:]
            size = float(np.max(x.max(axis=0) - x.min(axis=0)))
            dx = float(np.max(np.abs(pb["position"][:] - x)))
            worst = max(worst, dx / size)
            if dx > TOLERANCE * size:
                raise SystemExit(f"{fb}: positions differ by {dx:.3e} m "
                                 f"> {TOLERANCE:g} x domain size {size:.3f} m")
            # The models' history variables (datasets marked history_variable) too.
            history = [n for n in pa if "history_variable" in pa[n].attrs]
            for name in ("velocity", "density", "stress", *history):
                u, w = pa[name][:], pb[name][:]
                scale = max(float(np.max(np.abs(u))), 1e-300)
                if np.max(np.abs(u - w)) > TOLERANCE * scale:
                    raise SystemExit(f"{fb}: {name} differs by {np.max(np.abs(u - w)):.3e}")
    obs_a, obs_b = Path(ref) / "observers.csv", Path(run) / "observers.csv"
    a = pd.read_csv(obs_a, float_precision="round_trip")
    b = pd.read_csv(obs_b, float_precision="round_trip")
    counts = [c for c in a.columns if c.endswith(".count [-]")]
    for c in ["time [s]", "step [-]"] + counts:
        if len(a) != len(b) or not np.array_equal(a[c].to_numpy(), b[c].to_numpy()):
            raise SystemExit(f"{obs_b}: column {c!r} differs from the reference's")
    # Rigid bodies (bodies.csv): their states are reduced in particle-id order, so every
    # column must be identical.
    bodies_a, bodies_b = Path(ref) / "bodies.csv", Path(run) / "bodies.csv"
    if bodies_a.exists():
        ba = pd.read_csv(bodies_a, float_precision="round_trip")
        bb = pd.read_csv(bodies_b, float_precision="round_trip")
        if list(ba.columns) != list(bb.columns) or len(ba) != len(bb):
            raise SystemExit(f"{bodies_b}: columns or rows differ from the reference's")
        for c in ba.columns:
            if not np.array_equal(ba[c].to_numpy(), bb[c].to_numpy()):
                raise SystemExit(f"{bodies_b}: column {c!r} differs from the reference's")
    energy = compare_energy(ref, run)
    peak = {c.split(".")[0]: int(a[c].max()) for c in counts}
    print(f"{run}: {len(run_files)} snapshots, largest position difference "
          f"{worst:.1e} x domain size; observer counts identical (peaks {peak}); energy "
          f"budget within {energy:.1e} of its largest term")


ENERGY_COLUMNS = ("kinetic_energy", "potential_energy", "strain_energy", "plastic_dissipation",
                  "viscous_dissipation", "wall_dissipation", "artificial_stress_dissipation",
                  "riemann_dissipation", "body_work", "energy_residual")


def compare_energy(ref, run):
    """The energy budget of diagnostics.csv (src/sph/energy_budget.hpp): same times, every
    column within TOLERANCE of the largest magnitude of any of them. Returns the largest
    relative difference."""
    a = pd.read_csv(Path(ref) / "diagnostics.csv", float_precision="round_trip")
    b = pd.read_csv(Path(run) / "diagnostics.csv", float_precision="round_trip")
    if len(a) != len(b) or not np.array_equal(a["time [s]"].to_numpy(), b["time [s]"].to_numpy()):
        raise SystemExit(f"{run}/diagnostics.csv: rows differ from the reference's")
    columns = [c for c in a.columns if c.split(" [")[0] in ENERGY_COLUMNS]
    scale = max(float(np.abs(a[columns].to_numpy()).max()), 1e-300)
    worst = 0.0
    for c in columns:
        diff = float(np.abs(a[c].to_numpy() - b[c].to_numpy()).max())
        worst = max(worst, diff / scale)
        if diff > TOLERANCE * scale:
            raise SystemExit(f"{run}/diagnostics.csv: column {c!r} differs by {diff:.3e} "
                             f"> {TOLERANCE:g} x {scale:.3e}")
    return worst


def main(argv):
    if len(argv) < 3:
        raise SystemExit(__doc__)
    for run in argv[2:]:
        compare(argv[1], run)
    print("RESULT ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
