"""Prepared beds: regolith at rest in its own weight, under any gravity, saved once and reused by
many runs with new bodies added.

    sim = build_bed()                          # a Simulation: the bed (dynamic regolith) + walls
    report = rs.prepare_bed(sim, "runs/bed")   # geostatic stress, relaxation, undamped check
    sim = build_bed(); rs.load_bed(sim, "runs/bed")
    sim.add_body("lander", ...); sim.run(...)  # starts from the bed at rest, t = 0
    bed = rs.carve_bed("runs/bed", rs.offset(tool, dx / 2))  # a tool buried in the bed:
    sim = build_bed(bed_positions=bed); rs.load_bed(sim, "runs/bed"); sim.add_body("tool", ...)

Method (docs/architecture.md, docs/guide/beds.md):
1. Geostatic initial stress. Each regolith particle gets the overburden of its column,
   sigma_v = -rho0 g depth (tension positive), and sigma_h = K0 sigma_v across gravity, with
   Jaky's coefficient of earth pressure at rest K0 = 1 - sin(phi) (Jaky 1944, J. Soc. Hungarian
   Architects and Engineers 78(22), 355-358) by default, or the elastic K0 = nu / (1 - nu) of a
   laterally confined column, or a given number; for a material that can yield, raised where
   needed to 1.05 times the smallest ratio that lies inside its Drucker-Prager cone (a bed at
   rest does not yield). Any dynamic model may form the bed: its strain energy and wave speed
   come from the model itself (Material.strain_energy, Material.wave_speed_at). A model whose
   pressure follows its density (the elastic solid's equation of state) replaces the
   geostatic pressure by that of its density at the first step; its bed starts from the
   geostatic deviator and the relaxation settles the rest.
2. Dynamic relaxation with kinetic damping (Cundall 1976, "Explicit finite difference methods
   in geomechanics", Proc. 2nd Int. Conf. Numerical Methods in Geomechanics, Blacksburg,
   132-150; Underwood 1983, "Dynamic relaxation", in Belytschko & Hughes (eds.), Computational
   Methods for Transient Analysis, North-Holland, 245-265): the ordinary equations are
   integrated, and whenever the total kinetic energy has passed a peak every velocity is set
   to zero. The energy taken out at each peak is what the remaining imbalance (free surfaces,
   walls, the SPH discretisation) released; the bed is relaxed when a peak falls below
   `tolerance` times the bed's elastic strain energy. The damping lives in its own loop in the
   core (Simulation.relax_with_kinetic_damping): no run after it is damped. It steps with
   Monaghan's viscosity whatever the run's dissipation: a state at rest does not depend on
   the dissipation that brought it there, and the Riemann solver's, quadratic in the velocity
   jump, leaves particle-scale motion almost undamped, which the damping's resets of the
   total kinetic energy do not remove (a bed of the anchor study and the cantilever did not
   relax within 20 000 and 400 000 steps with it).
3. Undamped check and save: a normal run of `check_periods` periods 4 H / c_p of the bed's
   vertical mode (H its height, c_p its elastic wave speed) into `output_dir`, whose last
   snapshot is the prepared bed. Its kinetic energy is the residual kinetic energy reported.

The bed is at rest when, over the undamped check, the kinetic energy stays below
REST_ENERGY_FRACTION of the elastic strain energy and the largest speed below
REST_SPEED_FRACTION of g H / c_p, the particle speed of the elastic wave that a bed released
from zero stress would carry: both ratios do not depend on g.
"""
import json
import math
import os

import numpy as np

from .ranks import is_root
from ._core import drucker_prager_constants
from .post.bed import bed_stress_profile, column_depth, up_direction
from .post.run import Run

