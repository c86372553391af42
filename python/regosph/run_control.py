"""Command-line options every run script shares (output safety, checkpoints, restarts) and the
run call that honours them, so that setups in examples/ stay short.

    ap = argparse.ArgumentParser()
    ...                                    # the setup's own options
    run_control.add_arguments(ap)
    args = ap.parse_args()
    sys.exit(run_control.run(build(args), args, metadata={"setup": "..."}))
"""
import sys

from . import is_root
from ._core import BlowUpError


def add_arguments(ap):
    """--snapshot-interval, --overwrite, --restart, --checkpoint-every, --checkpoint-minutes."""
    ap.add_argument("--snapshot-interval", type=float, default=0.05, help="[s] of simulated time")
    ap.add_argument("--overwrite", action="store_true", help="replace a run in --output")
    ap.add_argument("--restart", action="store_true",
                    help="continue the run in --output from its newest valid checkpoint")
    ap.add_argument("--checkpoint-every", type=int, default=1000, help="steps between checkpoints")
    ap.add_argument("--checkpoint-minutes", type=float, default=10.0,
                    help="wall minutes between checkpoints")


def run(sim, args, metadata, **run_options):
    """Run (or continue) `sim` to args.end_time into args.output; returns the exit status:
    0 done, 3 blow-up (the crash dump and report are in the run directory), 128 + signal when
    interrupted (SIGTERM/SIGINT; a checkpoint was written). Extra keyword arguments go to
    Simulation.run (e.g. diagnostics_every, observe_every)."""
    root = is_root()
    if args.restart:
        used, rejected = sim.restart(args.output)
        if root:
            for r in rejected:
                print(f"warning: skipped corrupt checkpoint {r}", file=sys.stderr)
            print(f"restarting from {used} at t = {sim.time:.6g} s, step {sim.step}")
    try:
        summary = sim.run(args.end_time, output_dir=args.output,
                          snapshot_interval=args.snapshot_interval, overwrite=args.overwrite,
                          checkpoint_every=args.checkpoint_every,
                          checkpoint_interval=60.0 * args.checkpoint_minutes,
                          metadata={**metadata, "command": " ".join(sys.argv)}, **run_options)
    except BlowUpError as e:  # raised on every rank with the same report
        if root:
            print(f"error: {e}", file=sys.stderr)
        return 3
    if root:
        print(f"{summary.steps} steps ({summary.rejected} rejected) in {summary.wall_seconds:.1f} s "
              f"wall, {summary.particle_steps_per_second / 1e6:.2f} M particle-steps/s")
    if summary.interrupted_by:
        return 128 + summary.interrupted_by  # the shell convention for "killed by signal"
    return 0
