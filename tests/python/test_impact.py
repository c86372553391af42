"""Penetration measures of regosph.post (impact studies, issue 13 items 2 and 3) on
trajectories whose answers are known: the Katsuragi-Durian law integrated with chosen d1 and
k, and the Uehara et al. (2003) scaling."""
import math

import numpy as np
import pandas as pd
import pytest

from regosph import post

G = 9.81


def katsuragi_durian_track(v0=2.0, d1=0.02, k_over_m=400.0, mass=0.05, surface=0.1,
                           radius=0.0127, dt=1e-5):
    """A sphere entering a bed at v0, decelerated by m v^2 / d1 + k z (explicit Euler on a
    fine step), as Run.rigid_body would give it (y up, regolith force along +y)."""
    rows, z, v, t = [], 0.0, v0, 0.0
    while v > 0.0 and t < 1.0:
        force = mass * (v * v / d1 + k_over_m * z)
        rows.append((t, surface + radius - z, -v, force))
        a = G - force / mass
        z, v, t = z + v * dt, v + a * dt, t + dt
    rows.append((t, surface + radius - z, 0.0, mass * (k_over_m * z)))
    t, y, vy, fy = map(np.array, zip(*rows))
    return pd.DataFrame(dict(time=t, x=0 * t, y=y, vx=0 * t, vy=vy, force_x=0 * t, force_y=fy))


def test_katsuragi_durian_fit_recovers_its_parameters():
    track = katsuragi_durian_track()
    way = post.penetration(track, surface=0.1, bottom_offset=0.0127, mass=0.05,
                           gravity=(0, -G, 0))
    fit = post.katsuragi_durian_fit(way, (0, -G, 0))
    assert fit["d1"] == pytest.approx(0.02, rel=1e-6)
    assert fit["k_over_m"] == pytest.approx(400.0, rel=1e-6)


def test_impact_summary_of_a_known_penetration():
    track = katsuragi_durian_track()
    way = post.penetration(track, surface=0.1, bottom_offset=0.0127, mass=0.05,
                           gravity=(0, -G, 0))
    s = post.impact_summary(way, impact_speed=2.0)
    assert s["depth"] == pytest.approx(way["depth"].max())
    assert 0.0 < s["depth"] < 0.2
    assert s["peak_deceleration"] == pytest.approx(2.0 ** 2 / 0.02, rel=1e-3)  # v0^2 / d1 at entry
    inside = way[way["depth"] > 0]
    slow = inside[inside["speed"] <= 0.02]  # 1 % of the impact speed
    assert s["stopping_time"] == pytest.approx(slow["time"].iloc[0] - inside["time"].iloc[0], abs=1e-12)
    assert s["stopping_time"] > 0.05
    with pytest.raises(ValueError, match="never entered"):
        post.impact_summary(way.assign(depth=-1.0), impact_speed=2.0)


def test_uehara_law_and_its_exponents():
    d = post.uehara_depth(7800, 1500, 0.0254, 0.2, 24.0)
    mu = math.tan(math.radians(24.0))
    assert d == pytest.approx(0.14 / mu * math.sqrt(5.2) * 0.0254 ** (2 / 3) * 0.2 ** (1 / 3))
    assert post.uehara_depth(7800, 1500, 0.0254, 1.6, 24.0) / d == pytest.approx(2.0)
    assert post.uehara_depth(4 * 7800, 1500, 0.0254, 0.2, 24.0) / d == pytest.approx(2.0)


