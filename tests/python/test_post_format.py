"""Synthetic run directories for the post-processing tests, and the check that they have the
layout the C++ core writes (compared with a short real brush-sampler run).

write_run() is imported by the other test_post*/test_cli/test_sweep/test_notebook modules."""
import json
from pathlib import Path

import h5py
import numpy as np
import pandas as pd
import pytest

from regosph import post

UNITS = {"position": "m", "velocity": "m/s", "density": "kg/m^3", "mass": "kg",
         "smoothing_length": "m", "stress": "Pa", "plastic_multiplier": "-", "yielding": "-",
         "material": "-", "body": "-", "kind": "-", "id": "-"}
DTYPES = {"position": "f8", "velocity": "f8", "density": "f8", "mass": "f8",
          "smoothing_length": "f8", "stress": "f8", "plastic_multiplier": "f8", "yielding": "u1",
          "material": "i4", "body": "i4", "kind": "u1", "id": "i8"}


def particles(position, material=0, body=0, kind=0, velocity=None, mass=1.0, h=0.01):
    """Particle fields for a snapshot: positions (N x 2 or 3); scalars broadcast."""
    x = np.asarray(position, dtype=float)
    n = len(x)
    if x.shape[1] == 2:
        x = np.column_stack([x, np.zeros(n)])
    v = np.zeros((n, 3)) if velocity is None else np.asarray(velocity, dtype=float)
    if v.shape[1] == 2:
        v = np.column_stack([v, np.zeros(n)])
    full = lambda a: np.broadcast_to(np.asarray(a), (n,)).copy()  # noqa: E731
    return {"position": x, "velocity": v, "material": full(material), "body": full(body),
            "kind": full(kind), "mass": full(mass), "smoothing_length": full(h)}


def join(*groups):
    return {k: np.concatenate([g[k] for g in groups]) for k in groups[0]}


def write_snapshot(path, time, step, fields, dim=2, metadata=None):
    n = len(fields["position"])
    defaults = {"density": np.full(n, 1500.0), "stress": np.zeros((n, 6)),
                "plastic_multiplier": np.zeros(n), "yielding": np.zeros(n), "id": np.arange(n)}
    with h5py.File(path, "w") as f:
        f.attrs.update({"time": float(time), "step": int(step), "dim": dim,
                        "regosph_version": "synthetic", **(metadata or {})})
        g = f.create_group("particles")
        for name, dtype in DTYPES.items():
            d = g.create_dataset(name, data=np.asarray(fields.get(name, defaults.get(name)),
                                                       dtype=dtype))
            # a 2D run is plane strain: masses are per metre of depth
            d.attrs["units"] = "kg/m" if (name, dim) == ("mass", 2) else UNITS[name]


def write_run(path, snapshots=(), *, metadata=None, end_time=None, observers=None, loads=None,
              materials=("regolith", "tool"), bodies=None, dim=2, rotating=("brush left",)):
    """A run directory in the core's format.
    snapshots: list of (time, fields) with fields from particles()/join();
    observers: {name: (time, count, mass)}; loads: {body: {"time": t, "torque_z": ...}}."""
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    metadata = {k: str(v) for k, v in (metadata or {}).items()}
    times = [t for t, _ in snapshots]
    end_time = end_time if end_time is not None else (times[-1] if times else 1.0)
    bodies = bodies or [("bed", "regolith", "dynamic", 100)] + [
        (b, "tool", "kinematic", 10) for b in (loads or {})]
    body_entries = []
    for name, material, motion, n in bodies:
        entry = {"name": name, "material": material, "motion": motion, "spacing_m": 0.004,
                 "smoothing_length_m": 0.01, "particles": n}
        if motion == "kinematic":
            rpm = 100.0 if name in rotating else 0.0
            entry["kinematics"] = {"pivot_m": [0, 0, 0], "axis": [0, 0, 1], "rpm": rpm,
                                   "angular_velocity_rad_s": rpm * 2 * np.pi / 60,
                                   "translation": []}
        body_entries.append(entry)
    config = {"regosph_version": "synthetic", "dim": dim,
              "physics": {"gravity_m_s2": [0, -float(metadata.get("gravity_m_s2", 9.81)), 0]},
              "integrator": {"tolerance": 1e-4},
              "materials": [{"name": m, "model": "DruckerPrager" if i == 0 else "Rigid"}
                            for i, m in enumerate(materials)],
              "bodies": body_entries,
              "observers": [{"name": o} for o in (observers or {})],
              "run": {"start_time_s": 0, "end_time_s": end_time,
                      "snapshot_interval_s": end_time / max(1, len(times) - 1)},
              "metadata": metadata}
    (path / "run.json").write_text(json.dumps(config, indent=1))
    for k, (t, fields) in enumerate(snapshots):
        write_snapshot(path / f"snapshot_{k:06d}.h5", t, 100 * k, fields, dim, metadata)
    mass_unit = "kg/m" if dim == 2 else "kg"
    if observers:
        t = next(iter(observers.values()))[0]
        cols = {"time [s]": t, "step [-]": np.arange(len(t)) * 10}
        for name, (_, count, mass) in observers.items():
            cols[f"{name}.count [-]"] = count
            cols[f"{name}.mass [{mass_unit}]"] = mass
        pd.DataFrame(cols).to_csv(path / "observers.csv", index=False)
        with h5py.File(path / "observers.h5", "w") as f:
            f["time"], f["step"] = np.asarray(t, float), cols["step [-]"].astype(float)
            for name, (_, count, mass) in observers.items():
                f[f"{name}/count"] = np.asarray(count, float)
                f[f"{name}/mass"] = np.asarray(mass, float)
                f[f"{name}/count"].attrs["units"] = "-"
                f[f"{name}/mass"].attrs["units"] = mass_unit
    diag_t = (next(iter(loads.values()))["time"] if loads else
              next(iter(observers.values()))[0] if observers else np.array(times or [0.0]))
    diag = {"time [s]": diag_t, "dt [s]": np.full(len(diag_t), 1e-5),
            f"kinetic_energy [{'J/m' if dim == 2 else 'J'}]": np.zeros(len(diag_t)),
            "max_speed [m/s]": np.linspace(0, 1, len(diag_t))}
    force, torque = ("[N/m]", "[N]") if dim == 2 else ("[N]", "[N m]")
    for body, series in (loads or {}).items():
        for q in ("force_x", "force_y", "torque_z"):
            diag[f"{body}.{q} {torque if q.startswith('torque') else force}"] = series.get(
                q, np.zeros(len(diag_t)))
    pd.DataFrame(diag).to_csv(path / "diagnostics.csv", index=False)
    return path


