"""The anchor study (examples/anchor_2d.py, validation/anchor/study.py): the formulas and
measures of regosph.post.anchor on data whose answers are known, and a coarse plane-strain
case: insertion under one thrust into soft and stiff beds, then pull-out."""
import math
import pathlib
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from conftest import load_script
from regosph import post

from regosph.examples import anchor_2d

SPACING = 0.02  # m: coarse, B / 2.5 (the study's default is 0.01 m)


def test_bearing_capacity_factors_match_the_tables():
    # Vesic (1973) table: phi = 30 deg: N_c 30.14, N_q 18.40, N_gamma 22.40; phi = 40 deg:
    # 75.31, 64.20, 109.41.
    for phi, expected in ((30.0, (30.14, 18.40, 22.40)), (40.0, (75.31, 64.20, 109.41))):
        assert post.bearing_capacity_factors(phi) == pytest.approx(expected, rel=2e-3)
    n_c, n_q, n_g = post.bearing_capacity_factors(40.0)
    q = post.bearing_capacity(1000.0, 40.0, 15000.0, 0.05, 0.1)
    assert q == pytest.approx(1000 * n_c + 1500 * n_q + 0.5 * 15000 * 0.05 * n_g)
    with pytest.raises(ValueError, match="friction_angle_deg"):
        post.bearing_capacity_factors(0.0)
    with pytest.raises(ValueError, match="width"):
        post.bearing_capacity(1000.0, 40.0, 15000.0, 0.0, 0.1)
    with pytest.raises(ValueError, match="cohesion"):
        post.bearing_capacity(-1.0, 40.0, 15000.0, 0.05, 0.1)


def test_uplift_capacity_is_shear_on_two_planes_plus_weight():
    t = math.tan(math.radians(35.0))
    assert post.shaft_resistance(500.0, 35.0, 16000.0, 0.2) == pytest.approx(
        2 * 500 * 0.2 + 16000 * 0.04 * 0.9 * t)
    assert post.uplift_capacity(500.0, 35.0, 16000.0, 0.2, 30.0) == pytest.approx(
        post.shaft_resistance(500.0, 35.0, 16000.0, 0.2) + 30.0)
    with pytest.raises(ValueError, match="weight"):
        post.uplift_capacity(500.0, 35.0, 16000.0, 0.2, -1.0)


def synthetic_pull(capacity=400.0, weight=100.0, rate=1000.0, start=1.0):
    """A rod held until the pull exceeds weight + capacity, then lifted out: the resistance
    follows the pull up to the capacity and falls to 20 % of it once the rod moves."""
    t = np.arange(0.0, 2.0, 1e-3)
    pull = np.where(t > start, rate * (t - start), 0.0)
    failed = pull > weight + capacity
    t_fail = t[np.argmax(failed)]
    resistance = np.where(failed, 0.2 * capacity, pull - weight)
    y = 0.5 + np.where(failed, 2.0 * (t - t_fail) ** 2 + 1e-4, 0.0)
    return pd.DataFrame(dict(time=t, x=0 * t, y=y, vx=0 * t, vy=np.gradient(y, t),
                             force_x=0 * t, force_y=-resistance, applied_force_x=0 * t,
                             applied_force_y=pull))


def test_pull_out_finds_the_peak_before_extraction():
    track = synthetic_pull()
    curve, s = post.pull_out(track, start=1.0, embedment=0.05)
    assert s["peak_resistance"] == pytest.approx(400.0, abs=1.0)
    assert s["pull_out_force"] == pytest.approx(500.0, abs=1.0)   # weight + capacity
    assert s["extracted"]
    assert s["extraction_time"] == pytest.approx(1.5 + math.sqrt(0.05 / 2.0), abs=2e-3)
    assert curve["time"].iloc[0] >= 1.0 and curve["displacement"].iloc[0] == 0.0
    # Never lifted by its embedment: not extracted, the peak is still found.
    _, held = post.pull_out(track, start=1.0, embedment=10.0)
    assert not held["extracted"] and math.isnan(held["extraction_time"])
    with pytest.raises(ValueError, match="embedment"):
        post.pull_out(track, start=1.0, embedment=0.0)
    with pytest.raises(ValueError, match="start"):
        post.pull_out(track, start=5.0, embedment=0.05)


