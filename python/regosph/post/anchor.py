"""What the anchor study measures (issue 13, item 5): a rigid rod's depth once it has come to
rest under a thrust, its pull-out force when a slowly ramped pull extracts it, and the
plane-strain estimates it is compared with (Terzaghi's bearing capacity for the insertion,
Meyerhof & Adams' uplift capacity for the pull-out). Depth against time is post.penetration.
Per metre of depth in 2D: forces [N/m], weights [N/m]."""
import math

import numpy as np

# Meyerhof & Adams (1968) nominal uplift coefficient of earth pressure on the vertical planes
# through the anchor's edges: 0.7-0.95 over phi = 20-45 deg in their Fig. 4; 0.9 is the value
# commonly taken for phi >= 30 deg (Das 1990, Earth Anchors, ch. 2).
MEYERHOF_ADAMS_KU = 0.9


def _check_soil(cohesion, friction_angle_deg, unit_weight, width, depth):
    for name, value in (("cohesion", cohesion), ("unit_weight", unit_weight),
                        ("depth", depth)):
        if not (math.isfinite(value) and value >= 0.0):
            raise ValueError(f"{name} = {value!r} must be a number >= 0")
    if not (math.isfinite(width) and width > 0.0):
        raise ValueError(f"width = {width!r} must be a positive length [m]")
    if not (math.isfinite(friction_angle_deg) and 0.0 < friction_angle_deg < 90.0):
        raise ValueError(f"friction_angle_deg = {friction_angle_deg!r} must lie in (0, 90)")


def bearing_capacity_factors(friction_angle_deg):
    """(N_c, N_q, N_gamma) of a strip footing: N_q = e^(pi tan phi) tan^2(45 + phi/2)
    (Prandtl 1921, Reissner 1924), N_c = (N_q - 1) cot phi, N_gamma = 2 (N_q + 1) tan phi
    (Vesic 1973, J. Soil Mech. Found. Div. ASCE 99(SM1), 45-73)."""
    _check_soil(0.0, friction_angle_deg, 0.0, 1.0, 0.0)
    t = math.tan(math.radians(friction_angle_deg))
    n_q = math.exp(math.pi * t) * math.tan(math.radians(45.0 + friction_angle_deg / 2)) ** 2
    return (n_q - 1.0) / t, n_q, 2.0 * (n_q + 1.0) * t


def bearing_capacity(cohesion, friction_angle_deg, unit_weight, width, depth):
    """Terzaghi's ultimate bearing pressure [Pa] of a strip of `width` B [m] whose base lies
    `depth` D [m] below the surface, q = c N_c + q0 N_q + 1/2 gamma B N_gamma with q0 = gamma D
    (Terzaghi 1943, Theoretical Soil Mechanics, ch. 8; factors: bearing_capacity_factors).
    cohesion c [Pa], unit_weight gamma = rho g [N/m^3]."""
    _check_soil(cohesion, friction_angle_deg, unit_weight, width, depth)
    n_c, n_q, n_g = bearing_capacity_factors(friction_angle_deg)
    return cohesion * n_c + unit_weight * depth * n_q + 0.5 * unit_weight * width * n_g


def shaft_resistance(cohesion, friction_angle_deg, unit_weight, depth,
                     k_u=MEYERHOF_ADAMS_KU):
    """Shear on the two vertical planes of a strip `depth` D [m] deep [N/m]: 2 c D + gamma
    D^2 K_u tan phi, Meyerhof & Adams (1968, Can. Geotech. J. 5(4), 225-244, eq. for a strip,
    weights left out); for a rough rod these planes are its sides."""
    _check_soil(cohesion, friction_angle_deg, unit_weight, 1.0, depth)
    return 2.0 * cohesion * depth + unit_weight * depth ** 2 * k_u * \
        math.tan(math.radians(friction_angle_deg))


def uplift_capacity(cohesion, friction_angle_deg, unit_weight, depth, weight,
                    k_u=MEYERHOF_ADAMS_KU):
    """Meyerhof & Adams' (1968) ultimate uplift force of a shallow strip anchor [N/m],
    Q_u = 2 c D + gamma D^2 K_u tan phi + W: the shear on the vertical planes through its edges
    (shaft_resistance) plus the weight W [N/m] of what is lifted (anchor, and soil above a plate;
    a rod as wide as its tip lifts only itself)."""
    if not (math.isfinite(weight) and weight >= 0.0):
        raise ValueError(f"weight = {weight!r} must be a number >= 0 [N/m]")
    return shaft_resistance(cohesion, friction_angle_deg, unit_weight, depth, k_u) + weight