def test_low_gravity_comparison_reads_the_series():
    """validation/impact_low_gravity/study.py compares its fixed-speed series with the
    experiments: depth ratios to the highest gravity, and the exponent of the stopping time
    on g over the runs that stopped."""
    import importlib.util
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    # Loaded under its own name: other studies' scripts are also called study.py.
    spec = importlib.util.spec_from_file_location(
        "impact_low_gravity_study", root / "validation" / "impact_low_gravity" / "study.py")
    lowg = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(lowg)

    g = np.array([9.81, 0.981, 0.0981, 0.00981])
    t = list(0.04 * (g[:3] / 9.81) ** -0.5) + [math.nan]   # the last never stops
    df = pd.DataFrame({"run": [f"v1_g{x:.4g}" for x in g] + ["m0.3_g1", "m0.3_g0.2"],
                       "gravity_m_s2": list(g) + [1.0, 0.2],
                       "speed_m_s": [1.0] * 4 + [0.3, 0.3],
                       "depth": [0.02, 0.022, 0.05, 0.08, 0.01, 0.0105],
                       "stopping_time": t + [0.1, 0.1]})
    lines = lowg.gravity_dependence(df)
    row = [line for line in lines if line.startswith("| 0.981")][0]
    assert "| 1.100 |" in row and row.endswith("yes |")   # 10 % deeper: within 20 %
    assert [line for line in lines if line.startswith("| 0.0981")][0].endswith("no |")
    fits = [line for line in lines if line.startswith("Stopping time against gravity")]
    assert "exponent -0.50" in fits[0] and "left out, not stopped by the end: v1_g0.00981" in fits[0]
    assert "exponent 0.00" in fits[1]                     # Murdoch window: same duration
    assert [line for line in lines if line.startswith("| 0.2 ")][0].endswith("yes |")
    assert "needs at least two gravities" in lowg.series_table(df.iloc[:1], "x")[0]
    names = [c[0] for c in lowg.cases([9.81, 0.981])]
    assert names == ["v1_g9.81", "v1_g0.981", "fr2_g0.981", "m0.3_g1", "m0.3_g0.2"]
    assert [c[0] for c in lowg.cases([9.81], murdoch=False)] == ["v1_g9.81"]

    # The fixed-Froude series in Froude units: a run that obeys the scaling (depth fixed,
    # time as sqrt(D/g), deceleration as g) gives the same row at every gravity; one that
    # does not, a different one.
    D = 0.0254
    fr = pd.DataFrame({"run": ["v1_g9.81", "fr2_g0.981", "fr2_g0.0981", "v1_g0.981"],
                       "gravity_m_s2": [9.81, 0.981, 0.0981, 0.981],
                       "speed_m_s": [1.0, 0.316, 0.1, 1.0],
                       "depth": [0.02, 0.02, 0.03, 0.05],
                       "stopping_time": [0.04 * math.sqrt(10.0 ** k) for k in (0, 1)] + [0.4, 0.1],
                       "peak_deceleration": [80.0, 8.0, 0.8, 50.0],
                       "numerical_share": [0.1, 0.5, 1.0, 0.2],
                       "dissipation_J": [2.0, 1.0, 0.5, 1.0]})
    table = [line for line in lowg.froude_table(fr) if line[2:3].isdigit()]
    rows = [line.split("|")[3:6] for line in table]
    assert len(rows) == 3                                  # v1_g0.981 is not in the series
    assert table[0].endswith("| 10.0 % of 2 J |") and "FLAG" in table[1]  # above 25 %
    assert rows[0] == rows[1]                              # g and g/10 obey the scaling
    assert rows[2][0].strip() == f"{0.03 / D:.3f}" and rows[2] != rows[0]
    assert "needs at least two" in lowg.froude_table(fr.iloc[:1])[0]


def test_impact_runs_go_through_the_sweep(tmp_path):
    """examples/sphere_impact.run_cases (the impact studies' runner): the bed once per gravity,
    the runs as sweep rows (the example's command line), the drop height recorded only when
    it set the speed, and finished runs skipped when run again."""
    from regosph.examples import sphere_impact as si
    cases = [{"name": "drop", "gravity": G, "drop_height": 0.05, "sphere_density": si.STEEL,
              "end_time": 0.05},
             {"name": "thrown", "gravity": G, "speed": 1.0, "sphere_density": si.GLASS,
              "end_time": 0.05}]
    runs = si.run_cases(str(tmp_path), cases, spacing=0.01, bed_radius=0.16)
    assert runs == [str(tmp_path / "drop"), str(tmp_path / "thrown")]
    assert sorted(p.name for p in tmp_path.glob("bed_*")) == ["bed_g9.81_dx0.01"]
    drop, thrown = (si.analyse(r) for r in runs)
    assert drop["drop_height_m"] == 0.05 and drop["speed_m_s"] == pytest.approx(math.sqrt(2 * G * 0.05))
    assert math.isnan(thrown["drop_height_m"]) and thrown["speed_m_s"] == 1.0
    assert thrown["sphere_density_kg_m3"] == si.GLASS
    assert 0 < drop["depth"] < 0.05 and 0 < thrown["depth"] < 0.05
    marker = (tmp_path / "drop" / "sweep_done.json").stat().st_mtime_ns
    assert si.run_cases(str(tmp_path), cases, spacing=0.01, bed_radius=0.16) == runs
    assert (tmp_path / "drop" / "sweep_done.json").stat().st_mtime_ns == marker  # not rerun
