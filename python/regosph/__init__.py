"""regosph: smoothed-particle hydrodynamics for the continuum mechanics of regolith.

Setups are short scripts against this package::

    import regosph as rs
    sim = rs.Simulation(dim=2)
    soil = sim.add_material(rs.DruckerPrager("soil", density=2650, bulk_modulus=0.7e6,
                                             poisson_ratio=0.3, friction_angle=19.8, cohesion=0))
    sim.add_body("soil", rs.lattice_fill(rs.rectangle((0, 0), (0.2, 0.1)), 2.5e-3),
                 material=soil, motion="dynamic", spacing=2.5e-3, smoothing_length=6.25e-3)

SI units everywhere; angles in degrees at this interface.
"""

from ._core import (  # noqa: F401  (re-exported API)
    BlowUpError,
    Diagnostics,
    DruckerPrager,
    ElasticSolid,
    IntegratorOptions,
    Kinematics,
    Material,
    PhysicsParameters,
    Rigid,
    RunSummary,
    Shape,
    Simulation,
    StepReport,
    __version__,
    annular_sector,
    annulus,
    box,
    cylinder,
    disc,
    drucker_prager_constants,
    extrude,
    graded_fill,
    intersect,
    kernel_value,
    lattice_fill,
    offset,
    polygon,
    rectangle,
    rotate,
    sphere,
    subtract,
    translate,
    unite,
    wall_layer,
)

# Order of the six stress components in every array and file.
STRESS_COMPONENTS = ("xx", "yy", "zz", "xy", "xz", "yz")
# Values of the `kind` field.
KIND_DYNAMIC, KIND_BOUNDARY = 0, 1
