#include "tuner/mpi/world.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include <fmt/core.h>

#if R4_HAVE_MPI
// Open MPI's header, for its types and the C API's signatures only: nothing links against
// libmpi (the calls go through pointers dlsym'd below), and its C++ bindings stay out.
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>
#ifndef OPEN_MPI
#error "r4tune's MPI support is written against Open MPI's ABI (handles are exported objects)"
#endif
#endif

namespace r4::mpi {

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::string this_host() {
  char buf[256] = {};
  ::gethostname(buf, sizeof buf - 1);
  return buf;
}

}  // namespace

Launch detect_launch() {
  // Open MPI's mpirun; PMIx launchers (srun --mpi=pmix, prterun); PMI-1/2 (srun --mpi=pmi2).
  for (const char* size_var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    const std::string v = env(size_var);
    if (v.empty()) continue;
    Launch l{true, std::max(1, std::atoi(v.c_str())), fmt::format("{}={}", size_var, v)};
    return l;
  }
  if (!env("PMIX_RANK").empty()) {
    // PMIx gives no size variable; Slurm's task count is the job's size under srun.
    const std::string n = env("SLURM_NTASKS");
    return {true, n.empty() ? 0 : std::max(1, std::atoi(n.c_str())),
            fmt::format("PMIX_RANK={}", env("PMIX_RANK"))};
  }
  return {};
}

World::World() : host_(this_host()) {}

void World::send(int, int, const std::string&) {
  throw Error("send in a world of one process");
}

std::optional<Message> World::try_recv(int, const std::function<bool(int)>&) {
  return std::nullopt;
}

void World::abort(int code) {
  std::_Exit(code);
}

std::unique_ptr<World> World::single() {
  return std::unique_ptr<World>(new World());
}

#if R4_HAVE_MPI

namespace {

// The C API through dlsym: each member has the exact type of the function mpi.h declares.
struct Library {
  void* handle = nullptr;
  std::string name;
#define R4_MPI_FN(fn) decltype(&::fn) fn = nullptr
  R4_MPI_FN(MPI_Initialized);
  R4_MPI_FN(MPI_Init_thread);
  R4_MPI_FN(MPI_Finalized);
  R4_MPI_FN(MPI_Finalize);
  R4_MPI_FN(MPI_Comm_rank);
  R4_MPI_FN(MPI_Comm_size);
  R4_MPI_FN(MPI_Comm_set_errhandler);
  R4_MPI_FN(MPI_Allgather);
  R4_MPI_FN(MPI_Allgatherv);
  R4_MPI_FN(MPI_Bcast);
  R4_MPI_FN(MPI_Barrier);
  R4_MPI_FN(MPI_Send);
  R4_MPI_FN(MPI_Iprobe);
  R4_MPI_FN(MPI_Recv);
  R4_MPI_FN(MPI_Irecv);
  R4_MPI_FN(MPI_Test);
  R4_MPI_FN(MPI_Cancel);
  R4_MPI_FN(MPI_Get_count);
  R4_MPI_FN(MPI_Abort);
  R4_MPI_FN(MPI_Error_string);
#undef R4_MPI_FN
  // Open MPI's predefined handles are the addresses of exported objects
  // (MPI_COMM_WORLD is &ompi_mpi_comm_world): looked up, not linked.
  MPI_Comm world = nullptr;
  MPI_Datatype byte = nullptr, int64 = nullptr;
  MPI_Errhandler errors_return = nullptr;

  template <class F>
  void bind(F& f, const char* symbol) {
    f = reinterpret_cast<F>(::dlsym(handle, symbol));
    if (!f) throw Error(fmt::format("{} has no symbol {}", name, symbol));
  }
  template <class H>
  void object(H& h, const char* symbol) {
    h = reinterpret_cast<H>(::dlsym(handle, symbol));
    if (!h) throw Error(fmt::format("{} has no object {} (not Open MPI?)", name, symbol));
  }

