// Many hosts (`mpirun -n N r4tune sweep SPEC ...`, `srun --mpi=pmix r4tune sweep ...`): every
// rank drives its host's GPUs as the host dispatcher does (HostLanes; the ranks of one host
// share its GPUs out between them, --devices choosing which, all by default), and every rank's
// workers take their races from one queue on rank 0 (remote_queue.hpp: a worker asks for its next
// race when it is free, so the ranks finish together whatever the races' lengths). Only rank 0
// holds the database: the other ranks send it their rows as they are made (one message per batch of
// row_batch.hpp, CBOR), with their dispatch-log events and a heartbeat, and their tallies at the
// end; rank 0 writes them through the same sink its own workers use.
//
// A rank that fails is reported by rank 0 with its host and GPUs: one whose workers give races up
// (they are listed), one that stops answering for --rank-timeout-s (or whose process is gone, on
// rank 0's host), or one killed under a launcher that then ends the job (rank 0 is sent SIGTERM:
// it names the ranks and races in flight, marks the runs partial and exits). Unfinished races
// stay unstored, so `--resume` with the same or another rank count finishes them.
//
// Only the thread that made the MPI world calls MPI: the workers' threads hand rows and events
// to it through a queue.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tuner/mpi/world.hpp"
#include "tuner/tune/dispatch.hpp"
#include "tuner/tune/host_dispatch.hpp"

namespace r4::tune {

class MpiDispatcher final : public Dispatcher {
 public:
  MpiDispatcher(SweepContext& ctx, mpi::World& world);
  ~MpiDispatcher() override;
  [[nodiscard]] OpenedDevices open() override;
  void run(const std::vector<SweepContext*>& groups, const std::vector<GpuSlot>& gpus,
           const DispatchWork& work) override;
  void stop() override { lanes_.stop(); }
  [[nodiscard]] std::vector<std::string> failed_races() const override { return failed_; }
  // Ranks reported failed this invocation: the job must end with MPI_Abort (collectives would
  // wait for them forever).
  [[nodiscard]] bool lost_ranks() const { return lost_ranks_; }

 private:
  struct Remote;
  void run_root(const std::vector<SweepContext*>& groups, const std::vector<GpuSlot>& gpus,
                const DispatchWork& work, std::vector<RaceJob> jobs);
  void run_other(const std::vector<SweepContext*>& groups, const std::vector<GpuSlot>& gpus,
                 const DispatchWork& work);

  SweepContext& ctx_;
  mpi::World& world_;
  HostLanes lanes_;
  std::vector<int> pids_;  // every rank's process id, for rank 0's liveness check on its host
  std::vector<std::string> hosts_;
  std::vector<std::string> failed_;
  bool lost_ranks_ = false;
};

}  // namespace r4::tune
