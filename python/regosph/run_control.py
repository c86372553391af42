"""Command-line options every run script shares (output safety, checkpoints, restarts) and the
run call that honours them, so that setups in examples/ stay short.

    ap = argparse.ArgumentParser()
    ...                                    # the setup's own options
    run_control.add_arguments(ap)
    args = ap.parse_args()
    sys.exit(run_control.run(build(args), args, metadata={"setup": "..."}))

Exit status of run(): 0 done; 2 refused before anything ran (bad setup or options, an output
directory that holds a run or that another run is using, a restart with changed physics or
setup, a restart without a usable checkpoint); 3 blow-up (the crash dump and report are in the run directory); 5 the run could not
write its output (a full disk, an unwritable directory; the last good checkpoint is kept);
128 + signal when interrupted by SIGTERM/SIGINT (a checkpoint was written). Each error is one
line "error: ..." on stderr.
"""
import argparse
import sys

from . import _core
from .ranks import is_root
from ._core import BlowUpError

EXIT_REFUSED, EXIT_BLOWUP, EXIT_OUTPUT_FAILED = 2, 3, 5


def add_arguments(ap, end_time=None):
    """--snapshot-interval, --overwrite, --restart, --allow-change, --take-over-lock,
    --checkpoint-every, --checkpoint-minutes; with end_time [s], first --end-time (default
    end_time) and --output (required)."""
    if end_time is not None:
        ap.add_argument("--end-time", type=float, default=end_time, help="[s]")
        ap.add_argument("--output", required=True)
    ap.add_argument("--snapshot-interval", type=float, default=0.05, help="[s] of simulated time")
    ap.add_argument("--overwrite", action="store_true", help="replace a run in --output")
    ap.add_argument("--restart", action="store_true",
                    help="continue the run in --output from its newest valid checkpoint (a "
                         "later --end-time extends it)")
    ap.add_argument("--allow-change", action="append", default=[], metavar="FIELD",
                    help="with --restart: accept a changed physics or setup field of run.json, "
                         "e.g. physics.gravity_m_s2 or 'materials[soil]' (repeatable)")
    ap.add_argument("--take-over-lock", action="store_true",
                    help="take over the lock of --output left by a run on another host")
    ap.add_argument("--checkpoint-every", type=int, default=1000, help="steps between checkpoints")
    ap.add_argument("--checkpoint-minutes", type=float, default=10.0,
                    help="wall minutes between checkpoints")


def physics_defaults():
    """The dissipation options' defaults, as the core library chooses them (PhysicsParameters,
    and IntegratorOptions for the time scheme)."""
    sim = _core.Simulation(2)
    physics = sim.physics
    defaults = {name: getattr(physics, name) for name in (
        "dissipation", "riemann_limiter", "riemann_limiter_floor", "riemann_pairs",
        "riemann_stress_jump", "density_diffusion", "riemann_reconstruction",
        "hourglass_control")}
    defaults["time_scheme"] = sim.integrator.scheme
    return argparse.Namespace(**defaults)


