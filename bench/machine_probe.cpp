// What the machine gives one thread and two threads of one process: arithmetic throughput,
// streaming bandwidth at several working-set sizes (each thread on its own arrays), the
// round trip of one cache line between two threads, and the cost of an OpenMP region and
// barrier. Read next to `make bench`: it tells whether a second core adds its full
// arithmetic and bandwidth, and what passing data between the cores costs (on a virtual
// machine, several times a transfer between the cores of one socket on bare metal:
// bench/README.md, "The machine").
//
//   make bench-machine     (bench_table.py --probe-only: ./build/machine_probe under the
//                           waiting policy that `import regosph` sets)
//
// Nothing here depends on regosph; the figures are printed, not checked.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include <omp.h>

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point since) {
    return std::chrono::duration<double>(Clock::now() - since).count();
}

// kChains independent multiply-add chains of kLanes doubles, written so that the compiler
// vectorises them: the throughput of the FMA units, not their latency. Returns a value that
// depends on every chain, so that none is optimised away.
constexpr int kChains = 12, kLanes = 8;
double fma_chains(long rounds) {
    alignas(64) double a[kChains][kLanes];
    for (int c = 0; c < kChains; ++c)
        for (int l = 0; l < kLanes; ++l) a[c][l] = 1.0 + 1e-9 * (c * kLanes + l);
    // Read through volatile: with constants GCC evaluates the whole loop at compile time.
    volatile double m_in = 0.999999999, add_in = 1e-9;
    const double m = m_in, add = add_in;
    for (long r = 0; r < rounds; ++r)
        for (int c = 0; c < kChains; ++c)
#pragma omp simd
            for (int l = 0; l < kLanes; ++l) a[c][l] = a[c][l] * m + add;
    double s = 0.0;
    for (int c = 0; c < kChains; ++c)
        for (int l = 0; l < kLanes; ++l) s += a[c][l];
    return s;
}

// y = a y + x over arrays of n doubles, `updates` element updates in all (24 bytes each:
// two loads, one store).
double stream(std::vector<double>& x, std::vector<double>& y, long updates) {
    const long sweeps = std::max(1L, updates / static_cast<long>(x.size()));
    double s = 0.0;
    for (long r = 0; r < sweeps; ++r) {
#pragma omp simd
        for (std::size_t i = 0; i < x.size(); ++i) y[i] = 1.0000001 * y[i] + x[i];
        s += y[static_cast<std::size_t>(r) % y.size()];
    }
    return s;
}

}  // namespace

int main() {
    double sink = 0.0;  // printed at the end so that no measured loop is dead code
    std::printf("%-58s %12s %12s\n", "probe", "1 thread", "2 threads");

    const long rounds = 20'000'000;
    double gflops[2];
    for (int t = 1; t <= 2; ++t) {
        const auto start = Clock::now();
#pragma omp parallel num_threads(t) reduction(+ : sink)
        sink += fma_chains(rounds);
        gflops[t - 1] = t * rounds * 2.0 * kChains * kLanes / seconds(start) / 1e9;
    }
    std::printf("%-58s %8.1f GF/s %8.1f GF/s\n", "multiply-add throughput, all threads", gflops[0],
                gflops[1]);

    for (const std::size_t kb : {256, 2048, 8192, 65536}) {
        const std::size_t n = kb * 1024 / 16;  // two arrays of kb/2 kB each
        const long updates = 400'000'000;
        double gbs[2];
        for (int t = 1; t <= 2; ++t) {
            double elapsed = 0.0;
#pragma omp parallel num_threads(t) reduction(+ : sink)
            {
                std::vector<double> x(n, 1.0), y(n, 0.0);  // each thread its own
                sink += stream(x, y, updates / 10);        // first touch and warm-up
#pragma omp barrier
                const auto start = Clock::now();
                sink += stream(x, y, updates);
#pragma omp barrier
#pragma omp master
                elapsed = seconds(start);
            }
            gbs[t - 1] = t * updates * 24.0 / elapsed / 1e9;
        }
        char label[80];
        std::snprintf(label, sizeof label, "streaming y = a y + x, %zu kB per thread", kb);
        std::printf("%-58s %8.1f GB/s %8.1f GB/s\n", label, gbs[0], gbs[1]);
    }

    // One cache line passed back and forth: each side waits for the other's value.
    {
        alignas(64) static std::atomic<long> turn{0};
        const long trips = 200'000;
        std::thread other([&] {
            for (long i = 1; i <= trips; ++i) {
                while (turn.load(std::memory_order_acquire) != 2 * i - 1) {
                }
                turn.store(2 * i, std::memory_order_release);
            }
        });
        const auto start = Clock::now();
        for (long i = 1; i <= trips; ++i) {
            turn.store(2 * i - 1, std::memory_order_release);
            while (turn.load(std::memory_order_acquire) != 2 * i) {
            }
        }
        const double round_trip = seconds(start) / trips;
        other.join();
        std::printf("%-58s %12s %9.0f ns\n", "one cache line between two threads, round trip", "-",
                    round_trip * 1e9);
    }

    {
        const int reps = 20'000;
        auto start = Clock::now();
        for (int r = 0; r < reps; ++r) {
#pragma omp parallel num_threads(2) reduction(+ : sink)
            sink += omp_get_thread_num() > 1 ? 1.0 : 0.0;
        }
        const double region = seconds(start) / reps;
        start = Clock::now();
#pragma omp parallel num_threads(2)
        for (int r = 0; r < reps; ++r) {
#pragma omp barrier
        }
        const double barrier = seconds(start) / reps;
        std::printf("%-58s %12s %9.2f us\n", "empty OpenMP parallel region", "-", region * 1e6);
        std::printf("%-58s %12s %9.2f us\n", "OpenMP barrier", "-", barrier * 1e6);
    }
    std::printf("(checksum %g)\n", sink);
    return 0;
}
