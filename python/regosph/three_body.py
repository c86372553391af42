"""The full three-body problem with tides of Levine (2016, MSc thesis, Univ. of Colorado), on
rs.BodySystem: the thesis' bodies and contact, its initial configurations (sec. 4.3 and 5.2-5.3),
the analytic rates of the equilibria (Scheeres 2012) and its post-processing (mean motion, Edot
against the tidal prediction, tidal-locking times eq. 5.6).

Lengths in m, masses in kg, times in s. Configurations are named "LR" (Lagrange resting), "ER"
(Euler resting) and "AM" (aligned mixed: two touching, the third on their axis at R d from the
pair's centre).
"""
import math

import numpy as np

from ._core import BodySystem, restitution_from_damping

G = 6.674e-11  # m^3 kg^-1 s^-2; with it the thesis' spin-down rates (Table 5.3) come out to 2e-4
DIAMETER = 4000.0  # m (Table 5.1)
DENSITY = 2000.0  # kg/m^3
LOVE_NUMBER = 1e-5
QUALITY_FACTOR = 100.0
# Soft-sphere contact (sec. 3.4.2): k_e = k_d = 1e13 "kN/km^2"; as k_e = 1e13 N/m the thesis'
# 1.5 mm overlap of the static Lagrange configuration follows, and k_d is taken as 1e13 N s/m.
CONTACT_STIFFNESS = 1e13  # N/m
CONTACT_DAMPING = 1e13  # N s/m
YEAR = 365.25 * 86400.0
# Moments of inertia about the barycentre of the resting configurations (eq. 2.8), in m d^2.
RESTING_INERTIA = {"LR": 1.0 + 0.3, "ER": 2.0 + 0.3}


def sphere_mass():
    """Mass [kg] of one of the thesis' spheres."""
    return 4.0 / 3.0 * math.pi * (0.5 * DIAMETER) ** 3 * DENSITY


def rate_unit():
    """sqrt(G m / d^3) [rad/s]: the rates below in these units are the normalised ones."""
    return math.sqrt(G * sphere_mass() / DIAMETER ** 3)


def angular_momentum(h2):
    """H [kg m^2/s] of the normalised H-bar^2 = H^2 / (G m^3 d) (eq. 2.12)."""
    return math.sqrt(h2 * G * sphere_mass() ** 3 * DIAMETER)


def resting_mean_motion(config, h2):
    """Rate [rad/s] of the tidally locked resting configuration "LR" or "ER" (eq. 4.7)."""
    return math.sqrt(h2) / RESTING_INERTIA[config] * rate_unit()


def _am_rate2(separation):
    # normalised omega^2 at which the third body's gravity from the pair balances its
    # centripetal acceleration about the barycentre, at 2 R / 3 from it
    r = separation
    return 1.5 / r * (1.0 / (r - 0.5) ** 2 + 1.0 / (r + 0.5) ** 2)


def _am_positions(separation):
    c = separation / 3.0  # barycentre
    return [-0.5 - c, 0.5 - c, separation - c]


def aligned_mixed_h2(separation):
    """H-bar^2 of the aligned mixed equilibrium at normalised separation R (Scheeres 2012)."""
    inertia = 0.3 + sum(x * x for x in _am_positions(separation))
    return _am_rate2(separation) * inertia ** 2


def aligned_mixed_mean_motion(separation):
    """Rate [rad/s] of the aligned mixed equilibrium at normalised separation R."""
    return math.sqrt(_am_rate2(separation)) * rate_unit()


def aligned_mixed_orbital_momentum(separation):
    """Normalised orbital angular momentum L / sqrt(G m^3 d) of the aligned mixed equilibrium at
    separation R: its H-bar without the spins' 0.3 omega. Frictionless spheres keep their spins,
    so the orbit alone must carry L; it has aligned mixed equilibria down to the least L of this
    curve (2.13204 at R = 2.01734), below the thesis' energetic threshold (5.32417, spins locked)."""
    return math.sqrt(_am_rate2(separation)) * sum(x * x for x in _am_positions(separation))


AM_MIN_SEPARATION = 2.336964  # where aligned_mixed_h2 is least (5.32417, the thesis' threshold)


def aligned_mixed_separation(h2):
    """Separation R of the stable (outer) aligned mixed equilibrium with this H-bar^2."""
    lo, hi = AM_MIN_SEPARATION, 1e3
    if h2 < aligned_mixed_h2(lo):
        raise ValueError("aligned mixed: no equilibrium below H-bar^2 = %.5f, got %g" % (aligned_mixed_h2(lo), h2))
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if aligned_mixed_h2(mid) < h2 else (lo, mid)
    return 0.5 * (lo + hi)


def locked_spin_rate(config, h2):
    """Spin [rad/s] of the tidally locked configuration "LR", "ER" or "AM" at H-bar^2 (the
    thesis' psi_dot_req of eq. 5.6)."""
    if config == "AM":
        return aligned_mixed_mean_motion(aligned_mixed_separation(h2))
    return resting_mean_motion(config, h2)


