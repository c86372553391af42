"""The seed's anchoring experiment (examples/anchor_seed_2d.py, validation/anchor/
seed_study.py): its load schedule along the inclined axis and the findings' logic (no run)."""
import math

import numpy as np
import pytest

from conftest import load_script
from regosph.examples import anchor_seed_2d


@pytest.mark.parametrize("inclination", [0.0, 30.0, 89.0])
def test_push_rest_pull_along_the_axis(inclination):
    knots = anchor_seed_2d.force_schedule(10.0, 4.0, inclination)
    d = anchor_seed_2d.axis(inclination)
    times = [t for t, _ in knots]
    assert times == sorted(times) and times[-1] == anchor_seed_2d.END_TIME == 4.0
    along = {t: float(np.dot(f, d)) for t, f in knots}
    assert along[0.0] == 0.0                          # the push rises from nothing
    assert along[anchor_seed_2d.PUSH_RISE] == pytest.approx(10.0)
    assert along[2.0] == along[3.0] == 0.0            # resting
    assert along[4.0] == pytest.approx(-4.0)          # pulled back along the axis
    for _, f in knots:                                # never across the axis
        assert abs(f[0] * d[1] - f[1] * d[0]) < 1e-12


def test_findings_follow_the_numbers():
    study = load_script("validation/anchor/seed_study.py", "anchor_seed_study")
    row = lambda travel, back, speed, acc: {  # noqa: E731
        "travel_rest_m": travel, "pulled_back_m": back, "peak_speed_m_s": speed,
        "peak_acceleration_m_s2": acc}
    by = {"push0.125": row(0.02, 0.0, 0, 0), "push0.5": row(0.20, 0.0, 0, 0),
          "a0": row(0.10, 0.03, 1.0, 9.0), "a30": row(0.10, 0.0, 0.8, 7.0),
          "a60": row(0.09, 0.0, 0.5, 5.0), "a75": row(0.05, 0.0, 0.2, 1.0),
          "pull1": row(0.10, 0.001, 0, 0), "pull16": row(0.10, 0.08, 0, 0)}
    assert all(c.passed for c in study.findings(by))
    by["a60"] = row(0.05, 0.0, 0.5, 5.0)              # half the vertical's travel
    by["push0.5"] = row(0.08, 0.0, 0, 0)              # less deep than 0.25x
    failed = [c.name for c in study.findings(by) if not c.passed]
    assert any(n.startswith("F1") for n in failed) and any("60 deg" in n for n in failed)
    with pytest.raises(ValueError, match="inclination"):
        anchor_seed_2d.build("nowhere", inclination=120.0)


def test_the_helical_anchor_has_a_shaft_a_tip_and_a_flight():
    from regosph.examples import anchor_helical_3d as helical
    spacing = 0.005
    p = helical.anchor_points(spacing)
    r = np.hypot(p[:, 0], p[:, 2])
    assert r.max() > 0.8 * helical.FLIGHT_RADIUS          # the flight reaches out
    assert p[:, 1].min() < 2 * spacing                    # the cone comes to a point
    outer = p[r > 1.2 * helical.SHAFT_RADIUS]
    # The flight is one helix: its height above the face grows with the angle, one pitch a turn.
    turn = np.arctan2(outer[:, 2], outer[:, 0]) / (2 * math.pi)
    tip = helical.SHAFT_RADIUS / math.tan(math.radians(helical.TIP_ANGLE / 2))
    assert np.all(np.mod(outer[:, 1] - tip - helical.PITCH * turn, helical.PITCH) < spacing)
    force, torque = helical.load_schedules(20.0, 0.5, 10.0)
    at = dict(torque)
    assert at[helical.TORQUE_START] == (0.0, 0.0, 0.0) and at[helical.TORQUE_FULL][1] == -0.5
    assert dict(force)[4.0][1] == 10.0                   # pulled back up the axis


def test_helical_findings_need_all_four_runs():
    study = load_script("validation/anchor/seed_study.py", "anchor_seed_study")
    row = lambda travel, lateral: {"travel_rest_m": travel, "lateral_max_m": lateral}  # noqa
    by = {"h_t0": row(0.10, 0.001), "h_t1": row(0.10, 0.001), "h_t4": row(0.11, 0.01),
          "h_f40": row(0.20, 0.001)}
    assert [c.passed for c in study.helical_findings(by)] == [True, True]
    by["h_t4"] = row(0.30, 0.001)                     # torque more than force; no wander
    assert [c.passed for c in study.helical_findings(by)] == [False, False]
    del by["h_f40"]
    assert study.helical_findings(by) == []
