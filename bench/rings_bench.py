#!/usr/bin/env python3
"""Benchmark: colliding rubber rings, regosph side by side with PySPH (issue 3).

The case of PySPH's pysph/examples/solid_mech/rings.py (Debian package python3-pysph): two
elastic rings (inner radius 30 mm, outer 40 mm, centres 82 mm apart, particle spacing 0.5 mm,
17 592 particles) fly at each other at 0.059 c0 each. Both codes run the same particles, the
same equations (bench/README.md, "rings") and the same fixed step dt = 1e-8 s with two
right-hand-side evaluations per step, without output, in this process on the same cores,
taking turns in blocks of 25 steps (this VM's speed drifts within minutes: in turns both are
timed in the same seconds of it). Timed: the integration loop only (PySPH: its kernels are
compiled, or loaded from ~/.pysph, and its particles set up before the clock starts; regosph:
from the first step, neighbour list included).

Prints particles, steps, wall seconds and particle-steps per second of each code and their
ratio (the issue's target: regosph >= 10 x PySPH). Then, unless --check-steps 0, both codes
continue untimed to --check-steps steps in total (by default 1000: the rings touch after about
315 steps) and the script compares, per ring, the change of the mean x-velocity and the kinetic
energy, and the particle-by-particle velocity difference.

    OMP_NUM_THREADS=2 PYTHONPATH=build/python /usr/bin/python3 bench/rings_bench.py
        [--steps 300] [--check-steps 1000] [--codes pysph regosph] [--json out.json]

Exit status 1 if a code cannot run the case as specified (e.g. regosph's step could not be
pinned to dt) or the physics cross-check disagrees by more than --tolerance.
"""
import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
# Before PySPH: one OpenMP runtime serves both codes in this process, and regosph's package
# sets its waiting (passive after 10 000 spins, unless OMP_WAIT_POLICY or GOMP_SPINCOUNT is
# set) only if it loads it first.
import regosph as rs

# --- the case (PySPH rings.py; issue 3, "Benchmark") ----------------------------------------
YOUNG = 1e7              # E [Pa]
POISSON = 0.3975         # nu
RHO0 = 1.0               # reference density [kg/m^3]
SPACING = 0.5e-3         # particle spacing dx [m]
PYSPH_HDX = 1.5          # PySPH h = 1.5 dx; its cubic spline reaches 2 h = 1.5 mm = 3 dx
SUPPORT = 2 * PYSPH_HDX * SPACING   # regosph's h is the support radius (SPEC.md section 1) [m]
R_INNER, R_OUTER = 0.03, 0.04       # ring radii [m]
HALF_GAP = 0.041                    # ring centres at 0 and 2 * 0.041 m
SPEED_FRACTION = 0.059              # each ring moves at 0.059 c0 toward the other
DT = 1e-8                           # fixed step [s]
AS_EPS, AS_N = 0.3, 4               # Monaghan artificial stress
XSPH_EPS = 0.5
AV_ALPHA = AV_BETA = 1.0            # artificial viscosity in PySPH's h convention
AV_ETA2 = 0.01                      # eps_v of nu_ab (PySPH: 0.01 h^2)

BULK = YOUNG / (3 * (1 - 2 * POISSON))     # K [Pa]
SHEAR = YOUNG / (2 * (1 + POISSON))        # G [Pa]
C0 = np.sqrt(BULK / RHO0)                  # PySPH's c0 = sqrt(E / (3 (1 - 2 nu) rho0)) [m/s]
SPEED = SPEED_FRACTION * C0                # [m/s]


