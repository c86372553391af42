#!/usr/bin/env python3
"""Benchmark: the cost per particle-step of each constitutive law, wall law and dissipation scheme
on the soil collapse.

The paper-resolution collapse (validation/soil_collapse, 2 926 soil particles) is built once
per variant below, all in one process; the variants then advance in turn, a burst of --steps
accepted steps each, round after round, so that every variant sees the same seconds of the
machine. Prints, per variant, the median and fastest rate in particle-steps per second (dynamic
particles x steps / wall seconds of the burst) and the median of its bursts' time per
particle-step against the default's in the same round.

    /usr/bin/python3 bench/laws_bench.py [--rounds 8] [--steps 300] [--variants ...]

Variants (each changes one thing against "default", the collapse as `make run` runs it:
Drucker-Prager, walls 'tension_cut'):
  bonded       the walls 'bonded' (the pair loop without the interface test)
  MohrCoulomb  the Mohr-Coulomb law of the same phi, c, psi (Abbo & Sloan's rounded corners)
  MuIRheology  mu(I) with the collapse's glass-bead constants (soil_collapse.soil_material)
  Houlsby      Drucker-Prager with Houlsby's pressure-dependent hyperelasticity, the moduli at
               p_r = 1 kPa (the block's mean pressure at mid-height), n = 1/2, p_min = 0.01 Pa
               (validation/pressure_stiffness's law)
  porous       rs.PorousDruckerPrager with the regolith of validation/compaction_front
               (porosity 0.431, epsilon-alpha crush curve) in place of the aluminium bars
  riemann      the Riemann solver's dissipation (physics.dissipation 'riemann', limiter 3) in
               place of Monaghan's viscosity
  stress_jump  the Riemann solver with its normal-stress jump (physics.riemann_stress_jump)
  density_diffusion  the Riemann solver, its stress jump and delta-SPH's density diffusion
               (physics.density_diffusion = 0.1)
  reconstruction  density_diffusion's scheme with the solids' remedy: the linear
               reconstruction and the hourglass control (xi = 4), so the gradient pre-pass
  MuIRheology_stress_jump  mu(I) with the Riemann solver and its normal-stress jump
"""
import argparse
import statistics
import sys
import time
from pathlib import Path

import regosph as rs
from regosph.examples import soil_collapse

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "validation" / "compaction_front"))

VARIANTS = ("default", "bonded", "MohrCoulomb", "MuIRheology", "Houlsby", "porous", "riemann",
            "stress_jump", "density_diffusion", "reconstruction", "MuIRheology_stress_jump")


def material(variant):
    """The soil of one variant, or None for the collapse's own (soil_collapse.soil_material)."""
    if variant == "Houlsby":
        return soil_collapse.soil_material(
            elasticity=rs.Houlsby(reference_pressure=1e3, exponent=0.5, floor_pressure=0.01))
    if variant == "porous":
        import run as compaction_front
        return rs.PorousDruckerPrager("regolith", **compaction_front.REGOLITH)
    return None


def build(variant):
    """The collapse of one variant, its thread count fixed to OMP_NUM_THREADS."""
    law = "MuIRheology" if variant.startswith("MuIRheology") else (
        "MohrCoulomb" if variant == "MohrCoulomb" else "DruckerPrager")
    riemann = variant in ("riemann", "stress_jump", "density_diffusion", "reconstruction",
                          "MuIRheology_stress_jump")
    sim = soil_collapse.build(law=law, material=material(variant),
                              dissipation="riemann" if riemann else "monaghan")
    sim.physics.riemann_stress_jump = variant.endswith(
        ("stress_jump", "density_diffusion", "reconstruction"))
    if variant in ("density_diffusion", "reconstruction"):
        sim.physics.density_diffusion = 0.1
    if variant == "reconstruction":  # and the hourglass control: the solids' remedy
        sim.physics.riemann_reconstruction = True
        sim.physics.hourglass_control = 4.0
    if variant == "bonded":
        sim.physics.wall_contact = "bonded"
    sim.integrator.tune_threads = False
    return sim


def burst(sim, steps):
    """Wall seconds of `steps` accepted steps."""
    start = time.perf_counter()
    for _ in range(steps):
        sim.advance(1.0)
    return time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--steps", type=int, default=300, help="accepted steps per burst")
    ap.add_argument("--variants", nargs="+", choices=VARIANTS, default=list(VARIANTS))
    args = ap.parse_args()
    variants = ["default"] + [v for v in args.variants if v != "default"]
    sims = {v: build(v) for v in variants}
    particles = {v: int((sims[v].kind == rs.KIND_DYNAMIC).sum()) for v in variants}
    for v in variants:
        burst(sims[v], args.steps)  # warm-up: neighbour lists, first-touch allocation
    seconds = {v: [] for v in variants}
    for r in range(args.rounds):
        order = variants if r % 2 == 0 else variants[::-1]
        for v in order:
            seconds[v].append(burst(sims[v], args.steps))
    print(f"{len(variants)} variants, {args.rounds} rounds of {args.steps} steps")
    print(f"{'variant':<24} {'median M p-s/s':>15} {'fastest':>9} {'time / default':>15}")
    for v in variants:
        rates = [particles[v] * args.steps / s / 1e6 for s in seconds[v]]
        ratio = statistics.median(
            (s / particles[v]) / (d / particles["default"])
            for s, d in zip(seconds[v], seconds["default"]))
        print(f"{v:<24} {statistics.median(rates):>15.3f} {max(rates):>9.3f} {ratio:>15.3f}")


if __name__ == "__main__":
    main()
