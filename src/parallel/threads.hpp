// OpenMP thread counts chosen from the work of a loop: a thread that is woken for a handful of
// particles costs more (its wake-up, the barrier at the end, a cache line or two moving
// between cores) than it saves. Every particle loop that opens a parallel region passes
// `num_threads(parallel::threads_for(n, kMin...))`. Results never depend on the count: every
// loop writes per-particle results, and reductions are min/max or sums in particle-id order.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstddef>

namespace regosph::parallel {

// Least items per thread [particles] worth a thread, by the cost of one item. Measured on
// this project's 2-core VM (bench/README.md, "Issue 14: figures"): the cheap loops of a step
// (stage updates, the saved start, the rebuild test) ran slower on 2 threads than on 1 for the
// collapse's 3 800 particles (a region costs ~4 us on one thread, 25-90 us when a sleeping
// second thread must be woken, and the arrays one core wrote move to the other core's cache),
// while the pair loops gain from 2 threads down to a few hundred particles.
inline constexpr std::size_t kMinCheapItems = 4096;   // ~10-40 ns each: updates, copies, checks
inline constexpr std::size_t kMinPairItems = 64;      // ~0.3-5 us each: a particle's pair loop

// Threads for a loop over n items, at least min_per_thread items each, at most the OpenMP
// maximum (OMP_NUM_THREADS), at least 1.
inline int threads_for(std::size_t n, std::size_t min_per_thread) {
    const std::size_t useful = std::max<std::size_t>(1, n / std::max<std::size_t>(1, min_per_thread));
    return static_cast<int>(std::min<std::size_t>(useful, static_cast<std::size_t>(omp_get_max_threads())));
}

}  // namespace regosph::parallel
