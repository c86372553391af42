"""examples/notebooks/sampling_rates.ipynb executed with nbclient on a synthetic sweep of the
13 sampler runs whose tray counts are known, checking the table and groups it computes."""
import json
import math
import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import regosph
from test_post_compare import sampler_run

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
NOTEBOOK = Path(__file__).resolve().parents[2] / "examples" / "notebooks" / "sampling_rates.ipynb"

# run: g [m/s^2], rpm, phi [deg], c [Pa] (SPEC.md section 8) and the synthetic tray count
# floor(rate (t - t0)) [particles], rate [1/s], t0 [s]
SWEEP = {
    "E0": (9.81, 100, 42, 0, 15, 0.75), "E1": (9.81, 100, 42, 500, 25, 0.7),
    "E2": (9.81, 300, 42, 0, 150, 0.45), "E3": (9.81, 500, 42, 0, 400, 0.3),
    "P0": (5.7e-3, 100, 42, 0, 500, 0.35), "P1": (5.7e-3, 100, 42, 500, 550, 0.33),
    "P2": (5.7e-3, 100, 20, 1000, 50, 0.5), "P3": (5.7e-3, 100, 42, 1000, 450, 0.36),
    "P4": (5.7e-3, 100, 60, 1000, 420, 0.38), "P5": (5.7e-3, 500, 42, 0, 1500, 0.15),
    "P6": (5.7e-3, 500, 42, 1000, 1300, 0.17), "P7": (5.7e-3, -100, 42, 0, 5, 0.6),
    "P8": (5.7e-3, -100, 42, 100, 8, 0.55),
}


def kernel_spec(root, env):
    """A kernel named regosph-test that runs this interpreter (on Debian: /usr/bin/python3 from
    python3-ipykernel), whatever other "python3" kernels the machine has."""
    d = root / "kernels" / "regosph-test"
    d.mkdir(parents=True)
    (d / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "regosph test", "language": "python", "env": env}))
    return "regosph-test"


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("notebook")
    sweep, out = tmp / "sweep", tmp / "out"
    for name, (g, rpm, phi, c, rate, t0) in SWEEP.items():
        sampler_run(sweep, name, g, rpm, c, rate=rate, t0=t0, friction=phi)
    (sweep / "not_a_run").mkdir()  # e.g. a batch-script directory: ignored
    env = {"PYTHONPATH": str(Path(regosph.__file__).resolve().parents[1]),
           "REGOSPH_SWEEP_DIR": str(sweep), "REGOSPH_NOTEBOOK_OUTPUT": str(out),
           "OMP_NUM_THREADS": "1", "PYDEVD_DISABLE_FILE_VALIDATION": "1"}
    name = kernel_spec(tmp / "jupyter", env)
    old = os.environ.get("JUPYTER_PATH")
    os.environ["JUPYTER_PATH"] = str(tmp / "jupyter")
    try:
        nb = nbformat.read(NOTEBOOK, as_version=4)
        nbclient.NotebookClient(nb, kernel_name=name, timeout=120, startup_timeout=60,
                                resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    finally:
        if old is None:
            del os.environ["JUPYTER_PATH"]
        else:
            os.environ["JUPYTER_PATH"] = old
    return nb, out


def test_notebook_is_clean_json_with_the_standard_kernel():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata.kernelspec.name == "python3"
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")
    assert "parameters" in nb.cells[1].metadata.get("tags", [])


def test_collection_rate_table(executed):
    _, out = executed
    rates = pd.read_csv(out / "collection_rates.csv")
    assert sorted(rates["run"]) == sorted(SWEEP)
    for _, row in rates.iterrows():
        g, rpm, phi, c, rate, t0 = SWEEP[row["run"]]
        assert (row["gravity_m_s2"], row["rpm"], row["friction_angle_deg"],
                row["cohesion_Pa"]) == (g, rpm, phi, c)
        assert row["tray_count_1s"] == math.floor(rate * (1.0 - t0))
        assert row["tray_count_0.5s"] == math.floor(max(0.0, rate * (0.5 - t0)))
        # first sample (every 10 ms) at which floor(rate (t - t0)) >= 1
        assert row["tray_first_entry_s"] == pytest.approx(t0 + 1 / rate, abs=0.0101)
        if t0 <= 0.5:  # rising over the whole window 0.5-1 s
            assert row["tray_rate_per_s"] == pytest.approx(rate, rel=0.03)
        else:
            assert 0 < row["tray_rate_per_s"] < rate
    # Sorted for reading by g, rpm, phi, c: Phobos first, clearing (-100 rpm) before 100 rpm.
    assert list(rates["run"][:3]) == ["P7", "P8", "P2"]


def test_one_parameter_groups_and_figures(executed):
    nb, out = executed
    effects = json.loads((out / "effects.json").read_text())
    assert effects["cohesion_Pa"] == [["P7", "P8"], ["P0", "P1", "P3"], ["P5", "P6"], ["E0", "E1"]]
    assert effects["friction_angle_deg"] == [["P2", "P3", "P4"]]
    assert effects["rpm"] == [["P7", "P0", "P5"], ["P3", "P6"], ["E0", "E2", "E3"]]
    assert effects["gravity_m_s2"] == [["P0", "E0"], ["P1", "E1"], ["P5", "E3"]]
    for name in ("tray_count_earth_phobos", "effect_gravity_m_s2", "effect_cohesion_Pa",
                 "effect_friction_angle_deg", "effect_rpm", "best_run_speed"):
        assert (out / f"{name}.png").stat().st_size > 10_000
    text = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code"
                   for o in c.outputs)
    assert "13 runs in" in text
    # P5 has the most in its tray; two of its five synthetic particles exceed 11.39 m/s.
    assert "40.00 % above 11.39 m/s" in text
    assert "P0 / E0" in text
