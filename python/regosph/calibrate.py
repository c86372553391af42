"""Calibration: material or contact parameters fitted to measurements, with their uncertainty.

`calibrate(model, measured, x0, ...)` fits any callable ``model(params) -> predictions`` (an
array of scalars) to measurements by weighted nonlinear least squares
(`scipy.optimize.least_squares`). The model can be

- a closed form, e.g. `triaxial_peak_stress` (the Mohr-Coulomb strength in triaxial compression,
  which regosph's 3D Drucker-Prager matches: its constants are those of the outer cone);
- an element-test driver that integrates the constitutive model at one material point;
- full runs, each returning scalars such as an angle of repose, a collapse runout or a
  penetration depth (`post.impact_summary`, validation/soil_collapse/compare.py).

The uncertainty comes from the Jacobian J of the weighted residuals r_i = (model_i - y_i)/s_i at
the solution: cov = (J^T J)^-1, the linearised covariance of the estimate (Bates & Watts 1988,
Nonlinear Regression Analysis, ch. 2). With measurement uncertainties `sigma` given, they are
taken as absolute; without them every point weighs the same and the covariance is scaled by the
residual variance s^2 = sum r^2 / (m - n), as `scipy.optimize.curve_fit` does by default.

A simulation's output is not smooth in its parameters at the scale of round-off (a particle
more or less in a deposit), so finite differences of full runs need a relative step of a few
per cent (`diff_step=0.05`), not least_squares' default of ~1e-8. Each distinct parameter
vector is evaluated once (`Calibration.evaluations` counts them), which matters when one
evaluation is a run.
"""
import dataclasses
import math

import numpy as np

# Measurements per parameter below which the residual variance is undefined.
_MIN_DOF = 1


@dataclasses.dataclass
class Calibration:
    """The result of `calibrate`: fitted `values`, their standard uncertainties `std`
    (1 sigma, linearised), `covariance` and `correlation` (n x n), the `predictions` and
    weighted `residuals` at the fit, `chi2_reduced` (sum r^2 / (m - n); near 1 when the
    model fits the measurements within their stated sigma), `evaluations` of the model and
    least_squares' `success` and `message`."""
    names: tuple
    values: np.ndarray
    std: np.ndarray
    covariance: np.ndarray
    correlation: np.ndarray
    predictions: np.ndarray
    residuals: np.ndarray
    chi2_reduced: float
    evaluations: int
    success: bool
    message: str

    def __getitem__(self, name):
        """(value, std) of the parameter called `name`."""
        if name not in self.names:
            raise KeyError(f"no parameter {name!r}; parameters: {', '.join(self.names)}")
        i = self.names.index(name)
        return float(self.values[i]), float(self.std[i])

    def as_dict(self):
        """{name: {"value", "std"}} plus the fit's quality, for JSON reports."""
        out = {n: {"value": float(v), "std": float(s)}
               for n, v, s in zip(self.names, self.values, self.std)}
        out["chi2_reduced"] = float(self.chi2_reduced)
        out["evaluations"] = int(self.evaluations)
        return out

    def __repr__(self):
        rows = [f"  {n} = {v:.6g} +/- {s:.2g}"
                for n, v, s in zip(self.names, self.values, self.std)]
        return ("Calibration(\n" + "\n".join(rows)
                + f"\n  chi2_reduced = {self.chi2_reduced:.3g}, evaluations = "
                f"{self.evaluations}, success = {self.success})")


class _CachedModel:
    """`model` with its outputs remembered per parameter vector (a run is costly and
    least_squares may ask for the same point twice) and checked for shape and finiteness."""

    def __init__(self, model, size):
        self.model, self.size, self.cache = model, size, {}

    def __call__(self, params):
        key = tuple(float(p) for p in params)
        if key not in self.cache:
            out = np.asarray(self.model(np.array(key)), dtype=float).reshape(-1)
            if out.size != self.size:
                raise ValueError(f"model returned {out.size} predictions for {self.size} "
                                 f"measurements (parameters {key})")
            if not np.all(np.isfinite(out)):
                raise ValueError(f"model returned non-finite predictions {out} for "
                                 f"parameters {key}")
            self.cache[key] = out
        return self.cache[key]


def _vector(name, value, size=None):
    arr = np.asarray(value, dtype=float).reshape(-1)
    if size is not None and arr.size != size:
        raise ValueError(f"{name} has {arr.size} entries, expected {size}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite: {arr}")
    return arr


