"""The tool-soil example (examples/blade_scraping.py): a blade cuts 3 cm into a bed under
Phobos gravity and scrapes 5 cm along it, run as a user runs it; its loads, power and mass
moved must make physical sense."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from conftest import EXAMPLES
from regosph import post

from regosph.examples import blade_scraping

SPEED = 0.1    # m/s, the example's default
TRAVEL = 0.05  # m: a quarter of the default, for time


@pytest.fixture(scope="module")
def blade_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("blade")
    out = root / "run"
    proc = subprocess.run([sys.executable, str(EXAMPLES / "blade_scraping.py"),
                           "--bed", str(root / "bed"), "--output", str(out),
                           "--travel", str(TRAVEL), "--speed", str(SPEED)],
                          capture_output=True, text=True, env=dict(os.environ), timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out


def test_the_blade_is_resisted_and_the_soil_takes_its_work(blade_run):
    report = json.loads((blade_run / "report.json").read_text())
    # The soil pushes back against the motion along +x, and takes power from the blade.
    assert report["force_x_N_per_m"] < -0.1
    assert report["power_W_per_m"] > 0
    # At constant velocity (v, 0) the power is -F.v, row by row.
    assert report["power_W_per_m"] == pytest.approx(
        report["minus_force_dot_velocity_W_per_m"], rel=1e-9)
    loads = post.Run(blade_run).body_loads("blade")
    t0, t1 = report["steady_window_s"]
    steady = loads[(loads["time"] >= t0) & (loads["time"] <= t1)]
    np.testing.assert_allclose(steady["power"], -SPEED * steady["force_x"], rtol=1e-9,
                               atol=1e-12)
    # The work is the power's integral (trapezoids over the rows).
    work = np.trapz(loads["power"], loads["time"])
    assert report["work_J_per_m"] == pytest.approx(work, rel=0.02, abs=1e-6)


def test_soil_is_moved_and_heaped_ahead_of_the_blade(blade_run):
    report = json.loads((blade_run / "report.json").read_text())
    assert report["mass_moved_kg_per_m"] > 0
    # Soil above the initial surface: at least a tenth of the cut's volume times the density.
    cut = 0.03 * TRAVEL * 1300.0
    assert report["mass_heaped_kg_per_m"] > 0.1 * cut
    run = post.Run(blade_run)
    last = run.snapshot(len(run) - 1)
    soil, blade = last.select(material="regolith"), last.select(body="blade")
    surface = float(run.metadata_values["surface_m"])
    heaped_x = last["position"][soil][last["position"][soil][:, 1] > surface, 0]
    # Most of the heap lies ahead of the blade's front face.
    assert np.mean(heaped_x > last["position"][blade][:, 0].max()) > 0.5
    assert (blade_run / "blade.png").stat().st_size > 10_000


def test_bad_options_are_named():
    with pytest.raises(ValueError, match="cut_depth"):
        blade_scraping.check_options(bed_depth=0.1, spacing=0.01, cut_depth=0.2, speed=0.1,
                                     travel=0.1)
    with pytest.raises(ValueError, match="travel"):
        blade_scraping.check_options(bed_depth=0.1, spacing=0.01, cut_depth=0.03, speed=0.1,
                                     travel=1.0)
    with pytest.raises(ValueError, match="speed"):
        blade_scraping.check_options(bed_depth=0.1, spacing=0.01, cut_depth=0.03, speed=0.0,
                                     travel=0.1)
