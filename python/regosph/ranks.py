"""One script on several MPI ranks (``mpirun -n N /usr/bin/python3 script.py``): every rank runs
the same script and builds the same setup. `is_root` says which rank prints, plots and writes
reports; `mpi_script` makes the process behave as one rank of such a script. Importing regosph
changes neither sys.stdout nor sys.excepthook: a script asks for it."""
import os
import sys
import traceback

from ._core import _abort, mpi_rank, mpi_size

_installed = False


def is_root():
    """True on MPI rank 0 (and without MPI): the rank that prints, plots and writes reports."""
    return mpi_rank() == 0


def mpi_script():
    """Under MPI (more than one rank): only rank 0 prints (the standard output of the other
    ranks is discarded), and an uncaught exception on any rank stops every rank with its
    traceback (MPI_Abort) instead of leaving the others waiting in the run's next collective
    operation. Does nothing on one rank; calling it again changes nothing. Scripts call it
    first thing in main (the examples, validation/soil_collapse/run.py and `python3 -m
    regosph` do)."""
    global _installed
    if _installed or mpi_size() == 1:
        return
    _installed = True
    if mpi_rank() != 0:
        sys.stdout = open(os.devnull, "w")

    def abort_all(exc_type, exc, tb):
        text = "".join(traceback.format_exception(exc_type, exc, tb))
        _abort(f"regosph: error on MPI rank {mpi_rank()} of {mpi_size()}; stopping all ranks\n"
               f"{text}", 1)

    sys.excepthook = abort_all
