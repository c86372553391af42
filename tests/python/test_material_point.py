"""The material-point driver (regosph.material_point): elastic closed forms, the Drucker-Prager
failure ratios on the stress paths of issue 45 (triaxial compression, extension, plane strain),
and its input checks. Each path is a single point: the whole file runs in about a second."""
import math

import numpy as np
import pytest

import regosph as rs
from regosph import material_point as mp
from regosph.calibrate import triaxial_peak_stress

K = 1.0e7          # bulk modulus [Pa]
NU = 0.3           # Poisson's ratio [-]
G = 3.0 * K * (1.0 - 2.0 * NU) / (2.0 * (1.0 + NU))  # shear modulus [Pa]
CONFINEMENT = 1.0e3  # [Pa], compression positive
RATE = 1.0         # axial strain rate [1/s]
ANGLES = (20.0, 30.0, 42.0)  # friction angles [deg]


def soil(phi, cohesion=0.0):
    return rs.DruckerPrager(f"soil{phi:g}", density=1500, bulk_modulus=K, poisson_ratio=NU,
                            friction_angle=phi, cohesion=cohesion)


def mohr_coulomb_ratio(phi):
    """sigma_1/sigma_3 at failure of a cohesionless Mohr-Coulomb soil on every path."""
    return float(triaxial_peak_stress(1.0, phi, 0.0))


def outer_cone_alpha(phi):
    return rs.drucker_prager_constants(phi, 0.0, dim=3)[0]


def test_elastic_oedometer_and_isotropic_match_the_moduli():
    """Hooke's law integrated by the solver's step: constrained modulus K + 4G/3 in 1D
    compression (lateral stress (K - 2G/3) eps), bulk modulus K in isotropic compression."""
    m = soil(30.0)  # K0 = nu/(1 - nu) = 0.43 keeps the oedometer inside the 30 deg cone
    dt, steps = 1e-5, 200
    r = mp.drive(m, mp.oedometer(RATE), steps=steps, dt=dt, confinement=CONFINEMENT)
    eps = r.strain[-1, 2]
    assert eps == pytest.approx(-RATE * dt * steps, rel=1e-12)
    assert not r.yielding.any()
    axial = (r.stress[-1, 2] + CONFINEMENT) / eps
    lateral = (r.stress[-1, 0] + CONFINEMENT) / eps
    assert axial == pytest.approx(K + 4.0 * G / 3.0, rel=1e-6)
    assert lateral == pytest.approx(K - 2.0 * G / 3.0, rel=1e-6)
    # Continuity: rho = rho0 exp(-eps_v) up to Heun's O(dt^3) per step.
    assert r.rho[-1] == pytest.approx(1500.0 * math.exp(-eps), rel=1e-9)

    r = mp.drive(m, mp.isotropic(RATE), steps=steps, dt=dt)
    eps_v = np.sum(r.strain[-1, :3])
    assert r.p[-1] / -eps_v == pytest.approx(K, rel=1e-6)
    assert np.max(r.q) < 1e-9 * r.p[-1]
    assert not r.yielding.any()


def test_triaxial_compression_fails_at_the_mohr_coulomb_ratio():
    """The 3D cone passes through Mohr-Coulomb's compression corners: exact on this path."""
    for phi in ANGLES:
        r = mp.drive(soil(phi), mp.triaxial_compression(RATE), steps=1500, dt=1e-5,
                     confinement=CONFINEMENT)
        assert r.stress[-1, :2] == pytest.approx([-CONFINEMENT] * 2, rel=1e-9)  # held
        assert r.yielding[-1]
        ratio = r.stress[-1, 2] / r.stress[-1, 0]
        print(f"triaxial compression phi={phi:g}: sigma1/sigma3 = {ratio:.4f} "
              f"(Mohr-Coulomb {mohr_coulomb_ratio(phi):.4f})")
        assert ratio == pytest.approx(mohr_coulomb_ratio(phi), rel=0.02)


def test_triaxial_extension_over_predicts_strength():
    """Known behaviour (issue 45): in extension (sigma1 = sigma2 lateral, sigma3 axial) the
    outer cone fails at (1 + a)/(1 - 2a), a = sqrt(3) alpha = 2 sin phi/(3 - sin phi), above
    Mohr-Coulomb's ratio; at 42 deg 1 - 2a < 0 and the axial stress turns tensile at c = 0.
    These assertions hold the outer cone; a strength surface true on every path changes them."""
    for phi in ANGLES:
        r = mp.drive(soil(phi), mp.triaxial_extension(RATE), steps=1500, dt=1e-5,
                     confinement=CONFINEMENT)
        assert r.yielding[-1]
        minor_over_major = r.stress[-1, 2] / r.stress[-1, 0]  # sigma3/sigma1
        a = math.sqrt(3.0) * outer_cone_alpha(phi)
        print(f"triaxial extension phi={phi:g}: sigma1/sigma3 = {1.0 / minor_over_major:.4f} "
              f"(sigma3/sigma1 = {minor_over_major:+.4f}; Mohr-Coulomb "
              f"{mohr_coulomb_ratio(phi):.4f})")
        assert minor_over_major == pytest.approx((1.0 - 2.0 * a) / (1.0 + a), abs=1e-6)
        if phi < 40.0:
            assert 1.0 / minor_over_major > 1.25 * mohr_coulomb_ratio(phi)
        else:
            assert r.stress[-1, 2] > 0.09 * CONFINEMENT  # tension in a cohesionless soil


