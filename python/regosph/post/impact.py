"""What the impact and lander studies measure: a rigid body's bounce on a bed (coefficients of
restitution, outgoing angle and spin, peak acceleration, contact duration) and the ejecta
(mass faster than a speed, M(>v))."""
import math

import numpy as np

from .analysis import _speeds

# Ryugu, MASCOT's target: GM = 30.0 m^3/s^2 and mean radius 448 m (Watanabe et al. 2019,
# Science 364, 268-272) give a surface gravity GM / R^2 = 1.5e-4 m/s^2 (rotation neglected)
# and an escape speed sqrt(2 GM / R) = 0.37 m/s.
RYUGU_GRAVITY = 30.0 / 448.0 ** 2            # m/s^2
RYUGU_ESCAPE_SPEED = math.sqrt(2 * 30.0 / 448.0)  # m/s


# A body counts as rising away from the bed above this fraction of its incoming speed.
RISING_FRACTION = 0.01


def mass_above_speed(snapshot, speeds, material=None, kind="dynamic"):
    """M(>v): mass [kg, 2D kg/m] of the selected particles faster than each of `speeds` [m/s]."""
    speed, mass = _speeds(snapshot, material, kind, "mass")
    v = np.atleast_1d(np.asarray(speeds, dtype=float))
    order = np.argsort(speed)
    tail = np.concatenate([np.cumsum(mass[order][::-1])[::-1], [0.0]])
    return tail[np.searchsorted(speed[order], v, side="right")]


def _track_arrays(track):
    """dim, time [s] and the positions [m], velocities [m/s] and regolith forces [N] of a
    rigid body's track as (rows, 3) arrays (zero beyond dim), and its spin [rad/s]: (rows, 1)
    about z in 2D, (rows, 3) in 3D."""
    axes = [a for a in "xyz" if a in track.columns]
    t = track["time"].to_numpy()
    x, v, f = (np.zeros((len(t), 3)) for _ in range(3))
    for k, a in enumerate(axes):
        x[:, k], v[:, k] = track[a].to_numpy(), track["v" + a].to_numpy()
        f[:, k] = track["force_" + a].to_numpy()
    omega = track[["omega_z"]].to_numpy() if len(axes) == 2 else \
        track[["omega_x", "omega_y", "omega_z"]].to_numpy()
    return len(axes), t, x, v, f, omega


def bounce(track, surface, mass, inertia, *, gate=0.1, up=(0.0, 1.0, 0.0),
           contact_fraction=0.01):
    """The first bounce of a rigid body on a bed, from its track (Run.rigid_body: time, x, y(,
    z), vx, vy(, vz), omega_z or omega_x/y/z, force_x, force_y(, force_z) of the regolith).

    surface [m]: height of the bed's surface along `up`; gate [m]: height of the centre above
    it at which the incoming and outgoing velocities are taken;
    mass [kg, 2D kg/m] and inertia [kg m^2, 2D per m; scalar about the out-of-plane axis in 2D,
    3 principal values in 3D, the energy then uses the world-frame spin as an approximation]
    give the peak acceleration and the energies. Contact: the rows whose regolith force
    exceeds contact_fraction of its peak.

    The incoming velocity is the one of the last row before contact with the centre at or
    above the gate (the last row before contact if none is); the outgoing one that of the
    first row after contact with the centre at or above the gate, rising (faster than
    RISING_FRACTION of the incoming speed: a body at rest on the bed does not count) and
    out of contact, or of the last row if there is none (outgoing_at = "gate" or "end").
    Out of contact means that the force is at most contact_fraction of its peak: with SPH
    the regolith acts across the kernel's support radius, so the gate alone may lie inside
    the contact. Normal n = up; tangent t = the horizontal direction of the incoming velocity
    (+x at normal incidence). Returns a dict: v_in, v_out [m/s];
    e_n = -v_out.n / v_in.n, e_t = v_out.t / v_in.t (NaN at normal incidence), e = |v_out| /
    |v_in|; incidence_deg and outgoing_angle_deg from the vertical (positive along t);
    omega_out [rad/s]; energy_ratio (translational + rotational kinetic energy out / in);
    peak_acceleration [m/s^2] (|regolith force| / mass, gravity not included);
    contact_start, contact_duration [s]; penetration [m] (deepest centre below its height at
    first contact)."""
    n = np.asarray(up, dtype=float)
    n /= np.linalg.norm(n)
    dim, t, x, v, f, omega = _track_arrays(track)
    height = x @ n - surface
    force = np.linalg.norm(f, axis=1)
    if not force.max() > 0.0:
        raise ValueError("bounce: the regolith force is zero on every row: the body never "
                         "touched the bed")
    free = force <= contact_fraction * force.max()
    first = int(np.argmax(~free))
    # In: the last free row at or above the gate before contact, else the last free row.
    before = np.nonzero(free[:first] & (height[:first] >= gate))[0]
    i_in = int(before[-1]) if len(before) else max(first - 1, 0)
    # Out: the first free, rising row at or above the gate after contact, else the last row.
    rising = v[first:] @ n > RISING_FRACTION * np.linalg.norm(v[i_in])
    after = np.nonzero(free[first:] & (height[first:] >= gate) & rising)[0]
    i_out = first + int(after[0]) if len(after) else len(t) - 1
    outgoing_at = "gate" if len(after) else "end"
    touching = np.nonzero(~free[:i_out + 1])[0]
    state_in, state_out = (v[i_in], omega[i_in]), (v[i_out], omega[i_out])
    (v_in, w_in), (v_out, w_out) = state_in, state_out
    tangent = v_in - (v_in @ n) * n
    if np.linalg.norm(tangent) <= 1e-9 * np.linalg.norm(v_in):
        tangent = np.eye(3)[0] - n[0] * n
    tangent /= np.linalg.norm(tangent)
    vt_in = v_in @ tangent
    inertia = np.atleast_1d(np.asarray(inertia, dtype=float))

    def energy(vel, w):
        return 0.5 * mass * vel @ vel + 0.5 * float(np.sum(inertia * np.asarray(w) ** 2))

    return dict(v_in=v_in[:dim].tolist(), v_out=v_out[:dim].tolist(),
                e_n=float(-(v_out @ n) / (v_in @ n)),
                e_t=float((v_out @ tangent) / vt_in) if abs(vt_in) > 1e-9 * np.linalg.norm(v_in)
                else float("nan"),
                e=float(np.linalg.norm(v_out) / np.linalg.norm(v_in)),
                incidence_deg=math.degrees(math.atan2(vt_in, -(v_in @ n))),
                outgoing_angle_deg=math.degrees(math.atan2(v_out @ tangent, v_out @ n)),
                omega_out=np.asarray(w_out).tolist(), outgoing_at=outgoing_at,
                energy_ratio=energy(v_out, w_out) / energy(v_in, w_in),
                peak_acceleration=float(force.max() / mass),
                contact_start=float(t[first]),
                contact_duration=float(t[touching[-1]] - t[first]),
                penetration=float(height[first] - height[first:].min()))


