"""The full three-body problem with tides of Levine (2016, MSc thesis, Univ. of Colorado;
../shared/reference/levine2016_tidal_three_body.txt) on rs.BodySystem: the mean motions of the
three static equilibria (sec. 5.2), the four transitions of secs. 5.3.1-5.3.4 (collisions, end
configuration, Edot against the tidal prediction, tidal-locking times), the Sun-Earth-Moon
conservation check (sec. 5.1) and a comparison of the integrators on it and on a run with
contacts. Writes report.md and report.json next to this file.

    PYTHONPATH=build/python /usr/bin/python3 validation/three_body/run.py [--quick]

--quick shortens every run tenfold (a smoke test of the script, not the study).
"""
import argparse
import json
import math
import os
import time

import numpy as np

import regosph as rs
from regosph import three_body as tb

HERE = os.path.dirname(os.path.abspath(__file__))

# The thesis' figures (secs. 5.2-5.3, Tables 5.2-5.9) and the setups of its runs.
with open(os.path.join(HERE, "thesis.json"), encoding="utf-8") as _f:
    _THESIS = json.load(_f)
STATIC, TRANSITIONS = _THESIS["static"], _THESIS["transitions"]
MIXED = ("aligned_mixed", "transverse_mixed")


def run_static(case, scale):
    pos, vel, spin = tb.initial_state(case["config"], h2=case.get("h2"), separation=case.get("separation"))
    s = tb.thesis_system(pos, vel, spin)
    t0 = time.perf_counter()
    rec = s.integrate(1e5 * scale, 50.0)
    wall = time.perf_counter() - t0
    # the Euler centre body sits at the barycentre: its polar angle is undefined
    bodies = (1, 2) if case["config"] == "ER" else (0, 1, 2)
    n = float(np.mean(tb.mean_motion(rec["time"], rec["position"], bodies)))
    if case["config"] == "AM":
        analytic = tb.aligned_mixed_mean_motion(case["separation"])
    else:
        analytic = tb.resting_mean_motion(case["config"], case["h2"])
    e = rec["energy"]
    # where the printed rate is not the one of the thesis' own equations, the latter as well
    n_equations = case.get("thesis_n_equations", case["thesis_n"])
    return {"name": case["name"], "h2": float(rec["h2"][0]), "n_measured": n, "n_analytic": analytic,
            "n_thesis": case["thesis_n"], "vs_analytic": n / analytic - 1.0, "vs_thesis": n / case["thesis_n"] - 1.0,
            "n_thesis_equations": n_equations, "vs_thesis_equations": n / n_equations - 1.0,
            "label_end": rec["label"][-1], "energy_change": float((e[-1] - e[0]) / abs(e[0])),
            "energy_balance": float(np.max(np.abs(e + rec["dissipated"] - e[0])) / abs(e[0])),
            "overlap_mm": 1e3 * overlap_m(rec["position"][-1]), "t_end": float(rec["time"][-1]), "wall_s": wall}


def overlap_m(pos):
    """Largest overlap [m] of two spheres at one recorded state."""
    worst = 0.0
    for i in range(3):
        for j in range(i + 1, 3):
            worst = max(worst, tb.DIAMETER - float(np.linalg.norm(pos[j] - pos[i])))
    return worst


def centre_body(pos):
    """The body touching both others (resting configurations), else None."""
    for k in range(3):
        i, j = (k + 1) % 3, (k + 2) % 3
        if all(np.linalg.norm(pos[o] - pos[k]) < tb.DIAMETER * 1.001 for o in (i, j)):
            return k
    return None


def collisions(impacts, threshold_J=1e6):
    """Impacts that took more than threshold_J, the impulses of one instant (a blow passed on
    through touching spheres) summed into one entry under the first pair struck."""
    out = []
    for i in impacts:
        if out and i["time"] == out[-1]["time"]:
            out[-1] = dict(out[-1], energy_lost=out[-1]["energy_lost"] + i["energy_lost"])
        else:
            out.append(dict(i))
    return [i for i in out if i["energy_lost"] > threshold_J]


