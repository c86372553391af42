// OpenMP thread counts chosen from the work of a loop: a thread that is woken for a handful of
// particles costs more (its wake-up, the barrier at the end, a cache line or two moving
// between cores) than it saves. Every particle loop that opens a parallel region passes
// `num_threads(parallel::threads_for(n, kMin...))`, or the part count of the pair loop's
// Partition (below), which is chosen the same way. Results never depend on the count: every
// loop writes per-particle results, and reductions are min/max or sums in an order fixed by
// the particles alone (their order, or fixed blocks of them), never by the threads.
#pragma once

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <thread>
#include <vector>

namespace regosph::parallel {

// Least items per thread [particles] worth a thread, by the cost of one item: a thread must
// save more work than it costs to bring in. A parallel region costs a few us, and 25-90 us
// when a sleeping second thread must be woken (a 2-core virtual machine), so each count gives
// a thread some 40-200 us of work. The loops of a step
// take the pair loop's partition (Partition below, kMinPairItems); kMinCheapItems is for the
// loops outside it (kinematic placement, rigid bodies, observers).
inline constexpr std::size_t kMinCheapItems = 4096;   // ~10-40 ns each: updates, copies, checks
inline constexpr std::size_t kMinPairItems = 64;      // ~0.3-5 us each: a particle's pair loop
// Neighbour-row entries of a loop that does a few flops per entry (the wall extrapolation,
// ~5-20 ns an entry): a thread is worth waking for ~50 us of work.
inline constexpr std::size_t kMinPairEntries = 8192;

// A cap on the threads of regosph's own parallel regions below the OpenMP maximum, set by the
// thread tuner (thread_tuner.hpp) for one step; 0: none. One per calling thread: the thread
// that opens a region asks for its team, so two simulations stepped from two Python threads
// keep their own caps.
inline int& thread_limit() {
    static thread_local int limit = 0;
    return limit;
}

// The most threads a region of regosph may use: the OpenMP maximum (OMP_NUM_THREADS), under
// the tuner's cap.
inline int max_threads() {
    const int omp = omp_get_max_threads();
    const int limit = thread_limit();
    return limit > 0 ? std::min(omp, limit) : omp;
}

// Threads for a loop over n items, at least min_per_thread items each, at most max_threads(),
// at least 1.
inline int threads_for(std::size_t n, std::size_t min_per_thread) {
    const std::size_t useful = std::max<std::size_t>(1, n / std::max<std::size_t>(1, min_per_thread));
    return static_cast<int>(std::min<std::size_t>(useful, static_cast<std::size_t>(max_threads())));
}


// Contiguous ranges of particles, one per part, of about equal work. Every particle loop of a
// step that runs on more than one thread takes its particles from the same partition (part k
// on thread k), so that a thread reads in each loop what it wrote in the one before, from its
// own core's caches: a cache line written on one core and read on the other costs hundreds of
// ns, and loops that split the particles by different rules pass most of their arrays between
// the cores in every loop.
class Partition {
public:
    Partition() = default;
    // `cost`: the work of each item (>= 0); `parts` >= 1 ranges, the cut after the item where
    // the running cost first reaches k / parts of the total.
    Partition(std::span<const double> cost, int parts);
    int parts() const { return bounds_.empty() ? 0 : static_cast<int>(bounds_.size()) - 1; }
    // Threads for a region over the partition (num_threads): at least 1.
    int team() const { return std::max(parts(), 1); }
    std::size_t size() const { return bounds_.empty() ? 0 : bounds_.back(); }
    std::size_t begin(int k) const { return bounds_[static_cast<std::size_t>(k)]; }
    std::size_t end(int k) const { return bounds_[static_cast<std::size_t>(k) + 1]; }
    // The end of part k in a loop over the items [0, last): beyond the partition's items
    // (halo copies), they belong to its last part.
    std::size_t end(int k, std::size_t last) const {
        return k + 1 == parts() ? std::max(last, end(k)) : end(k);
    }

private:
    std::vector<std::size_t> bounds_;  // parts + 1 entries, 0 first and the item count last
};

inline Partition::Partition(std::span<const double> cost, int parts) {
    parts = std::max(parts, 1);
    double total = 0.0;
    for (const double c : cost) total += c;
    bounds_.assign(static_cast<std::size_t>(parts) + 1, cost.size());
    bounds_[0] = 0;
    double running = 0.0;
    int k = 1;
    for (std::size_t i = 0; i < cost.size() && k < parts; ++i) {
        running += cost[i];
        while (k < parts && running >= total * k / parts)
            bounds_[static_cast<std::size_t>(k++)] = i + 1;
    }
}

// Chunks of the parts of a partition claimed by the threads of one parallel region: each
// thread first runs the chunks of its own part (part k on thread k) from the front, then
// helps with the chunks left in the other parts, taking them from the back. A thread that is
// woken late (a sleeping thread can take 25-90 us to join a region) thus does not leave its
// part to wait for it: the others take over what it has not started (the barrier at
// the end of the region still waits for it to arrive). Helpers take from the back so that an
// imbalance that lasts (one part costlier than the partition's estimate, a slower core) moves
// the same particles, at the part's end, to the same helper in every loop of a step and from
// step to step: their values then stay in that core's cache, where chunks taken from the
// front, wherever the owner has got to, would move different particles between the cores
// each time. Which thread runs a chunk never changes a result (every loop writes per-particle
// results).
class ChunkQueue {
public:
    // `last`: the end of the last part (beyond partition.size() for halo copies, which then
    // belong to the last part); `chunk`: items per claim.
    ChunkQueue(const Partition& partition, std::size_t last, std::size_t chunk)
        : parts_(std::max(partition.parts(), 0)), chunk_(std::max<std::size_t>(chunk, 1)),
          range_(new Range[static_cast<std::size_t>(parts_)]) {
        for (int k = 0; k < parts_; ++k) {
            const std::size_t begin = partition.begin(k), end = partition.end(k, last);
            base_.push_back(begin);
            // Offsets from the part's start, front in the low half and back in the high half
            // of one word, so that one compare-and-swap claims from either end.
            if (end - begin > kMaxItems)
                throw std::length_error("parallel::ChunkQueue: a part of more than 2^32 - 1 items");
            range_[k].value.store(pack(0, end - begin), std::memory_order_relaxed);
            total_ += end - begin;
        }
    }
    // Items in all parts (what a count of finished items reaches at the end).
    std::size_t total() const { return total_; }
    // Inside the parallel region, on every thread: fn(first, last) for each claimed chunk.
    template <class Fn>
    void run(Fn&& fn) {
        const int t = omp_get_thread_num();
        for (int i = 0; i < parts_; ++i) {
            const int k = (t + i) % parts_;
            const bool own = i == 0;
            for (;;) {
                std::size_t first = 0, last = 0;
                if (!claim(k, own, first, last)) break;
                fn(first, last);
            }
        }
    }

private:
    static constexpr std::size_t kMaxItems = 0xffffffffu;
    static std::uint64_t pack(std::size_t front, std::size_t back) {
        return static_cast<std::uint64_t>(front) | (static_cast<std::uint64_t>(back) << 32);
    }
    // Claims the next chunk of part k, from its front (`front`) or its back; false when the
    // part has no items left.
    bool claim(int k, bool front, std::size_t& first, std::size_t& last) {
        std::atomic<std::uint64_t>& range = range_[k].value;
        std::uint64_t seen = range.load(std::memory_order_relaxed);
        for (;;) {
            const std::size_t f = seen & kMaxItems, b = seen >> 32;
            if (f >= b) return false;
            const std::size_t take = std::min(chunk_, b - f);
            const std::uint64_t next = front ? pack(f + take, b) : pack(f, b - take);
            if (range.compare_exchange_weak(seen, next, std::memory_order_relaxed)) {
                const std::size_t base = base_[static_cast<std::size_t>(k)];
                first = base + (front ? f : b - take);
                last = first + take;
                return true;
            }
        }
    }
    struct alignas(64) Range {  // one cache line each: the threads claim in different parts
        std::atomic<std::uint64_t> value{0};
    };
    int parts_;
    std::size_t chunk_;
    std::unique_ptr<Range[]> range_;
    std::vector<std::size_t> base_;
    std::size_t total_ = 0;
};

// Inside a parallel region: waits until `done` reaches `target` (items finished by all
// threads), yielding the core while it waits: the wait is for a chunk another thread is
// finishing, unless that thread was preempted, when the core should go to whoever runs.
inline void wait_for(const std::atomic<std::size_t>& done, std::size_t target) {
    while (done.load(std::memory_order_acquire) < target) std::this_thread::yield();
}


}  // namespace regosph::parallel
