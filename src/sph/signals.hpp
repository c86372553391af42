// SIGTERM and SIGINT during a run. Schedulers send SIGTERM before the wall-time limit: the
// signal is only remembered, so that the run can finish its step, write a checkpoint and return
// (RunSummary::interrupted_by) instead of dying with its state lost.
#pragma once

#include <csignal>

namespace regosph {

// Catches SIGTERM and SIGINT while it lives (when `active`); the previous handlers come back
// on destruction. One guard at a time: a run installs one for its duration.
class SignalGuard {
public:
    explicit SignalGuard(bool active);
    ~SignalGuard();
    SignalGuard(const SignalGuard&) = delete;
    SignalGuard& operator=(const SignalGuard&) = delete;

    // The signal received by any rank since the guard was installed, 0 if none. Collective
    // under MPI when active (signals reach the ranks at different moments: they decide
    // together); 0 without a collective call when inactive.
    int pending() const;

private:
    bool active_;
    struct sigaction old_term_ {}, old_int_ {};  // restored on destruction
};

}  // namespace regosph