REST_ENERGY_FRACTION = 1e-6   # residual kinetic energy / elastic strain energy
REST_SPEED_FRACTION = 1e-3    # residual max speed / (g H / c_p)
RELAXATION_DISSIPATION = "monaghan"  # the dissipation of the kinetic damping's steps
# The physics options the kinetic damping steps with: RELAXATION_DISSIPATION, and the Riemann
# solver's options off (under Monaghan's viscosity they are errors).
RELAXATION_PHYSICS = dict(dissipation=RELAXATION_DISSIPATION, riemann_stress_jump="none",
                          density_diffusion=0.0, riemann_reconstruction=False,
                          riemann_limiter_floor=0.0, hourglass_control=0.0)
REPORT_FILE = "bed.json"
PROFILE_FILE = "bed_profile.csv"
_BED_MOTIONS = ("dynamic", "fixed")
# K0 is raised to (1 + K0_MARGIN) times the smallest at-rest ratio inside the yield cone.
K0_MARGIN = 0.05
DISTENSION = "distension"  # the history variable of a porous model (rs.PorousDruckerPrager)


def prepare_bed(sim, output_dir, *, k0="jaky", tolerance=1e-8, max_steps=20000,
                check_periods=2.0, overwrite=False, wall_margin=None, progress_interval=5.0):
    """Bring the regolith of `sim` to rest in its own weight and save it in `output_dir`.

    sim: a Simulation holding the bed only: dynamic bodies (Drucker-Prager regolith or any
    other dynamic model; any shape) and fixed walls, gravity set (any non-zero magnitude,
    e.g. 9.81 down to 1e-4 m/s^2), not yet run. k0: "jaky" (1 - sin phi), "elastic" (nu / (1 - nu)) or a positive
    number. tolerance: kinetic-energy peak, as a fraction of the elastic strain energy, below
    which the relaxation stops; max_steps: steps allowed for it. check_periods: length of the
    undamped check in periods 4 H / c_p. wall_margin [m]: see post.bed_stress_profile.
    progress_interval [s of wall time]: a progress line of the relaxation that often (0:
    none).

    Writes a run directory (run.json, snapshots, diagnostics.csv of the check, a checkpoint)
    plus bed.json (the report) and bed_profile.csv (stress against depth). Returns the report:
    a dict with bulk_density [kg/m^3], porosity (min, mean, max of a porous model's bed, e.g.
    rs.PorousDruckerPrager at its porosity; None for others), gravity [m/s^2], k0, relaxation (steps, resets, time),
    residual (kinetic energy [J, 2D J/m], its ratio to the strain energy, max speed [m/s] and
    its ratio to g H / c_p, at_rest), stress (max_error_v, mean_k, ...) and the profile rows.
    Raises ValueError naming the field on bad input, before anything is written, and
    RuntimeError when the relaxation has not converged within max_steps."""
    bed = _check_bed_setup(sim, output_dir, overwrite)
    _check_options(k0, tolerance, max_steps, check_periods, wall_margin, progress_interval)
    up = up_direction(sim.physics.gravity)
    g = float(np.linalg.norm(sim.physics.gravity))
    coefficient = set_geostatic_stress(sim, bed, up, g, k0)
    strain_energy = elastic_strain_energy(sim, bed)
    height, wave_speed = _bed_height(sim, bed, up), _wave_speed(sim, bed)  # before MPI splits it
    relaxation = relax_with_kinetic_damping(sim, tolerance * strain_energy, max_steps,
                                            progress_interval)
    period = 4.0 * height / wave_speed
    check = check_periods * period
    sim.run(sim.time + check, output_dir=str(output_dir), snapshot_interval=check,
            diagnostics_every=1, overwrite=overwrite, progress_interval=progress_interval,
            metadata={"setup": "prepared bed", "k0": str(k0), "kinetic_damping_tolerance":
                      repr(tolerance)})
    _wait_for_every_rank(sim)  # rank 0 has written diagnostics.csv
    run = Run(output_dir)
    profile, stress = bed_stress_profile(run.snapshot(-1), sim.physics.gravity,
                                         wall_margin=wall_margin)
    diag = run.diagnostics
    ke, speed = diag["kinetic_energy"].to_numpy()[1:], diag["max_speed"].to_numpy()[1:]
    v_scale = g * height / wave_speed
    residual = dict(kinetic_energy_max=float(ke.max()), kinetic_energy_end=float(ke[-1]),
                    energy_ratio=float(ke.max() / strain_energy), max_speed=float(speed.max()),
                    speed_ratio=float(speed.max() / v_scale), check_duration=check)
    residual["at_rest"] = bool(residual["energy_ratio"] <= REST_ENERGY_FRACTION
                               and residual["speed_ratio"] <= REST_SPEED_FRACTION)
    report = dict(bulk_density=stress["bulk_density"], porosity=bed_porosity(run.snapshot(-1), bed),
                  gravity=g, k0=str(k0),
                  k0_values=coefficient, height=height, wave_speed=wave_speed,
                  strain_energy=strain_energy, relaxation=relaxation, residual=residual,
                  stress=stress, profile=profile.to_dict(orient="list"))
    if is_root():
        profile.to_csv(os.path.join(output_dir, PROFILE_FILE), index=False)
        _write_json(os.path.join(output_dir, REPORT_FILE), report)
    _wait_for_every_rank(sim)  # every rank returns with bed.json written
    return report