def run_transition(case, scale):
    pos, vel, spin = tb.initial_state(**case["setup"])
    s = tb.thesis_system(pos, vel, spin)
    t_end = case["t_end"] * scale
    t0 = time.perf_counter()
    rec = s.integrate(t_end, 100.0)
    wall = time.perf_counter() - t0
    t = rec["time"]
    # collisions: impacts that took more than 1e6 J (the impulses of settling contacts take
    # less); their time, bodies and energy
    hits = collisions(s.impacts)
    last_hit = max([i["time"] for i in hits], default=0.0)
    window_from = max(case["window_from"] * scale, last_hit + 2e4)
    if window_from > 0.8 * t_end:
        window_from = 0.8 * t_end
    edot, edot_pred = tb.energy_rate(t, rec["energy"], rec["tidal_rate"], window_from)
    h2_end = float(rec["h2"][-1])
    spin_req = tb.locked_spin_rate(case["end"], h2_end)
    locks = tb.locking_times(t, rec["spin"], window_from, spin_req)
    tail = [lab for lab, tt in zip(rec["label"], t) if tt >= 0.9 * t_end]
    end = rec["label"][-1]
    expected = MIXED if case["end"] == "AM" else ({"ER": "euler_resting", "LR": "lagrange_resting"}[case["end"]],)
    return {"name": case["name"], "h2_start": float(rec["h2"][0]), "h2_end": h2_end, "thesis_h2": case["thesis_h2"],
            "t_end": float(t[-1]), "wall_s": wall, "steps": s.steps,
            "collisions": [{"time": i["time"], "bodies": [b + 1 for b in i["bodies"]],
                            "energy_lost_J": i["energy_lost"], "approach_speed_m_s": i["approach_speed"]} for i in hits],
            "small_impacts": len(collisions(s.impacts, 0.0)) - len(hits), "thesis_collisions": case["thesis_collisions"],
            "label_end": end, "label_end_fraction_last_10pct": tail.count(end) / max(len(tail), 1),
            "ends_as_thesis": end in expected, "thesis_end": case["thesis_end"],
            "centre_body": None if centre_body(rec["position"][-1]) is None else centre_body(rec["position"][-1]) + 1,
            "window_from": window_from, "edot_W": edot, "edot_pred_W": edot_pred,
            "edot_vs_pred": edot / edot_pred - 1.0 if edot_pred else None,
            "thesis_edot_W": case["thesis_edot"], "thesis_edot_pred_W": case["thesis_edot_pred"],
            "spin_required": spin_req,
            "lock_years": [lk["time"] / tb.YEAR for lk in locks], "spin_change": [lk["spin_change"] for lk in locks],
            "spin_accel": [lk["spin_accel"] for lk in locks], "thesis_lock_years": case["thesis_lock_years"],
            "energy_balance": float(np.max(np.abs(rec["energy"] + rec["dissipated"] - rec["energy"][0]))
                                    / abs(rec["energy"][0])),
            "angular_momentum_change": float(np.max(np.abs(rec["angular_momentum"][:, 2] / rec["angular_momentum"][0, 2]
                                                           - 1.0)))}


def orbital_equilibrium(orbital_momentum):
    """Separation R of the stable aligned mixed equilibrium of frictionless spheres whose orbit
    carries the normalised angular momentum L (tb.aligned_mixed_orbital_momentum), None below
    the least L of that curve."""
    grid = np.linspace(1.5, 4.0, 2501)
    curve = np.array([tb.aligned_mixed_orbital_momentum(r) for r in grid])
    k = int(np.argmin(curve))
    if orbital_momentum < curve[k]:
        return None
    lo, hi = grid[k], 1e3
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if tb.aligned_mixed_orbital_momentum(mid) < orbital_momentum else (lo, mid)
    return 0.5 * (lo + hi)


def aligned_mixed_below_threshold(factors, t_end):
    """The AM->ER setup with H-bar^2 reduced by each factor: the normalised orbital angular
    momentum L, the stable equilibrium of the orbit at that L (spins kept), the range of the
    normalised separation R of the third body from the pair's centre, the first collision (time,
    bodies) and the end configuration with its centre body."""
    out = []
    m = tb.sphere_mass()
    unit = math.sqrt(tb.G * m ** 3 * tb.DIAMETER)
    for f in factors:
        pos, vel, spin = tb.initial_state("AM", separation=2.33696, h2_factor=f)
        orbital = float(np.sum(m * np.cross(pos, vel)[:, 2])) / unit
        s = tb.thesis_system(pos, vel, spin)
        rec = s.integrate(t_end, 500.0)
        p = rec["position"]
        sep = np.linalg.norm(p[:, 2] - 0.5 * (p[:, 0] + p[:, 1]), axis=1) / tb.DIAMETER
        hits = collisions(s.impacts)
        centre = centre_body(p[-1])
        out.append({"h2_factor": f, "h2": float(rec["h2"][0]), "orbital_momentum": orbital,
                    "orbital_equilibrium_R": orbital_equilibrium(orbital), "t_end": t_end,
                    "separation_min": float(sep.min()), "separation_max": float(sep.max()),
                    "first_collision": hits[0]["time"] if hits else None,
                    "first_collision_bodies": [b + 1 for b in hits[0]["bodies"]] if hits else None,
                    "label_end": rec["label"][-1], "centre_body": None if centre is None else centre + 1})
    return out


