"""Material-point driver (element test): a constitutive model by itself on a prescribed path.

`drive(material, path, steps, dt)` puts a `Material` through a strain-rate path, or a mixed
one where some stress components are held at their value at the start of the path, and
returns the stress, strain and history paths (`MaterialPointResult`). Each step is the
solver's own step of the law, `Material.point_step`: Heun's predictor and corrector of the
model's stress rate (zero spin) with its correction (return mapping or equation of state)
after each stage, and the density by continuity (src/sph/integrator.cpp). What a point
sees is therefore what a particle with the same velocity gradient sees.

Conventions are the solver's: stress and strain tension positive, components in the order
``xx yy zz xy xz yz`` (`regosph.STRESS_COMPONENTS`), tensor (not engineering) shear strains;
``p = -tr(sigma)/3`` (compression positive) and ``q = sqrt(3 J2)``. In 2D (``dim=2``) the
point is in plane strain in xy, as a 2D run: zz, xz and yz strain rates are zero and sigma_zz
is carried.

A held component is solved each step by Newton's method on its strain rate with a
finite-difference tangent (the step is only piecewise smooth at the yield surface, where an
analytic tangent would be the continuum one, not the algorithmic one).

Ready-made paths (rates in 1/s, positive = compression for the axial ones): `triaxial_compression`,
`triaxial_extension` (3D, axis zz, lateral stresses held), `plane_strain` (axis yy, xx held,
eps_zz = 0; 2D or 3D), `oedometer`, `isotropic`, `simple_shear`, and `cycle` for loading and
unloading segments. Example::

    import regosph as rs
    from regosph import material_point as mp
    soil = rs.DruckerPrager("soil", density=1500, bulk_modulus=1e7, poisson_ratio=0.3,
                            friction_angle=30, cohesion=0)
    r = mp.drive(soil, mp.triaxial_compression(1.0), steps=2000, dt=1e-5, confinement=1e3)
    print(r.stress[-1, 2] / r.stress[-1, 0])   # sigma_1 / sigma_3 at failure
"""
import dataclasses
import math

import numpy as np

from ._core import Material

COMPONENTS = ("xx", "yy", "zz", "xy", "xz", "yz")
# Newton on the held components: residual below this fraction of the stress scale [-].
TOLERANCE = 1e-10
MAX_ITERATIONS = 30
# Finite-difference step of the tangent, relative to the path's largest strain rate [-]. The
# map is linear inside a smooth piece, so the step only needs to stay above round-off.
FD_STEP = 1e-6


@dataclasses.dataclass(frozen=True)
class Path:
    """A loading path: `strain_rate` (6,) [1/s] of the strain-controlled components (at the
    `held` ones, the first guess of their strain rate) and `held`, the names of the components
    whose stress is held at its value at the start of the path."""
    strain_rate: tuple
    held: tuple = ()

    def reversed(self):
        """The same path run backwards: every prescribed strain rate negated."""
        return Path(tuple(-r for r in self.strain_rate), self.held)


@dataclasses.dataclass
class MaterialPointResult:
    """What `drive` returns, one row per state (the start, then after each step): `time` [s],
    `strain` (n, 6) [-] (the time integral of the strain rate), `stress` (n, 6) [Pa], `rho`
    [kg/m^3], `p` and `q` [Pa], `yielding` (plastic in the step that led to the state; False
    at the start) and `history` (n, k) of the model's variables `history_names`."""
    time: np.ndarray
    strain: np.ndarray
    stress: np.ndarray
    rho: np.ndarray
    p: np.ndarray
    q: np.ndarray
    yielding: np.ndarray
    history: np.ndarray
    history_names: tuple

    def principal(self):
        """Principal stresses (n, 3) [Pa], tension positive, ascending (the most compressive
        first)."""
        s = self.stress
        t = np.empty((len(s), 3, 3))
        for (i, j), c in zip(((0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2)), range(6)):
            t[:, i, j] = t[:, j, i] = s[:, c]
        return np.linalg.eigvalsh(t)


def _rate(name, value):
    value = float(value)
    if not (math.isfinite(value) and value > 0.0):
        raise ValueError(f"{name} = {value} 1/s must be positive")
    return value


