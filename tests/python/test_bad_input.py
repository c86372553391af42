"""Bad input is refused before anything runs, with a Python exception whose message names the
offending field, and without creating output files."""
import math
import os

import numpy as np
import pytest

import regosph as rs

DX = 0.01
GOOD_SOIL = dict(density=2650.0, bulk_modulus=0.7e6, poisson_ratio=0.3, friction_angle=19.8,
                 cohesion=0.0)


@pytest.fixture(autouse=True)
def in_empty_directory(tmp_path, monkeypatch):
    """Every test runs in an empty working directory that must stay empty (no stray output)."""
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)
    yield work
    assert sorted(os.listdir(work)) == []


def good_sim():
    sim = rs.Simulation(dim=2)
    mat = sim.add_material(rs.DruckerPrager("soil", **GOOD_SOIL))
    sim.add_body("soil", rs.lattice_fill(rs.rectangle((0, 0), (0.05, 0.05)), DX), material=mat,
                 motion="dynamic", spacing=DX, smoothing_length=2.5 * DX)
    return sim


# --- materials ------------------------------------------------------------------------------

@pytest.mark.parametrize("field,value", [
    ("density", 0.0), ("density", -2650.0), ("density", math.nan),
    ("bulk_modulus", 0.0), ("bulk_modulus", -1e6), ("bulk_modulus", math.inf),
    ("poisson_ratio", 0.5), ("poisson_ratio", 0.7), ("poisson_ratio", -1.0),
    ("poisson_ratio", -3.0), ("poisson_ratio", math.nan),
    ("friction_angle", -1.0), ("friction_angle", 90.0), ("friction_angle", 120.0),
    ("friction_angle", math.nan),
    ("cohesion", -1.0), ("cohesion", -1e-9), ("cohesion", math.nan),
])
def test_drucker_prager_rejects(field, value):
    params = dict(GOOD_SOIL, **{field: value})
    with pytest.raises(ValueError, match=field):
        rs.DruckerPrager("soil", **params)


@pytest.mark.parametrize("value", [0.0, -3e5, math.nan])
def test_drucker_prager_rejects_shear_modulus(value):
    params = dict(GOOD_SOIL)
    del params["poisson_ratio"]
    with pytest.raises(ValueError, match="shear_modulus"):
        rs.DruckerPrager("soil", shear_modulus=value, **params)


def test_drucker_prager_needs_exactly_one_of_shear_modulus_and_poisson_ratio():
    params = dict(GOOD_SOIL)
    with pytest.raises(ValueError, match="shear_modulus"):
        rs.DruckerPrager("soil", shear_modulus=3e5, **params)
    del params["poisson_ratio"]
    with pytest.raises(ValueError, match="poisson_ratio"):
        rs.DruckerPrager("soil", **params)


def test_drucker_prager_rejects_dilatancy_above_friction():
    with pytest.raises(ValueError, match="dilatancy_angle"):
        rs.DruckerPrager("soil", dilatancy_angle=25.0, **GOOD_SOIL)


def test_rigid_rejects_density():
    with pytest.raises(ValueError, match="density"):
        rs.Rigid("wall", density=0.0)


def test_valid_limits_are_accepted():
    # The edges of the valid ranges: phi = 0 with cohesion (von Mises), nu just below 0.5.
    rs.DruckerPrager("a", **dict(GOOD_SOIL, friction_angle=0.0, cohesion=1.0))
    rs.DruckerPrager("b", **dict(GOOD_SOIL, poisson_ratio=0.499))
    rs.DruckerPrager("c", **dict(GOOD_SOIL, friction_angle=89.9))


# --- bodies ---------------------------------------------------------------------------------

def body_sim():
    sim = rs.Simulation(dim=2)
    mat = sim.add_material(rs.DruckerPrager("soil", **GOOD_SOIL))
    return sim, mat


@pytest.mark.parametrize("field,kwargs", [
    ("spacing", dict(spacing=0.0)), ("spacing", dict(spacing=-DX)), ("spacing", dict(spacing=math.nan)),
    ("smoothing_length", dict(smoothing_length=0.0)),
    ("smoothing_length", dict(smoothing_length=-0.02)),
    ("smoothing_length", dict(smoothing_length=math.inf)),
])
def test_add_body_rejects(field, kwargs):
    sim, mat = body_sim()
    args = dict(material=mat, motion="dynamic", spacing=DX, smoothing_length=2.5 * DX)
    args.update(kwargs)
    with pytest.raises(ValueError, match=field):
        sim.add_body("soil", rs.lattice_fill(rs.rectangle((0, 0), (0.05, 0.05)), DX), **args)
    assert sim.size == 0  # nothing was added


def test_add_body_rejects_empty_body():
    sim, mat = body_sim()
    with pytest.raises(ValueError, match="positions") as err:
        sim.add_body("soil", np.zeros((0, 2)), material=mat, motion="dynamic", spacing=DX,
                     smoothing_length=2.5 * DX)
    assert "empty" in str(err.value)
    assert sim.size == 0


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_add_body_rejects_non_finite_coordinates(bad):
    sim, mat = body_sim()
    pts = rs.lattice_fill(rs.rectangle((0, 0), (0.05, 0.05)), DX)
    pts[7, 1] = bad
    with pytest.raises(ValueError, match="positions"):
        sim.add_body("soil", pts, material=mat, motion="dynamic", spacing=DX,
                     smoothing_length=2.5 * DX)
    assert sim.size == 0