  explicit Library(const std::vector<std::string>& names) {
    std::string why;
    for (const auto& n : names) {
      if (n.empty()) continue;
      // RTLD_GLOBAL: Open MPI's components (mca_*.so), which it dlopens itself, resolve
      // libmpi's symbols through the global scope.
      handle = ::dlopen(n.c_str(), RTLD_NOW | RTLD_GLOBAL);
      if (handle) {
        name = n;
        break;
      }
      why += fmt::format("\n  {}: {}", n, ::dlerror());
    }
    if (!handle) throw Error("cannot load the MPI library:" + why);
#define R4_MPI_BIND(fn) bind(fn, #fn)
    R4_MPI_BIND(MPI_Initialized);
    R4_MPI_BIND(MPI_Init_thread);
    R4_MPI_BIND(MPI_Finalized);
    R4_MPI_BIND(MPI_Finalize);
    R4_MPI_BIND(MPI_Comm_rank);
    R4_MPI_BIND(MPI_Comm_size);
    R4_MPI_BIND(MPI_Comm_set_errhandler);
    R4_MPI_BIND(MPI_Allgather);
    R4_MPI_BIND(MPI_Allgatherv);
    R4_MPI_BIND(MPI_Bcast);
    R4_MPI_BIND(MPI_Barrier);
    R4_MPI_BIND(MPI_Send);
    R4_MPI_BIND(MPI_Iprobe);
    R4_MPI_BIND(MPI_Recv);
    R4_MPI_BIND(MPI_Irecv);
    R4_MPI_BIND(MPI_Test);
    R4_MPI_BIND(MPI_Cancel);
    R4_MPI_BIND(MPI_Get_count);
    R4_MPI_BIND(MPI_Abort);
    R4_MPI_BIND(MPI_Error_string);
#undef R4_MPI_BIND
    object(world, "ompi_mpi_comm_world");
    object(byte, "ompi_mpi_byte");
    object(int64, "ompi_mpi_long_long_int");
    object(errors_return, "ompi_mpi_errors_return");
  }
  // Kept loaded to the end of the process: MPI_Finalize's own teardown and atexit handlers
  // still run code in it.
};

class MpiWorld final : public World {
 public:
  MpiWorld(std::unique_ptr<Library> lib, std::string via)
      : lib_(std::move(lib)), via_(std::move(via)) {
    int inited = 0;
    lib_->MPI_Initialized(&inited);
    int provided = 0;
    if (!inited)
      check(lib_->MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided),
            "MPI_Init_thread");
    // Errors come back as codes (checked below) rather than aborting inside the library.
    lib_->MPI_Comm_set_errhandler(lib_->world, lib_->errors_return);
    check(lib_->MPI_Comm_rank(lib_->world, &rank_), "MPI_Comm_rank");
    check(lib_->MPI_Comm_size(lib_->world, &size_), "MPI_Comm_size");
  }
  ~MpiWorld() override {
    int done = 0;
    lib_->MPI_Finalized(&done);
    if (!done) lib_->MPI_Finalize();
    lib_.release();  // see Library: never dlclosed
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string describe() const override {
    return fmt::format("{} ({} ranks, via {})", lib_->name, size_, via_);
  }

  std::vector<std::string> allgather(const std::string& mine) override {
    long long n = static_cast<long long>(mine.size());
    std::vector<long long> sizes(static_cast<std::size_t>(size_));
    check(lib_->MPI_Allgather(&n, 1, lib_->int64, sizes.data(), 1, lib_->int64, lib_->world),
          "MPI_Allgather");
    std::vector<int> counts, displs;
    long long total = 0;
    for (long long s : sizes) {
      counts.push_back(static_cast<int>(s));
      displs.push_back(static_cast<int>(total));
      total += s;
    }
    if (total > 0x7fffffffLL) throw Error("allgather of more than 2 GiB");
    std::string all(static_cast<std::size_t>(total), '\0');
    check(lib_->MPI_Allgatherv(mine.data(), static_cast<int>(n), lib_->byte, all.data(),
                               counts.data(), displs.data(), lib_->byte, lib_->world),
          "MPI_Allgatherv");
    std::vector<std::string> out;
    for (std::size_t r = 0; r < sizes.size(); ++r)
      out.push_back(
          all.substr(static_cast<std::size_t>(displs[r]), static_cast<std::size_t>(counts[r])));
    return out;
  }

  void bcast(std::string& data, int root) override {
    long long n = static_cast<long long>(data.size());
    check(lib_->MPI_Bcast(&n, 1, lib_->int64, root, lib_->world), "MPI_Bcast");
    if (n > 0x7fffffffLL) throw Error("broadcast of more than 2 GiB");
    data.resize(static_cast<std::size_t>(n));
    if (n > 0)
      check(lib_->MPI_Bcast(data.data(), static_cast<int>(n), lib_->byte, root, lib_->world),
            "MPI_Bcast");
  }

  void barrier() override { check(lib_->MPI_Barrier(lib_->world), "MPI_Barrier"); }

  void send(int to, int tag, const std::string& data) override {
    if (data.size() > 0x7fffffffULL) throw Error("message of more than 2 GiB");
    check(lib_->MPI_Send(data.data(), static_cast<int>(data.size()), lib_->byte, to, tag,
                         lib_->world),
          "MPI_Send");
  }

  std::optional<Message> try_recv(int tag, const std::function<bool(int)>& give_up) override {
    int flag = 0;
    MPI_Status st;
    check(lib_->MPI_Iprobe(MPI_ANY_SOURCE, tag, lib_->world, &flag, &st), "MPI_Iprobe");
    if (!flag) return std::nullopt;
    int count = 0;
    check(lib_->MPI_Get_count(&st, lib_->byte, &count), "MPI_Get_count");
    // The buffer outlives an abandoned receive (below), so it is not the message's own.
    auto buffer = std::make_unique<std::string>(static_cast<std::size_t>(count), '\0');
    MPI_Request req;
    check(lib_->MPI_Irecv(buffer->data(), count, lib_->byte, st.MPI_SOURCE, tag, lib_->world, &req),
          "MPI_Irecv");
    for (;;) {
      int done = 0;
      check(lib_->MPI_Test(&req, &done, MPI_STATUS_IGNORE), "MPI_Test");
      if (done) return Message{st.MPI_SOURCE, std::move(*buffer), false};
      if (give_up && give_up(st.MPI_SOURCE)) {
        // The receive stays posted into the buffer: left to the end of the process on purpose
        // (the job ends soon after a rank is lost, and MPI may still write into it).
        (void)buffer.release();
        return Message{st.MPI_SOURCE, {}, true};
      }
      ::usleep(1000);
    }
  }

  [[noreturn]] void abort(int code) override {
    lib_->MPI_Abort(lib_->world, code);
    std::_Exit(code);
  }

 private:
  void check(int rc, const char* what) const {
    if (rc == MPI_SUCCESS) return;
    char msg[MPI_MAX_ERROR_STRING] = {};
    int len = 0;
    lib_->MPI_Error_string(rc, msg, &len);
    throw Error(fmt::format("{} failed on rank {}: {}", what, rank_, std::string(msg, len)));
  }

  std::unique_ptr<Library> lib_;
  std::string via_;
  int rank_ = 0, size_ = 1;
};

}  // namespace

