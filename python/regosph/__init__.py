"""regosph: smoothed-particle hydrodynamics for the continuum mechanics of regolith.

Setups are short scripts against this package::

    import regosph as rs
    sim = rs.Simulation(dim=2)
    soil = sim.add_material(rs.DruckerPrager("soil", density=2650, bulk_modulus=0.7e6,
                                             poisson_ratio=0.3, friction_angle=19.8, cohesion=0))
    sim.add_body("soil", rs.lattice_fill(rs.rectangle((0, 0), (0.2, 0.1)), 2.5e-3),
                 material=soil, motion="dynamic", spacing=2.5e-3, smoothing_length=6.25e-3)

SI units everywhere; angles in degrees at this interface.

Under MPI (``mpirun -n N /usr/bin/python3 script.py``) every rank runs the same script and
builds the same setup; the first run keeps each rank's own particles. A script calls
``rs.mpi_script()`` so that only rank 0 prints and an uncaught exception on any rank stops every
rank (regosph/ranks.py).

Importing the package does two things only, both when the compiled core is loaded:
- it chooses the OpenMP waiting policy (`_hybrid_openmp_waiting`), which must come before the
  core because libgomp, loaded with it, reads the policy once;
- the core initialises MPI when, and only when, an MPI launcher started the process
  (mpi_env.hpp `initialize_if_launched`; not if mpi4py already did). Under mpirun the process
  is one of N ranks from its first line, so `mpi_rank()`, `mpi_size()` and every reduction
  see the same world for the whole script, and MPI is initialised from the main thread before
  any OpenMP team exists (MPI_THREAD_FUNNELED). Started without a launcher, MPI is left alone
  and no Open MPI daemon is spawned.
"""
import functools
import os
import warnings


# Rounds an idle OpenMP thread spins before it sleeps (GNU libgomp's GOMP_SPINCOUNT), one
# `pause` of 19-25 ns each on x86-64: 0.2-0.25 ms, longer than the gaps between the parallel
# regions of a step, short enough that a thread waiting longer sleeps and frees its core.
SPIN_ROUNDS = 10000


def _hybrid_openmp_waiting():
    """Idle OpenMP threads spin briefly, then sleep, unless the user chose a policy
    (OMP_WAIT_POLICY or GOMP_SPINCOUNT). GNU OpenMP reads both once, when libgomp is loaded,
    i.e. when the extension below is imported.

    Spinning for long (libgomp's default, 3 ms per wait) takes the cores the working threads
    need as soon as another job shares the machine: the paper-resolution collapse took 2.2 x longer on
    2 threads than on 1 beside one CPU-bound process. Sleeping at once costs 25-90 us per
    parallel region to wake the thread again, a large part of a step of the collapse (2926
    particles, ~1 ms on 2 threads). SPIN_ROUNDS spans the gaps between the regions of a step;
    beside a CPU-bound job the integrator's thread tuner (IntegratorOptions.tune_threads)
    runs on one thread, where nothing spins. Returns whether libgomp was loaded already, so
    that the policy cannot take effect."""
    if "OMP_WAIT_POLICY" in os.environ or "GOMP_SPINCOUNT" in os.environ:
        return False
    os.environ["OMP_WAIT_POLICY"] = "passive"
    os.environ["GOMP_SPINCOUNT"] = str(SPIN_ROUNDS)  # libgomp: overrides passive's zero
    try:
        with open("/proc/self/maps", encoding="ascii", errors="replace") as maps:
            return any("libgomp" in line for line in maps)
    except OSError:  # not Linux: nothing to check
        return False


# libgomp loaded before regosph (e.g. by matplotlib or SciPy imported first): the waiting policy
# matters only to a script that runs a simulation, so the warning waits for its first run.
_GOMP_LOADED_FIRST = _hybrid_openmp_waiting()


def _warn_gomp_loaded_first():
    global _GOMP_LOADED_FIRST
    if _GOMP_LOADED_FIRST:
        _GOMP_LOADED_FIRST = False
        warnings.warn("regosph: the OpenMP runtime (libgomp) was loaded before regosph, so "
                      "its waiting policy (OMP_WAIT_POLICY=passive, GOMP_SPINCOUNT="
                      f"{SPIN_ROUNDS}) cannot take effect and idle threads spin for 3 ms; "
                      "import regosph first or set these in the environment",
                      RuntimeWarning, stacklevel=3)

from ._core import (  # noqa: F401,E402  (re-exported API; after the waiting policy)
    BlowUpError,
    BodySystem,
    Diagnostics,
    DruckerPrager,
    ElasticSolid,
    Elasticity,
    Houlsby,
    IntegratorOptions,
    Kinematics,
    Material,
    MohrCoulomb,
    MuIRheology,
    PhysicsParameters,
    PorousDruckerPrager,
    PorousMohrCoulomb,
    Rigid,
    RunSummary,
    Shape,
    ShapeBody,
    ShapeSystem,
    Simulation,
    StepReport,
    TriangleMesh,
    __version__,
    annular_sector,
    annulus,
    box,
    canonical_units,
    cylinder,
    damping_ratio_power_law,
    disc,
    drucker_prager_constants,
    ellipsoid_body,
    extrude,
    graded_fill,
    icosphere,
    intersect,
    kernel_value,
    lattice_fill,
    mesh_body,
    mpi_rank,
    mpi_size,
    offset,
    polygon,
    polyhedron_mass_properties,
    rectangle,
    restitution_from_damping,
    rotate,
    sphere,
    sphere_body,
    subtract,
    translate,
    triangle_mesh,
    unite,
    wall_layer,
)

from .friendly import (  # noqa: E402,F401
    PlausibilityWarning, checked_material as _checked_material, forgiving as _forgiving,
    forgiving_class as _forgiving_class)

# Misspelt keywords named with the closest valid one, never an argument dump (friendly.py).
for _name, _value in list(globals().items()):
    if type(_value).__name__ == "builtin_function_or_method" and getattr(
            _value, "__module__", "") == "regosph._core":
        globals()[_name] = _forgiving(_value, _name)
for _cls in (Simulation, Kinematics, TriangleMesh, Material, Shape):
    _forgiving_class(_cls)
DruckerPrager = _checked_material(DruckerPrager.__wrapped__, soil=True)
PorousDruckerPrager = _checked_material(PorousDruckerPrager.__wrapped__, soil=True)
PorousMohrCoulomb = _checked_material(PorousMohrCoulomb.__wrapped__, soil=True)
ElasticSolid = _checked_material(ElasticSolid.__wrapped__, soil=False)
MohrCoulomb = _checked_material(MohrCoulomb.__wrapped__, soil=True)
Rigid = _checked_material(Rigid.__wrapped__, soil=False)
_simulation_run = Simulation.run


def _run(self, *args, **kwargs):
    _warn_gomp_loaded_first()
    return _simulation_run(self, *args, **kwargs)


Simulation.run = functools.wraps(_simulation_run)(_run)

from .mesh import read_mesh  # noqa: E402,F401  (CAD tool meshes; needs python3-meshio)

# Order of the six stress components in every array and file.
STRESS_COMPONENTS = ("xx", "yy", "zz", "xy", "xz", "yz")
# Values of the `kind` field.
KIND_DYNAMIC, KIND_BOUNDARY = 0, 1


from .ranks import is_root, mpi_script  # noqa: E402,F401
from .bed import carve_bed, geostatic_stress, load_bed, prepare_bed  # noqa: E402,F401  (prepared beds at rest)
from . import material_point  # noqa: E402,F401  (element tests of a constitutive model)