def canonical_check(t_end):
    """The LR->ER setup run in SI and in the thesis' canonical units (DU = radius, MU = mass,
    G = 1; sec. 4.3.1) over t_end [s]: the largest difference of the positions at the end over d
    and the times of the first collisions in both."""
    runs = []
    for canonical in (False, True):
        pos, vel, spin = tb.initial_state("LR", h2=5.2, displaced_body=2)
        s = tb.thesis_system(pos, vel, spin)
        du, mu, tu = rs.canonical_units(0.5 * tb.DIAMETER, tb.sphere_mass(), tb.G)
        if canonical:
            s.rescale(du, mu, tu)
            s.integrate(t_end / tu, 100.0 / tu)
            s.rescale(1.0 / du, 1.0 / mu, 1.0 / tu)
        else:
            s.integrate(t_end, 100.0)
        runs.append((s.position, [i["time"] for i in collisions(s.impacts)][:3]))
    return {"t_end": t_end, "time_unit_s": tu,
            "position_difference_over_d": float(np.max(np.abs(runs[0][0] - runs[1][0]))) / tb.DIAMETER,
            "collisions_si": runs[0][1], "collisions_canonical": runs[1][1]}


def sun_earth_moon(method, dt, years, tol=1e-12):
    """Sun, Earth and Moon from mean orbital elements (perihelion and perigee; the Moon's orbit
    inclined 5.145 degrees), gravity only: the relative changes of energy and angular momentum."""
    g = 6.674e-11
    m_sun, m_earth, m_moon = 1.98847e30, 5.9722e24, 7.342e22
    a_e, e_e, a_m, e_m, inc = 1.495978707e11, 0.0167086, 3.844e8, 0.0549, math.radians(5.145)
    r_e = a_e * (1 - e_e)
    v_e = math.sqrt(g * (m_sun + m_earth + m_moon) * (1 + e_e) / r_e)
    r_m = a_m * (1 - e_m)
    v_m = math.sqrt(g * (m_earth + m_moon) * (1 + e_m) / r_m)
    f_moon = m_earth / (m_earth + m_moon)
    rel_x, rel_v = np.array([r_m * math.cos(inc), 0.0, r_m * math.sin(inc)]), np.array([0.0, v_m, 0.0])
    bary_x, bary_v = np.array([r_e, 0.0, 0.0]), np.array([0.0, v_e, 0.0])
    s = rs.BodySystem(g)
    s.add_sphere(6.957e8, mass=m_sun)
    s.add_sphere(6.371e6, mass=m_earth, position=bary_x - (1 - f_moon) * rel_x, velocity=bary_v - (1 - f_moon) * rel_v)
    s.add_sphere(1.7374e6, mass=m_moon, position=bary_x + f_moon * rel_x, velocity=bary_v + f_moon * rel_v)
    s.integrator(method, dt=dt, relative_tolerance=tol)
    t0 = time.perf_counter()
    rec = s.integrate(years * 365.0 * 86400.0, 6 * 3600.0)
    wall = time.perf_counter() - t0
    e, h = rec["energy"], np.linalg.norm(rec["angular_momentum"], axis=1)
    return {"method": method, "dt_s": dt, "relative_tolerance": tol if method == "dopri45" else None,
            "years": years, "steps": s.steps, "rejected_steps": s.rejected_steps,
            "energy_change_max": float(np.max(np.abs(e / e[0] - 1.0))),
            "angular_momentum_change_max": float(np.max(np.abs(h / h[0] - 1.0))), "wall_s": wall}


