#include "parallel/mpi_env.hpp"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

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

// Reductions are skipped on a single rank (also when MPI is not initialised).
bool parallel() { return size() > 1; }

std::int64_t g_collective_calls = 0;  // collective_calls(); only the funnelled thread calls MPI

template <class T>
T reduce(T local, MPI_Datatype type, MPI_Op op) {
    if (!parallel()) return local;
    ++g_collective_calls;
    T out{};
    MPI_Allreduce(&local, &out, 1, type, op, MPI_COMM_WORLD);
    return out;
}

template <class T>
void reduce_vector(std::vector<T>& v, MPI_Datatype type, MPI_Op op) {
    if (!parallel() || v.empty()) return;
    ++g_collective_calls;
    MPI_Allreduce(MPI_IN_PLACE, v.data(), static_cast<int>(v.size()), type, op, MPI_COMM_WORLD);
}
}  // namespace

namespace {
// Whether an MPI launcher started this process: the rank variables that Open MPI's mpirun
// (OMPI_COMM_WORLD_RANK), PMI-1 and PMI-2 launchers (MPICH's and Intel MPI's hydra, Slurm's
// srun: PMI_RANK) and PMIx launchers (PMIX_RANK) give every process they start.
bool launched_by_mpi() {
    for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"})
        if (std::getenv(name) != nullptr) return true;
    return false;
}
}  // namespace

void initialize_if_launched() {
    if (!launched_by_mpi()) return;
    int flag = 0;
    MPI_Initialized(&flag);
    if (flag) return;
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    std::atexit(finalize_at_exit);
}

double max(double local) { return reduce(local, MPI_DOUBLE, MPI_MAX); }
double min(double local) { return reduce(local, MPI_DOUBLE, MPI_MIN); }
std::int64_t collective_calls() { return g_collective_calls; }
double sum(double local) { return reduce(local, MPI_DOUBLE, MPI_SUM); }
std::int64_t sum(std::int64_t local) { return reduce(local, MPI_INT64_T, MPI_SUM); }
std::int64_t max(std::int64_t local) { return reduce(local, MPI_INT64_T, MPI_MAX); }
std::int64_t min(std::int64_t local) { return reduce(local, MPI_INT64_T, MPI_MIN); }
std::uint64_t sum_wrapping(std::uint64_t local) { return reduce(local, MPI_UINT64_T, MPI_SUM); }
bool any(bool local) { return reduce(local ? 1 : 0, MPI_INT, MPI_LOR) != 0; }
void sum_in_place(std::vector<double>& v) { reduce_vector(v, MPI_DOUBLE, MPI_SUM); }
void sum_in_place(std::vector<std::int64_t>& v) { reduce_vector(v, MPI_INT64_T, MPI_SUM); }
void min_in_place(std::vector<double>& v) { reduce_vector(v, MPI_DOUBLE, MPI_MIN); }
void max_in_place(std::vector<double>& v) { reduce_vector(v, MPI_DOUBLE, MPI_MAX); }

std::vector<std::string> allgather(const std::string& local) {
    if (!parallel()) return {local};
    ++g_collective_calls;
    const int n = size();
    const int len = static_cast<int>(local.size());
    std::vector<int> lengths(n), offsets(n, 0);
    MPI_Allgather(&len, 1, MPI_INT, lengths.data(), 1, MPI_INT, MPI_COMM_WORLD);
    for (int r = 1; r < n; ++r) offsets[r] = offsets[r - 1] + lengths[r - 1];
    std::string all(static_cast<std::size_t>(offsets[n - 1] + lengths[n - 1]), '\0');
    MPI_Allgatherv(local.data(), len, MPI_CHAR, all.data(), lengths.data(), offsets.data(),
                   MPI_CHAR, MPI_COMM_WORLD);
    std::vector<std::string> out;
    for (int r = 0; r < n; ++r) out.push_back(all.substr(offsets[r], lengths[r]));
    return out;
}

std::vector<double> allgather(const std::vector<double>& local) {
    if (!parallel()) return local;
    ++g_collective_calls;
    const int n = size();
    const int len = static_cast<int>(local.size());
    std::vector<int> lengths(n), offsets(n, 0);
    MPI_Allgather(&len, 1, MPI_INT, lengths.data(), 1, MPI_INT, MPI_COMM_WORLD);
    for (int r = 1; r < n; ++r) offsets[r] = offsets[r - 1] + lengths[r - 1];
    std::vector<double> all(static_cast<std::size_t>(offsets[n - 1] + lengths[n - 1]));
    MPI_Allgatherv(local.data(), len, MPI_DOUBLE, all.data(), lengths.data(), offsets.data(),
                   MPI_DOUBLE, MPI_COMM_WORLD);
    return all;
}

std::string first_error(const std::string& local) {
    if (!parallel()) return local;
    if (!any(!local.empty())) return {};  // the common case: one small reduction
    for (std::string& e : allgather(local))
        if (!e.empty()) return e;
    return {};
}

void on_root_first(const std::function<void()>& fn) {
    std::string error;
    if (rank() == 0) {
        try {
            fn();
        } catch (const std::exception& e) {
            error = e.what();
            if (error.empty()) error = "unknown error";
        }
    }
    error = first_error(error);
    if (!error.empty()) throw std::runtime_error(error);
}

void abort(const std::string& message, int status) {
    std::fprintf(stderr, "%s\n", message.c_str());
    std::fflush(stderr);
    if (parallel()) MPI_Abort(MPI_COMM_WORLD, status);
    std::exit(status);
}

}  // namespace regosph::mpi
