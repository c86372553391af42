#include "io/run_lock.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <stdexcept>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/run_record.hpp"

namespace regosph::io {

namespace fs = std::filesystem;

namespace {

struct Holder {
    long pid = 0;
    std::string host;
    std::string started;  // UTC, ISO 8601
};

std::string this_host() {
    char name[256] = {};
    if (::gethostname(name, sizeof name - 1) != 0) return "unknown";
    return name;
}

std::string describe(const Holder& h) {
    return "process " + std::to_string(h.pid) + " on host '" + h.host + "' (started " +
           h.started + ")";
}

// run.lock is three lines "pid=...", "host=...", "started=...".
Holder read_holder(int fd) {
    std::string text;
    char buf[512];
    ::lseek(fd, 0, SEEK_SET);
    for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(n));
    Holder h;
    std::size_t pos = 0;
    while (pos < text.size()) {
        const std::size_t nl = std::min(text.find('\n', pos), text.size());
        const std::string line = text.substr(pos, nl - pos);
        pos = nl + 1;
        const auto eq = line.find('=');
        if (eq == std::string::npos) continue;
        const std::string key = line.substr(0, eq), value = line.substr(eq + 1);
        if (key == "pid") h.pid = std::strtol(value.c_str(), nullptr, 10);
        if (key == "host") h.host = value;
        if (key == "started") h.started = value;
    }
    return h;
}

bool process_exists(long pid) {
    return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM);
}

std::string in_use(const fs::path& dir, const std::string& who) {
    return "run directory '" + dir.string() + "' is in use by " + who +
           ": wait until that run ends (or stop it), or choose another output directory";
}

// Whether fd still refers to the file at `path` (the holder removes run.lock when it ends,
// possibly between our open and our flock).
bool same_file(int fd, const fs::path& path) {
    struct stat a {}, b {};
    return ::fstat(fd, &a) == 0 && ::stat(path.c_str(), &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

// What a lock file says about its writer, once the caller could not get past its flock
// (`busy`: another open file holds it) or could (`busy` false; `no_flock`: the file system
// has no flock, so only the process id can tell).
enum class Verdict { free, live, foreign };
Verdict judge(const Holder& h, bool busy, bool no_flock, const std::string& host) {
    if (busy) return Verdict::live;
    if (h.pid == 0 || (h.pid == ::getpid() && h.host == host)) return Verdict::free;
    if (h.host != host) return Verdict::foreign;  // flock may not reach across hosts
    return no_flock && process_exists(h.pid) ? Verdict::live : Verdict::free;
}

// flock(fd, operation | LOCK_NB), retried for ~50 ms while it finds the lock busy: a check
// (RunLock::holder) takes a shared lock for a moment, and must not make a run that starts
// just then believe the directory is in use. Returns 0 or the errno of the last attempt.
int flock_patiently(int fd, int operation) {
    for (int attempt = 0;; ++attempt) {
        if (::flock(fd, operation | LOCK_NB) == 0) return 0;
        if (errno != EWOULDBLOCK || attempt == 10) return errno;
        ::usleep(5000);
    }
}

}  // namespace

RunLock::RunLock(const fs::path& dir, bool take_over_foreign) : file_(dir / kLockFileName) {
    const auto fail = [&](const std::string& what) {
        const std::string reason = std::strerror(errno);
        if (fd_ >= 0) ::close(fd_);
        fd_ = -1;
        throw std::runtime_error("cannot " + what + " the lock file '" + file_.string() +
                                 "': " + reason);
    };
    const std::string host = this_host();
    for (int attempt = 0; attempt < 10; ++attempt) {
        fd_ = ::open(file_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd_ < 0) fail("create");
        const int flock_error = flock_patiently(fd_, LOCK_EX);
        const bool flocked = flock_error == 0;
        if (flock_error == EWOULDBLOCK) {
            const Holder h = read_holder(fd_);
            ::close(fd_);
            fd_ = -1;
            throw std::invalid_argument(in_use(dir, describe(h)));
        }
        // Other errors: a file system without flock. Then only the process id can tell.
        if (!same_file(fd_, file_)) {  // removed by its holder meanwhile: start again
            ::close(fd_);
            fd_ = -1;
            continue;
        }
        const Holder old = read_holder(fd_);
        const Verdict verdict = judge(old, false, !flocked, host);
        if (verdict == Verdict::live || (verdict == Verdict::foreign && !take_over_foreign)) {
            ::close(fd_);
            fd_ = -1;
            if (verdict == Verdict::live) throw std::invalid_argument(in_use(dir, describe(old)));
            throw std::invalid_argument(
                "run directory '" + dir.string() + "' is locked by " + describe(old) +
                ", another host: regosph cannot tell from here whether that run still "
                "lives. If it does not, take its lock over explicitly (take_over_lock, "
                "--take-over-lock)");
        }
        if (old.pid != 0 && old.pid != ::getpid()) taken_over_ = describe(old);
        const std::string text = "pid=" + std::to_string(::getpid()) + "\nhost=" + host +
                                 "\nstarted=" + utc_timestamp() + "\n";
        if (::ftruncate(fd_, 0) != 0 ||
            ::pwrite(fd_, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size())) {
            const int error = errno;
            ::unlink(file_.c_str());  // ours (we hold it): leave no empty lock behind
            errno = error;
            fail("write");
        }
        ::fsync(fd_);
        return;
    }
    throw std::runtime_error("cannot take the lock file '" + file_.string() +
                             "': it keeps being removed and recreated");
}

RunLock::~RunLock() {
    if (fd_ < 0) return;
    // Only our own file: after a forced take-over from another host it may be somebody else's.
    if (same_file(fd_, file_)) ::unlink(file_.c_str());
    ::close(fd_);  // drops the flock
}

namespace {
// The holder of dir's lock and what it is, without taking the lock (a shared flock, for a
// moment). Free when there is no lock file.
std::pair<Holder, Verdict> inspect(const fs::path& dir) {
    const int fd = ::open((dir / kLockFileName).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return {Holder{}, Verdict::free};
    // A shared flock fails only while an owner holds its exclusive one.
    const int error = ::flock(fd, LOCK_SH | LOCK_NB) == 0 ? 0 : errno;
    const Holder h = read_holder(fd);
    ::close(fd);
    return {h, judge(h, error == EWOULDBLOCK, error != 0 && error != EWOULDBLOCK, this_host())};
}
}  // namespace

std::optional<std::string> RunLock::holder(const fs::path& dir) {
    const auto [h, verdict] = inspect(dir);
    if (verdict == Verdict::live) return describe(h);
    if (verdict == Verdict::foreign)
        return describe(h) + ", another host (regosph cannot tell from here whether it still runs)";
    return std::nullopt;
}

void RunLock::check_not_held(const fs::path& dir) {
    const auto [h, verdict] = inspect(dir);
    if (verdict == Verdict::live) throw std::invalid_argument(in_use(dir, describe(h)));
}

}  // namespace regosph::io
