#include "tuner/worker/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include <fmt/core.h>

namespace r4::worker {

namespace {

void write_all(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    const ssize_t w = ::write(fd, s.data() + off, s.size() - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) throw std::runtime_error(fmt::format("write to worker: {}", std::strerror(errno)));
    off += static_cast<size_t>(w);
  }
}

}  // namespace

std::vector<std::string> self_worker_argv() {
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) throw std::runtime_error("cannot find this executable (/proc/self/exe)");
  return {std::string(buf, static_cast<size_t>(n)), "worker"};
}

WorkerProcess::WorkerProcess(std::vector<std::string> argv) : argv_(std::move(argv)) {
  // A worker that dies while we write to it must not kill the driver with SIGPIPE.
  ::signal(SIGPIPE, SIG_IGN);
}

WorkerProcess::~WorkerProcess() {
  stop();
}

void WorkerProcess::start() {
  int in[2], out[2], err[2];
  if (::pipe2(in, O_CLOEXEC) || ::pipe2(out, O_CLOEXEC) || ::pipe2(err, O_CLOEXEC))
    throw std::runtime_error(fmt::format("pipe2: {}", std::strerror(errno)));
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(fmt::format("fork: {}", std::strerror(errno)));
  if (pid == 0) {
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    std::vector<char*> args;
    for (auto& a : argv_) args.push_back(a.data());
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    const char msg[] = "exec of the worker failed\n";
    (void)!::write(2, msg, sizeof msg - 1);
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  pid_ = pid;
  to_child_ = in[1];
  from_child_ = out[0];
  err_child_ = err[0];
  ::fcntl(err_child_, F_SETFL, O_NONBLOCK);
  buffer_.clear();
  ++starts_;
}

std::string WorkerProcess::drain_stderr() {
  std::string s;
  if (err_child_ < 0) return s;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(err_child_, buf, sizeof buf);
    if (n <= 0) break;
    s.append(buf, static_cast<size_t>(n));
  }
  // Keep the start (usually the cause) and the end (usually the crash report) of a long log.
  if (s.size() > 4000) s = s.substr(0, 1500) + "\n...\n" + s.substr(s.size() - 2000);
  return s;
}

void WorkerProcess::kill_now() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int st = 0;
    while (::waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
    }
  }
  for (int* fd : {&to_child_, &from_child_, &err_child_})
    if (*fd >= 0) {
      ::close(*fd);
      *fd = -1;
    }
  pid_ = -1;
}

void WorkerProcess::stop() {
  if (pid_ <= 0) return;
  // Closing stdin asks the worker to exit; give it a moment, then kill.
  ::close(to_child_);
  to_child_ = -1;
  for (int i = 0; i < 50; ++i) {
    int st = 0;
    if (::waitpid(pid_, &st, WNOHANG) == pid_) {
      pid_ = -1;
      break;
    }
    ::usleep(20000);
  }
  kill_now();
}

JobResult WorkerProcess::call(const nlohmann::json& request, std::chrono::milliseconds deadline) {
  // R4TUNE_TRACE_WORKER=1 logs every request and reply (shortened) on stderr, for debugging the
  // protocol on a device where nothing else can be attached.
  static const bool trace = [] {
    const char* e = std::getenv("R4TUNE_TRACE_WORKER");
    return e && *e == '1';
  }();
  if (trace) fmt::print(stderr, "[worker <-] {}\n", request.dump().substr(0, 300));
  auto r = call_untraced(request, deadline);
  if (trace)
    fmt::print(stderr, "[worker ->] status {} {} {}\n", static_cast<int>(r.status),
               r.reply.dump().substr(0, 300), r.detail.substr(0, 300));
  return r;
}

JobResult WorkerProcess::call_untraced(const nlohmann::json& request,
                                       std::chrono::milliseconds deadline) {
  if (pid_ <= 0) start();
  JobResult r;
  try {
    write_all(to_child_, request.dump() + "\n");
  } catch (const std::exception& e) {
    r.status = JobStatus::crashed;
    r.detail = e.what();
  }
  const auto until = std::chrono::steady_clock::now() + deadline;
  while (r.status == JobStatus::ok) {
    if (auto nl = buffer_.find('\n'); nl != std::string::npos) {
      const std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      try {
        r.reply = nlohmann::json::parse(line);
        if (!r.reply.is_object()) continue;  // not a protocol line (e.g. a bare number printed)
        // A fatal reply means the worker exits now (its GPU context is unusable): reap it so
        // the next call starts a fresh one.
        if (r.reply.value("fatal", false)) kill_now();
        return r;
      } catch (const nlohmann::json::exception&) {
        continue;  // not a protocol line (a library printing to stdout): skip it
      }
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      r.status = JobStatus::timed_out;
      r.detail = fmt::format("no answer within {} ms; the worker was killed", deadline.count());
      break;
    }
    pollfd p{from_child_, POLLIN, 0};
    const int pr = ::poll(&p, 1, static_cast<int>(std::min<long>(left.count(), 1000)));
    if (pr < 0 && errno == EINTR) continue;
    if (pr <= 0) continue;
    char buf[65536];
    const ssize_t n = ::read(from_child_, buf, sizeof buf);
    if (n > 0) {
      buffer_.append(buf, static_cast<size_t>(n));
      continue;
    }
    // EOF: the worker died.
    int st = 0;
    while (::waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    r.status = JobStatus::crashed;
    r.detail = WIFSIGNALED(st) ? fmt::format("worker killed by signal {} ({})", WTERMSIG(st),
                                             strsignal(WTERMSIG(st)))
                               : fmt::format("worker exited with status {}", WEXITSTATUS(st));
  }
  const std::string err = drain_stderr();
  if (!err.empty()) r.detail += "; stderr: " + err;
  kill_now();
  return r;
}

}  // namespace r4::worker
