"""Figures users look at (issue 17 part 4): collapse.png draws the simulated failure line next to
the measured one over a logarithmic displacement scale and names the viscosity's sound speed;
`regosph plot --loads` draws force, torque and power of every tool; `--energy` draws the energy
budget, and says so when the run has none."""
import importlib.util
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import regosph
from conftest import REPO, run_into
from regosph import post
from test_motor import lifted_block

COLLAPSE = REPO / "validation" / "soil_collapse"
ENV = {**os.environ, "PYTHONPATH": str(Path(regosph.__file__).resolve().parents[1]),
       "OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg"}


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def compare():
    return load("collapse_compare", COLLAPSE / "compare.py")


def cli(*args):
    return subprocess.run(["/usr/bin/python3", "-m", "regosph", *map(str, args)],
                          capture_output=True, text=True, env=ENV, timeout=120)


def slumped_block(spacing=0.01):
    """The collapse block's lattice and a final state in which everything above the line
    y = 0.1 - 0.5 (0.2 - x) moved 5 cm and the rest 1 micrometre."""
    i, j = np.meshgrid(np.arange(20), np.arange(10))
    initial = np.column_stack([(i.ravel() + 0.5) * spacing, (j.ravel() + 0.5) * spacing])
    above = initial[:, 1] > 0.1 - 0.5 * (0.2 - initial[:, 0])
    final = initial + np.where(above[:, None], [0.05, -0.01], [1e-6, 0.0])
    return initial, final, above


def test_failure_line_is_the_boundary_of_what_moved(compare):
    initial, final, above = slumped_block()
    moved = np.linalg.norm(final - initial, axis=1) > 0.01
    x, y = compare.failure_line(initial, moved, 0.01)
    # Brute force: per column with a moved particle, the lowest moved particle.
    expected = sorted((cx, initial[(initial[:, 0] == cx) & above, 1].min())
                      for cx in np.unique(initial[above, 0]))
    np.testing.assert_allclose(x, [e[0] for e in expected])
    np.testing.assert_allclose(y, [e[1] for e in expected])


def test_collapse_figure_draws_both_failure_lines_on_a_log_scale(compare, monkeypatch):
    from matplotlib.colors import LogNorm

    monkeypatch.syspath_prepend(str(COLLAPSE))  # run.py imports compare as its script would

    initial, final, _ = slumped_block()
    metrics = compare.compare(initial, final, 0.01, 0.025)
    run = load("collapse_run", COLLAPSE / "run.py")
    title = f"Soil collapse, {run.viscosity_text(0.0)}"
    fig = compare.collapse_figure(initial, final, metrics, title, 0.01)
    top = fig.axes[0]
    lines = {line.get_label(): line for line in top.lines}
    simulated = lines["simulation: failure line (moved > 10 mm)"]
    x, y = compare.failure_line(initial, np.linalg.norm(final - initial, axis=1) > 0.01, 0.01)
    np.testing.assert_allclose(simulated.get_xdata(), x)
    np.testing.assert_allclose(simulated.get_ydata(), y)
    assert "experiment: failure line" in lines
    norm = top.collections[0].norm
    assert isinstance(norm, LogNorm) and norm.vmin == pytest.approx(0.1)  # mm: threshold / 100
    assert "viscosity sound speed: the soil's own (20.7 m/s)" in [t.get_text() for t in fig.texts][0]
    assert run.viscosity_text(600.0) == "viscosity sound speed: 600 m/s"


@pytest.fixture(scope="module")
def lift(tmp_path_factory):
    return run_into(tmp_path_factory, "figures", lifted_block(), 0.02, name="lift",
                    diagnostics_every=5)


def test_plot_loads_draws_force_torque_and_power_of_every_tool(lift):
    run = post.Run(lift)
    d = run.diagnostics
    fig = post.plot_loads(run)
    force, torque, power = fig.axes
    assert [ax.get_ylabel() for ax in fig.axes] == ["force [N/m]", "torque [N]", "power [W/m]"]
    lines = {line.get_label(): line for line in force.lines}
    np.testing.assert_array_equal(lines["plate y"].get_ydata(), d["plate.force_y"])
    np.testing.assert_array_equal(torque.lines[0].get_ydata(), d["plate.torque_z"])
    np.testing.assert_array_equal(power.lines[0].get_ydata(), d["plate.power"])
    assert power.lines[0].get_label() == "plate"


BUDGET = ["potential_energy", "strain_energy", "plastic_dissipation", "viscous_dissipation",
          "wall_dissipation", "artificial_stress_dissipation", "body_work", "energy_residual"]


def test_cli_loads_and_a_clear_note_without_an_energy_budget(lift, tmp_path):
    # A run written before diagnostics.csv had the budget: kinetic energy and tool work only.
    run_dir = tmp_path / "old"
    shutil.copytree(lift, run_dir)
    d = pd.read_csv(run_dir / "diagnostics.csv")
    d[[c for c in d.columns if c.split(" [")[0] not in BUDGET]].to_csv(
        run_dir / "diagnostics.csv", index=False)
    r = cli("plot", run_dir, "--loads", "--energy", "--out", tmp_path / "fig")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "fig" / "loads.png").stat().st_size > 10000
    assert not (tmp_path / "fig" / "energy.png").exists()
    assert "holds no energy budget" in r.stdout and "energy.png not written" in r.stdout


def test_cli_energy_plots_the_budget_when_present(lift, tmp_path):
    run = post.Run(lift)
    labels = [line.get_label().split(" [")[0] for line in post.plot_energy(run).lines
              if not line.get_label().startswith("_")]  # not the zero line
    assert labels == ["kinetic_energy"] + BUDGET + ["plate.work"]
    # The plate lifts the block: its work is the budget's body work (same power, integrated
    # over every stage rather than over the rows: within 1 %).
    d = run.diagnostics
    assert d["body_work"].iloc[-1] > 0
    assert d["body_work"].iloc[-1] == pytest.approx(d["plate.work"].iloc[-1], rel=0.01)
    r = cli("plot", lift, "--energy", "--out", tmp_path / "fig")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "fig" / "energy.png").stat().st_size > 10000


def test_loads_of_a_run_without_tools_is_an_error_naming_the_file(lift, tmp_path):
    run_dir = tmp_path / "no_tools"
    shutil.copytree(lift, run_dir)
    d = pd.read_csv(run_dir / "diagnostics.csv")
    d[[c for c in d.columns if not c.startswith("plate.")]].to_csv(run_dir / "diagnostics.csv",
                                                                    index=False)
    with pytest.raises(ValueError, match="diagnostics.csv: no tool loads"):
        post.plot_loads(post.Run(run_dir))
    r = cli("plot", run_dir, "--loads", "--out", tmp_path / "fig")
    assert r.returncode == 2 and "no tool loads" in r.stderr
