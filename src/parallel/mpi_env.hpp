// The MPI environment as the rest of the code sees it: rank and size, and the few collective
// operations the solver needs, written so that they also work when MPI was never initialised
// (C++ unit tests, a plain `import regosph` without mpirun): then there is one rank and every
// reduction returns its argument.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace regosph::mpi {

bool initialized();
int rank();  // 0 when MPI is not initialised
int size();  // 1 when MPI is not initialised

// Initialise MPI (MPI_THREAD_FUNNELED) if an MPI launcher started this process and nobody
// (mpi4py) already did; finalize at process exit only if this call initialised it. A process
// started without a launcher runs as one rank without MPI: Open MPI would otherwise start a
// daemon (orted) for it, which costs ~0.25 s at every import and keeps waking up on a core the
// run's threads need.
void initialize_if_launched();

// Global reductions over MPI_COMM_WORLD (identity on one rank).
double max(double local);
double min(double local);
double sum(double local);
std::int64_t sum(std::int64_t local);
std::int64_t max(std::int64_t local);
std::int64_t min(std::int64_t local);
std::uint64_t sum_wrapping(std::uint64_t local);  // modulo 2^64 (order-independent hashes)
bool any(bool local);
// Element-wise sums of equally long vectors, in place.
void sum_in_place(std::vector<double>& values);
void sum_in_place(std::vector<std::int64_t>& values);
void min_in_place(std::vector<double>& values);
void max_in_place(std::vector<double>& values);

// Collective calls made through this interface by this process (reductions and gathers, each
// counted once; none on one rank): what a step pays in global synchronisation, for the
// scaling model (bench/scaling_model.py).
std::int64_t collective_calls();

// The strings of every rank, in rank order, on every rank.
std::vector<std::string> allgather(const std::string& local);
// Every rank's values, concatenated in rank order (the same vector on every rank).
std::vector<double> allgather(const std::vector<double>& local);

// The first non-empty message of any rank (in rank order), on every rank; "" if none. Lets
// all ranks fail together when one of them hit an error outside a collective operation.
std::string first_error(const std::string& local);

// Runs fn on rank 0 only (files that one process writes: CSV, JSON, XDMF), then lets every rank
// continue, or throw std::runtime_error with fn's message if it threw. Collective.
void on_root_first(const std::function<void()>& fn);

// Stops every rank of the job (MPI_Abort) after printing `message` to stderr; without MPI,
// std::exit. Used when one rank fails and the others would otherwise wait forever.
[[noreturn]] void abort(const std::string& message, int status = 1);

}  // namespace regosph::mpi
