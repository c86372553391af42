"""Malformed input, through the Python API and through the run scripts.

Every case asserts that
  (a) the error is clear: its message names the offending field, option or file;
  (b) a script exits with a non-zero status below 128 (an exception or argparse's 2; never a
      signal or a core dump);
  (c) nothing is written: an output directory gets no snapshot, checkpoint, run.json,
      diagnostics.csv or series.xdmf when the error comes before the run, and an existing run
      directory keeps every file byte for byte with its modification time.

The helpers live here; conftest.py only locates the repository. Script cases start a short
Python process each (~1 s); the one real run (a coarse collapse with checkpoints, shared by the
restart and overwrite cases) takes a few seconds.
"""
import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import regosph as rs
from conftest import REPO

DX = 0.01
H = 2.5 * DX
GOOD_SOIL = dict(density=2650.0, bulk_modulus=0.7e6, poisson_ratio=0.3, friction_angle=19.8,
                 cohesion=0.0)
COLLAPSE = REPO / "examples" / "soil_collapse.py"
VALIDATION = REPO / "validation" / "soil_collapse" / "run.py"
COARSE = ["--spacing", "1.0328e-2"]  # 19 x 9 soil particles: a run of 0.02 s takes ~1 s
RUN_FILE_PATTERNS = ("snapshot_*.h5", "checkpoint_*.h5", "*.tmp", "run.json", "diagnostics.csv",
                     "series.xdmf")


# --- helpers --------------------------------------------------------------------------------

def soil_material(name="soil", **overrides):
    return rs.DruckerPrager(name, **dict(GOOD_SOIL, **overrides))


def block(lo=(0.0, 0.0), hi=(0.05, 0.05), spacing=DX):
    return rs.lattice_fill(rs.rectangle(lo, hi), spacing)


def tiny_sim(with_floor=False):
    """A 5 x 5 block of soil (25 particles), optionally on a floor of wall particles."""
    sim = rs.Simulation(dim=2)
    sim.physics.gravity = (0.0, -9.81, 0.0)
    soil = sim.add_material(soil_material())
    sim.add_body("soil", block(), material=soil, motion="dynamic", spacing=DX, smoothing_length=H)
    if with_floor:
        wall = sim.add_material(rs.Rigid("wall", density=2650.0))
        sim.add_body("floor", block((-0.03, -0.03), (0.08, 0.0)), material=wall, motion="fixed",
                     spacing=DX, smoothing_length=H)
    return sim


def run_files(directory):
    d = Path(directory)
    return sorted({p.name for pattern in RUN_FILE_PATTERNS for p in d.glob(pattern)})


def assert_nothing_written(out):
    """The output directory was not created, or holds no run file."""
    out = Path(out)
    if out.exists():
        assert run_files(out) == [], f"partial output in {out}: {run_files(out)}"


def fingerprint(directory):
    """Every file below `directory` with its bytes and modification time."""
    d = Path(directory)
    return {str(p.relative_to(d)): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(d.rglob("*")) if p.is_file()}


def assert_untouched(directory, before):
    after = fingerprint(directory)
    assert sorted(after) == sorted(before), "files were added or removed"
    for name, (data, mtime) in before.items():
        assert after[name][0] == data, f"{name} was modified"
        assert after[name][1] == mtime, f"{name} was rewritten (mtime changed)"