def test_rest_state_reads_depth_speed_and_forces():
    t = np.linspace(0.0, 1.0, 101)
    y = np.where(t < 0.5, 0.4 - 0.2 * t, 0.3)
    track = pd.DataFrame(dict(time=t, x=0 * t, y=y, vx=0 * t, vy=np.where(t < 0.5, -0.2, 0.0),
                              force_x=0 * t, force_y=np.full_like(t, 150.0),
                              applied_force_x=0 * t, applied_force_y=np.full_like(t, -120.0)))
    r = post.rest_state(track, until=1.0, window=0.2, surface=0.25, bottom_offset=0.1)
    assert r["depth"] == pytest.approx(0.05) and r["max_speed"] == 0.0 == r["mean_speed"]
    moving = post.rest_state(track, until=0.5, window=0.2, surface=0.25, bottom_offset=0.1)
    assert moving["mean_speed"] == pytest.approx(0.2) and moving["max_speed"] == 0.2
    assert r["reaction"] == pytest.approx(150.0) and r["thrust"] == pytest.approx(120.0)
    with pytest.raises(ValueError, match="fewer than 2 rows"):
        post.rest_state(track, until=1.0, window=0.0, surface=0.25, bottom_offset=0.1)


def test_bad_input_names_the_field(tmp_path):
    with pytest.raises(ValueError, match="mode"):
        anchor_2d.build(str(tmp_path), mode="hammer")
    with pytest.raises(ValueError, match="thrust"):
        anchor_2d.build(str(tmp_path), thrust=-5.0)
    with pytest.raises(ValueError, match="pull_rate"):
        anchor_2d.build(str(tmp_path), pull_rate=float("nan"))
    # The command line refuses before it prepares a bed or writes anything.
    script = pathlib.Path(anchor_2d.__file__)
    done = subprocess.run([sys.executable, str(script), "--thrust", "-5", "--bed",
                           str(tmp_path / "bed"), "--output", str(tmp_path / "run")],
                          capture_output=True, text=True)
    assert done.returncode == 2 and "thrust" in done.stderr
    assert not (tmp_path / "bed").exists() and not (tmp_path / "run").exists()


@pytest.fixture(scope="module")
def soft_and_stiff(tmp_path_factory):
    """The study's case at 2 cm with one thrust and one pull rate (the base case's) into beds
    of cohesion 40 Pa and 10 kPa."""
    study = load_script("validation/anchor/study.py", "anchor_study")
    runs = tmp_path_factory.mktemp("anchor")
    thrust, rate = anchor_2d.design_loads(1000.0, 40.0, 9.81)
    rows = {}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(anchor_2d, "HOLD_END", 1.0)  # s: half the study's hold, to keep this short
        for c in (40.0, 10000.0):
            bed = anchor_2d.ensure_bed(str(runs / f"bed{c:g}"), SPACING, 9.81, c, 40.0)
            sim, meta = anchor_2d.build(bed, SPACING, 9.81, c, 40.0, thrust=thrust,
                                        pull_rate=rate, end_time=2.5)
            anchor_2d.run(sim, meta, str(runs / f"c{c:g}"), 2.5)
            rows[c] = study.analyse(runs / f"c{c:g}")
    return rows, thrust


def test_weaker_soil_lets_the_rod_deeper_and_holds_it_less(soft_and_stiff):
    rows, thrust = soft_and_stiff
    soft, stiff = rows[40.0], rows[10000.0]
    # Observed (2 cm): apex 28.4 cm deep at 40 Pa, 7.7 cm at 10 kPa.
    assert soft["apex_depth_m"] > 2 * stiff["apex_depth_m"] > 0.0
    # Slowly moving rods are carried by the soil: reaction = thrust + weight (observed within
    # 0.1 % and 1.2 %).
    for r in (soft, stiff):
        assert r["reaction_N_m"] == pytest.approx(thrust + r["weight_N_m"], rel=0.05)
    # Both rods come out, after the soil's resistance has peaked.
    for r in (soft, stiff):
        assert r["extracted"] and r["extraction_time"] > r["time_at_peak"]
        assert r["pull_out_force"] > r["weight_N_m"]
    # Per metre of embedment the cohesive bed holds the rod far harder (observed: 12 000
    # against 1 800 N/m per m).
    per_depth = [r["peak_resistance"] / r["embedment_at_pull_m"] for r in (soft, stiff)]
    assert per_depth[1] > 2 * per_depth[0] > 0.0
