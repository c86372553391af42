#!/usr/bin/env python3
"""How a lone regolith particle bounces at the sampler's resolution (evidence for report.md).

    /usr/bin/python3 validation/brush_sampler/bounce.py

A single regolith particle, and a 3 x 3 clump, of the sampler's default resolution and
materials (examples/brush_sampler.py) is dropped from 40 mm onto a resting floor of tool
material, two rows thick, under Earth gravity. Prints the heights of the rebound apexes and
the energy ratio between successive drops, (apex_k+1 - rest) / (apex_k - rest), where rest is
the lowest height reached (the restitution coefficient is its square root). Runs in ~1 min.
"""
import numpy as np

import regosph as rs
from regosph.examples import brush_sampler as bs

DROP_HEIGHT = 0.040  # m, about the height of the tray
END_TIME, SAMPLE = 0.6, 0.002  # s


def drop(clump, dx=bs.RESOLUTIONS["default"]):
    """Times [s] and mean heights [m] of a clump x clump block of regolith dropped on a floor."""
    h = bs.SMOOTHING_FACTOR * dx
    sim = rs.Simulation(dim=2)
    sim.physics.gravity = (0.0, -bs.G_EARTH)
    regolith = sim.add_material(rs.DruckerPrager("regolith", **bs.REGOLITH, friction_angle=42,
                                                 cohesion=0.0))
    tool = sim.add_material(bs._tool_material())
    floor = rs.lattice_fill(rs.rectangle((-0.02, -2 * dx), (0.02, 0.0)), dx,
                            origin=(-0.02, -2 * dx, 0.0))
    # A tool at rest, moving kinematically like the sampler's tray.
    sim.add_body("floor", floor, material=tool, motion="kinematic", spacing=dx,
                 smoothing_length=h, kinematics=rs.Kinematics(translation=[(END_TIME, (0.0, 0.0))],
                                                              pivot=(0.0, 0.0)))
    offsets = (np.arange(clump) - 0.5 * (clump - 1)) * dx
    sim.add_body("grain", np.array([[x, DROP_HEIGHT + y] for x in offsets for y in offsets]),
                 material=regolith, motion="dynamic", spacing=dx, smoothing_length=h)
    soil = sim.kind == rs.KIND_DYNAMIC
    times = np.arange(1, int(round(END_TIME / SAMPLE)) + 1) * SAMPLE
    heights = []
    for t in times:
        sim.run(t, progress_interval=0)
        heights.append(sim.positions[soil][:, 1].mean())
    return times, np.array(heights)


def main():
    for clump in (1, 3):
        t, y = drop(clump)
        rest = y.min()
        # Rebounds: local maxima more than 1 mm above the resting height (not jitter at rest).
        apex = [k for k in range(1, len(y) - 1)
                if y[k] >= y[k - 1] and y[k] > y[k + 1] and y[k] > rest + 1e-3]
        peaks = [DROP_HEIGHT] + [y[k] for k in apex]
        ratios = [(b - rest) / (a - rest) for a, b in zip(peaks, peaks[1:])]
        if not apex:
            print(f"{clump} x {clump}: comes to rest at {rest * 1e3:.1f} mm, no rebound")
            continue
        print(f"{clump} x {clump}: lowest {rest * 1e3:.1f} mm; apexes "
              + ", ".join(f"{y[k] * 1e3:.1f} mm at {t[k]:.3f} s" for k in apex[:5])
              + f"; energy ratio per bounce {', '.join(f'{r:.2f}' for r in ratios[:5])}")


if __name__ == "__main__":
    main()
