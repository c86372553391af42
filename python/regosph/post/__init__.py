"""Post-processing of regosph run directories: reading runs, the sampling study's measures,
comparison tables and figures. NumPy, pandas, h5py and matplotlib only.

    from regosph import post
    run = post.Run("runs/sampler/P0")
    run.metadata_values, run.times, run.snapshot(time=0.5).to_dataframe()
    run.observer("tray")                        # time, count, mass
    post.collection_rate(run, window=(0.5, 1.0))
    post.compare(post.find_runs("runs/sampler"))
"""
from .analysis import (  # noqa: F401
    PHOBOS_ESCAPE_SPEED,
    RegionContent,
    collection_rate,
    escape_fraction,
    first_crossing,
    first_entry_time,
    least_squares_slope,
    max_speed,
    points_in_polygon,
    rectangle_polygon,
    region_content,
    region_series,
    speed_histogram,
    value_at,
)
from .anchor import (  # noqa: F401
    MEYERHOF_ADAMS_KU,
    bearing_capacity,
    bearing_capacity_factors,
    pull_out,
    rest_state,
    shaft_resistance,
    uplift_capacity,
)
from .bed import (  # noqa: F401
    bed_cavity,
    bed_stress_profile,
    cavity,
    column_depth,
    surface_profile,
)
from .impact import (  # noqa: F401
    RYUGU_ESCAPE_SPEED,
    RYUGU_GRAVITY,
    bounce,
    impact_summary,
    katsuragi_durian_fit,
    mass_above_speed,
    penetration,
    uehara_depth,
)
from .compare import compare, one_factor_groups, to_markdown  # noqa: F401
from .plots import (  # noqa: F401
    energy_budget_columns,
    plot_energy,
    plot_loads,
    plot_observer,
    plot_particles,
    plot_profiles,
    save,
)
from .run import Run, RunFormatError, Snapshot, find_runs, read_csv_with_units  # noqa: F401
