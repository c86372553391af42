"""The dissipation options every run script shares (run_control.add_dissipation_arguments):
dissipation_options gives a study's case the options its command line would, apply_dissipation
sets them on sim.physics, dissipation_command_line turns them back into the same command line,
and a misspelt option is refused by name."""
import argparse

import pytest

import regosph as rs
from regosph import run_control


def parsed(line):
    ap = argparse.ArgumentParser()
    run_control.add_dissipation_arguments(ap)
    return ap.parse_args(line)


def test_a_studys_case_is_its_command_line():
    options = run_control.dissipation_options(dissipation="riemann", riemann_stress_jump=True,
                                              density_diffusion=0.1)
    assert vars(options) == vars(parsed(["--dissipation", "riemann", "--riemann-stress-jump",
                                         "--density-diffusion", "0.1"]))
    assert vars(parsed(run_control.dissipation_command_line(options))) == vars(options)
    assert vars(run_control.dissipation_options()) == vars(parsed([]))


def test_the_options_reach_the_physics():
    sim = rs.Simulation(dim=2)
    run_control.apply_dissipation(sim, run_control.dissipation_options(
        dissipation="riemann", riemann_stress_jump=True, density_diffusion=0.1))
    assert sim.physics.dissipation == "riemann"
    assert sim.physics.riemann_stress_jump
    assert sim.physics.density_diffusion == pytest.approx(0.1)


def test_a_misspelt_option_is_refused_by_name():
    with pytest.raises(ValueError, match="'stress_jump'"):
        run_control.dissipation_options(stress_jump=True)