def contact_case(method, dt, t_end, tol=1e-10):
    """The LR->ER setup (impacts, lasting contacts, tides) integrated by `method`: the largest
    |E + dissipated - E0| / |E0| and the angular momentum change."""
    pos, vel, spin = tb.initial_state("LR", h2=5.2, displaced_body=2)
    s = tb.thesis_system(pos, vel, spin, dt=dt, method=method)
    s.integrator(method, dt=dt, relative_tolerance=tol, impact_restitution=0.0)
    t0 = time.perf_counter()
    rec = s.integrate(t_end, 500.0)
    wall = time.perf_counter() - t0
    e0 = rec["energy"][0]
    hz = rec["angular_momentum"][:, 2]
    return {"method": method, "dt_s": dt, "relative_tolerance": tol if method == "dopri45" else None,
            "t_end": t_end, "steps": s.steps, "rejected_steps": s.rejected_steps,
            "energy_balance_max": float(np.max(np.abs(rec["energy"] + rec["dissipated"] - e0)) / abs(e0)),
            "angular_momentum_change_max": float(np.max(np.abs(hz / hz[0] - 1.0))),
            "impacts": len(s.impacts), "label_end": rec["label"][-1], "wall_s": wall}


def fmt(x, digits=5):
    return "-" if x is None else ("%.*g" % (digits, x) if isinstance(x, float) else str(x))


def static_table(rows):
    out = ["| configuration | H-bar^2 | n measured [rad/s] | n analytic | vs analytic | thesis n printed | vs printed "
           "| thesis n by its eqs. | vs that | end label | overlap [mm] | run [s] |", "|" + "---|" * 12]
    for r in rows:
        out.append("| %s | %.5g | %.6e | %.6e | %+.1e | %.6g | %+.2e | %.6g | %+.2e | %s | %.2f | %.1f |" % (
            r["name"], r["h2"], r["n_measured"], r["n_analytic"], r["vs_analytic"], r["n_thesis"], r["vs_thesis"],
            r["n_thesis_equations"], r["vs_thesis_equations"], r["label_end"], r["overlap_mm"], r["wall_s"]))
    return out


def transition_lines(r):
    out = ["### %s" % r["name"], "",
           "H-bar^2 %.5g at the start (thesis %.5g), %.5g at the end; %.3g s simulated in %.0f s (%d steps)." % (
               r["h2_start"], r["thesis_h2"], r["h2_end"], r["t_end"], r["wall_s"], r["steps"]), "",
           "- Collisions (impacts taking > 1e6 J, a blow passed on through touching spheres counted once; %d smaller "
           "impulses of settling contacts not listed): %s" % (
               r["small_impacts"], "; ".join("%.0f s (%d-%d, %.3g J)" % (c["time"], c["bodies"][0], c["bodies"][1],
                                                                          c["energy_lost_J"]) for c in r["collisions"])
               or "none"),
           "- Thesis: %s" % r["thesis_collisions"],
           "- End configuration: **%s** (%.0f %% of the last tenth; centre body %s); thesis: %s -> %s" % (
               r["label_end"], 100 * r["label_end_fraction_last_10pct"], fmt(r["centre_body"]), r["thesis_end"],
               "same" if r["ends_as_thesis"] else "**differs**"),
           "- Edot from %.0f s: measured %.4g W, tidal prediction %.4g W (%+.2f %%); thesis %.5g W against %.5g W" % (
               r["window_from"], r["edot_W"], r["edot_pred_W"], 100 * (r["edot_vs_pred"] or 0.0), r["thesis_edot_W"],
               r["thesis_edot_pred_W"]),
           "- Locking times (eq. 5.6, psi_dot_req = %.6g rad/s): %s years; thesis %s years" % (
               r["spin_required"], ", ".join("%.4g" % y for y in r["lock_years"]),
               ", ".join("%.6g" % y for y in r["thesis_lock_years"])),
           "- Spin accelerations: %s rad/s^2" % ", ".join("%.4g" % a for a in r["spin_accel"]),
           "- Energy balance max |E + dissipated - E0| / |E0| = %.2e; angular momentum change %.2e" % (
               r["energy_balance"], r["angular_momentum_change"]), ""]
    return out


