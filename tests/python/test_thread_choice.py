"""What the thread tuner chose reaches the user: RunSummary.steps_all_threads and
steps_one_thread count every step of a tuned run on two allowed threads (the first window of
the tuner's measurement runs on one), both stay 0 with the tuner off, and the run line of the
command-line scripts says how the steps were split.

The runs go in a fresh interpreter with OMP_NUM_THREADS=2: the tuner chooses only when more
than one thread is allowed, and the OpenMP runtime reads the count once, when it loads."""
import os
import subprocess
import sys
import types

from regosph import run_control

RUN = """
import sys
sys.path.insert(0, sys.argv[1])
from test_bindings import make_sim
for tune in (True, False):
    sim = make_sim(2)
    sim.physics.gravity = (0.0, -9.81, 0.0)
    sim.integrator.dt_max = 1e-5
    sim.integrator.tune_threads = tune
    s = sim.run(6e-4, progress_interval=0)
    print(s.steps, s.steps_all_threads, s.steps_one_thread)
"""


def test_run_summary_counts_the_tuners_steps():
    env = dict(os.environ, OMP_NUM_THREADS="2")
    out = subprocess.run([sys.executable, "-c", RUN, os.path.dirname(__file__)], env=env,
                         capture_output=True, text=True, check=True).stdout.split("\n")
    tuned = [int(x) for x in out[0].split()]
    fixed = [int(x) for x in out[1].split()]
    steps, on_all, on_one = tuned
    assert steps >= 60  # 6e-4 s at dt <= 1e-5 s
    assert on_all + on_one == steps
    # The tuner starts with a window of kSettle + kWindow = 28 steps on one thread, then times
    # all threads (ThreadTuner).
    assert on_one >= 28 and on_all >= 1
    assert fixed[0] >= 60 and fixed[1:] == [0, 0]


def test_run_line_says_how_the_tuner_split_the_steps():
    chose = types.SimpleNamespace(steps_all_threads=3, steps_one_thread=28)
    assert run_control.thread_choice(chose) == \
        "; the thread tuner ran 3 steps on all threads and 28 on one"
    off = types.SimpleNamespace(steps_all_threads=0, steps_one_thread=0)
    assert run_control.thread_choice(off) == ""