def _tensor(name, values):
    a = np.asarray(values, dtype=float)
    if a.shape != (6,) or not np.all(np.isfinite(a)):
        raise ValueError(f"{name}: expected 6 finite values (xx yy zz xy xz yz), got {values!r}")
    return a


def _path(name, path):
    if not isinstance(path, Path):
        raise ValueError(f"{name}: expected a material_point.Path, got {type(path).__name__}")
    unknown = [c for c in path.held if c not in COMPONENTS]
    if unknown or len(set(path.held)) != len(path.held):
        raise ValueError(f"{name}.held = {path.held!r}: components are distinct names of "
                         f"{', '.join(COMPONENTS)}")
    return _tensor(f"{name}.strain_rate", path.strain_rate), [COMPONENTS.index(c) for c in path.held]


def triaxial_compression(rate):
    """Triaxial compression at constant confinement: axial (zz) shortening at `rate` [1/s],
    sigma_xx and sigma_yy held. 3D."""
    return Path((0.0, 0.0, -_rate("rate", rate), 0.0, 0.0, 0.0), ("xx", "yy"))


def triaxial_extension(rate):
    """Triaxial extension at constant confinement: axial (zz) lengthening at `rate` [1/s]
    (the axial stress unloads below the lateral ones), sigma_xx and sigma_yy held. 3D."""
    return Path((0.0, 0.0, _rate("rate", rate), 0.0, 0.0, 0.0), ("xx", "yy"))


def plane_strain(rate):
    """Plane-strain compression: axial (yy) shortening at `rate` [1/s], eps_zz = 0 and
    sigma_xx held (the biaxial test; in 2D the plane strain of the run itself)."""
    return Path((0.0, -_rate("rate", rate), 0.0, 0.0, 0.0, 0.0), ("xx",))


def oedometer(rate, axis="zz"):
    """One-dimensional (oedometric) compression along `axis` ('xx', 'yy' or 'zz'; 'yy' in 2D)
    at `rate` [1/s], every other strain rate zero."""
    if axis not in COMPONENTS[:3]:
        raise ValueError(f"axis = {axis!r} must be 'xx', 'yy' or 'zz'")
    r = [0.0] * 6
    r[COMPONENTS.index(axis)] = -_rate("rate", rate)
    return Path(tuple(r))


def isotropic(rate):
    """Isotropic compression at volumetric strain rate `rate` [1/s] (each normal strain rate
    -rate/3). 3D."""
    r = _rate("rate", rate) / 3.0
    return Path((-r, -r, -r, 0.0, 0.0, 0.0))


def simple_shear(shear_rate):
    """Simple shear in xy at engineering shear strain rate `shear_rate` [1/s]
    (eps_dot_xy = shear_rate / 2), every other strain rate zero (constant volume)."""
    return Path((0.0, 0.0, 0.0, 0.5 * _rate("shear_rate", shear_rate), 0.0, 0.0))


def cycle(path, cycles):
    """`cycles` loading-unloading cycles of `path`: [path, path.reversed()] repeated, for
    `drive` (each segment runs `steps` steps, so each cycle returns to its starting strain)."""
    _path("path", path)
    if not isinstance(cycles, int) or isinstance(cycles, bool) or cycles < 1:
        raise ValueError(f"cycles = {cycles!r} must be a positive integer")
    return [path, path.reversed()] * cycles


def _solve_held(step, state, rate, held, target, scale):
    """The strain rates of the `held` components that bring their stress to `target` after one
    step (Newton with a finite-difference tangent); returns the step's outcome and the rate."""
    out = step(state, rate)
    if not held:
        return out, rate
    h = FD_STEP * max(np.max(np.abs(rate)), 1e-30)
    for _ in range(MAX_ITERATIONS):
        residual = out[1][held] - target
        if np.max(np.abs(residual)) <= TOLERANCE * scale:
            return out, rate
        tangent = np.empty((len(held), len(held)))
        for j, c in enumerate(held):
            probe = rate.copy()
            probe[c] += h
            tangent[:, j] = (step(state, probe)[1][held] - out[1][held]) / h
        if not np.any(tangent):
            raise ValueError("path.held: the stress of the held components does not depend on "
                             "their strain rate at this state (zero tangent)")
        # Least squares: on an edge of a yield surface (a triaxial corner of Mohr-Coulomb) the
        # held stresses move together and the tangent is singular, yet the target is reachable.
        rate[held] = rate[held] - np.linalg.lstsq(tangent, residual, rcond=None)[0]
        out = step(state, rate)
    raise ValueError(f"path.held: Newton did not hold {[COMPONENTS[c] for c in held]} within "
                     f"{TOLERANCE:g} of the stress scale in {MAX_ITERATIONS} iterations; "
                     "use a smaller dt")