def bed_porosity(snap, bed):
    """{min, mean, max} of the bed particles' porosity 1 - 1 / alpha in a snapshot, for a bed
    of a porous model (rs.PorousDruckerPrager: its history variable distension alpha); None
    without one."""
    if DISTENSION not in snap.fields:
        return None
    selected = np.isin(snap["body"], [b["index"] for b in bed])
    porosity = 1.0 - 1.0 / snap[DISTENSION][selected]
    return dict(min=float(porosity.min()), mean=float(porosity.mean()), max=float(porosity.max()))


def _wait_for_every_rank(sim):
    """Under MPI, return on each rank only once every rank has called this: the diagnostics
    are a reduction over the ranks, which no rank leaves before all have entered it."""
    sim.diagnostics()


def set_geostatic_stress(sim, bed, up, g, k0):
    """Overburden stress of every bed particle (see the module's method, step 1); returns
    {material name: K0 used}."""
    x, rho0 = sim.positions, sim.density
    selected = np.isin(sim.body, [b["index"] for b in bed])
    spacing = max(b["spacing_m"] for b in bed)
    depth, _ = column_depth(x[selected], up, spacing, sim.dim)
    k = np.empty(selected.sum())
    used = {}
    material = sim.material[selected]
    for b in bed:
        value = _k0(k0, b["material_parameters"])
        if b["material_object"].plastic:  # a bed at rest must not yield
            value = max(value, (1.0 + K0_MARGIN) *
                        smallest_k0_inside_yield(b["material_parameters"], sim.dim))
        k[material == b["material_index"]] = value
        used[b["material"]] = value
    sigma_v = -rho0[selected] * g * depth
    n = up
    tensor = (k * sigma_v)[:, None, None] * np.eye(3) + \
        ((1.0 - k) * sigma_v)[:, None, None] * np.outer(n, n)[None]
    stress = sim.stress
    stress[selected] = tensor[:, [0, 1, 2, 0, 0, 1], [0, 1, 2, 1, 2, 2]]
    sim.stress = stress
    sim.velocities = np.zeros_like(sim.velocities)
    return used


