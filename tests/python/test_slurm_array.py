"""examples/slurm/sampler_array.sbatch, run by bash with stand-ins for srun and scontrol: each
array element runs its row of the sampler table into the sweep's directory layout, continues
from a checkpoint, marks a finished run as regosph.sweep does, and requeues itself when the run
was interrupted."""
import os
import stat
import subprocess

import pytest

from regosph.examples import brush_sampler as bs
from regosph import sweep

SCRIPT = "examples/slurm/sampler_array.sbatch"


@pytest.fixture
def slurm(tmp_path, repo_root):
    """run(index, srun_status=0) -> (completed process, srun's argv, scontrol's argv or None)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("srun", "scontrol"):
        stub = bin_dir / tool
        stub.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > "{tmp_path}/{tool}.args"\n'
                        f'exit ${{STUB_STATUS_{tool.upper()}:-0}}\n')
        stub.chmod(stub.stat().st_mode | stat.S_IXUSR)

    def run(index, srun_status=0):
        for f in tmp_path.glob("*.args"):
            f.unlink()
        env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}",
               "SLURM_ARRAY_TASK_ID": str(index), "SLURM_ARRAY_JOB_ID": "77",
               "SLURM_CPUS_PER_TASK": "4", "SLURM_NTASKS": "2",
               "SLURM_SUBMIT_DIR": str(repo_root), "RUNS_DIR": str(tmp_path / "runs"),
               "STUB_STATUS_SRUN": str(srun_status)}
        done = subprocess.run(["bash", str(repo_root / SCRIPT)], env=env, capture_output=True,
                              text=True, timeout=30)
        args = {t: (tmp_path / f"{t}.args").read_text().split("\n")[:-1]
                if (tmp_path / f"{t}.args").exists() else None for t in ("srun", "scontrol")}
        return done, args["srun"], args["scontrol"]

    return run


def test_every_element_runs_its_row_and_marks_it_finished(slurm, tmp_path):
    for index, name in enumerate(bs.RUNS):
        done, srun, _ = slurm(index)
        assert done.returncode == 0, done.stderr
        assert srun[0] == "--cpus-per-task=4" and srun[1] == "/usr/bin/python3"
        assert srun[srun.index("--run") + 1] == name
        out = tmp_path / "runs" / name
        assert srun[srun.index("--output") + 1] == str(out)
        assert "--restart" not in srun
        # regosph.sweep sees the run as finished and a second submission skips it.
        assert sweep.is_finished(out)
        done, srun, _ = slurm(index)
        assert done.returncode == 0 and srun is None and "finished" in done.stdout
    done, srun, _ = slurm(len(bs.RUNS))
    assert done.returncode == 2 and srun is None and "13 runs" in done.stderr


def test_checkpoint_restarts_and_interruption_requeues(slurm, tmp_path):
    out = tmp_path / "runs" / "P5"
    out.mkdir(parents=True)
    (out / "run.json").write_text("{}")
    done, srun, _ = slurm(9)                      # a run without a checkpoint starts over
    assert "--overwrite" in srun and "--restart" not in srun
    (out / "sweep_done.json").unlink()
    (out / "checkpoint_000100.h5").write_bytes(b"")
    done, srun, scontrol = slurm(9, srun_status=143)  # SIGTERM: checkpointed, status 128 + 15
    assert "--restart" in srun and "--overwrite" not in srun
    assert done.returncode == 143
    assert scontrol == ["requeue", "77_9"]
    assert not (out / "sweep_done.json").exists()
    done, _, scontrol = slurm(9, srun_status=3)   # a blow-up is not requeued
    assert done.returncode == 3 and scontrol is None
