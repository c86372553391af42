"""The collapse convergence study's analysis (validation/soil_collapse/convergence.py): the
observed order, the deposit edge, and the report from three tiny runs."""
import json

import numpy as np
import pytest

from conftest import load_script

study = load_script("validation/soil_collapse/convergence.py", "collapse_convergence")


@pytest.mark.parametrize("p", [0.7, 1.0, 2.0, 3.5])
def test_observed_order_recovers_the_order_with_unequal_ratios(p):
    s = [2.582e-3, 1.8e-3, 1.29e-3]
    q = [0.37 - 40.0 * x**p for x in s]
    assert study.observed_order(s, q) == pytest.approx(p, rel=1e-6)


def test_observed_order_refuses_oscillation():
    assert study.observed_order([3.0, 2.0, 1.0], [1.0, 2.0, 1.5]) is None
    assert study.observed_order([3.0, 2.0, 1.0], [1.0, 1.0, 1.0]) is None


def test_deposit_edge_is_where_the_deposit_gets_thinner_than_the_threshold():
    # A wedge 0.1 m high at the wall, reaching the floor at x = 0.4 m, filled at 2 mm.
    dx = 2e-3
    pts = [(x, y) for x in np.arange(dx / 2, 0.4, dx) for y in np.arange(dx / 2, 0.1 * (1 - x / 0.4), dx)]
    edge = study.deposit_edge(np.array(pts), dx)
    # Thickness 0.1 (1 - x / 0.4) = 10 mm at x = 0.36 m; the window reaches one spacing back.
    assert edge == pytest.approx(0.36 + dx, abs=2 * dx)


def test_the_report_from_three_runs(tmp_path):
    """Fake finished runs (report.json, two snapshots): the CSV and the table carry them."""
    h5py = pytest.importorskip("h5py")
    for k, s in enumerate(study.DEFAULT_SPACINGS):
        out = study.run_directory(tmp_path, s)
        out.mkdir(parents=True)
        x = np.arange(s / 2, 0.3 + 0.01 * k, s)
        pos = np.stack([x, np.full_like(x, s / 2), np.zeros_like(x)], axis=1)
        for i in range(2):
            with h5py.File(out / f"snapshot_{i:06d}.h5", "w") as f:
                f["particles/kind"] = np.zeros(len(x), dtype=np.uint8)
                f["particles/position"] = pos
                f["particles/id"] = np.arange(len(x))
                f.attrs["time"] = float(i)
                f.attrs["step"] = 100 * (k + 1) * i
        (out / "report.json").write_text(json.dumps({
            "surface_rms_m": 1e-3 / (k + 1), "runout_m": 0.3 + 0.01 * k, "runout_error_m": 0.01 * k,
            "farthest_particle_m": 0.3, "failure_line_rms_m": 5e-3, "passed": True,
            "surface_points": {"x_m": [0.1, 0.2], "experiment_m": [0.0, 0.0],
                               "simulation_m": [s, s]}}))
    assert study.main(["--output", str(tmp_path), "--report-only"]) == 0
    rows = (tmp_path / "convergence.csv").read_text().splitlines()
    assert len(rows) == 4 and rows[0].startswith("spacing_m,particles,steps,wall_time_s")
    assert rows[3].split(",")[2] == "300"  # the finest run's steps
    assert (tmp_path / "convergence.png").stat().st_size > 0