def test_plane_strain_over_predicts_strength_in_3d_and_under_predicts_in_2d():
    """Known behaviour (issue 45): in plane strain with psi = 0 the flow is deviatoric, so at
    steady flow S_zz = 0 (Lode angle 0) and the cone acts as sin(phi_eff) = 3 alpha: the 3D
    outer cone over-predicts (phi = 42 deg acts as ~84 deg and approaches its limit ratio of
    ~360 slowly, hence the loose bound), the 2D plane-strain fit (Bui 2008) under-predicts.
    These assertions hold the present cones; a law true on every path changes them."""
    for phi in ANGLES:
        for dim in (3, 2):
            r = mp.drive(soil(phi), mp.plane_strain(RATE), steps=3000, dt=1e-4, dim=dim,
                         confinement=CONFINEMENT)
            assert r.stress[-1, 0] == pytest.approx(-CONFINEMENT, rel=1e-9)
            assert r.yielding[-1]
            ratio = r.stress[-1, 1] / r.stress[-1, 0]
            three_alpha = 3.0 * rs.drucker_prager_constants(phi, 0.0, dim=dim)[0]
            limit = (1.0 + three_alpha) / (1.0 - three_alpha)
            print(f"plane strain {dim}D phi={phi:g}: sigma1/sigma3 = {ratio:.4f} at axial "
                  f"strain 0.3 (steady-flow limit {limit:.4f}; Mohr-Coulomb "
                  f"{mohr_coulomb_ratio(phi):.4f})")
            if dim == 3 and phi > 40.0:
                assert 40.0 * mohr_coulomb_ratio(phi) < ratio < limit
            else:
                assert ratio == pytest.approx(limit, rel=0.01)
            if dim == 3:
                assert ratio > 1.25 * mohr_coulomb_ratio(phi)
            else:
                assert ratio < 0.99 * mohr_coulomb_ratio(phi)


def test_cycles_and_simple_shear():
    """A shear cycle returns to its start strain; the cone caps the shear stress at
    q = sqrt(3) tau = k - alpha I1 (Schaefer 2017 eq. 11 with J2 = tau^2)."""
    phi = 30.0
    steps = 400
    r = mp.drive(soil(phi), mp.cycle(mp.simple_shear(RATE), 2), steps=steps, dt=1e-5,
                 confinement=CONFINEMENT)
    assert len(r.time) == 4 * steps + 1
    assert np.abs(r.strain[-1]).max() < 1e-15
    tau_max = outer_cone_alpha(phi) * 3.0 * CONFINEMENT
    assert r.stress[steps, 3] == pytest.approx(tau_max, rel=1e-9)
    assert r.stress[2 * steps, 3] == pytest.approx(-tau_max, rel=1e-9)
    assert r.yielding[steps] and not r.yielding[steps + 1]  # unloading is elastic


def test_bad_input_names_the_field():
    m = soil(30.0)
    path = mp.triaxial_compression(RATE)
    cases = [
        (lambda: mp.drive(m, path, steps=0, dt=1e-5), "steps"),
        (lambda: mp.drive(m, path, steps=10, dt=-1.0), "dt"),
        (lambda: mp.drive(m, path, steps=10, dt=1e-5, dim=1), "dim"),
        (lambda: mp.drive(m, "triaxial", steps=10, dt=1e-5), "path"),
        (lambda: mp.drive(m, mp.Path((0.0,) * 6, ("ww",)), steps=10, dt=1e-5), "path.held"),
        (lambda: mp.drive(m, path, steps=10, dt=1e-5, stress=[0.0] * 5), "stress"),
        (lambda: mp.drive(m, path, steps=10, dt=1e-5, confinement=-1.0), "confinement"),
        (lambda: mp.drive(m, mp.oedometer(RATE), steps=10, dt=1e-5, dim=2), "strain_rate"),
        (lambda: mp.triaxial_compression(0.0), "rate"),
        (lambda: mp.oedometer(1.0, axis="xy"), "axis"),
        (lambda: mp.cycle(path, 0), "cycles"),
        (lambda: m.point_step(-1.0, np.zeros(6), np.zeros(6), 1e-5), "rho"),
        (lambda: mp.drive(rs.Rigid("wall", density=1000), path, steps=10, dt=1e-5), "model"),
    ]
    for call, field in cases:
        with pytest.raises(ValueError, match=field):
            call()


