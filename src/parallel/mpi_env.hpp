// The MPI environment as the rest of the code sees it. Single-rank runs need not initialise
// MPI at all; the Python module and the MPI executables do (issue "Run across MPI ranks"
// adds the decomposition).
#pragma once

namespace regosph::mpi {

bool initialized();
int rank();  // 0 when MPI is not initialised
int size();  // 1 when MPI is not initialised

// Initialise MPI (MPI_THREAD_FUNNELED) unless somebody (mpi4py) already did; finalize at
// process exit only if this call initialised it.
void ensure_initialized();

}  // namespace regosph::mpi
