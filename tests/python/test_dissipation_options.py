"""The dissipation options every run script shares (run_control.add_dissipation_arguments):
their defaults are the core library's (PhysicsParameters), dissipation_options gives a study's
case the options its command line would, apply_dissipation sets them on sim.physics,
dissipation_command_line turns them back into the same command line, and a misspelt option is
refused by name."""
import argparse

import pytest

import regosph as rs
from regosph import run_control

FIELDS = ("dissipation", "riemann_limiter", "riemann_pairs", "riemann_stress_jump",
          "density_diffusion", "riemann_reconstruction", "hourglass_control")


def parsed(line):
    ap = argparse.ArgumentParser()
    run_control.add_dissipation_arguments(ap)
    return ap.parse_args(line)


def test_the_command_lines_defaults_are_the_physics_defaults():
    physics = rs.Simulation(dim=2).physics
    options = parsed([])
    assert {f: getattr(options, f) for f in FIELDS} == {f: getattr(physics, f) for f in FIELDS}
    assert (options.dissipation, options.riemann_stress_jump, options.riemann_reconstruction) == (
        "monaghan", "none", False)
    assert options.density_diffusion == 0.0 and options.hourglass_control == 0.0


def test_a_studys_case_is_its_command_line():
    options = run_control.dissipation_options(dissipation="riemann",
                                              riemann_stress_jump="continuity",
                                              density_diffusion=0.1, riemann_limiter=20.0)
    assert vars(options) == vars(parsed(["--dissipation", "riemann", "--riemann-stress-jump",
                                         "continuity", "--density-diffusion", "0.1",
                                         "--riemann-limiter", "20"]))
    assert vars(parsed(run_control.dissipation_command_line(options))) == vars(options)
    monaghan = run_control.dissipation_options(dissipation="monaghan", av_balsara=True)
    assert vars(parsed(run_control.dissipation_command_line(monaghan))) == vars(monaghan)
    assert vars(run_control.dissipation_options()) == vars(parsed([]))


def test_the_options_reach_the_physics():
    sim = rs.Simulation(dim=2)
    run_control.apply_dissipation(sim, run_control.dissipation_options(
        dissipation="riemann", riemann_stress_jump="continuity", density_diffusion=0.1,
        hourglass_control=4.0, riemann_limiter=20.0))
    assert sim.physics.dissipation == "riemann"
    assert sim.physics.riemann_stress_jump == "continuity"
    assert sim.physics.riemann_limiter == 20.0
    assert sim.physics.density_diffusion == 0.1 and sim.physics.hourglass_control == 4.0


def test_a_misspelt_option_is_refused_by_name():
    with pytest.raises(ValueError, match="'stress_jump'"):
        run_control.dissipation_options(stress_jump=True)