def integrator_table(rows, title):
    out = ["| %s | method | step / tolerance | steps (rejected) | max energy change | max angular momentum change "
           "| run [s] |" % title, "|" + "---|" * 7]
    for r in rows:
        key = "energy_change_max" if "energy_change_max" in r else "energy_balance_max"
        out.append("| %s | %s | %s | %d (%d) | %.2e | %.2e | %.1f |" % (
            title, r["method"], "%g s" % r["dt_s"] if r["relative_tolerance"] is None else "rtol %g" % r["relative_tolerance"],
            r["steps"], r["rejected_steps"], r[key], r["angular_momentum_change_max"], r["wall_s"]))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="every run ten times shorter (smoke test)")
    args = parser.parse_args()
    scale = 0.1 if args.quick else 1.0
    report = {"quick": args.quick}
    report["static"] = [run_static(c, scale) for c in STATIC]
    report["transitions"] = [run_transition(c, scale) for c in TRANSITIONS]
    report["am_below_threshold"] = aligned_mixed_below_threshold([0.999, 0.99, 0.985, 0.9801, 0.97], 5e5 * scale)
    report["canonical"] = canonical_check(2e4 * scale)
    years = 4 * scale
    report["sun_earth_moon"] = [sun_earth_moon("verlet", 80.0, years), sun_earth_moon("yoshida4", 80.0, years),
                                sun_earth_moon("dopri45", 80.0, years, 1e-12)]
    t_contact = 1e6 * scale
    report["contact_case"] = [contact_case("verlet", 0.1, t_contact), contact_case("yoshida4", 0.1, t_contact),
                              contact_case("dopri45", 0.1, t_contact, 1e-10)]
    with open(os.path.join(HERE, "report.json"), "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1)
    write_readme(report)


def write_readme(report):
    from report_text import intro, discussion, aligned_mixed_derivation  # the prose, beside this script
    lines = intro(report) + ["## Static equilibria (sec. 5.2)", ""] + static_table(report["static"]) + [""]
    lines += ["## Transitions (secs. 5.3.1-5.3.4)", ""]
    for r in report["transitions"]:
        lines += transition_lines(r)
    lines += ["AM->ER from R = 2.33696 with all rates scaled so that H-bar^2 is the factor times its threshold "
              "value 5.32416; L is the orbit's normalised angular momentum, R_eq the stable aligned mixed "
              "equilibrium of the orbit at that L with the spins kept (none below L = 2.13204):", "",
              "| H-bar^2 factor | H-bar^2 | L | R_eq | R min | R max | first collision [s] (bodies) | "
              "label at %.3g s (centre) |" % report["am_below_threshold"][0]["t_end"], "|---|---|---|---|---|---|---|---|"]
    lines += ["| %.4f | %.5f | %.5f | %s | %.4f | %.4f | %s | %s (%s) |" % (
        r["h2_factor"], r["h2"], r["orbital_momentum"], fmt(r["orbital_equilibrium_R"]), r["separation_min"],
        r["separation_max"], "-" if r["first_collision"] is None else "%.0f (%d-%d)" % (
            r["first_collision"], r["first_collision_bodies"][0], r["first_collision_bodies"][1]),
        r["label_end"], fmt(r["centre_body"])) for r in report["am_below_threshold"]] + [""]
    lines += ["## Integrators (item 4)", "", "Sun-Earth-Moon, gravity only, %g years:" % report["sun_earth_moon"][0]["years"],
              ""] + integrator_table(report["sun_earth_moon"], "Sun-Earth-Moon") + [""]
    lines += ["Contacts: the LR->ER setup (impacts, lasting contacts, tides) over %.3g s; energy change is "
              "|E + dissipated - E0| / |E0| (dashpot, tidal and impact losses summed along the run):"
              % report["contact_case"][0]["t_end"], ""] + integrator_table(report["contact_case"], "contact") + [""]
    c = report["canonical"]
    lines += ["Canonical units (TU = %.1f s): the LR->ER setup over %.3g s run in SI and in DU, MU, TU ends "
              "with positions %.1e d apart; first collisions at %s s (SI) and %s s (canonical)." % (
                  c["time_unit_s"], c["t_end"], c["position_difference_over_d"],
                  ", ".join("%.1f" % t for t in c["collisions_si"]),
                  ", ".join("%.1f" % t for t in c["collisions_canonical"])), ""]
    lines += discussion(report) + aligned_mixed_derivation(report)
    with open(os.path.join(HERE, "report.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