def add_dissipation_arguments(ap, dissipation=None):
    """The pair dissipation's options (docs/guide/physics.md), each a field of sim.physics at its
    default: --dissipation (default `dissipation`, else the physics default),
    --riemann-limiter, --riemann-limiter-floor, --time-scheme (sim.integrator.scheme, which
    decides whether the Riemann solver keeps a bed at rest), --riemann-pairs, --[no-]riemann-stress-jump, --density-diffusion,
    --[no-]riemann-reconstruction, --hourglass-control, --av-switch, --av-balsara.
    apply_dissipation sets them."""
    default = physics_defaults()
    dissipation = dissipation or default.dissipation
    on_off = argparse.BooleanOptionalAction
    ap.add_argument("--dissipation", choices=("monaghan", "riemann"), default=dissipation,
                    help="the pair dissipation: Monaghan's artificial viscosity (the paper's) "
                         "or the Riemann solver of Zhang et al. 2017, whose options follow "
                         f"(physics.dissipation; default {dissipation})")
    ap.add_argument("--riemann-limiter", type=float, default=default.riemann_limiter,
                    help="eta of the Riemann solver's limiter (physics.riemann_limiter; default "
                         f"{default.riemann_limiter:g}, Zhang et al.'s)")
    ap.add_argument("--riemann-limiter-floor", type=float, default=default.riemann_limiter_floor,
                    help="beta_0 of the limiter's floor on the reconstructed jump "
                         "(physics.riemann_limiter_floor; default "
                         f"{default.riemann_limiter_floor:g}; 0: off)")
    ap.add_argument("--time-scheme", choices=("heun", "ssp_rk3"), default=default.time_scheme,
                    help="the time-stepping method (integrator.scheme; default "
                         f"{default.time_scheme}): Heun's, or SSP-RK3, which does not amplify "
                         "undamped oscillations")
    ap.add_argument("--riemann-pairs", choices=("approaching", "separating"),
                    default=default.riemann_pairs,
                    help="the pairs the Riemann solver's limiter damps (default "
                         f"{default.riemann_pairs}; approaching: Zhang et al. 2017; separating: "
                         "SPHinXsys's sign)")
    ap.add_argument("--riemann-stress-jump",
                    choices=("none", "continuity", "continuity_and_strain_rate"),
                    default=default.riemann_stress_jump,
                    help="the Riemann solver's normal-stress jump on materials that can yield, "
                         "in the density rate or in the strain rate too "
                         f"(physics.riemann_stress_jump; default {default.riemann_stress_jump})")
    ap.add_argument("--density-diffusion", type=float, default=default.density_diffusion,
                    help="delta of the delta-SPH density diffusion (Molteni & Colagrossi 2009) "
                         "on materials that can yield (physics.density_diffusion; default "
                         f"{default.density_diffusion:g}; 0: off)")
    ap.add_argument("--riemann-reconstruction", action=on_off,
                    default=default.riemann_reconstruction,
                    help="the Riemann solver's jumps between linearly reconstructed velocities "
                         "(and stresses, with the stress jump) "
                         "(physics.riemann_reconstruction)")
    ap.add_argument("--hourglass-control", type=float, default=default.hourglass_control,
                    help="xi of the hourglass control on materials that cannot yield "
                         f"(physics.hourglass_control; default {default.hourglass_control:g}; "
                         "0: off)")
    ap.add_argument("--av-switch", action="store_true",
                    help="Morris & Monaghan's (1997) switch on the artificial viscosity "
                         "(physics.av_switch)")
    ap.add_argument("--av-balsara", action="store_true",
                    help="Balsara's switch on the artificial viscosity (physics.av_balsara)")


def apply_dissipation(sim, args):
    """Sets sim.physics from add_dissipation_arguments' options (run.json records them)."""
    physics = sim.physics
    physics.dissipation = args.dissipation
    physics.riemann_limiter = args.riemann_limiter
    physics.riemann_limiter_floor = args.riemann_limiter_floor
    sim.integrator.scheme = args.time_scheme
    physics.riemann_pairs = args.riemann_pairs
    physics.riemann_stress_jump = args.riemann_stress_jump
    physics.density_diffusion = args.density_diffusion
    physics.riemann_reconstruction = args.riemann_reconstruction
    physics.hourglass_control = args.hourglass_control
    physics.av_switch = args.av_switch
    physics.av_balsara = args.av_balsara


def dissipation_options(**settings):
    """add_dissipation_arguments' options at their defaults with `settings` changed (argparse's
    names: dissipation="riemann", riemann_stress_jump="continuity", ...): a study's case as
    its command line would give it, for apply_dissipation."""
    ap = argparse.ArgumentParser()
    add_dissipation_arguments(ap)
    options = ap.parse_args([])
    for key, value in settings.items():
        if not hasattr(options, key):
            raise ValueError(f"dissipation_options: no option {key!r} (add_dissipation_arguments "
                             f"has {', '.join(sorted(vars(options)))})")
        setattr(options, key, value)
    return options