def ring_particles():
    """Positions (N, 2) [m] and ring label (0 left, moving +x; 1 right, moving -x), built as
    PySPH's rings.py builds them: the grid points -0.04 + k dx, k = 0..159, in each direction,
    kept where r_in^2 <= x^2 + y^2 < r_out^2, shifted by -0.041 and +0.041 m and then by
    +0.041 m (the same floating-point operations, so the same positions to the last bit)."""
    g = -R_OUTER + SPACING * np.arange(int(np.ceil(2 * R_OUTER / SPACING)))
    x, y = (a.ravel() for a in np.meshgrid(g, g, indexing="ij"))
    d2 = x * x + y * y
    keep = (R_INNER * R_INNER <= d2) & (d2 < R_OUTER * R_OUTER)
    x, y = x[keep], y[keep]
    xs = np.concatenate([x - HALF_GAP, x + HALF_GAP]) + HALF_GAP
    pos = np.column_stack([xs, np.concatenate([y, y])])
    label = np.repeat([0, 1], x.size)
    return pos, label


def state_metrics(pos, vel, mass, label):
    """Per ring: mass-weighted mean x-velocity [m/s], kinetic energy [J/m], centre x [m]."""
    out = []
    for r in (0, 1):
        k = label == r
        m = mass[k]
        out.append({
            "mean_u_m_s": float((m * vel[k, 0]).sum() / m.sum()),
            "kinetic_energy_J_m": float(0.5 * (m * (vel[k] ** 2).sum(axis=1)).sum()),
            "centre_x_m": float((m * pos[k, 0]).sum() / m.sum()),
        })
    return out


BLOCK = 25  # steps per separately timed block


class Side:
    """One code's prepared run: `step()` advances it by DT, `state()` reads its state (its
    metrics, velocities and largest density); `info`: code, particles, integrator, setup_s,
    positions (the initial ones), and `errors`, filled as it runs."""

    def __init__(self, info, step, state):
        self.info, self.step, self.state, self.errors = info, step, state, []


def timed(sides, steps):
    """Runs `steps` steps of each side, the sides taking turns in blocks of BLOCK steps, in
    the order A B, B A, A B, ... This VM's speed drifts by tens of per cent within minutes
    (bench/README.md, ab_bursts.py); in turns, both codes are timed in the same seconds of
    it, instead of one code's whole run after the other's. Returns per side (wall s, process
    CPU s, wall s of its fastest block of BLOCK steps, or of all steps if fewer)."""
    out = [[0.0, 0.0, float("inf")] for _ in sides]
    done, turn = 0, 0
    while done < steps:
        k = min(BLOCK, steps - done)
        order = range(len(sides)) if turn % 2 == 0 else reversed(range(len(sides)))
        for i in order:
            w0, c0 = time.perf_counter(), time.process_time()
            for _ in range(k):
                sides[i].step()
            wall = time.perf_counter() - w0
            out[i][0] += wall
            out[i][1] += time.process_time() - c0
            if k == min(BLOCK, steps):
                out[i][2] = min(out[i][2], wall)
        done += k
        turn += 1
    return [tuple(o) for o in out]


# --- PySPH --------------------------------------------------------------------------------
def prepare_pysph(workdir):
    from pysph.examples.solid_mech.rings import Rings  # noqa: E402 (needs OMP_NUM_THREADS set)
    return prepare_pysph_app(Rings(output_dir=workdir), [], workdir,
                             lambda x: (x > HALF_GAP).astype(int), dim=2)


def prepare_pysph_app(app, extra_args, workdir, label_of_x, dim):
    """A Side for a PySPH application (its first particle array), set up for fixed steps of
    DT without output; label_of_x gives each particle's body (0: the one moving +x) from its
    initial x [m]."""
    t_setup = time.perf_counter()
    # Fixed dt, no output, OpenMP; setup() compiles the kernels (or loads them from ~/.pysph).
    app.setup(["--openmp", "--disable-output", "--no-adaptive-timestep", "--timestep", repr(DT),
               "--reorder-freq", "0", "-q", "-d", workdir] + list(extra_args))
    setup_s = time.perf_counter() - t_setup
    solver, pa = app.solver, app.particles[0]
    assert solver.dt == DT, f"PySPH step {solver.dt} s, expected {DT} s"
    pos0 = np.column_stack([pa.x, pa.y, pa.z][:dim]).copy()
    label = label_of_x(pos0[:, 0])
    # The integration loop only: Solver.solve() adds an initial acceleration evaluation and
    # output handling around integrator.step, which is all the time integration there is.
    clock = {"t": 0.0}

    def one_step():
        solver.integrator.step(clock["t"], DT)
        clock["t"] += DT

    info = {"code": "PySPH", "particles": int(pa.get_number_of_particles()),
            "integrator": type(solver.integrator).__name__, "setup_s": setup_s,
            "positions": pos0}
    return Side(info, one_step, lambda: _pysph_state(pa, label, dim))