def _bounds(bounds, n):
    if bounds is None:
        return np.full(n, -np.inf), np.full(n, np.inf)
    lower, upper = (np.broadcast_to(np.asarray(b, dtype=float), (n,)).copy() for b in bounds)
    if np.any(lower >= upper):
        raise ValueError(f"bounds: every lower bound must be below its upper bound "
                         f"({lower} / {upper})")
    return lower, upper


def _covariance(jacobian, chi2_reduced, absolute_sigma):
    """(J^T J)^-1 by the pseudo-inverse of J's SVD (singular directions get infinite
    variance rather than a huge finite one), scaled by the residual variance unless the
    weights were absolute."""
    _, s, vt = np.linalg.svd(jacobian, full_matrices=False)
    threshold = np.finfo(float).eps * max(jacobian.shape) * (s[0] if s.size else 0.0)
    keep = s > threshold
    cov = (vt[keep].T / s[keep] ** 2) @ vt[keep]
    if not np.all(keep):
        cov[:] = np.inf
    if not absolute_sigma:
        cov = cov * chi2_reduced
    return cov


def calibrate(model, measured, x0, names=None, sigma=None, bounds=None, diff_step=None,
              x_scale="jac", **least_squares_options):
    """Fit `model(params) -> predictions` to `measured` starting from `x0`.

    measured: m scalars; sigma: their standard uncertainties (m values, or one for all),
    taken as absolute; None weighs every point alike and estimates the scatter from the fit.
    names: one per parameter (default p0, p1, ...). bounds: (lower, upper), each a scalar or
    one value per parameter. diff_step: relative finite-difference step (use ~0.05 over full
    runs, with xtol=1e-3: a run's output is not smooth on finer scales, and the default
    tolerances spend dozens of runs refining below them; tests/python/test_calibrate.py fits a
    friction angle over full runs in 12). Other keywords go to scipy.optimize.least_squares.
    Returns a `Calibration`."""
    from scipy.optimize import least_squares  # SciPy is needed only here

    if not callable(model):
        raise TypeError(f"model must be callable as model(params) -> predictions, "
                        f"not {type(model).__name__}")
    y = _vector("measured", measured)
    x0 = _vector("x0", x0)
    n, m = x0.size, y.size
    names = tuple(f"p{i}" for i in range(n)) if names is None else tuple(names)
    if len(names) != n:
        raise ValueError(f"names has {len(names)} entries for {n} parameters")
    absolute_sigma = sigma is not None
    s = np.ones(m) if sigma is None else np.broadcast_to(_vector("sigma", sigma), (m,))
    if np.any(s <= 0):
        raise ValueError(f"sigma must be positive: {s}")
    if m < n:
        raise ValueError(f"{m} measurements cannot determine {n} parameters")
    if not absolute_sigma and m - n < _MIN_DOF:
        raise ValueError(f"{m} measurements for {n} parameters leave no degree of freedom to "
                         "estimate the scatter: give sigma")
    lower, upper = _bounds(bounds, n)
    cached = _CachedModel(model, m)

    def residuals(p):
        return (cached(p) - y) / s

    fit = least_squares(residuals, x0, bounds=(lower, upper), diff_step=diff_step,
                        x_scale=x_scale, **least_squares_options)
    dof = m - n
    chi2 = float(np.sum(fit.fun ** 2))
    chi2_reduced = chi2 / dof if dof >= _MIN_DOF else math.nan
    cov = _covariance(fit.jac, chi2_reduced, absolute_sigma)
    std = np.sqrt(np.diag(cov))
    with np.errstate(invalid="ignore", divide="ignore"):
        corr = cov / np.outer(std, std)
    return Calibration(names=names, values=fit.x.copy(), std=std, covariance=cov,
                       correlation=corr, predictions=cached(fit.x).copy(),
                       residuals=fit.fun.copy(), chi2_reduced=chi2_reduced,
                       evaluations=len(cached.cache), success=bool(fit.success),
                       message=str(fit.message))


def triaxial_peak_stress(confining_pressure, friction_angle, cohesion):
    """Axial stress at failure [Pa] in a drained triaxial compression test at the given
    confining pressures [Pa] (compression positive) of a Mohr-Coulomb material with
    friction angle [deg] and cohesion [Pa]:
    sigma_1 = sigma_3 (1 + sin phi)/(1 - sin phi) + 2 c cos phi/(1 - sin phi).
    regosph's 3D Drucker-Prager uses the cone through Mohr-Coulomb's compression corners, so it
    fails at the same stress in this test."""
    sigma3 = np.asarray(confining_pressure, dtype=float)
    phi = np.radians(friction_angle)
    sin_phi = np.sin(phi)
    return (sigma3 * (1.0 + sin_phi) + 2.0 * cohesion * np.cos(phi)) / (1.0 - sin_phi)