def _initial_stress(stress, confinement):
    if stress is not None and confinement is not None:
        raise ValueError("stress and confinement: give one of them, not both")
    if confinement is not None:
        c = float(confinement)
        if not (math.isfinite(c) and c >= 0.0):
            raise ValueError(f"confinement = {confinement} Pa must be >= 0 (compression positive)")
        return np.array([-c, -c, -c, 0.0, 0.0, 0.0])
    return np.zeros(6) if stress is None else _tensor("stress", stress)


def drive(material, path, steps, dt, dim=3, rho=None, stress=None, confinement=None):
    """Drives `material` (a regosph Material) at one point along `path` (a `Path`, or a list
    of them run one after the other, e.g. from `cycle`) for `steps` steps of `dt` [s] each
    (per path), in `dim` (2 or 3) dimensions. The start: density `rho` [kg/m^3] (default the
    material's), stress `stress` (6,) [Pa] or the isotropic `confinement` [Pa] (compression
    positive; default zero stress). Held components keep their stress at the start of each
    path. Returns a `MaterialPointResult`."""
    if not isinstance(material, Material):
        raise ValueError(f"material: expected a regosph Material, got {type(material).__name__}")
    paths = list(path) if isinstance(path, (list, tuple)) else [path]
    if not paths:
        raise ValueError("path: expected a Path or a non-empty list of them")
    checked = [_path(f"path[{i}]" if len(paths) > 1 else "path", p) for i, p in enumerate(paths)]
    if not isinstance(steps, (int, np.integer)) or isinstance(steps, bool) or steps < 1:
        raise ValueError(f"steps = {steps!r} must be a positive integer")
    dt = float(dt)
    if not (math.isfinite(dt) and dt > 0.0):
        raise ValueError(f"dt = {dt} s must be positive")
    if dim not in (2, 3):
        raise ValueError(f"dim = {dim!r} must be 2 or 3")
    rho = material.density if rho is None else float(rho)
    sigma = _initial_stress(stress, confinement)

    def step(state, rate):
        return material.point_step(state[0], state[1], rate, dt, dim, state[2])

    n = len(paths) * steps + 1
    rows = {"rho": np.empty(n), "strain": np.zeros((n, 6)), "stress": np.empty((n, 6)),
            "yielding": np.zeros(n, dtype=bool)}
    state = (rho, sigma, None)
    variables = material.history_variables
    history = [np.array([v[2] for v in variables], dtype=float)]
    rows["rho"][0], rows["stress"][0] = rho, sigma
    k = 0
    for prescribed, held in checked:
        target = state[1][held].copy()
        rate = prescribed.copy()
        for _ in range(steps):
            scale = max(np.max(np.abs(state[1])), np.max(np.abs(target), initial=0.0), 1.0)
            out, rate = _solve_held(step, state, rate, held, target, scale)
            k += 1
            rows["rho"][k], rows["stress"][k], rows["yielding"][k] = out[0], out[1], out[2]
            rows["strain"][k] = rows["strain"][k - 1] + dt * rate
            state = (out[0], np.asarray(out[1]), np.asarray(out[3]))
            history.append(state[2])
    s = rows["stress"]
    p = -(s[:, 0] + s[:, 1] + s[:, 2]) / 3.0
    dev = s[:, :3] + p[:, None]
    j2 = 0.5 * np.sum(dev * dev, axis=1) + np.sum(s[:, 3:] ** 2, axis=1)
    return MaterialPointResult(time=dt * np.arange(n), strain=rows["strain"], stress=s,
                               rho=rows["rho"], p=p, q=np.sqrt(3.0 * j2),
                               yielding=rows["yielding"], history=np.array(history),
                               history_names=tuple(v[0] for v in variables))
