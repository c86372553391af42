"""compare(): one row per run with parameters and results; one-factor groups; Markdown; plots."""
import numpy as np
import pytest

from regosph import post
from test_post_format import particles, write_run

T = np.round(np.linspace(0, 1, 101), 10)  # observer samples [s]


def sampler_run(root, name, g, rpm, cohesion, rate, t0, end=1.0, torque=2.0, friction=42):
    t = T[T <= end + 1e-12]
    count = np.floor(np.clip(rate * (t - t0), 0, None))
    bed = particles(np.column_stack([np.linspace(-0.1, 0.1, 5), np.zeros(5)]),
                    velocity=np.column_stack([np.arange(5.0) * 4, np.zeros(5)]))
    return write_run(root / name, [(0.0, bed), (end, bed)], end_time=end,
                     metadata={"setup": "brush_sampler", "run": name, "gravity_m_s2": g,
                               "friction_angle_deg": friction,
                               "rpm": rpm, "cohesion_Pa": cohesion, "command": "x --run " + name},
                     observers={"tray": (t, count, 1e-3 * count)},
                     loads={"brush left": {"time": t, "torque_z": -torque * np.sin(np.pi * t)},
                            "tray": {"time": t, "torque_z": np.full(len(t), 50.0)}},
                     bodies=[("bed", "regolith", "dynamic", 5),
                             ("brush left", "tool", "kinematic", 10),
                             ("tray", "tool", "kinematic", 10)])


@pytest.fixture
def sweep_root(tmp_path):
    sampler_run(tmp_path, "E0", 9.81, 100, 0.0, rate=10.0, t0=0.7, torque=3.0)
    sampler_run(tmp_path, "E1", 9.81, 100, 500.0, rate=20.0, t0=0.6)
    sampler_run(tmp_path, "P0", 0.0057, 100, 0.0, rate=400.0, t0=0.35)
    sampler_run(tmp_path, "P5", 0.0057, 500, 0.0, rate=800.0, t0=0.2, end=0.6)
    return tmp_path


def test_compare_table(sweep_root):
    table = post.compare(post.find_runs(sweep_root))
    assert list(table.index) == ["E0", "E1", "P0", "P5"]
    assert "command" not in table  # long and not a parameter
    assert table["rpm"].dtype.kind == "i" and table["gravity_m_s2"].dtype.kind == "f"
    p0 = table.loc["P0"]
    assert p0["tray_count_0.5s"] == np.floor(400 * 0.15)
    assert p0["tray_count_1s"] == np.floor(400 * 0.65)
    assert p0["tray_first_entry_s"] == pytest.approx(0.36)  # first sample with one particle
    assert p0["tray_rate_per_s"] == pytest.approx(400, rel=0.01)  # window: 0.5-1 s
    assert np.isnan(table.loc["P5", "tray_count_1s"])  # P5 stopped at 0.6 s
    assert table.loc["P5", "tray_count_end"] == np.floor(800 * (0.6 - 0.2))
    assert table.loc["P5", "finished"]
    assert table.loc["E0", "peak_torque_brush_left"] == pytest.approx(3.0)
    assert "peak_torque_tray" not in table  # only rotating bodies
    assert table.attrs["units"]["peak_torque_brush_left"] == "N"
    assert table.attrs["units"]["tray_mass_1s"] == "kg/m"
    assert table.loc["E0", "max_speed_m_s"] == 1.0


def test_compare_options(sweep_root):
    runs = [sweep_root / "E1", sweep_root / "P0"]
    table = post.compare(runs, times=[0.8], rate_window=(0.8, 1.0), escape_speed=11.39,
                         bed_material="regolith")
    assert list(table.columns).count("tray_count_0.8s") == 1
    assert table.loc["E1", "tray_count_0.8s"] == 4
    assert table.loc["E1", "tray_rate_per_s"] == pytest.approx(20, rel=0.05)
    # Speeds 0, 4, 8, 12, 16 m/s: two of five exceed Phobos' escape speed.
    assert table.loc["P0", "escape_fraction_max"] == pytest.approx(0.4)
    assert table.loc["P0", "cavity_depth_m"] == 0.0


def test_one_factor_groups(sweep_root):
    table = post.compare(post.find_runs(sweep_root))
    params = ["gravity_m_s2", "rpm", "cohesion_Pa"]
    groups = post.one_factor_groups(table, "cohesion_Pa", params)
    assert [(fixed, list(rows.index)) for fixed, rows in groups] == [
        ({"gravity_m_s2": 9.81, "rpm": 100}, ["E0", "E1"])]
    groups = post.one_factor_groups(table, "gravity_m_s2", params)
    assert [list(rows.index) for _, rows in groups] == [["P0", "E0"]]
    with pytest.raises(KeyError, match="'phi'"):
        post.one_factor_groups(table, "phi", params)


def test_markdown():
    import pandas as pd

    md = post.to_markdown(pd.DataFrame({"run": ["a|b"], "rate": [1234.5678], "x": [np.nan]}))
    assert md.splitlines() == ["| run | rate | x |", "|---|---|---|", "| a\\|b | 1235 |  |"]


def test_plots(sweep_root, tmp_path):
    run = post.Run(sweep_root / "P0")
    snap = run.snapshot(-1)
    ax = post.plot_particles(snap, "speed")
    coloured = ax.collections[1].get_array()
    np.testing.assert_allclose(coloured, snap["speed"])  # colours are the field's values
    assert post.save(ax, tmp_path / "p.png").stat().st_size > 5000
    ax = post.plot_observer([run, sweep_root / "E0"])
    assert [line.get_label() for line in ax.get_lines()] == ["P0", "E0"]
    np.testing.assert_allclose(ax.get_lines()[0].get_ydata()[-1], 260)
    assert ax.get_ylabel() == "tray count [-]"
    post.save(ax, tmp_path / "c.png")
    with pytest.raises(ValueError, match="not a scalar field"):
        post.plot_particles(snap, "position")