def mohr_coulomb(phi, psi, cohesion=0.0):
    return rs.MohrCoulomb(f"mc{phi:g}", density=1500, bulk_modulus=K, poisson_ratio=NU,
                          friction_angle=phi, cohesion=cohesion, dilatancy_angle=psi)


def principal_stresses(row):
    """The principal stresses of a stress row (xx yy zz xy xz yz), ascending."""
    s = np.array([[row[0], row[3], row[4]], [row[3], row[1], row[5]], [row[4], row[5], row[2]]])
    return np.linalg.eigvalsh(s)


@pytest.mark.parametrize("phi", ANGLES)
@pytest.mark.parametrize("dilatant", (False, True))
def test_mohr_coulomb_fails_at_its_ratio_on_every_path(phi, dilatant):
    """Issue 45's acceptance at a material point: sigma1/sigma3 = (1 + sin phi)/(1 - sin phi)
    within 2 % in triaxial compression, extension and plane strain (2D and 3D), psi = 0 and
    psi = phi; no tension in extension at c = 0."""
    m = mohr_coulomb(phi, phi if dilatant else 0.0)
    paths = (("triaxial compression", mp.triaxial_compression(RATE), 3, 1500, 1e-5),
             ("triaxial extension", mp.triaxial_extension(RATE), 3, 1500, 1e-5),
             ("plane strain 3D", mp.plane_strain(RATE), 3, 1500, 1e-5),
             ("plane strain 2D", mp.plane_strain(RATE), 2, 1500, 1e-5))
    for name, path, dim, steps, dt in paths:
        r = mp.drive(m, path, steps=steps, dt=dt, dim=dim, confinement=CONFINEMENT)
        assert r.yielding[-1], name
        major, _, minor = principal_stresses(r.stress[-1])  # most compressive first
        ratio = major / minor
        print(f"Mohr-Coulomb {name} phi={phi:g} psi={'phi' if dilatant else '0'}: "
              f"sigma1/sigma3 = {ratio:.4f} (closed form {mohr_coulomb_ratio(phi):.4f})")
        assert ratio == pytest.approx(mohr_coulomb_ratio(phi), rel=0.02), name
        assert principal_stresses(r.stress[-1])[-1] < 0.0, name  # no tension


def test_mohr_coulomb_plane_strain_flow_follows_the_dilatancy_angle():
    """In steady plane-strain flow the plastic volume change per unit axial strain is set by psi
    alone: zero for psi = 0, 2 sin psi / (1 - sin psi) of the axial strain for psi = phi."""
    for psi in (0.0, 30.0):
        r = mp.drive(mohr_coulomb(30.0, psi), mp.plane_strain(RATE), steps=1500, dt=1e-5,
                     dim=2, confinement=CONFINEMENT)
        d_axial = r.strain[-1, 1] - r.strain[-100, 1]  # compression negative
        d_volume = np.sum(r.strain[-1, :3] - r.strain[-100, :3])
        s = math.sin(math.radians(psi))
        assert d_volume / -d_axial == pytest.approx(2.0 * s / (1.0 - s), abs=1e-6)


def test_mohr_coulomb_with_houlsby_elasticity_keeps_its_strength_and_stiffens_with_p():
    """The strength does not depend on the elasticity: with Houlsby's pressure-dependent law
    (n = 1/2, p_r = 1 kPa) the failure ratios are Mohr-Coulomb's; the P-wave speed at 4 p_r is
    4^(n/2) = sqrt(2) times that at p_r (isotropic states)."""
    houlsby = rs.Houlsby(reference_pressure=CONFINEMENT, exponent=0.5, floor_pressure=0.01)
    m = rs.MohrCoulomb("mc", density=1500, bulk_modulus=K, poisson_ratio=NU, friction_angle=30.0,
                       cohesion=0.0, elasticity=houlsby)
    for path, dim in ((mp.triaxial_compression(RATE), 3), (mp.triaxial_extension(RATE), 3),
                      (mp.plane_strain(RATE), 2)):
        r = mp.drive(m, path, steps=1500, dt=1e-5, dim=dim, confinement=CONFINEMENT)
        major, _, minor = principal_stresses(r.stress[-1])
        assert major / minor == pytest.approx(mohr_coulomb_ratio(30.0), rel=0.02)
    speeds = [m.wave_speed_at(1500.0, stress=[-p, -p, -p, 0, 0, 0]) for p in (1e3, 4e3)]
    assert speeds[1] / speeds[0] == pytest.approx(math.sqrt(2.0), rel=1e-3)
