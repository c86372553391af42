#include "parallel/mpi_env.hpp"

#include <mpi.h>

#include <cstdlib>

namespace regosph::mpi {

bool initialized() {
    int flag = 0;
    MPI_Initialized(&flag);
    int finalized = 0;
    MPI_Finalized(&finalized);
    return flag != 0 && finalized == 0;
}

int rank() {
    if (!initialized()) return 0;
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

int size() {
    if (!initialized()) return 1;
    int s = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &s);
    return s;
}

namespace {
void finalize_at_exit() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
}
}  // namespace

void ensure_initialized() {
    int flag = 0;
    MPI_Initialized(&flag);
    if (flag) return;
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    std::atexit(finalize_at_exit);
}

}  // namespace regosph::mpi