def rest_state(track, until, window, surface, bottom_offset, *, up=(0.0, 1.0, 0.0)):
    """A rigid body at the end of its insertion, from its track (Run.rigid_body) over the rows
    of the last `window` [s] before `until` [s]: depth [m] of its lowest point (bottom_offset
    [m] below the centre) below `surface` [m] at the last of them, the largest speed [m/s]
    among them, the mean sinking speed [m/s] (depth change over the window / its length: ~0
    at rest, while the row speeds still carry the elastic ringing of the contact) and the means of the regolith's force along up
    (`reaction`) and of the applied force against up (`thrust`) [N, 2D N/m]: at rest the
    reaction carries the thrust plus the body's weight. Returns a dict."""
    from .impact import penetration

    t = track["time"].to_numpy()
    rows = (t <= until) & (t >= until - window)
    if rows.sum() < 2:
        raise ValueError(f"rest_state: fewer than 2 rows in [{until - window:g}, {until:g}] s")
    way = penetration(track, surface, bottom_offset, 1.0, (0.0, 0.0, 0.0), up=up)
    n = np.asarray(up, dtype=float)
    n /= np.linalg.norm(n)
    axes = [a for a in "xyz" if a in track.columns]

    def mean_along(prefix):
        f = np.stack([track[prefix + a].to_numpy()[rows] for a in axes], axis=1)
        return float((f @ n[:len(axes)]).mean())

    return dict(depth=float(way["depth"].to_numpy()[rows][-1]),
                max_speed=float(np.abs(way["speed"].to_numpy()[rows]).max()),
                mean_speed=float(np.ptp(way["depth"].to_numpy()[rows][[0, -1]])
                                 / (t[rows][-1] - t[rows][0])),
                time=float(t[rows][-1]), reaction=mean_along("force_"),
                thrust=-mean_along("applied_force_"))


def pull_out(track, start, embedment, *, up=(0.0, 1.0, 0.0)):
    """The pull-out of a rigid body from its track (Run.rigid_body: time, position, force_* of
    the regolith and applied_force_*), the pull starting at time `start` [s] with the body
    `embedment` [m] deep (its lowest point below the surface).

    Displacement u [m]: the rise of the centre along `up` since `start`. Pull P: the applied
    force along up [N, 2D N/m]; resistance R: the regolith's force against up. The body is
    extracted at the first row with u >= embedment (it has left the bed). The pull-out force
    is the pull at the row where the resistance peaks before extraction (the largest pull the
    anchor held: beyond it the net force lifts it out); with a slow (quasi-static) ramp it is
    the body's weight plus the peak resistance. Returns (curve, summary): a DataFrame time,
    displacement, pull, resistance of the rows from `start`, and dict(pull_out_force,
    peak_resistance, displacement_at_peak, time_at_peak, extracted, extraction_time
    (NaN if not extracted))."""
    import pandas as pd

    n = np.asarray(up, dtype=float)
    n /= np.linalg.norm(n)
    axes = [a for a in "xyz" if a in track.columns]
    if not (math.isfinite(embedment) and embedment > 0.0):
        raise ValueError(f"embedment = {embedment!r} must be a positive depth [m]")
    t = track["time"].to_numpy()
    rows = t >= start
    if rows.sum() < 2:
        raise ValueError(f"pull_out: fewer than 2 rows from start = {start!r} s (the track "
                         f"ends at {t[-1]:g} s)")

    def along(prefix):
        return np.stack([track[prefix + a].to_numpy() for a in axes], axis=1) @ n[:len(axes)]

    x = along("")[rows]
    curve = pd.DataFrame({"time": t[rows], "displacement": x - x[0],
                          "pull": along("applied_force_")[rows],
                          "resistance": -along("force_")[rows]})
    out = np.nonzero(curve["displacement"].to_numpy() >= embedment)[0]
    held = curve.iloc[:out[0]] if len(out) else curve
    if len(held) == 0:
        raise ValueError("pull_out: the body is out of the bed at the start of the pull")
    peak = int(np.argmax(held["resistance"].to_numpy()))
    summary = dict(pull_out_force=float(held["pull"].iloc[peak]),
                   peak_resistance=float(held["resistance"].iloc[peak]),
                   displacement_at_peak=float(held["displacement"].iloc[peak]),
                   time_at_peak=float(held["time"].iloc[peak]), extracted=bool(len(out)),
                   extraction_time=float(curve["time"].iloc[out[0]]) if len(out) else math.nan)
    return curve, summary