def smallest_k0_inside_yield(parameters, dim):
    """The smallest K0 whose geostatic state (sigma_h = K0 sigma_v in both horizontal
    directions) lies inside the Drucker-Prager cone of a cohesionless material, f =
    sqrt(J2) + alpha_phi I1 <= 0: there sqrt(J2) = (1 - K0) |sigma_v| / sqrt(3) and
    I1 = -(1 + 2 K0) |sigma_v|, so K0 >= (1 - sqrt(3) alpha) / (1 + 2 sqrt(3) alpha). Jaky's
    K0 can lie below it (plane strain, phi = 42 deg: 0.331 against 0.372), and a bed started
    there yields while it relaxes; cohesion only widens the cone. ValueError for a plastic
    model without a friction angle (no cone to stay inside). For Mohr-Coulomb the state is a
    triaxial-compression one (sigma_v the major principal stress) and the bound is Rankine's
    active ratio (1 - sin phi) / (1 + sin phi)."""
    if parameters.get("model") == "MohrCoulomb":
        s = math.sin(math.radians(parameters["friction_angle_deg"]))
        return (1.0 - s) / (1.0 + s)
    alpha, _ = drucker_prager_constants(_parameter(parameters, "friction_angle_deg",
                                                   "the at-rest bound inside the yield cone"),
                                        0.0, dim)
    r = math.sqrt(3.0) * alpha
    return (1.0 - r) / (1.0 + 2.0 * r)


def _k0(k0, parameters):
    if k0 == "jaky":
        phi = _parameter(parameters, "friction_angle_deg", "k0 = 'jaky' (1 - sin phi)")
        return 1.0 - math.sin(math.radians(phi))
    if k0 == "elastic":
        needed_by = "k0 = 'elastic' (nu / (1 - nu))"
        return elastic_k0(_parameter(parameters, "bulk_modulus_Pa", needed_by),
                          _parameter(parameters, "shear_modulus_Pa", needed_by))
    return float(k0)


def elastic_k0(bulk_modulus, shear_modulus):
    """The at-rest ratio sigma_h / sigma_v = nu / (1 - nu) of a laterally confined elastic
    column, nu = (3K - 2mu) / (2 (3K + mu)) from the bulk and shear moduli [Pa]."""
    K, mu = bulk_modulus, shear_modulus
    nu = (3 * K - 2 * mu) / (2 * (3 * K + mu))
    return nu / (1.0 - nu)


def _parameter(parameters, key, needed_by):
    """parameters[key] of a material's run.json entry; ValueError naming the material and what
    needs it when its model has no such parameter."""
    if key not in parameters:
        raise ValueError(f"material '{parameters.get('name', '?')}': {needed_by} needs "
                         f"{key}, which its model {parameters.get('model', '?')} does not have "
                         "(k0 may be 'jaky', 'elastic' or a number)")
    return parameters[key]


def elastic_strain_energy(sim, bed):
    """Elastic energy [J, 2D J/m] of the bed's stress, the sum of m e(rho, sigma) with e each
    material's own strain energy per unit mass (Material.strain_energy; for Hooke's law
    p^2 / 2K + J2 / 2mu per unit volume): the scale of the kinetic energy that the bed's weight
    can set free (it goes as g^2)."""
    energy = np.zeros(len(sim.body))
    stress, mass, rho = sim.stress, sim.mass, sim.density
    for b in bed:
        on = sim.body == b["index"]
        energy[on] = mass[on] * b["material_object"].strain_energy(rho[on], stress[on])
    return float(energy[np.isin(sim.body, [b["index"] for b in bed])].sum())


def relax_with_kinetic_damping(sim, energy_tolerance, max_steps, progress_interval=5.0):
    """Cundall's kinetic damping, in the core (Simulation.relax_with_kinetic_damping): step;
    when the kinetic energy has dropped below the previous step's, the previous step was its
    peak, and every velocity is set to zero. Stops at the first peak below energy_tolerance
    [J, 2D J/m] (with physics.sleep, all particles wake when all sleep). Steps with Monaghan's
    viscosity (the module's docstring says why) and gives the run its own dissipation back.
    Prints a progress line every progress_interval wall seconds (0: never; rank 0 only).
    Returns steps, resets, the last peak, the simulated time it took, the particle-steps
    integrated, the wakes and the dissipation it stepped with."""
    physics = sim.physics
    saved = {name: getattr(physics, name) for name in RELAXATION_PHYSICS}
    for name, value in RELAXATION_PHYSICS.items():
        setattr(physics, name, value)
    try:
        relaxation = dict(sim.relax_with_kinetic_damping(energy_tolerance, max_steps, 1.0,
                                                         progress_interval))
    finally:
        for name, value in saved.items():
            setattr(physics, name, value)
    return dict(relaxation, dissipation=RELAXATION_DISSIPATION)