@pytest.mark.parametrize("positions", [np.zeros((4, 4)), np.zeros(6), np.zeros((2, 3, 2))])
def test_add_body_rejects_badly_shaped_positions(positions):
    sim, mat = body_sim()
    with pytest.raises(ValueError, match="positions"):
        sim.add_body("soil", positions, material=mat, motion="dynamic", spacing=DX,
                     smoothing_length=2.5 * DX)


def test_add_body_rejects_unknown_motion_and_material():
    sim, mat = body_sim()
    pts = rs.lattice_fill(rs.rectangle((0, 0), (0.05, 0.05)), DX)
    with pytest.raises(ValueError, match="motion"):
        sim.add_body("soil", pts, material=mat, motion="wobbly", spacing=DX, smoothing_length=0.025)
    with pytest.raises(ValueError, match="material"):
        sim.add_body("soil", pts, material=5, motion="dynamic", spacing=DX, smoothing_length=0.025)
    wall = sim.add_material(rs.Rigid("wall", density=2650.0))
    with pytest.raises(ValueError, match="Rigid"):
        sim.add_body("soil", pts, material=wall, motion="dynamic", spacing=DX, smoothing_length=0.025)


def test_lattice_fill_rejects_spacing():
    with pytest.raises(ValueError, match="spacing"):
        rs.lattice_fill(rs.rectangle((0, 0), (1, 1)), 0.0)
    with pytest.raises(ValueError, match="spacing"):
        rs.lattice_fill(rs.rectangle((0, 0), (1, 1)), -1.0)


def test_simulation_rejects_dimension():
    with pytest.raises(ValueError, match="dim"):
        rs.Simulation(dim=4)


# --- runs -----------------------------------------------------------------------------------

@pytest.mark.parametrize("end_time", [0.0, -1.0, math.nan, math.inf])
def test_run_rejects_end_time_before_anything_runs(end_time, tmp_path):
    sim = good_sim()
    x0 = sim.positions
    out = tmp_path / "out"
    with pytest.raises(ValueError, match="end_time"):
        sim.run(end_time, output_dir=str(out), progress_interval=0)
    assert not out.exists()  # no output directory, no files
    assert sim.time == 0.0 and sim.step == 0
    np.testing.assert_array_equal(sim.positions, x0)


def test_run_rejects_unwritable_output_directory(tmp_path):
    sim = good_sim()
    x0 = sim.positions
    blocker = tmp_path / "regular_file"
    blocker.write_text("not a directory\n")
    out = blocker / "run"
    with pytest.raises((RuntimeError, OSError, ValueError), match="regular_file"):
        sim.run(0.01, output_dir=str(out), progress_interval=0)
    assert sorted(os.listdir(tmp_path)) == ["cwd", "regular_file"]
    assert blocker.read_text() == "not a directory\n"
    assert sim.time == 0.0 and sim.step == 0
    np.testing.assert_array_equal(sim.positions, x0)


def test_run_rejects_output_directory_that_is_a_file(tmp_path):
    sim = good_sim()
    target = tmp_path / "taken"
    target.write_text("x")
    with pytest.raises((RuntimeError, OSError, ValueError), match="taken"):
        sim.run(0.01, output_dir=str(target), progress_interval=0)
    assert target.read_text() == "x"
    assert sorted(os.listdir(tmp_path)) == ["cwd", "taken"]
    assert sim.step == 0


def test_run_rejects_setup_without_dynamic_body(tmp_path):
    sim = rs.Simulation(dim=2)
    wall = sim.add_material(rs.Rigid("wall", density=2650.0))
    sim.add_body("wall", rs.lattice_fill(rs.rectangle((0, 0), (0.05, 0.01)), DX), material=wall,
                 motion="fixed", spacing=DX, smoothing_length=0.025)
    out = tmp_path / "out"
    with pytest.raises(ValueError, match="dynamic"):
        sim.run(0.01, output_dir=str(out), progress_interval=0)
    assert not out.exists()


def test_run_rejects_bad_snapshot_interval_and_physics(tmp_path):
    out = tmp_path / "out"
    sim = good_sim()
    with pytest.raises(ValueError, match="snapshot_interval"):
        sim.run(0.01, output_dir=str(out), snapshot_interval=-1.0, progress_interval=0)
    sim.physics.courant = 0.0
    with pytest.raises(ValueError, match="courant"):
        sim.run(0.01, output_dir=str(out), progress_interval=0)
    sim = good_sim()
    sim.physics.gravity = (0.0, -9.81, 1.0)  # z gravity in a 2D run
    with pytest.raises(ValueError, match="gravity"):
        sim.run(0.01, output_dir=str(out), progress_interval=0)
    assert not out.exists()


def test_advance_rejects_non_positive_cap():
    sim = good_sim()
    with pytest.raises(ValueError, match="dt_cap"):
        sim.advance(0.0)
    assert sim.step == 0