def penetration(track, surface, bottom_offset, mass, gravity, *, up=(0.0, 1.0, 0.0)):
    """An impactor's way into a bed from its track (Run.rigid_body): DataFrame with time [s],
    depth [m] of its lowest point below the surface (centre height minus bottom_offset, e.g.
    the radius of a sphere; positive inside the bed), speed [m/s] downward and deceleration
    [m/s^2] (the regolith's force along up over the mass, gravity not included), and
    acceleration [m/s^2] downward (gravity minus that deceleration)."""
    import pandas as pd

    n = np.asarray(up, dtype=float)
    n /= np.linalg.norm(n)
    axes = [a for a in "xyz" if a in track.columns]
    x = np.stack([track[a].to_numpy() for a in axes], axis=1) @ n[:len(axes)]
    v = np.stack([track["v" + a].to_numpy() for a in axes], axis=1) @ n[:len(axes)]
    f = np.stack([track["force_" + a].to_numpy() for a in axes], axis=1) @ n[:len(axes)]
    out = pd.DataFrame({"time": track["time"].to_numpy(), "depth": surface - (x - bottom_offset),
                        "speed": -v, "deceleration": f / mass,
                        "acceleration": float(np.linalg.norm(gravity)) - f / mass})
    out.attrs["units"] = {"time": "s", "depth": "m", "speed": "m/s", "deceleration": "m/s^2",
                          "acceleration": "m/s^2"}
    return out


def impact_summary(way, impact_speed, stop_fraction=0.01):
    """Final depth [m] (the deepest point reached), stopping time [s] (from the first row
    inside the bed to the first later row slower than stop_fraction of impact_speed; NaN if it
    never stops) and peak deceleration [m/s^2] of penetration()'s table."""
    inside = np.nonzero(way["depth"].to_numpy() > 0.0)[0]
    if not len(inside):
        raise ValueError("impact_summary: the impactor never entered the bed")
    t, speed = way["time"].to_numpy(), way["speed"].to_numpy()
    start = inside[0]
    slow = np.nonzero(speed[start:] <= stop_fraction * impact_speed)[0]
    return dict(depth=float(way["depth"].max()),
                stopping_time=float(t[start + slow[0]] - t[start]) if len(slow) else float("nan"),
                peak_deceleration=float(way["deceleration"].max()))


def katsuragi_durian_fit(way, gravity):
    """Fit of Katsuragi & Durian (2007, Nature Physics 3, 420) to one penetration:
    m a = m g - m v^2 / d1 - k z, i.e. g - a = v^2 / d1 + (k/m) z, by least squares over the
    rows inside the bed while moving down. Returns d1 [m] and k_over_m [1/s^2] (k = k_over_m
    times the impactor's mass [N/m]) and the rows used."""
    rows = (way["depth"] > 0.0) & (way["speed"] > 0.0)
    if rows.sum() < 3:
        raise ValueError("katsuragi_durian_fit: fewer than 3 rows inside the bed moving down")
    z, v = way["depth"][rows].to_numpy(), way["speed"][rows].to_numpy()
    lhs = float(np.linalg.norm(gravity)) - way["acceleration"][rows].to_numpy()
    (inv_d1, k_over_m), *_ = np.linalg.lstsq(np.stack([v ** 2, z], axis=1), lhs, rcond=None)
    return dict(d1=float(1.0 / inv_d1) if inv_d1 > 0 else float("inf"), k_over_m=float(k_over_m),
                rows=int(rows.sum()))


def uehara_depth(sphere_density, bed_density, diameter, total_drop, repose_angle_deg):
    """Uehara et al. (2003, Phys. Rev. Lett. 90, 194301): d = 0.14 / mu (rho_b / rho_g)^(1/2)
    D^(2/3) H^(1/3), mu = tan(theta_r), H = h + d the total drop [m]."""
    mu = math.tan(math.radians(repose_angle_deg))
    return 0.14 / mu * math.sqrt(sphere_density / bed_density) * diameter ** (2 / 3) * \
        total_drop ** (1 / 3)
