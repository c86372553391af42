"""regosph.calibrate: fitted values and their stated uncertainty on synthetic problems whose
parameters are known."""
import numpy as np
import pytest

import regosph as rs
from regosph import calibrate as cal

PHI_DEG, COHESION_PA = 38.0, 2.0e3          # the "true" regolith of the synthetic tests
CONFINING_PA = np.array([5e3, 10e3, 20e3, 40e3, 80e3])
NOISE_PA = 1.5e3                             # standard deviation of the synthetic scatter


def triaxial_model(params):
    return cal.triaxial_peak_stress(CONFINING_PA, params[0], params[1])


def synthetic(seed):
    rng = np.random.default_rng(seed)
    exact = cal.triaxial_peak_stress(CONFINING_PA, PHI_DEG, COHESION_PA)
    return exact + rng.normal(0.0, NOISE_PA, exact.size)


def test_triaxial_peak_stress_is_mohr_coulomb():
    # phi = 30 deg: (1 + sin)/(1 - sin) = 3 and 2 cos/(1 - sin) = 2 sqrt(3).
    assert cal.triaxial_peak_stress(1e4, 30.0, 0.0) == pytest.approx(3e4, rel=1e-12)
    assert cal.triaxial_peak_stress(0.0, 30.0, 1e3) == pytest.approx(2e3 * 3 ** 0.5, rel=1e-12)


def test_phi_and_c_recovered_within_their_uncertainty():
    fit = cal.calibrate(triaxial_model, synthetic(1), x0=[30.0, 500.0],
                        names=("friction_angle", "cohesion"), sigma=NOISE_PA,
                        bounds=([1.0, 0.0], [80.0, 1e5]))
    assert fit.success
    phi, phi_std = fit["friction_angle"]
    c, c_std = fit["cohesion"]
    assert 0 < phi_std < 2.0 and 0 < c_std < 2e3
    assert abs(phi - PHI_DEG) < 3 * phi_std
    assert abs(c - COHESION_PA) < 3 * c_std
    assert -1 < fit.correlation[0, 1] < 0   # a steeper envelope needs less cohesion
    assert 0.05 < fit.chi2_reduced < 5
    assert "friction_angle" in repr(fit)


def test_stated_uncertainty_covers_the_truth_as_often_as_it_should():
    """Over 300 synthetic data sets the true phi lies within one stated sigma of the fit in
    68 % of them (binomial scatter +/- 2.7 %); an uncertainty off by a factor 1.5 either way
    would give 49 % or 87 %."""
    inside = []
    for seed in range(300):
        fit = cal.calibrate(triaxial_model, synthetic(seed), x0=[30.0, 500.0],
                            sigma=NOISE_PA)
        inside.append(abs(fit.values[0] - PHI_DEG) < fit.std[0])
    assert 0.60 < np.mean(inside) < 0.76


def test_without_sigma_the_scatter_is_estimated_from_the_fit():
    data = synthetic(3)
    given = cal.calibrate(triaxial_model, data, x0=[30.0, 500.0], sigma=NOISE_PA)
    estimated = cal.calibrate(triaxial_model, data, x0=[30.0, 500.0])
    np.testing.assert_allclose(estimated.values, given.values, rtol=1e-6)
    ratio = estimated.std / given.std
    np.testing.assert_allclose(ratio, np.sqrt(given.chi2_reduced), rtol=1e-6)


def test_a_noisy_costly_model_is_evaluated_once_per_point_with_a_coarse_step():
    """A stand-in for full runs: a runout that grows as 1/tan(phi) plus a jitter of 1e-4
    of its value that is not smooth in phi (a particle more or less in the deposit)."""
    calls = []

    def runout(params):
        calls.append(tuple(params))
        phi = params[0]
        jitter = 1e-4 * np.sin(1e6 * phi)
        return [0.2 / np.tan(np.radians(phi)) * (1 + jitter)]

    measured = 0.2 / np.tan(np.radians(PHI_DEG))
    fit = cal.calibrate(runout, [measured], x0=[25.0], sigma=[0.005], diff_step=0.05,
                        bounds=(5.0, 80.0))
    assert abs(fit.values[0] - PHI_DEG) < 0.5
    assert fit.evaluations == len(set(calls))
    assert fit.std[0] > 0


def test_bad_input_names_the_field():
    with pytest.raises(ValueError, match="predictions"):
        cal.calibrate(lambda p: [1.0, 2.0], [1.0, 2.0, 3.0], x0=[1.0])
    with pytest.raises(ValueError, match="sigma"):
        cal.calibrate(triaxial_model, synthetic(0), x0=[30.0, 0.0], sigma=-1.0)
    with pytest.raises(ValueError, match="names"):
        cal.calibrate(triaxial_model, synthetic(0), x0=[30.0, 0.0], names=("phi",))
    with pytest.raises(ValueError, match="degree of freedom"):
        cal.calibrate(triaxial_model, synthetic(0)[:2], x0=[30.0, 0.0])
    with pytest.raises(ValueError, match="non-finite"):
        cal.calibrate(lambda p: [np.nan], [1.0], x0=[1.0], sigma=1.0)
    with pytest.raises(TypeError, match="callable"):
        cal.calibrate(3.0, [1.0], x0=[1.0])
    with pytest.raises(KeyError, match="friction_angle"):
        cal.calibrate(triaxial_model, synthetic(0), x0=[30.0, 0.0], sigma=NOISE_PA,
                      names=("friction_angle", "cohesion"))["phi"]