def _pysph_state(pa, label, dim):
    pos = np.column_stack([pa.x, pa.y, pa.z][:dim]).copy()
    vel = np.column_stack([pa.u, pa.v, pa.w][:dim]).copy()
    return {"metrics": state_metrics(pos, vel, pa.m.copy(), label), "velocity": vel,
            "rho_max": float(pa.rho.max())}


# --- regosph ------------------------------------------------------------------------------
def build_regosph(rs):
    """The rings in regosph, with PySPH's equations (bench/README.md, "rings")."""
    pos, label = ring_particles()
    sim = rs.Simulation(dim=2)
    mat = pysph_solid(rs, sim)
    for r, name, u in ((0, "left ring", SPEED), (1, "right ring", -SPEED)):
        sim.add_body(name, pos[label == r], material=mat, motion="dynamic", spacing=SPACING,
                     smoothing_length=SUPPORT, velocity=(u, 0.0))
    pysph_numerics(sim)
    return sim, label


def pysph_solid(rs, sim):
    """PySPH's elastic solid of the rings (and of the 3D blocks) as a regosph material."""
    return sim.add_material(rs.ElasticSolid(
        "rubber", density=RHO0, bulk_modulus=BULK, shear_modulus=SHEAR, murnaghan_n=1.0,
        viscosity_sound_speed=C0, artificial_stress=AS_EPS, artificial_stress_exponent=AS_N,
        xsph=XSPH_EPS))


def pysph_numerics(sim):
    """PySPH's viscosity constants and its fixed step DT."""
    # regosph writes nu_ab with its h = support radius = 2 h_PySPH: alpha/2, beta/4 and eps/4
    # give PySPH's Pi_ab exactly.
    sim.physics.av_alpha = AV_ALPHA / 2
    sim.physics.av_beta = AV_BETA / 4
    sim.physics.av_epsilon = AV_ETA2 / 4
    # Pin the step: start at dt, never grow beyond it, never reject (the error norm is only
    # computed, not acted on). Each advance(DT) must then take exactly DT; checked per step.
    sim.integrator.dt_initial = DT
    sim.integrator.dt_max = DT
    sim.integrator.tolerance = 1e300
    sim.integrator.tune_threads = False  # a benchmark of exactly OMP_NUM_THREADS threads


def prepare_regosph(build=build_regosph):
    """A Side for regosph; its steps are checked to be exactly DT (the errors say which was
    not)."""
    t_setup = time.perf_counter()
    sim, _ = build(rs)
    setup_s = time.perf_counter() - t_setup
    initial = sim.positions[np.argsort(sim.ids)]
    info = {"code": "regosph", "particles": int(sim.size),
            "integrator": "AdaptiveHeun pinned to dt", "setup_s": setup_s,
            "positions": initial}

    def one_step():
        r = sim.advance(DT)
        if (r.dt != DT or r.rejected) and not side.errors:
            side.errors.append(f"step not pinned to {DT} s: first at step {sim.step} "
                               f"(dt {r.dt} s, {r.rejected} rejected)")

    side = Side(info, one_step, lambda: _regosph_state(sim))
    return side


def _regosph_state(sim):
    order = np.argsort(sim.ids)  # ids follow the order of add_body: PySPH's particle order
    pos, vel = sim.positions[order], sim.velocities[order]
    label = sim.body[order]
    return {"metrics": state_metrics(pos, vel, sim.mass[order], label), "velocity": vel,
            "rho_max": float(sim.density.max())}


