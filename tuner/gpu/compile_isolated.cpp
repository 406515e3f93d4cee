#include "tuner/gpu/compile_isolated.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <string>

#include <fmt/core.h>

namespace r4::gpu {
namespace {

bool write_all(int fd, const void* p, size_t n) {
  const char* c = static_cast<const char*>(p);
  while (n > 0) {
    ssize_t w = ::write(fd, c, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    c += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

bool read_all(int fd, void* p, size_t n) {
  char* c = static_cast<char*>(p);
  while (n > 0) {
    ssize_t r = ::read(fd, c, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    c += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

bool write_blob(int fd, const void* p, std::uint64_t n) {
  return write_all(fd, &n, sizeof n) && write_all(fd, p, n);
}

template <class T>
bool read_blob(int fd, T& out) {
  std::uint64_t n = 0;
  if (!read_all(fd, &n, sizeof n) || n > (std::uint64_t{1} << 32)) return false;
  out.resize(n);
  return read_all(fd, out.data(), n);
}

}  // namespace

CompileResult compile_isolated(const CompileRequest& req,
                               const std::function<CompileResult(const CompileRequest&)>& fn) {
  int fds[2];
  if (::pipe(fds) != 0) throw Error(fmt::format("pipe(): {}", std::strerror(errno)));
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw Error(fmt::format("fork(): {}", std::strerror(errno)));
  }
  if (pid == 0) {
    ::close(fds[0]);
    CompileResult r = fn(req);
    const std::uint8_t ok = r.ok ? 1 : 0;
    const bool sent = write_all(fds[1], &ok, 1) &&
                      write_all(fds[1], &r.seconds, sizeof r.seconds) &&
                      write_blob(fds[1], r.log.data(), r.log.size()) &&
                      write_blob(fds[1], r.binary.data(), r.binary.size());
    std::string opts;
    for (const auto& o : r.options) (opts += o) += '\n';
    const bool sent2 = sent && write_blob(fds[1], opts.data(), opts.size());
    ::close(fds[1]);
    ::_exit(sent2 ? 0 : 1);
  }
  ::close(fds[1]);
  CompileResult res;
  std::uint8_t ok = 0;
  std::string opts;
  const bool got = read_all(fds[0], &ok, 1) && read_all(fds[0], &res.seconds, sizeof res.seconds) &&
                   read_blob(fds[0], res.log) && read_blob(fds[0], res.binary) &&
                   read_blob(fds[0], opts);
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!got) {
    res = CompileResult{};
    if (WIFSIGNALED(status)) {
      res.log = fmt::format(
          "the compiler crashed (signal {}: {}) compiling {} for {}; the compiler library aborts "
          "on failed compiles and on targets it does not know",
          WTERMSIG(status), strsignal(WTERMSIG(status)), req.source_name, req.arch.name);
    } else {
      res.log = fmt::format("the compile worker exited ({}) without a result", status);
    }
    return res;
  }
  res.ok = ok != 0;
  for (size_t a = 0; a < opts.size();) {
    size_t b = opts.find('\n', a);
    res.options.push_back(opts.substr(a, b - a));
    a = b + 1;
  }
  return res;
}

}  // namespace r4::gpu