def dissipation_command_line(args):
    """add_dissipation_arguments' options of `args` as a command line (for runs that a study
    starts as processes)."""
    line = ["--dissipation", args.dissipation, "--riemann-limiter", repr(args.riemann_limiter),
            "--riemann-limiter-floor", repr(args.riemann_limiter_floor),
            "--time-scheme", args.time_scheme,
            "--riemann-pairs", args.riemann_pairs,
            "--riemann-stress-jump", args.riemann_stress_jump,
            "--density-diffusion", repr(args.density_diffusion),
            "--hourglass-control", repr(args.hourglass_control)]
    line.append(("--" if args.riemann_reconstruction else "--no-") + "riemann-reconstruction")
    for flag in ("av_switch", "av_balsara"):
        if getattr(args, flag):
            line.append("--" + flag.replace("_", "-"))
    return line


def thread_choice(summary):
    """What the thread tuner chose (IntegratorOptions.tune_threads), as the end of the run's
    line: '' when it did not choose."""
    if summary.steps_all_threads + summary.steps_one_thread == 0:
        return ""
    return (f"; the thread tuner ran {summary.steps_all_threads} steps on all threads and "
            f"{summary.steps_one_thread} on one")


def run(sim, args, metadata, **run_options):
    """Run (or continue) `sim` to args.end_time into args.output; returns the exit status (see
    the module's docstring). Extra keyword arguments go to Simulation.run (e.g.
    diagnostics_every, observe_every)."""
    root = is_root()

    def fail(status, error):  # raised on every rank with the same message
        if root:
            print(f"error: {error}", file=sys.stderr)
        return status

    if args.restart:
        try:
            used, rejected = sim.restart(args.output)
        except (ValueError, RuntimeError) as e:  # no run, a live run holds it, no usable checkpoint
            return fail(EXIT_REFUSED, e)
        if root:
            for r in rejected:
                print(f"warning: skipped corrupt checkpoint {r}", file=sys.stderr)
            print(f"restarting from {used} at t = {sim.time:.6g} s, step {sim.step}")
    try:
        summary = sim.run(args.end_time, output_dir=args.output,
                          snapshot_interval=args.snapshot_interval, overwrite=args.overwrite,
                          checkpoint_every=args.checkpoint_every,
                          checkpoint_interval=60.0 * args.checkpoint_minutes,
                          allow_changes=getattr(args, "allow_change", []),
                          take_over_lock=getattr(args, "take_over_lock", False),
                          metadata={**metadata, "command": " ".join(sys.argv)},
                          # SIGINT too ends in the exit status 130 below, not KeyboardInterrupt
                          **{"keyboard_interrupt": False, **run_options})
    except BlowUpError as e:
        return fail(EXIT_BLOWUP, e)
    except ValueError as e:
        return fail(EXIT_REFUSED, e)
    except RuntimeError as e:  # writing the output failed
        return fail(EXIT_OUTPUT_FAILED, e)
    if root:
        print(f"{summary.steps} steps ({summary.rejected} rejected) in {summary.wall_seconds:.1f} s "
              f"wall, {summary.particle_steps_per_second / 1e6:.2f} M particle-steps/s"
              + (f" ({summary.total_wall_seconds:.1f} s over all segments of the run)"
                 if summary.total_wall_seconds > summary.wall_seconds + 0.05 else "")
              + thread_choice(summary))
    if summary.interrupted_by:
        return 128 + summary.interrupted_by  # the shell convention for "killed by signal"
    return 0


def build_and_run(make, args, **run_options):
    """run() of the (sim, metadata) that make() returns; a ValueError from make (a bad option,
    a bed that does not match) is one "error: ..." line and EXIT_REFUSED."""
    try:
        sim, metadata = make()
    except ValueError as e:
        if is_root():
            print(f"error: {e}", file=sys.stderr)
        return EXIT_REFUSED
    return run(sim, args, metadata, **run_options)