# --- comparison ---------------------------------------------------------------------------
def compare(a, b, key, tolerance, names=("left ring", "right ring"), speed=SPEED):
    """Per body (names: the one moving +x, then the one moving -x, each at `speed` [m/s]):
    relative difference of the change of mean x-velocity and of the kinetic energy;
    particle-by-particle RMS velocity difference / speed. Returns (lines, ok)."""
    lines, ok = [], True
    sa, sb = a[key], b[key]
    for r, name in enumerate(names):
        ma, mb = sa["metrics"][r], sb["metrics"][r]
        u0 = speed if r == 0 else -speed
        du_a, du_b = ma["mean_u_m_s"] - u0, mb["mean_u_m_s"] - u0
        ke_rel = (mb["kinetic_energy_J_m"] - ma["kinetic_energy_J_m"]) / ma["kinetic_energy_J_m"]
        scale = max(abs(du_a), 1e-9 * speed)
        du_rel = (du_b - du_a) / scale
        lines.append(f"  {name}: mean u {ma['mean_u_m_s']:+.3f} vs {mb['mean_u_m_s']:+.3f} m/s "
                     f"(change {du_a:+.4f} vs {du_b:+.4f} m/s, {100 * du_rel:+.2f} %), "
                     f"KE {ma['kinetic_energy_J_m']:.6g} vs {mb['kinetic_energy_J_m']:.6g} J/m "
                     f"({100 * ke_rel:+.3f} %)")
        # A change below 0.1 % of the speed is free flight: nothing to compare it against.
        if abs(du_a) > 1e-3 * speed and abs(du_rel) > tolerance:
            ok = False
        if abs(ke_rel) > tolerance:
            ok = False
    dv = sb["velocity"] - sa["velocity"]
    rms = float(np.sqrt((dv ** 2).sum(axis=1).mean())) / speed
    lines.append(f"  particle velocities: RMS difference {100 * rms:.3f} % of the speed; "
                 f"max density {sa['rho_max']:.5f} vs {sb['rho_max']:.5f} kg/m^3")
    return lines, ok


def arguments(description, steps, check_steps, case_options=None):
    """The options every side-by-side bench takes; case_options(parser) adds a case's own."""
    ap = argparse.ArgumentParser(description=description)
    if case_options:
        case_options(ap)
    ap.add_argument("--steps", type=int, default=steps, help=f"timed steps (default {steps})")
    ap.add_argument("--check-steps", type=int, default=check_steps,
                    help="total steps of the physics cross-check (untimed); 0: none")
    ap.add_argument("--codes", nargs="+", default=["pysph", "regosph"],
                    choices=["pysph", "regosph"])
    ap.add_argument("--tolerance", type=float, default=0.05,
                    help="relative disagreement allowed by the cross-check (default 5 %%)")
    ap.add_argument("--json", help="also write the figures to this file")
    return ap.parse_args()


def threads_and_load():
    """The OpenMP threads, waiting policy and load average, for the header line."""
    threads = int(os.environ.get("OMP_NUM_THREADS", "0")) or os.cpu_count()
    return (f"{threads} OpenMP threads (OMP_WAIT_POLICY "
            f"{os.environ.get('OMP_WAIT_POLICY', 'unset')}, GOMP_SPINCOUNT "
            f"{os.environ.get('GOMP_SPINCOUNT', 'unset')}), load average "
            f"{os.getloadavg()[0]:.2f}")


def main():
    args = arguments(__doc__.splitlines()[0], 300, 1000)
    print(f"rings: E {YOUNG:g} Pa, nu {POISSON}, K {BULK:.5g} Pa, G {SHEAR:.5g} Pa, "
          f"c0 {C0:.2f} m/s, ring speed {SPEED:.3f} m/s, dx {SPACING} m, support {SUPPORT} m, "
          f"dt {DT} s; {args.steps} timed steps, {threads_and_load()}", flush=True)
    side_by_side(args, prepare_pysph, prepare_regosph)


