"""The lander matrix (validation/lander/matrix.py, examples/matrix_lander.py): the seed's 480
cases, their selection, resuming, the SLURM array and the lander's start (no run: seconds)."""
import math
import sys

import numpy as np
import pytest

from conftest import load_script
from regosph import sweep
from regosph.examples import matrix_lander


@pytest.fixture(scope="module")
def matrix():
    return load_script("validation/lander/matrix.py", "lander_matrix")


def test_the_seed_matrix_has_480_distinct_cases(matrix):
    rows = matrix.cases(0.05)
    names = {matrix.case_name(r) for r in rows}
    assert len(rows) == len(names) == 480
    assert {r["attitude"] for r in rows} == set(matrix_lander.ATTITUDES)
    assert len({(r["soil"], r["incidence"], r["depth"]) for r in rows}) == 2 * 5 * 3
    assert len(matrix.cases(0.05, matrix.ALL_SPEEDS)) == 4 * 480


def test_selection_and_sample(matrix):
    rows = matrix.cases(0.05)
    pick = matrix.selected(rows, matrix.parse_selection(["soil=gravel", "depth=0.3",
                                                          "spin=none"]))
    assert len(pick) == 5 * 4  # incidences x attitudes
    assert all(r["depth"] == 0.3 and r["spin"] == "none" for r in pick)
    assert len(matrix.selected(rows, {}, sample=48)) == 10
    with pytest.raises(ValueError, match="colour"):
        matrix.parse_selection(["colour=red"])
    with pytest.raises(ValueError, match="no such case"):
        matrix.selected(rows, {}, case="nope")


def test_a_second_invocation_skips_finished_cases(matrix, tmp_path):
    rows = matrix.selected(matrix.cases(0.05), matrix.parse_selection(["incidence=0",
                                                                       "depth=0.15"]))[:3]
    base = [sys.executable, "-c", "import sys; sys.exit(0)"]  # stands for a finished run
    assert matrix.run_here(tmp_path, rows, base) == 0
    assert all((tmp_path / matrix.case_name(r) / sweep.SWEEP_MARKER).is_file() for r in rows)
    assert matrix.run_here(tmp_path, rows, base) == 0
    status = (tmp_path / "sweep.csv").read_text()
    assert status.count("skipped (finished)") == 3
    plan = sweep.plan_sweep(matrix.command(tmp_path), matrix.cases(0.05), tmp_path,
                            name=matrix.case_name)
    assert sum(p.finished for p in plan) == 3


def test_the_array_lists_the_unfinished_cases(matrix, tmp_path):
    rows = matrix.cases(0.05)[:7]
    script = matrix.write_array(tmp_path, rows, ["--spacing", "0.05"])
    text = script.read_text()
    assert "#SBATCH --array=0-6" in text and "--case" in text
    assert "#SBATCH --signal=B:TERM@300" in text and "trap" in text  # checkpoint, requeue
    assert (tmp_path / "array_cases.txt").read_text().split() == [matrix.case_name(r)
                                                                  for r in rows]
    assert "--dependency=afterok" in (tmp_path / "submit_matrix.sh").read_text()
    assert matrix.write_array(tmp_path, [], []) is None


@pytest.mark.parametrize("attitude", matrix_lander.ATTITUDES)
def test_the_lowest_corner_starts_one_support_radius_above_the_bed(attitude):
    spacing, depth = 0.05, 0.3
    rotation, centre, velocity, omega = matrix_lander.start_state(attitude, "y", 0.19, 30.0,
                                                                  depth, spacing)
    assert np.allclose(rotation @ rotation.T, np.eye(3))
    half = np.array(matrix_lander.SIZE) / 2
    corners = np.array([[a, b, c] for a in (-1, 1) for b in (-1, 1) for c in (-1, 1)]) * half
    lowest = (corners @ rotation.T + centre)[:, 1].min()
    assert lowest == pytest.approx(matrix_lander.surface_height(depth, spacing) + 2.5 * spacing)
    assert np.linalg.norm(omega) == pytest.approx(matrix_lander.SPIN_RATE)
    assert np.allclose(omega, 0.1 * rotation[:, 1])  # about the box's own y axis
    assert velocity[1] == pytest.approx(-0.19 * math.cos(math.radians(30.0)))
    with pytest.raises(ValueError, match="attitude"):
        matrix_lander.attitude_rotation("upside_down")


def test_the_cost_grows_as_the_fourth_power_of_the_resolution(matrix):
    rows = matrix.cases(0.02)[:4]
    coarse, _ = matrix.core_hours(rows, 0.02)
    fine, _ = matrix.core_hours(rows, 0.01)
    # 16 x, less the walls' and the fall time's shares, which shrink with the spacing
    assert 10.0 < fine / coarse < 16.0
    assert "| 0.01 | 480 |" in matrix.estimate_text(matrix.SEED_SPEEDS)
