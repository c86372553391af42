// The thread count of a run chosen by measuring it. On a quiet machine two threads run a step
// faster than one; beside another CPU-bound job on a 2-core machine they run it slower than
// one thread, since each parallel region waits for a thread that shares its core with the
// other job. Results never depend on the count (threads.hpp), so a run
// may change it at any step: the tuner times a window of steps on one thread and then one with
// all allowed threads, keeps the faster for a while, and measures again. The all-threads window
// stops early once its steps are clearly slower than the one-thread window's, after two steps
// or after the first timed ones: beside a competitor those are the steps the measurement
// costs.
#pragma once

#include <cstdint>

namespace regosph::parallel {

class ThreadTuner {
public:
    // Steps per measuring window (the first kSettle steps after a change are not timed: the
    // particles' data move to the caches of the new team), and windows between measurements:
    // kRunWindows, doubled each time a measurement confirms the choice before it, up to
    // kMaxRunWindows (the slower count then costs well under 1 % of the steps).
    static constexpr int kWindow = 24;
    static constexpr int kSettle = 4;
    static constexpr int kRunWindows = 40;
    static constexpr int kMaxRunWindows = 320;
    // The all-threads window ends after kEarlyTimed timed steps if their mean exceeds
    // kEarlyRatio x the one-thread window's mean step (two threads that win take ~0.5-0.8 x).
    static constexpr int kEarlyTimed = 4;
    static constexpr double kEarlyRatio = 1.25;
    // Sooner still: the window ends after its first kSettleChecked (untimed) steps if each of
    // them took over kSettleRatio x the one-thread window's mean step. Beside a CPU-bound
    // competitor all threads take 3-4 x one thread's time from the first step (the collapse);
    // on a quiet machine they take ~0.6 x, and a step that rebuilds the neighbour list (up to
    // ~3.5 x a plain one) does not follow another.
    // Taking each step rather than their mean keeps one such step from ending the window.
    static constexpr int kSettleChecked = 2;
    static constexpr double kSettleRatio = 1.5;
    static_assert(kSettleChecked <= kSettle, "the checked steps are settle steps");

    // Off: every region may use all allowed threads (benchmarks of a fixed count, MPI runs).
    void enable(bool on);
    bool enabled() const { return enabled_; }
    // Before each step: sets thread_limit() of the calling thread for it (the integrator
    // restores the cap after the step).
    void begin_step();
    // After each accepted step, with its wall time [s].
    void record(double step_seconds);
    // Steps run so far with all allowed threads and with one (enabled tuner only).
    std::int64_t steps_all() const { return steps_all_; }
    std::int64_t steps_one() const { return steps_one_; }

private:
    enum class Phase { time_one, time_all, run };
    void set_phase(Phase phase);
    void choose(int choice);  // ends a measurement

    bool enabled_ = true;
    Phase phase_ = Phase::time_one;
    int step_in_phase_ = 0;
    double seconds_all_ = 0.0, seconds_one_ = 0.0;  // timed steps of the current measurement
    double fastest_settle_ = 0.0;  // the quickest of the all-threads window's settle steps [s]
    int chosen_ = -1;                                // thread_limit() of the run phase
    int applied_ = 0;                                // the cap begin_step set
    int run_windows_ = kRunWindows;                  // length of the run phase [windows]
    std::int64_t steps_all_ = 0, steps_one_ = 0;
};

}  // namespace regosph::parallel