std::unique_ptr<World> World::from_environment() {
  const Launch l = detect_launch();
  if (!l.launched || l.size == 1 || env("R4TUNE_MPI") == "0") return single();
  // Shared-memory messages without the single-copy read from the sender's memory (CMA): reading
  // from a rank that was killed mid-message aborts the reader inside Open MPI ("Read -1,
  // expected N, errno = 3"), which would take rank 0 down before it can report the rank. A
  // setting of the user's own wins.
  ::setenv("OMPI_MCA_btl_vader_single_copy_mechanism", "none", 0);
  auto lib = std::make_unique<Library>(
      std::vector<std::string>{env("R4TUNE_MPI_LIBRARY"), R4_MPI_SONAME, "libmpi.so"});
  return std::make_unique<MpiWorld>(std::move(lib), l.via);
}

#else

std::unique_ptr<World> World::from_environment() {
  const Launch l = detect_launch();
  if (!l.launched || l.size == 1 || env("R4TUNE_MPI") == "0") return single();
  throw Error(fmt::format(
      "started by an MPI launcher ({}) but this r4tune was built without MPI support "
      "(R4_MPI=OFF: no Open MPI headers at build time); rebuild with libopenmpi-dev installed, "
      "or set R4TUNE_MPI=0 to run each rank as a separate sweep",
      l.via));
}

#endif

}  // namespace r4::mpi