def initial_state(config, h2=None, separation=None, displaced_body=None, displacement=1e-3, h2_factor=1.0):
    """Positions [m], velocities [m/s] and spins [rad/s] ((3, 3) arrays) of a configuration as
    the thesis sets it up (sec. 4.3): the layouts of secs. 5.2-5.3, the barycentre at the origin,
    all bodies turning and spinning at one rate omega. Resting configurations take omega from
    h2 (eq. 4.7), the aligned mixed one from its equilibrium at `separation` R, or, with
    h2_factor, from h2_factor times that equilibrium's H-bar^2 (sec. 5.3.4). displaced_body
    (0-based) is moved by displacement * d along +x after omega is set (sec. 5.3)."""
    d = DIAMETER
    if config == "LR":
        x = [[-0.5, -math.sqrt(3) / 6], [0.0, math.sqrt(3) / 3], [0.5, -math.sqrt(3) / 6]]
    elif config == "ER":
        x = [[0.0, 0.0], [1.0, 0.0], [-1.0, 0.0]]
    elif config == "AM":
        x = [[-0.5, 0.0], [0.5, 0.0], [separation, 0.0]]
    else:
        raise ValueError("initial_state: config must be 'LR', 'ER' or 'AM', got %r" % (config,))
    pos = np.zeros((3, 3))
    pos[:, :2] = np.array(x) * d
    pos -= pos.mean(axis=0)
    if config == "AM":
        omega = aligned_mixed_mean_motion(separation)
        if h2_factor != 1.0:
            h = angular_momentum(h2_factor * aligned_mixed_h2(separation))
            m = sphere_mass()
            omega = h / (m * (0.3 * d * d + np.sum(pos[:, :2] ** 2)))
    else:
        omega = resting_mean_motion(config, h2)
    if displaced_body is not None:
        pos[displaced_body, 0] += displacement * d
        pos -= pos.mean(axis=0)
    vel = np.zeros((3, 3))
    vel[:, 0] = -omega * pos[:, 1]
    vel[:, 1] = omega * pos[:, 0]
    spin = np.zeros((3, 3))
    spin[:, 2] = omega
    return pos, vel, spin


def thesis_system(positions, velocities, spins, dt=0.1, method="verlet", impacts=True, tides=True):
    """A BodySystem of the thesis' three spheres: gravity, soft-sphere contact (k_e, k_d),
    tides (k2, Q) and, with `impacts`, the perfectly inelastic impulse when two spheres touch
    (sec. 3.3, epsilon = 0)."""
    s = BodySystem(G)
    for p, v, w in zip(positions, velocities, spins):
        s.add_sphere(0.5 * DIAMETER, density=DENSITY, position=p, velocity=v, spin=w)
    e = restitution_from_damping(CONTACT_STIFFNESS, CONTACT_DAMPING, 0.5 * sphere_mass())
    s.contact("hooke", stiffness=CONTACT_STIFFNESS, restitution=e)
    if tides:
        s.tides(LOVE_NUMBER, QUALITY_FACTOR)
    s.integrator(method, dt=dt, impact_restitution=0.0 if impacts else None)
    return s


def mean_motion(time, positions, bodies=(0, 1, 2)):
    """Mean rate [rad/s] of each listed body about the barycentre: slope of its unwrapped polar
    angle fitted over the record."""
    centre = positions.mean(axis=1)
    out = []
    for i in bodies:
        r = positions[:, i, :] - centre
        angle = np.unwrap(np.arctan2(r[:, 1], r[:, 0]))
        out.append(float(np.polyfit(time, angle, 1)[0]))
    return out


def energy_rate(time, energy, tidal_rate, t_from):
    """(measured, predicted) Edot [W] from t_from on: the slope of the energy fitted by least
    squares (the thesis' Figures 5.32, 5.39, 5.53) and the mean of the tidal prediction
    -sum Gamma |phi_dot| (eq. 5.3 over the six tides, its Figures 5.33, 5.40)."""
    sel = time >= t_from
    return float(np.polyfit(time[sel], energy[sel], 1)[0]), float(np.mean(tidal_rate[sel]))


def locking_times(time, spins, t_from, spin_required):
    """Tidal-locking time [s] of each body by eq. 5.6: (psi_dot_req - psi_dot(t_end)) over its
    spin acceleration fitted from t_from on; with the spin change and the acceleration."""
    sel = time >= t_from
    out = []
    for i in range(spins.shape[1]):
        accel = float(np.polyfit(time[sel], spins[sel, i, 2], 1)[0])
        change = spin_required - float(spins[-1, i, 2])
        out.append({"spin_change": change, "spin_accel": accel, "time": change / accel if accel else math.inf})
    return out