def load_bed(sim, bed_dir):
    """Put the prepared bed of `bed_dir` (prepare_bed's output) into `sim`, a new Simulation
    built by the same setup code: its first bodies must be the bed's bodies (same names,
    motions, materials with the same parameters, spacings, support radii and particle
    counts, or fewer where a body took carve_bed's positions) and its gravity the bed's. Sets
    positions, velocities, stress, density and the models' history variables (a porous bed's
    distension) of those particles from the bed's last snapshot; add new bodies (landers, tools) after this call, so
    that they are checked against the settled surface. Returns the bed's report (bed.json).
    Raises ValueError naming the field or file that does not match."""
    run = Run(bed_dir)
    report_path = os.path.join(bed_dir, REPORT_FILE)
    if not os.path.isfile(report_path):
        raise ValueError(f"{report_path}: missing; {bed_dir} is not a prepared bed "
                         "(prepare_bed writes it)")
    if sim.step != 0 or sim.time != 0.0:
        raise ValueError("load_bed: the simulation has already run; load the bed into a new one")
    _refuse_split_setup(sim, "load_bed")
    now = json.loads(sim.describe())
    saved = run.parameters
    _match_setup(now, saved, bed_dir)
    snap = run.snapshot(-1)
    n = int(sum(b["particles"] for b in now["bodies"][:len(saved["bodies"])]))
    order = _bed_rows(sim, snap, n, saved, now)
    for name, setter_rows in (("positions", snap["position"][order][:, :sim.dim]),
                              ("velocities", snap["velocity"][order][:, :sim.dim]),
                              ("stress", snap["stress"][order]),
                              ("density", snap["density"][order])):
        values = getattr(sim, name)
        values[:n] = setter_rows
        setattr(sim, name, values)
    # The models' history variables (a porous bed's distension and volumetric strain): the
    # same materials (_match_setup) declare the same ones.
    for name in sim.history_variables:
        values = sim.history(name)
        values[:n] = snap[name][order]
        sim.set_history(name, values)
    with open(report_path) as f:
        return json.load(f)


def carve_bed(bed_dir, region, body=None):
    """The settled positions [m] of the prepared bed's particles (of `body`, default the first
    body) that lie outside `region` (a Shape: a buried tool's place, grown by the clearance
    wanted, e.g. rs.offset(tool, spacing / 2)). A setup adds its bed body with these positions
    instead of its lattice; load_bed then finds each particle in the bed by its position, and
    the tool is added into the hole, buried in the bed at rest."""
    run = Run(bed_dir)
    name = body if body is not None else run.bodies[0]
    snap = run.snapshot(-1)
    order = np.argsort(snap["id"])
    positions = snap["position"][order][:, :run.dim]
    run.body(name)  # a name the bed does not hold is refused, naming the bodies it holds
    mine = snap["body"][order] == run.bodies.index(name)
    return positions[mine & ~np.asarray(region.contains(positions), dtype=bool)]


