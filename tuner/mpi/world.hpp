// The processes of one sweep: a world of one, or the ranks of an MPI job (`mpirun -n N r4tune
// sweep ...`, `srun --mpi=pmix r4tune sweep ...`). MPI is loaded at run time: libmpi (Open MPI's
// libmpi.so.40, the soname found at build time; R4TUNE_MPI_LIBRARY overrides it) is dlopened
// only when an MPI launcher started this process with more than one rank, so the one r4tune
// binary runs unchanged where no MPI is installed (the H200 machine) or none launched it. Built
// against Open MPI's mpi.h (libopenmpi-dev) for its types and ABI; a build without it
// (R4_MPI=OFF) refuses to run under a launcher with several ranks instead of running N separate
// sweeps. Only the thread that made the world calls it (MPI_THREAD_FUNNELED).
//
// Messages are byte strings (the sweep sends CBOR-encoded JSON). Collectives are called by every
// rank in the same order.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace r4::mpi {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What the environment says about an MPI launch.
struct Launch {
  bool launched = false;  // an MPI launcher's variables are set
  int size = 1;           // the job's size where the launcher says (else 1)
  std::string via;        // the variable that told, e.g. "OMPI_COMM_WORLD_SIZE=3"
};
[[nodiscard]] Launch detect_launch();

struct Message {
  int source = 0;
  std::string data;
  bool abandoned = false;  // the sender was given up while its message arrived (no data)
};

class World {
 public:
  // A world of one when no launcher started this process, or it started one rank, or
  // R4TUNE_MPI=0; else MPI, initialised. Throws Error when launched with several ranks and MPI
  // cannot be loaded or this build has no MPI support.
  [[nodiscard]] static std::unique_ptr<World> from_environment();
  // A world of one (no MPI), e.g. for tests.
  [[nodiscard]] static std::unique_ptr<World> single();
  virtual ~World() = default;

  [[nodiscard]] virtual int rank() const { return 0; }
  [[nodiscard]] virtual int size() const { return 1; }
  [[nodiscard]] bool root() const { return rank() == 0; }
  [[nodiscard]] bool is_mpi() const { return size() > 1; }
  // This host's name (gethostname).
  [[nodiscard]] const std::string& host() const { return host_; }
  // Where MPI came from, for the log ("libmpi.so.40 via OMPI_COMM_WORLD_SIZE=2"); empty without.
  [[nodiscard]] virtual std::string describe() const { return {}; }

  // Every rank's `mine`, in rank order, on every rank.
  [[nodiscard]] virtual std::vector<std::string> allgather(const std::string& mine) {
    return {mine};
  }
  // `data` from `root` to every rank.
  virtual void bcast(std::string& /*data*/, int /*root*/ = 0) {}
  virtual void barrier() {}
  // Point to point. send blocks until the data is buffered or received. try_recv returns a
  // waiting message with `tag` from any rank, or none; while the rest of a message is still on
  // its way it asks `give_up(source)` every millisecond, and a sender given up (its process died
  // mid-message) comes back as an abandoned message instead of blocking for ever.
  virtual void send(int to, int tag, const std::string& data);
  [[nodiscard]] virtual std::optional<Message> try_recv(
      int tag, const std::function<bool(int source)>& give_up = {});
  // Ends every rank of the job with `code` (MPI_Abort); exits this process without MPI.
  [[noreturn]] virtual void abort(int code);

 protected:
  World();

 private:
  std::string host_;
};

}  // namespace r4::mpi