@pytest.fixture(scope="module")
def real_run(tmp_path_factory):
    """0.01 s of the coarse brush sampler (about 1 s of wall time)."""
    from regosph.examples import brush_sampler as bs

    out = tmp_path_factory.mktemp("real") / "P0"
    status = bs.main(["--run", "P0", "--resolution", "coarse", "--end-time", "0.01",
                      "--snapshot-interval", "0.005", "--output", str(out), "--plot-times",
                      "--observe-every", "10"])
    assert status == 0
    return out


def _layout(snapshot_path):
    with h5py.File(snapshot_path, "r") as f:
        return ({k: (d.dtype.str, d.ndim, d.attrs["units"]) for k, d in f["particles"].items()},
                {"time", "step", "dim"} <= set(f.attrs))


def test_synthetic_layout_matches_real_run(real_run, tmp_path):
    fake = write_run(tmp_path / "fake", [(0.0, particles(np.zeros((3, 2))))],
                     observers={"tray": (np.array([0.0, 0.01]), [0, 1], [0.0, 0.5])},
                     loads={"brush left": {"time": np.array([0.0, 0.01])}})
    real_fields, real_attrs = _layout(real_run / "snapshot_000000.h5")
    fake_fields, fake_attrs = _layout(fake / "snapshot_000000.h5")
    assert real_attrs and fake_attrs
    assert fake_fields == real_fields
    real_obs, fake_obs = (list(pd.read_csv(d / "observers.csv").columns) for d in (real_run, fake))
    assert fake_obs == real_obs
    for d in (real_run, fake):
        with h5py.File(d / "observers.h5", "r") as f:
            assert {"time", "step", "tray"} <= set(f) and set(f["tray"]) == {"count", "mass"}
    real_diag = set(pd.read_csv(real_run / "diagnostics.csv").columns)
    fake_diag = set(pd.read_csv(fake / "diagnostics.csv").columns)
    assert fake_diag <= real_diag
    real_cfg, fake_cfg = (json.loads((d / "run.json").read_text()) for d in (real_run, fake))
    assert set(fake_cfg) <= set(real_cfg)
    assert set(fake_cfg["bodies"][1]) <= set(real_cfg["bodies"][4])  # "brush left"


def test_run_reads_real_run(real_run):
    run = post.Run(real_run)
    assert run.name == "P0" and run.dim == 2
    assert run.metadata_values["rpm"] == 100 and run.metadata_values["gravity_m_s2"] == 0.0057
    np.testing.assert_allclose(run.times, [0.0, 0.005, 0.01])
    assert run.finished
    snap = run.snapshot(time=0.006)
    assert snap.time == pytest.approx(0.005) and len(snap) == run.particle_count
    regolith = snap.select(material="regolith")
    assert regolith.sum() == sum(b["particles"] for b in run.parameters["bodies"]
                                 if b["material"] == "regolith")
    assert run.observer_names == ["tray"]
    tray = run.observer("tray")
    assert tray.attrs["units"] == {"time": "s", "count": "-", "mass": "kg/m"}
    assert tray["count"].max() == 0  # nothing reaches the tray in 10 ms
    loads = run.body_loads("brush left")
    assert list(loads.columns) == ["time", "force_x", "force_y", "torque_z", "power", "work"]
    assert loads.attrs["units"]["torque_z"] == "N"
    assert loads.attrs["units"]["power"] == "W/m" and loads.attrs["units"]["work"] == "J/m"
    # The bed is flat at the start: no cavity against itself.
    assert post.bed_cavity(run, 0, material="regolith")["depth"] == 0.0


def test_snapshots_from_before_the_plastic_multiplier_rename_still_read(tmp_path):
    """Snapshots written up to 0.1.0 (a7e0257) call the plastic multiplier plastic_strain;
    regosph.post shows it under its current name."""
    run_dir = write_run(tmp_path / "old", [(0.0, particles(np.zeros((4, 2))))])
    with h5py.File(run_dir / "snapshot_000000.h5", "r+") as f:
        f["particles"]["plastic_multiplier"][...] = [0.0, 1e-3, 2e-3, 3e-3]
        f["particles"].move("plastic_multiplier", "plastic_strain")
    snap = post.Run(run_dir).snapshot(0)
    assert "plastic_multiplier" in snap.fields and "plastic_strain" not in snap.fields
    np.testing.assert_array_equal(snap["plastic_multiplier"], [0.0, 1e-3, 2e-3, 3e-3])
    assert snap.units["plastic_multiplier"] == "-"
    assert "plastic_multiplier" in snap.to_dataframe().columns