def _bed_rows(sim, snap, n, saved, now):
    """Rows of the bed's snapshot for the simulation's first n particles: by id for the bed as
    it was saved, by position for a bed carved with carve_bed."""
    ids = snap["id"]
    order = np.argsort(ids)
    if not np.array_equal(ids[order], np.arange(len(ids))) or not np.array_equal(
            sim.ids[:n], np.arange(n)):
        raise ValueError(f"{snap.path}: particle ids are not 0..{len(ids) - 1} in the bed, or "
                         f"not 0..{n - 1} in the simulation")
    if n == int(sum(b["particles"] for b in saved["bodies"])):
        return order
    settled = snap["position"][order][:, :sim.dim]
    row = {p.tobytes(): i for i, p in enumerate(settled)}
    found = [row.get(p.tobytes(), -1) for p in np.ascontiguousarray(sim.positions[:n])]
    if min(found) < 0:
        b_now, b_saved = next((a, b) for a, b in zip(now["bodies"], saved["bodies"])
                              if a["particles"] != b["particles"])
        raise ValueError(f"body '{b_now['name']}': particles is {b_now['particles']} in the "
                         f"simulation but {b_saved['particles']} in the bed ({snap.path}), and "
                         f"{found.count(-1)} of them are not the bed's (a carved bed body takes "
                         "the positions carve_bed returns)")
    return order[np.array(found)]


def _match_setup(now, saved, bed_dir):
    where = os.path.join(bed_dir, "run.json")
    if now["dim"] != saved["dim"]:
        raise ValueError(f"dim: the bed in {where} is {saved['dim']}D, the simulation "
                         f"{now['dim']}D")
    g_now, g_saved = now["physics"]["gravity_m_s2"], saved["physics"]["gravity_m_s2"]
    if not np.allclose(g_now, g_saved, rtol=1e-12, atol=0.0):
        raise ValueError(f"physics.gravity: the bed in {where} settled under {g_saved} m/s^2, "
                         f"the simulation has {g_now} m/s^2")
    bodies = now["bodies"]
    if len(bodies) < len(saved["bodies"]):
        raise ValueError(f"bodies: the bed in {where} has {len(saved['bodies'])} bodies "
                         f"({', '.join(b['name'] for b in saved['bodies'])}), the simulation "
                         f"only {len(bodies)}: build the bed's bodies first")
    materials_now = {m["name"]: m for m in now["materials"]}
    materials_saved = {m["name"]: m for m in saved["materials"]}
    for b_saved, b_now in zip(saved["bodies"], bodies):
        for key in ("name", "motion", "material", "spacing_m", "smoothing_length_m", "particles"):
            if key == "particles" and 0 < b_now[key] < b_saved[key]:
                continue  # carved (carve_bed): its particles are found by position
            if b_saved[key] != b_now[key]:
                raise ValueError(f"body '{b_saved['name']}': {key} is {b_now[key]!r} in the "
                                 f"simulation but {b_saved[key]!r} in the bed ({where})")
        m_saved, m_now = materials_saved[b_saved["material"]], materials_now[b_now["material"]]
        for key in sorted(set(m_saved) | set(m_now)):
            if m_saved.get(key) != m_now.get(key):
                raise ValueError(f"material '{m_saved['name']}': {key} is {m_now.get(key)!r} in "
                                 f"the simulation but {m_saved.get(key)!r} in the bed ({where})")


def _check_bed_setup(sim, output_dir, overwrite):
    """The bed's bodies with their material parameters; ValueError naming what is wrong."""
    if not isinstance(output_dir, (str, os.PathLike)) or not str(output_dir):
        raise ValueError(f"output_dir: a directory path is required, got {output_dir!r}")
    if os.path.exists(os.path.join(output_dir, "run.json")) and not overwrite:
        raise ValueError(f"output_dir: {output_dir} already holds a run (overwrite=True "
                         "replaces it)")
    _refuse_split_setup(sim, "prepare_bed")
    return _bed_bodies(sim)


def _refuse_split_setup(sim, what):
    """The overburden of each particle and a bed's rows by id need the whole bed on every
    rank, which a split setup (bodies given as shapes under MPI) does not hold."""
    if sim.split_setup:
        raise ValueError(f"{what}: the setup is split over the MPI ranks (a body was given as "
                         "a Shape); give the bed's bodies as positions (rs.lattice_fill)")


