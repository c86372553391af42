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