def driver_peak_stress(params, confining=CONFINING_PA):
    """Peak axial stress [Pa] of drained triaxial compression through the solver's own law
    (regosph.material_point), 3D Drucker-Prager with parameters (phi [deg], c [Pa])."""
    import regosph as rs
    from regosph import material_point as mp
    soil = rs.DruckerPrager("soil", density=1500.0, bulk_modulus=1e7, poisson_ratio=0.3,
                            friction_angle=params[0], cohesion=params[1])
    peaks = []
    for s3 in confining:
        r = mp.drive(soil, mp.triaxial_compression(1.0), steps=300, dt=1e-4, confinement=s3)
        peaks.append(-r.stress[:, 2].min())
    return np.array(peaks)


def test_element_tests_through_the_driver_recover_phi_and_c():
    # The driver's peak is the law's (the 3D cone meets Mohr-Coulomb in triaxial compression),
    # and the fit through the driver recovers the parameters that made the data.
    exact = driver_peak_stress([PHI_DEG, COHESION_PA])
    np.testing.assert_allclose(exact, cal.triaxial_peak_stress(CONFINING_PA, PHI_DEG,
                                                               COHESION_PA), rtol=1e-6)
    measured = exact + np.random.default_rng(3).normal(0.0, NOISE_PA, exact.size)
    fit = cal.calibrate(driver_peak_stress, measured, x0=[30.0, 500.0],
                        names=("friction_angle", "cohesion"), sigma=NOISE_PA,
                        bounds=([1.0, 0.0], [80.0, 1e5]))
    phi, phi_std = fit["friction_angle"]
    c, c_std = fit["cohesion"]
    assert fit.success and 0 < phi_std < 2.0 and 0 < c_std < 2e3
    assert abs(phi - PHI_DEG) < 3 * phi_std
    assert abs(c - COHESION_PA) < 3 * c_std


def column_spread(params, spacing=5e-3, end_time=0.25):
    """A full run as the model: a 5 x 10 cm column of cohesionless Mohr-Coulomb soil
    (friction angle params[0] [deg]) against a wall collapses under gravity for end_time [s];
    returns its centroid's travel along the plate [m], which falls as the angle grows
    (32.6, 29.4, 26.4 mm at 24, 30, 36 deg). About 0.4 s on one thread."""
    sim = rs.Simulation(dim=2)
    sim.physics.gravity = (0.0, -9.81, 0.0)
    soil = sim.add_material(rs.MohrCoulomb("soil", density=2650, bulk_modulus=0.7e6,
                                           poisson_ratio=0.3, friction_angle=params[0],
                                           cohesion=0.0))
    wall = sim.add_material(rs.Rigid("wall", density=2650))
    column = rs.lattice_fill(rs.rectangle((0.0, 0.0), (0.05, 0.1)), spacing)
    sim.add_body("soil", column, material=soil, motion="dynamic", spacing=spacing,
                 smoothing_length=2.5 * spacing)
    walls = rs.rectangle((-0.015, -0.015), (0.3, 0.0)) | rs.rectangle((-0.015, 0.0), (0.0, 0.12))
    sim.add_body("walls", rs.lattice_fill(walls, spacing), material=wall, motion="fixed",
                 spacing=spacing, smoothing_length=2.5 * spacing)
    sim.run(end_time, progress_interval=0)
    on = sim.body == sim.body_names.index("soil")
    return [float(sim.positions[on][:, 0].mean() - np.asarray(column)[:, 0].mean())]


def test_a_friction_angle_recovered_from_full_runs():
    # Synthetic data: the spread of a run at 30 deg, stated to 1 mm. From 24 deg the fit over
    # full runs finds the angle within twice its stated uncertainty, and that uncertainty
    # follows the runs' sensitivity (about 0.5 mm per degree: a degree or two, not tens).
    measured = column_spread([30.0])
    fit = cal.calibrate(column_spread, measured, x0=[24.0], names=["friction_angle"],
                        sigma=[1e-3], diff_step=0.05, bounds=(15.0, 45.0), xtol=1e-3)
    assert fit.success, fit.message
    assert abs(fit.values[0] - 30.0) <= 2.0 * fit.std[0]
    assert 0.3 < fit.std[0] < 5.0
    assert abs(fit.residuals[0]) < 1.0
    assert fit.evaluations <= 20