def geostatic_stress(sim, k0="jaky"):
    """Gives the dynamic bodies of `sim` (dynamic regolith and fixed walls only, not yet run)
    the geostatic stress of the module's method, step 1, without relaxing them: the start of a
    setup whose free surfaces are not level (a cut, a slope) and which is meant to move.
    Returns {material name: K0 used}."""
    _refuse_split_setup(sim, "geostatic_stress")
    bed = _bed_bodies(sim)
    return set_geostatic_stress(sim, bed, up_direction(sim.physics.gravity),
                                float(np.linalg.norm(sim.physics.gravity)), k0)


def _bed_bodies(sim):
    """The dynamic bodies of a bed to prepare with their material parameters."""
    if sim.step != 0:
        raise ValueError("prepare_bed: the simulation has already run; build a new one")
    setup = json.loads(sim.describe())
    materials = {m["name"]: (i, m) for i, m in enumerate(setup["materials"])}
    bed = []
    for index, b in enumerate(setup["bodies"]):
        if b["motion"] not in _BED_MOTIONS:
            raise ValueError(f"body '{b['name']}': motion '{b['motion']}' in a bed to prepare; "
                             "only dynamic regolith and fixed walls (add landers and tools after "
                             "load_bed)")
        if b["motion"] != "dynamic":
            continue
        m_index, m = materials[b["material"]]
        bed.append(dict(b, index=index, material_index=m_index, material_parameters=m,
                        material_object=sim.materials[m_index]))
    if not bed:
        raise ValueError("prepare_bed: the simulation has no dynamic (regolith) body")
    up_direction(sim.physics.gravity)  # non-zero gravity
    return bed


def _check_options(k0, tolerance, max_steps, check_periods, wall_margin, progress_interval):
    if not (k0 in ("jaky", "elastic") or (isinstance(k0, (int, float)) and not isinstance(k0, bool)
                                           and math.isfinite(k0) and k0 > 0)):
        raise ValueError(f"k0: {k0!r} is not 'jaky', 'elastic' or a positive number")
    if not (isinstance(tolerance, (int, float)) and 0.0 < tolerance < 1.0):
        raise ValueError(f"tolerance: {tolerance!r} must lie in (0, 1) (a fraction of the "
                         "strain energy)")
    if not (isinstance(max_steps, int) and max_steps >= 1):
        raise ValueError(f"max_steps: {max_steps!r} must be a positive integer")
    if not (isinstance(check_periods, (int, float)) and math.isfinite(check_periods)
            and check_periods > 0):
        raise ValueError(f"check_periods: {check_periods!r} must be a positive number")
    if wall_margin is not None and not (math.isfinite(wall_margin) and wall_margin >= 0):
        raise ValueError(f"wall_margin: {wall_margin!r} must be a length >= 0 [m]")
    if not (isinstance(progress_interval, (int, float)) and math.isfinite(progress_interval)
            and progress_interval >= 0):
        raise ValueError(f"progress_interval: {progress_interval!r} must be >= 0 [s]")


def _bed_height(sim, bed, up):
    selected = np.isin(sim.body, [b["index"] for b in bed])
    x = np.zeros((selected.sum(), 3))
    x[:, :sim.dim] = sim.positions[selected]
    height = x @ up
    return float(height.max() - height.min() + max(b["spacing_m"] for b in bed))


def _wave_speed(sim, bed):
    """The largest wave speed [m/s] of the bed's particles, each from its material's model at
    its density and geostatic stress (Material.wave_speed_at; the P-wave speed
    sqrt((K + 4 mu / 3) / rho0) for linear Drucker-Prager regolith, growing with the pressure
    for Houlsby elasticity)."""
    density, stress = sim.density, sim.stress
    return max(float(b["material_object"].wave_speed_at(density[on], stress[on]).max())
               for b in bed for on in [sim.body == b["index"]])


def _write_json(path, data):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=1)
    os.replace(tmp, path)