def environment():
    env = dict(os.environ)
    # The build whose regosph this test imported, so that the scripts test the same extension.
    package_root = str(Path(rs.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(p for p in [package_root, env.get("PYTHONPATH", "")] if p)
    env.update(OMP_NUM_THREADS="1", OMP_WAIT_POLICY="passive")
    return env


def run_script(script, *args, timeout=120):
    return subprocess.run([sys.executable, str(script), *map(str, args)], env=environment(),
                          capture_output=True, text=True, timeout=timeout)


ERROR_LINE = re.compile(r"^(?:[A-Za-z_][\w.]*(?:Error|Exception)\b.*:|\S+: error: |error: )")


def error_message(stderr):
    """The error a script reported: from its last exception line (`ValueError: ...`, with any
    continuation lines) or argparse/sys.exit `error:` line to the end. The traceback's source
    lines are not part of it: a message must name the culprit itself."""
    lines = stderr.splitlines()
    for i in range(len(lines) - 1, -1, -1):
        if ERROR_LINE.match(lines[i]):
            return "\n".join(lines[i:])
    return None


def assert_failed_cleanly(proc, *names, status=None):
    """Non-zero exit below 128 (no signal, no core dump); the error message names every item of
    names."""
    detail = f"exit status {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    assert 0 < proc.returncode < 128, detail
    if status is not None:
        assert proc.returncode == status, detail
    assert "core dumped" not in proc.stderr and "Segmentation fault" not in proc.stderr, detail
    message = error_message(proc.stderr)
    assert message is not None, f"no error message\n{detail}"
    for name in names:
        assert str(name) in message, f"'{name}' not named in the error: {message}\n{detail}"


# --- materials ------------------------------------------------------------------------------

@pytest.mark.parametrize("field,value", [
    ("density", 0.0), ("density", -2650.0), ("density", math.nan),
    ("bulk_modulus", 0.0), ("bulk_modulus", -0.7e6), ("bulk_modulus", math.nan),
    ("poisson_ratio", -1.0), ("poisson_ratio", 0.5), ("poisson_ratio", 0.6),
    ("poisson_ratio", math.nan),
    ("friction_angle", -0.1), ("friction_angle", 90.0), ("friction_angle", math.nan),
    ("cohesion", -1.0), ("cohesion", math.nan),
    ("dilatancy_angle", 25.0), ("dilatancy_angle", -1.0),
    ("viscosity_sound_speed", -600.0), ("viscosity_sound_speed", math.nan),
])
def test_drucker_prager_parameter_out_of_range(field, value):
    with pytest.raises(ValueError, match=field) as err:
        soil_material(**{field: value})
    assert "soil" in str(err.value)  # the material is named too


@pytest.mark.parametrize("value", [0.0, -3e5, math.nan, math.inf])
def test_shear_modulus_not_positive(value):
    params = {k: v for k, v in GOOD_SOIL.items() if k != "poisson_ratio"}
    with pytest.raises(ValueError, match="shear_modulus"):
        rs.DruckerPrager("soil", shear_modulus=value, **params)


def test_both_shear_modulus_and_poisson_ratio():
    with pytest.raises(ValueError, match="shear_modulus") as err:
        rs.DruckerPrager("soil", shear_modulus=3e5, **GOOD_SOIL)
    assert "poisson_ratio" in str(err.value)


def test_neither_shear_modulus_nor_poisson_ratio():
    params = {k: v for k, v in GOOD_SOIL.items() if k != "poisson_ratio"}
    with pytest.raises(ValueError, match="shear_modulus") as err:
        rs.DruckerPrager("soil", **params)
    assert "poisson_ratio" in str(err.value)


@pytest.mark.parametrize("density", [0.0, -1.0, math.nan])
def test_rigid_density_not_positive(density):
    with pytest.raises(ValueError, match="density") as err:
        rs.Rigid("wall", density=density)
    assert "wall" in str(err.value)


def test_duplicate_material_name():
    sim = rs.Simulation(dim=2)
    sim.add_material(soil_material("soil"))
    with pytest.raises(ValueError, match="'soil'.*already used"):
        sim.add_material(rs.Rigid("soil", density=2650.0))
    assert [m.name for m in sim.materials] == ["soil"]


# --- misspelt keyword arguments and attributes ----------------------------------------------

def _dp(**kw):
    return rs.DruckerPrager("soil", **kw)


@pytest.mark.parametrize("misspelt,call", [
    ("densty", lambda: _dp(densty=2650.0, bulk_modulus=0.7e6, poisson_ratio=0.3,
                           friction_angle=19.8, cohesion=0.0)),
    ("poisson", lambda: _dp(density=2650.0, bulk_modulus=0.7e6, poisson=0.3,
                            friction_angle=19.8, cohesion=0.0)),
    ("friction", lambda: _dp(density=2650.0, bulk_modulus=0.7e6, poisson_ratio=0.3,
                             friction=19.8, cohesion=0.0)),
    ("dens", lambda: rs.Rigid("wall", dens=2650.0)),
    ("dims", lambda: rs.Simulation(dims=2)),
    ("smoothing", lambda: tiny_sim().add_body("b", block((0.1, 0), (0.13, 0.03)), material=0,
                                              motion="dynamic", spacing=DX, smoothing=H)),
    ("materal", lambda: tiny_sim().add_body("b", block((0.1, 0), (0.13, 0.03)), materal=0,
                                            motion="dynamic", spacing=DX, smoothing_length=H)),
    ("output", lambda: tiny_sim().run(0.01, output="never_written")),
    ("snapshot_intervall", lambda: tiny_sim().run(0.01, snapshot_intervall=0.001)),
    ("checkpoint_evry", lambda: tiny_sim().run(0.01, checkpoint_evry=10)),
])
def test_misspelt_keyword_argument(misspelt, call, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(TypeError, match=misspelt):
        call()
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("group,misspelt", [
    ("physics", "courrant"), ("physics", "gravty"), ("integrator", "tolerence"),
    ("integrator", "dt_mim"),
])
def test_misspelt_option_attribute(group, misspelt):
    # A silently created attribute would leave the real option at its default.
    options = getattr(rs.Simulation(dim=2), group)
    with pytest.raises(AttributeError, match=misspelt):
        setattr(options, misspelt, 0.5)


# --- bodies and positions -------------------------------------------------------------------

def test_overlapping_bodies():
    sim = tiny_sim()
    with pytest.raises(ValueError, match="overlap") as err:
        sim.add_body("second", block((0.02, 0.02), (0.07, 0.07)), material=0, motion="dynamic",
                     spacing=DX, smoothing_length=H)
    assert "'second'" in str(err.value) and "'soil'" in str(err.value)
    assert sim.body_names == ["soil"] and sim.size == 25


def test_particles_outside_the_bounds(tmp_path):
    sim = tiny_sim()
    sim.set_bounds((0.0, 0.0, 0.0), (0.03, 1.0, 0.0))  # the block reaches x = 0.05
    out = tmp_path / "out"
    with pytest.raises(ValueError, match="bounds") as err:
        sim.run(0.01, output_dir=str(out), progress_interval=0)
    assert "'soil'" in str(err.value)
    assert_nothing_written(out)
    assert sim.step == 0


@pytest.mark.parametrize("lo,hi", [((0, 0, 0), (-1, 1, 0)), ((0, 0, 0), (1, math.nan, 0))])
def test_bounds_upper_corner_not_above_lower(lo, hi):
    with pytest.raises(ValueError, match="bounds"):
        tiny_sim().set_bounds(lo, hi)


def test_empty_body():
    sim = rs.Simulation(dim=2)
    mat = sim.add_material(soil_material())
    with pytest.raises(ValueError, match="positions") as err:
        sim.add_body("soil", np.zeros((0, 2)), material=mat, motion="dynamic", spacing=DX,
                     smoothing_length=H)
    assert "empty" in str(err.value) and "'soil'" in str(err.value)
    assert sim.size == 0


def test_zero_particles(tmp_path):
    sim = rs.Simulation(dim=2)
    sim.add_material(soil_material())
    out = tmp_path / "out"
    with pytest.raises(ValueError, match="zero particles"):
        sim.run(0.01, output_dir=str(out), progress_interval=0)
    assert_nothing_written(out)


def test_no_dynamic_body(tmp_path):
    sim = rs.Simulation(dim=2)
    wall = sim.add_material(rs.Rigid("wall", density=2650.0))
    sim.add_body("floor", block((0, -0.03), (0.1, 0.0)), material=wall, motion="fixed",
                 spacing=DX, smoothing_length=H)
    out = tmp_path / "out"
    with pytest.raises(ValueError, match="dynamic"):
        sim.run(0.01, output_dir=str(out), progress_interval=0)
    assert_nothing_written(out)


@pytest.mark.parametrize("axis,bad", [(0, math.nan), (1, math.inf), (1, -math.inf)])
def test_non_finite_coordinates(axis, bad):
    sim = rs.Simulation(dim=2)
    mat = sim.add_material(soil_material())
    pts = block()
    pts[3, axis] = bad
    with pytest.raises(ValueError, match="positions") as err:
        sim.add_body("soil", pts, material=mat, motion="dynamic", spacing=DX, smoothing_length=H)
    assert "particle 3" in str(err.value)
    assert sim.size == 0


@pytest.mark.parametrize("dim,positions", [
    (2, np.zeros((4, 4))), (2, np.zeros((4, 1))), (2, np.zeros(6)), (2, np.zeros((2, 3, 2))),
    (2, np.array([[0.0, 0.0, 0.5]])),   # a 2D run has no z: a non-zero z is not dropped silently
    (3, np.array([[0.0, 0.0], [0.1, 0.0]])),  # a 3D body without z
])
def test_positions_with_the_wrong_shape(dim, positions):
    sim = rs.Simulation(dim=dim)
    mat = sim.add_material(soil_material())
    with pytest.raises(ValueError, match="positions") as err:
        sim.add_body("soil", positions, material=mat, motion="dynamic", spacing=DX,
                     smoothing_length=H)
    assert "'soil'" in str(err.value)
    assert sim.size == 0


def test_positions_setter_with_the_wrong_shape():
    sim = tiny_sim()
    with pytest.raises(ValueError, match="positions"):
        sim.positions = np.zeros((3, 2))


@pytest.mark.parametrize("motion", ["dynamc", "Dynamic", "free", "floating", ""])
def test_unknown_motion(motion):
    sim = rs.Simulation(dim=2)
    mat = sim.add_material(soil_material())
    with pytest.raises(ValueError, match="motion"):
        sim.add_body("soil", block(), material=mat, motion=motion, spacing=DX, smoothing_length=H)
    assert sim.size == 0


def test_duplicate_body_name():
    sim = tiny_sim()
    with pytest.raises(ValueError, match="'soil'.*already used"):
        sim.add_body("soil", block((0.1, 0.0), (0.13, 0.03)), material=0, motion="dynamic",
                     spacing=DX, smoothing_length=H)
    assert sim.body_names == ["soil"]


@pytest.mark.parametrize("index", [1, 7, -1])
def test_material_index_that_does_not_exist(index):
    sim = rs.Simulation(dim=2)
    sim.add_material(soil_material())
    with pytest.raises(ValueError, match=f"material index {index}"):
        sim.add_body("soil", block(), material=index, motion="dynamic", spacing=DX,
                     smoothing_length=H)


def test_rigid_material_in_a_dynamic_body():
    sim = rs.Simulation(dim=2)
    wall = sim.add_material(rs.Rigid("wall", density=2650.0))
    with pytest.raises(ValueError, match="Rigid"):
        sim.add_body("soil", block(), material=wall, motion="dynamic", spacing=DX,
                     smoothing_length=H)


@pytest.mark.parametrize("field,value", [
    ("spacing", 0.0), ("spacing", -DX), ("spacing", math.nan),
    ("smoothing_length", 0.0), ("smoothing_length", -H), ("smoothing_length", math.inf),
])
def test_spacing_or_smoothing_length_not_positive(field, value):
    sim = rs.Simulation(dim=2)
    mat = sim.add_material(soil_material())
    args = dict(material=mat, motion="dynamic", spacing=DX, smoothing_length=H)
    args[field] = value
    with pytest.raises(ValueError, match=field):
        sim.add_body("soil", block(), **args)
    assert sim.size == 0


def collapse_soil_points():
    """The paper's soil block: 77 x 38 particles at 2.582 mm (106 kg/m of soil)."""
    from regosph.examples import soil_collapse
    dx = soil_collapse.PAPER_SPACING
    return rs.lattice_fill(rs.rectangle((0, 0), (77 * dx, 38 * dx)), dx), dx


@pytest.mark.parametrize("factor", [0.25, 0.5, 2.0, 4.0])
def test_spacing_that_does_not_match_the_positions(factor):
    # Issue 15, item 6: spacing 4x too small gave 6.6 instead of 106 kg/m of soil, silently.
    points, dx = collapse_soil_points()
    sim = rs.Simulation(dim=2)
    mat = sim.add_material(soil_material())
    with pytest.raises(ValueError, match="body 'soil': spacing") as err:
        sim.add_body("soil", points, material=mat, motion="dynamic", spacing=factor * dx,
                     smoothing_length=2.5 * factor * dx)
    assert "nearest particles" in str(err.value) and "mass" in str(err.value)
    assert sim.size == 0


@pytest.mark.parametrize("lattice,spacing_factor", [("square", 1.0), ("hexagonal", 1.0)])
def test_spacing_of_lattices_is_accepted(lattice, spacing_factor):
    dx = 2.5e-3
    sim = rs.Simulation(dim=2)
    mat = sim.add_material(soil_material())
    pts = rs.lattice_fill(rs.rectangle((0, 0), (0.05, 0.05)), dx, lattice=lattice)
    sim.add_body("soil", pts, material=mat, motion="dynamic", spacing=spacing_factor * dx,
                 smoothing_length=2.5 * dx)
    assert sim.mass.sum() == pytest.approx(2650.0 * len(pts) * dx * dx)


@pytest.mark.parametrize("h_factor", [0.5, 1.0, 1.19])
def test_support_radius_below_1_2_spacings(h_factor):
    # Issue 15, item 7: h below the spacing passed, and the soil fell through the floor.
    sim = rs.Simulation(dim=2)
    mat = sim.add_material(soil_material())
    with pytest.raises(ValueError, match="smoothing_length") as err:
        sim.add_body("soil", block(), material=mat, motion="dynamic", spacing=DX,
                     smoothing_length=h_factor * DX)
    assert "1.2 x spacing" in str(err.value) and "nearest neighbours" in str(err.value)
    assert sim.size == 0
    sim.add_body("soil", block(), material=mat, motion="dynamic", spacing=DX,
                 smoothing_length=1.2 * DX)  # the bound itself is accepted


@pytest.mark.parametrize("name", ["soil\nbed", "soil\tbed", "bed\r", "\x1bsoil"])
def test_control_character_in_a_name(name):
    # Issue 15, item 10: a newline in a name broke the CSV header; restarts then failed.
    sim = rs.Simulation(dim=2)
    mat = sim.add_material(soil_material())
    with pytest.raises(ValueError, match="control character") as err:
        sim.add_body(name, block(), material=mat, motion="dynamic", spacing=DX,
                     smoothing_length=H)
    assert "body '" in str(err.value) and "\\x" in str(err.value)  # shown, not printed raw
    assert sim.size == 0
    sim.add_body("soil", block(), material=mat, motion="dynamic", spacing=DX, smoothing_length=H)
    with pytest.raises(ValueError, match="observer '.*control character"):
        sim.add_observer(name, rs.rectangle((0, 0), (0.01, 0.01)))


@pytest.mark.parametrize("key,named", [
    ("time", "'time'"), ("step", "'step'"), ("dim", "'dim'"), ("units", "'units'"),
    ("regosph_version", "'regosph_version'"), ("checkpoint_time", "'checkpoint_time'"),
    ("checkpoint_checksum", "'checkpoint_checksum'"), ("crash_report", "'crash_report'"),
    ("", "metadata key"), ("a\nb", "control character"),
])
def test_metadata_key_checked_before_anything_is_written(key, named, tmp_path):
    # Issue 15, item 8: `time` failed at the first snapshot, after run.json and
    # diagnostics.csv existed, with a message that did not mention metadata.
    sim = tiny_sim(with_floor=True)
    out = tmp_path / "out"
    with pytest.raises(ValueError, match="metadata") as err:
        sim.run(0.001, output_dir=str(out), metadata={"setup": "x", key: "1"},
                progress_interval=0)
    assert named in str(err.value)
    assert not out.exists()
    sim.run(0.001, output_dir=str(out), metadata={"setup": "x"}, progress_interval=0)


@pytest.mark.parametrize("dim", [0, 1, 4, -2])
def test_dim_not_2_or_3(dim):
    with pytest.raises(ValueError, match="dim"):
        rs.Simulation(dim=dim)


# --- run options ----------------------------------------------------------------------------

@pytest.mark.parametrize("field,kwargs", [
    ("end_time", dict(end_time=0.0)), ("end_time", dict(end_time=-1.0)),
    ("end_time", dict(end_time=math.nan)), ("end_time", dict(end_time=math.inf)),
    ("snapshot_interval", dict(snapshot_interval=-0.01)),
    ("snapshot_interval", dict(snapshot_interval=math.nan)),
    ("diagnostics_every", dict(diagnostics_every=0)),
    ("diagnostics_every", dict(diagnostics_every=-5)),
    ("checkpoint_every", dict(checkpoint_every=-1)),
    ("checkpoint_interval", dict(checkpoint_interval=-60.0)),
])
def test_run_option_out_of_range(field, kwargs, tmp_path):
    sim = tiny_sim()
    x0 = sim.positions
    args = dict(end_time=0.01, output_dir=str(tmp_path / "out"), progress_interval=0)
    args.update(kwargs)
    end_time = args.pop("end_time")
    with pytest.raises(ValueError, match=field):
        sim.run(end_time, **args)
    assert_nothing_written(tmp_path / "out")
    assert sim.step == 0 and sim.time == 0.0
    np.testing.assert_array_equal(sim.positions, x0)


def test_end_time_not_after_the_current_time(tmp_path):
    sim = tiny_sim(with_floor=True)
    sim.advance(1e-4)
    sim.advance(1e-4)
    t = sim.time
    assert t > 0.0
    for end_time in (t, 0.5 * t):
        with pytest.raises(ValueError, match="end_time") as err:
            sim.run(end_time, output_dir=str(tmp_path / "out"), progress_interval=0)
        assert "current time" in str(err.value)
    assert_nothing_written(tmp_path / "out")
    assert sim.time == t and sim.step == 2


@pytest.mark.parametrize("field,value", [
    ("tolerance", 0.0), ("tolerance", -1e-4), ("tolerance", math.nan),
    ("dt_min", 0.0), ("dt_min", -1e-10),
    ("dt_max", 1e-12),  # below the default dt_min of 1e-10 s
    ("neighbour_skin", 1.0), ("neighbour_skin", 2.0), ("neighbour_skin", -0.1),
    ("pair_margin", -0.1), ("pair_margin", 0.6), ("pair_margin", math.nan),
    ("dt_initial", -1e-5),
])
def test_integrator_option_out_of_range(field, value, tmp_path):
    sim = tiny_sim()
    setattr(sim.integrator, field, value)
    assert getattr(sim.integrator, field) == value or math.isnan(value)
    out = tmp_path / "out"
    with pytest.raises(ValueError, match=field):
        sim.run(0.01, output_dir=str(out), progress_interval=0)
    assert_nothing_written(out)
    assert sim.step == 0


@pytest.mark.parametrize("field,value", [
    ("courant", 0.0), ("courant", -0.3), ("courant", 1.5), ("courant", math.nan),
    ("av_epsilon", 0.0), ("av_epsilon", -0.01), ("av_epsilon", math.nan),
    ("av_alpha", -0.3), ("av_beta", -0.7),
    ("gravity", (0.0, -9.81, 1.0)),  # z gravity in a 2D run
    ("gravity", (0.0, math.nan, 0.0)),
])
def test_physics_option_out_of_range(field, value, tmp_path):
    sim = tiny_sim()
    setattr(sim.physics, field, value)
    out = tmp_path / "out"
    with pytest.raises(ValueError, match=field):
        sim.run(0.01, output_dir=str(out), progress_interval=0)
    assert_nothing_written(out)
    assert sim.step == 0


def test_physics_errors_also_stop_advance():
    sim = tiny_sim()
    sim.physics.courant = 2.0
    with pytest.raises(ValueError, match="courant"):
        sim.advance(1e-4)
    assert sim.step == 0


# --- output directories (API) ---------------------------------------------------------------

def test_unwritable_output_directory_under_a_regular_file(tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a directory\n")
    sim = tiny_sim()
    with pytest.raises((RuntimeError, ValueError, OSError), match="a_file"):
        sim.run(0.01, output_dir=str(blocker / "run"), progress_interval=0)
    assert sorted(os.listdir(tmp_path)) == ["a_file"]
    assert blocker.read_text() == "not a directory\n"
    assert sim.step == 0


def test_existing_run_without_overwrite_api(tmp_path):
    out = tmp_path / "out"
    tiny_sim().run(1e-4, output_dir=str(out), progress_interval=0)
    before = fingerprint(out)
    assert "run.json" in before
    sim = tiny_sim()
    with pytest.raises(ValueError, match="overwrite") as err:
        sim.run(1e-4, output_dir=str(out), progress_interval=0)
    assert str(out) in str(err.value)
    assert_untouched(out, before)
    assert sim.step == 0


def test_restart_of_a_directory_that_does_not_exist(tmp_path):
    missing = tmp_path / "no_such_run"
    with pytest.raises(ValueError, match="no_such_run"):
        tiny_sim().restart(str(missing))
    assert not missing.exists()


def test_run_after_restart_into_another_directory(collapse_run, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(collapse_run, run)
    other = tmp_path / "other"
    before = fingerprint(run)
    from regosph.examples import soil_collapse
    sim = soil_collapse.build(spacing=1.0328e-2)
    sim.restart(str(run))
    with pytest.raises(ValueError, match="output_dir") as err:
        sim.run(0.05, output_dir=str(other), progress_interval=0)
    assert "restarted from" in str(err.value)
    assert not other.exists()
    assert_untouched(run, before)


# --- run scripts: options -------------------------------------------------------------------

@pytest.mark.parametrize("args,named", [
    (["--end-tme", "0.01"], "--end-tme"),
    (["--spacng", "0.01"], "--spacng"),
    (["--checkpoint-evry", "5"], "--checkpoint-evry"),
    (["--overwrtie"], "--overwrtie"),
    (["--spacing", "abc"], "--spacing"),
    (["--end-time", "1s"], "--end-time"),
    (["--checkpoint-every", "2.5"], "--checkpoint-every"),
])
def test_script_rejects_misspelt_or_unparsable_option(args, named, tmp_path):
    out = tmp_path / "out"
    proc = run_script(COLLAPSE, "--output", out, *COARSE, *args)
    assert_failed_cleanly(proc, named, status=2)  # argparse's usage error
    assert "usage:" in proc.stderr
    assert not out.exists()


def test_script_requires_output(tmp_path):
    proc = run_script(VALIDATION, *COARSE, "--end-tme", "0.01")
    assert_failed_cleanly(proc, "--output", status=2)


@pytest.mark.parametrize("args,named", [
    (["--spacing", "0"], "spacing"),
    (["--spacing", "-0.01"], "spacing"),
    (["--spacing", "nan"], "spacing"),
    (["--end-time", "0"], "end_time"),
    (["--end-time", "-0.5"], "end_time"),
    (["--snapshot-interval", "-0.01"], "snapshot_interval"),
    (["--checkpoint-every", "-10"], "checkpoint_every"),
    (["--checkpoint-minutes", "-1"], "checkpoint_interval"),
    (["--viscosity-sound-speed", "-600"], "viscosity_sound_speed"),
])
def test_script_rejects_option_value(args, named, tmp_path):
    out = tmp_path / "out"
    base = COARSE if "--spacing" not in args else []
    proc = run_script(COLLAPSE, "--output", out, *base, *args)
    assert_failed_cleanly(proc, named)
    assert_nothing_written(out)


def test_validation_script_rejects_option_value(tmp_path):
    out = tmp_path / "out"
    proc = run_script(VALIDATION, "--output", out, *COARSE, "--end-time", "0")
    assert_failed_cleanly(proc, "end_time")
    assert_nothing_written(out)
    assert not (out / "report.json").exists() and not (out / "collapse.png").exists()


def test_validation_checks_its_reference_data_first(tmp_path):
    # Issue 15, item 9: the reference was looked for after the whole run, and its absence
    # exited 1 like a failed comparison.
    out = tmp_path / "out"
    env = environment()
    env["REGOSPH_REFERENCE_DIR"] = str(tmp_path / "no_reference")
    proc = subprocess.run([sys.executable, str(VALIDATION), "--output", str(out), *COARSE,
                           "--end-time", "0.01"], env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 4, proc.stderr
    assert "no_reference" in proc.stderr and "REGOSPH_REFERENCE_DIR" in proc.stderr
    assert not out.exists()  # checked before anything ran


@pytest.mark.parametrize("make_output", [
    lambda tmp: tmp / "a_file" / "run",   # a directory under a regular file
    lambda tmp: tmp / "a_file",           # the output is a regular file
])
def test_script_unwritable_output_directory(make_output, tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("keep me\n")
    proc = run_script(COLLAPSE, "--output", make_output(tmp_path), *COARSE, "--end-time", "0.01")
    assert_failed_cleanly(proc, "a_file", "not writable")
    assert blocker.read_text() == "keep me\n"
    assert sorted(os.listdir(tmp_path)) == ["a_file"]


# --- run scripts: existing runs, checkpoints and restarts -----------------------------------

@pytest.fixture(scope="module")
def collapse_run(tmp_path_factory):
    """A real coarse collapse to 0.02 s with snapshots every 5 ms and checkpoints every 10
    steps (the newest two are kept)."""
    out = tmp_path_factory.mktemp("collapse") / "run"
    proc = run_script(COLLAPSE, "--output", out, *COARSE, "--end-time", "0.02",
                      "--snapshot-interval", "0.005", "--checkpoint-every", "10")
    assert proc.returncode == 0, proc.stderr
    assert len(list(out.glob("checkpoint_*.h5"))) == 2
    assert len(list(out.glob("snapshot_*.h5"))) == 5
    return out


@pytest.fixture
def run_copy(collapse_run, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(collapse_run, run)  # copy2: contents and modification times
    return run


def test_script_refuses_an_existing_run_without_overwrite(run_copy):
    before = fingerprint(run_copy)
    proc = run_script(COLLAPSE, "--output", run_copy, *COARSE, "--end-time", "0.01")
    assert_failed_cleanly(proc, str(run_copy), "overwrite")
    assert_untouched(run_copy, before)


def test_validation_script_refuses_an_existing_run_without_overwrite(run_copy):
    before = fingerprint(run_copy)
    proc = run_script(VALIDATION, "--output", run_copy, *COARSE, "--end-time", "0.01")
    assert_failed_cleanly(proc, str(run_copy), "overwrite")
    assert_untouched(run_copy, before)


@pytest.mark.parametrize("damage", ["half", "empty", "header"])
def test_restart_with_every_checkpoint_truncated(run_copy, damage):
    checkpoints = sorted(run_copy.glob("checkpoint_*.h5"))
    for c in checkpoints:
        data = c.read_bytes()
        c.write_bytes({"half": data[: len(data) // 2], "empty": b"", "header": data[:512]}[damage])
    before = fingerprint(run_copy)
    proc = run_script(COLLAPSE, "--output", run_copy, *COARSE, "--end-time", "0.03", "--restart")
    assert_failed_cleanly(proc, "no usable checkpoint", str(run_copy),
                          *(c.name for c in checkpoints))
    assert_untouched(run_copy, before)


def test_restart_of_a_directory_without_checkpoints(tmp_path):
    empty = tmp_path / "empty_run"
    empty.mkdir()
    proc = run_script(COLLAPSE, "--output", empty, *COARSE, "--end-time", "0.01", "--restart")
    assert_failed_cleanly(proc, "no usable checkpoint", str(empty))
    assert os.listdir(empty) == []


def test_restart_of_a_run_whose_checkpoints_were_removed(run_copy):
    for c in run_copy.glob("checkpoint_*.h5"):
        c.unlink()
    before = fingerprint(run_copy)
    proc = run_script(COLLAPSE, "--output", run_copy, *COARSE, "--end-time", "0.03", "--restart")
    assert_failed_cleanly(proc, "no usable checkpoint", str(run_copy))
    assert_untouched(run_copy, before)


def test_restart_of_a_directory_that_does_not_exist_script(tmp_path):
    missing = tmp_path / "no_such_run"
    proc = run_script(COLLAPSE, "--output", missing, *COARSE, "--end-time", "0.01", "--restart")
    assert_failed_cleanly(proc, str(missing), "does not exist")
    assert not missing.exists()


def test_restart_with_end_time_not_after_the_checkpoint(run_copy):
    before = fingerprint(run_copy)
    proc = run_script(COLLAPSE, "--output", run_copy, *COARSE, "--end-time", "0.001", "--restart")
    assert_failed_cleanly(proc, "end_time")
    # Nothing is dropped either: the snapshots after the checkpoint stay until a run continues.
    assert_untouched(run_copy, before)


def test_restart_with_a_different_setup(run_copy):
    before = fingerprint(run_copy)
    proc = run_script(COLLAPSE, "--output", run_copy, "--spacing", "2.0e-2", "--end-time", "0.03",
                      "--restart")
    assert_failed_cleanly(proc, "does not belong to this setup", "checkpoint_")
    assert_untouched(run_copy, before)
