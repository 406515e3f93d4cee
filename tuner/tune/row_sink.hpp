// Where a sweep context's rows go (SweepContext::write): one interface, so the stages do not know
// whether they run in the process that holds the database. StoreSink writes to the database (one
// batch at a time: the workers' threads of a host dispatcher share the connection); on an MPI
// rank other than 0 the sink queues batches for rank 0 (tuner/tune/mpi_dispatch.cpp).
#pragma once

#include <mutex>

#include "db/store.hpp"
#include "tuner/tune/row_batch.hpp"

namespace r4::tune {

class RowSink {
 public:
  virtual ~RowSink() = default;
  // Thread-safe. A batch is written in one transaction or not at all.
  virtual void write(RowBatch batch) = 0;
};

class StoreSink final : public RowSink {
 public:
  explicit StoreSink(db::Store& store) : store_(store) {}
  void write(RowBatch batch) override {
    std::lock_guard lock(mu_);
    write_batch(store_, batch);
  }
  // Held by anyone else who writes the store while workers' threads run (run-level rows).
  [[nodiscard]] std::mutex& mutex() { return mu_; }

 private:
  db::Store& store_;
  std::mutex mu_;
};

}  // namespace r4::tune
