#include "parallel/thread_tuner.hpp"

#include <omp.h>

#include <algorithm>

#include "parallel/threads.hpp"

namespace regosph::parallel {

void ThreadTuner::enable(bool on) {
    enabled_ = on;
    phase_ = Phase::time_one;
    chosen_ = -1;
    run_windows_ = kRunWindows;
    step_in_phase_ = 0;
    seconds_all_ = seconds_one_ = 0.0;
}

void ThreadTuner::set_phase(Phase phase) {
    phase_ = phase;
    step_in_phase_ = 0;
}

void ThreadTuner::begin_step() {
    if (!enabled_)
        applied_ = 0;
    else
        applied_ = phase_ == Phase::time_all ? 0 : phase_ == Phase::time_one ? 1 : chosen_;
    thread_limit() = applied_;
}

void ThreadTuner::choose(int choice) {
    run_windows_ = choice == chosen_ ? std::min(2 * run_windows_, kMaxRunWindows) : kRunWindows;
    chosen_ = choice;
    seconds_all_ = seconds_one_ = 0.0;
    set_phase(Phase::run);
}

void ThreadTuner::record(double step_seconds) {
    if (!enabled_ || omp_get_max_threads() < 2) return;
    const bool all = applied_ != 1;
    (all ? steps_all_ : steps_one_) += 1;
    const bool timed = step_in_phase_ >= kSettle;
    ++step_in_phase_;
    switch (phase_) {
        case Phase::time_one:
            if (timed) seconds_one_ += step_seconds;
            if (step_in_phase_ == kSettle + kWindow) set_phase(Phase::time_all);
            break;
        case Phase::time_all: {
            if (timed) seconds_all_ += step_seconds;
            if (step_in_phase_ <= kSettleChecked)
                fastest_settle_ = step_in_phase_ == 1 ? step_seconds
                                                      : std::min(fastest_settle_, step_seconds);
            const int timed_steps = step_in_phase_ - kSettle;
            if (step_in_phase_ == kSettleChecked &&
                fastest_settle_ > kSettleRatio * seconds_one_ / kWindow)
                choose(1);  // every checked step clearly slower
            else if (timed_steps == kEarlyTimed &&
                seconds_all_ / kEarlyTimed > kEarlyRatio * seconds_one_ / kWindow)
                choose(1);  // clearly slower: the rest of the window would only cost time
            else if (step_in_phase_ == kSettle + kWindow)
                choose(seconds_one_ < seconds_all_ ? 1 : 0);  // equal windows; ties: all
            break;
        }
        case Phase::run:
            if (step_in_phase_ == run_windows_ * kWindow) set_phase(Phase::time_one);
            break;
    }
}

}  // namespace regosph::parallel
