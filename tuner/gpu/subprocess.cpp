#include "tuner/gpu/subprocess.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string_view>

#include <fmt/core.h>

#include "tuner/gpu/types.hpp"

extern char** environ;

namespace r4::gpu {

ProcessResult run_process(const std::vector<std::string>& argv, const std::string& cwd) {
  ProcessResult res;
  if (argv.empty()) throw Error("run_process: no program");
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw Error(fmt::format("pipe2(): {}", std::strerror(errno)));
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  if (!cwd.empty()) posix_spawn_file_actions_addchdir_np(&fa, cwd.c_str());
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    res.output = fmt::format("cannot run {}: {}", argv[0], std::strerror(rc));
    return res;
  }
  char buf[1 << 14];
  for (;;) {
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    res.output.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) res.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) res.signal = WTERMSIG(status);
  return res;
}

std::string find_on_path(const std::string& name) {
  if (name.find('/') != std::string::npos)
    return ::access(name.c_str(), X_OK) == 0 ? name : std::string();
  const char* path = std::getenv("PATH");
  const std::string_view p = path ? path : "/usr/local/bin:/usr/bin:/bin";
  for (std::size_t a = 0; a <= p.size();) {
    std::size_t b = p.find(':', a);
    if (b == std::string_view::npos) b = p.size();
    // std::filesystem::path, not string concatenation: GCC 12's -Wrestrict misfires on the
    // latter (GCC bug 105329).
    const std::filesystem::path dir(b > a ? p.substr(a, b - a) : std::string_view("."));
    const std::string cand = (dir / name).string();
    struct stat st {};
    if (::stat(cand.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(cand.c_str(), X_OK) == 0)
      return cand;
    a = b + 1;
  }
  return {};
}

}  // namespace r4::gpu