def side_by_side(args, pysph, regosph, names=("left ring", "right ring")):
    """Sets up the codes of args.codes (pysph(workdir) and regosph() return a Side), times
    them in turns (timed), prints their speeds, the ratio and the cross-check after
    continuing both untimed to args.check_steps; exit status 1 on a failure."""
    results = {}
    failed = []
    with tempfile.TemporaryDirectory() as tmp:
        load = os.getloadavg()[0]
        sides = [pysph(tmp) if code == "pysph" else regosph() for code in args.codes]
        for side, (wall, cpu, best) in zip(sides, timed(sides, args.steps)):
            r = dict(side.info, steps=args.steps, wall_s=wall, cpu_s=cpu, best_block_s=best,
                     load_average_before=load, after_timed=side.state())
            r["particle_steps_per_s"] = r["particles"] * r["steps"] / r["wall_s"]
            r["particle_steps_per_cpu_s"] = r["particles"] * r["steps"] / r["cpu_s"]
            r["best_block_particle_steps_per_s"] = (r["particles"] * min(BLOCK, r["steps"])
                                                    / r["best_block_s"])
            results[side.info["code"].lower()] = r
            print(f"[{r['code']:7s}] {r['particles']} particles, {r['steps']} steps "
                  f"({r['integrator']}, 2 RHS evaluations per step"
                  f"{', in turns with the other code' if len(sides) > 1 else ''}): "
                  f"{r['wall_s']:.2f} s wall, "
                  f"{r['cpu_s']:.2f} s CPU; {r['particle_steps_per_s'] / 1e6:.3f} M "
                  f"particle-steps/s (fastest {min(BLOCK, r['steps'])}-step block "
                  f"{r['best_block_particle_steps_per_s'] / 1e6:.3f} M/s; "
                  f"{r['particle_steps_per_cpu_s'] / 1e6:.3f} M per CPU second); setup "
                  f"{r['setup_s']:.1f} s (untimed); load average before {load:.2f}", flush=True)
        for side in sides:  # untimed, to the cross-check's step
            for _ in range(max(0, args.check_steps - args.steps)):
                side.step()
            if args.check_steps > args.steps:
                results[side.info["code"].lower()]["after_check"] = side.state()
        for side in sides:
            for error in side.errors:
                print(f"[{side.info['code']:7s}] ERROR: {error}")
                failed.append(error)
    if len(results) == 2:
        p, g = results["pysph"], results["regosph"]
        if p["positions"].shape != g["positions"].shape or not np.array_equal(
                p["positions"], g["positions"]):
            failed.append("the two codes do not start from the same particles")
        ratio = g["particle_steps_per_s"] / p["particle_steps_per_s"]
        ratio_cpu = g["particle_steps_per_cpu_s"] / p["particle_steps_per_cpu_s"]
        ratio_best = (g["best_block_particle_steps_per_s"]
                      / p["best_block_particle_steps_per_s"])
        print(f"ratio regosph / PySPH: {ratio:.2f} x (wall), {ratio_best:.2f} x (fastest "
              f"blocks), {ratio_cpu:.2f} x (per CPU second); target >= 10 x: "
              f"{'met' if ratio >= 10 else 'NOT met'}")
        results["ratio_wall"], results["ratio_cpu"] = ratio, ratio_cpu
        results["ratio_best_block"] = ratio_best
        for key, what in (("after_timed", f"after {args.steps} steps"),
                          ("after_check", f"after {args.check_steps} steps")):
            if key not in p or key not in g:
                continue
            lines, ok = compare(p, g, key, args.tolerance, names)
            print(f"cross-check {what} (PySPH vs regosph): {'agree' if ok else 'DISAGREE'} "
                  f"within {100 * args.tolerance:g} %")
            print("\n".join(lines))
            if not ok:
                failed.append(f"cross-check {what}")
    if args.json:
        for r in results.values():
            if isinstance(r, dict):
                r.pop("positions", None)
                for key in ("after_timed", "after_check"):
                    if key in r:
                        r[key] = {k: v for k, v in r[key].items() if k != "velocity"}
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    if failed:
        print("FAILED: " + "; ".join(failed))
        sys.exit(1)



if __name__ == "__main__":
    main()
