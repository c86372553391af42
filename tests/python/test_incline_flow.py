"""The incline-flow validation of the mu(I) rheology (validation/incline_flow/run.py), in
seconds: the theory's flow rule is Bagnold's mean with Pouliquen's h_stop, angles without
steady flow are refused, and a short layer started in the uniform flow keeps its mean velocity
and Bagnold's profile (Riemann dissipation), while Monaghan's viscosity takes a larger share
of the dissipation than the Riemann solver."""
import math

import pytest

from conftest import load_script
from regosph import run_control

incline = load_script("validation/incline_flow/run.py", "incline_run")


@pytest.mark.parametrize("angle", incline.ANGLES_DEG)
def test_flow_rule_is_bagnolds_mean(angle):
    h = 0.01
    froude = incline.bagnold_mean(h, angle) / math.sqrt(incline.G * h)
    beta = 0.4 * incline.I0 * incline.A_HSTOP * math.sqrt(
        incline.PHI_S * math.cos(math.radians(angle)))
    assert froude == pytest.approx(beta * h / incline.h_stop(angle), rel=1e-12)
    assert beta == pytest.approx(incline.BETA, rel=0.02)
    assert incline.bagnold_velocity([0.0, h], h, angle)[1] == pytest.approx(
        5.0 / 3.0 * incline.bagnold_mean(h, angle), rel=1e-12)


def test_angles_without_steady_flow_are_refused():
    for angle in (20.0, 33.0):
        with pytest.raises(ValueError, match="steady flow needs"):
            incline.build(angle, 1e-3, 0.05, 0.01)


def test_short_layer_keeps_the_uniform_flow():
    kw = dict(spacing=1e-3, length=0.1, end_time=0.02)
    riemann = incline.run_case(26.0, run_control.dissipation_options(dissipation="riemann"), **kw)
    assert abs(riemann["beta"] / incline.BETA - 1.0) < 0.10
    assert abs(riemann["mean_error"]) < 0.10
    assert riemann["profile_rms_error"] < 0.10
    assert 0.0 < riemann["numerical_share"] < 0.25
    monaghan = incline.run_case(26.0, **kw)  # the default, Monaghan's viscosity
    assert monaghan["numerical_share"] > riemann["numerical_share"]
