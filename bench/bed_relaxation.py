#!/usr/bin/env python3
"""Where a bed preparation's steps go (issue 46): the dynamic relaxation of rs.prepare_bed
traced step by step, as a Python loop around Simulation.advance from the same geostatic start.

    /usr/bin/python3 bench/bed_relaxation.py [--bed small|lander] [--spacing 0.01]
                                             [--damping kinetic|viscous] [--tolerance 1e-8]

kinetic: Cundall's kinetic damping as regosph.bed does it (every velocity zeroed when the
kinetic energy has passed a peak; stops at the first peak below --tolerance of the strain
energy); prints each reset's step and peak / strain energy. viscous: mass-proportional
damping v <- v exp(-2 omega dt) after each step, omega the Rayleigh quotient of the last
step's velocity change (Underwood 1983's estimate of the lowest mode: omega^2 = -sum m v.da /
(dt sum m v.v), da the change of the step's mean acceleration); stops when the kinetic energy
is below --tolerance; prints every 50 steps. Both print the steps, and the particle-steps of
the relaxation and of the undamped check that would follow (2 periods 4 H / c_p).
Beds: "lander" the 3D lander study's half bed (examples/lander_3d.py: 1.2 x 0.3 x 0.4 m, a
symmetry plane z = 0, Ryugu's gravity); "small" a bed of the same depth, gravity and walls,
0.3 x 0.1 m in plan.
"""
import argparse
import math

import numpy as np

import regosph as rs
from regosph import bed as B
from regosph.examples import lander_2d, lander_3d, prepared_bed


def build(bed, spacing):
    if bed == "lander":
        return lander_3d.bed_setup(spacing, 0.3)
    return prepared_bed.build(0.3, 0.3, lander_2d.GRAVITY, spacing, dim=3,
                              symmetry_planes=("z",), breadth=0.1)


def kinetic_energy(sim, dynamic):
    v = sim.velocities[dynamic]
    return 0.5 * float((sim.mass[dynamic] * (v * v).sum(axis=1)).sum())


def relax(sim, dynamic, damping, tolerance, max_steps=20000):
    """Steps to the stop (see the module's docstring), printing the trace."""
    previous, resets, omega, v_before, a_before = 0.0, 0, 0.0, None, None
    m = sim.mass[dynamic][:, None]
    for step in range(1, max_steps + 1):
        dt = sim.advance(1.0).dt
        energy = kinetic_energy(sim, dynamic)
        if damping == "kinetic":
            if energy < previous:
                resets += 1
                print(f"  reset {resets} at step {step}: peak {previous / tolerance:.3g} x the "
                      "tolerance", flush=True)
                sim.velocities = np.zeros_like(sim.velocities)
                if previous <= tolerance:
                    return step
                energy = 0.0
            previous = energy
            continue
        velocities = sim.velocities
        v = velocities[dynamic]
        a = (v - (v_before if v_before is not None else 0.0)) / dt
        if a_before is not None:
            num, den = -float((m * v * (a - a_before)).sum()), dt * float((m * v * v).sum())
            if num > 0.0 and den > 0.0:
                omega = math.sqrt(num / den)
        a_before = a
        if step % 50 == 0:
            print(f"  step {step}: kinetic energy {energy / tolerance:.3g} x the tolerance, "
                  f"omega {omega:.4g} rad/s", flush=True)
        if energy <= tolerance:
            return step
        velocities[dynamic] = v * math.exp(-2.0 * omega * dt)
        v_before = velocities[dynamic].copy()
        sim.velocities = velocities
    raise RuntimeError(f"not relaxed within {max_steps} steps")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bed", choices=("small", "lander"), default="small")
    ap.add_argument("--spacing", type=float, default=0.01, help="[m]")
    ap.add_argument("--damping", choices=("kinetic", "viscous"), default="kinetic")
    ap.add_argument("--tolerance", type=float, default=1e-8,
                    help="fraction of the strain energy (prepare_bed's tolerance)")
    args = ap.parse_args()
    sim = build(args.bed, args.spacing)
    sim.integrator.tune_threads = False
    bed = B._bed_bodies(sim)
    up = B.up_direction(sim.physics.gravity)
    g = float(np.linalg.norm(sim.physics.gravity))
    B.set_geostatic_stress(sim, bed, up, g, "jaky")
    strain_energy = B.elastic_strain_energy(sim, bed)
    height, wave_speed = B._bed_height(sim, bed, up), B._wave_speed(sim, bed)
    dynamic = sim.kind == rs.KIND_DYNAMIC
    n = int(dynamic.sum())
    print(f"{args.bed} bed at {args.spacing} m: {n} dynamic particles, strain energy "
          f"{strain_energy:.4g} J", flush=True)
    steps = relax(sim, dynamic, args.damping, args.tolerance * strain_energy)
    dt = sim.time / steps
    check = math.ceil(2 * 4 * height / wave_speed / dt)
    print(f"relaxation: {steps} steps ({steps * n / 1e6:.2f} M particle-steps); the check "
          f"~{check} steps at dt = {dt:.4g} s; total {steps + check} steps "
          f"({(steps + check) * n / 1e6:.2f} M particle-steps)")


if __name__ == "__main__":
    main()
