// The rows one step of a sweep produces, written together: a check, a failed measurement, a
// race's measurements with their samples, baselines and winners, a shape's floors, a run's
// steps. The stages fill batches and hand them to their context (SweepContext::write), which
// stamps the GPU that took them and passes them to its sink (row_sink.hpp): the database itself,
// or, on an MPI rank other than 0, rank 0, which writes them (tuner/tune/mpi_dispatch.hpp). So a
// batch is also a message: to_json / batch_from_json carry it between ranks exactly (doubles
// round-trip).
#pragma once

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "db/store.hpp"

namespace r4::tune {

template <class Row>
struct Sampled {
  Row row;
  std::vector<double> samples;
};

struct RowBatch {
  std::vector<db::CheckRow> checks;
  std::vector<Sampled<db::MeasurementRow>> measurements;
  std::vector<Sampled<db::BaselineRow>> baselines;
  // A winner names its measurement by index into `measurements` (ids belong to the database that
  // writes the batch); the row's own measurement_id is ignored.
  std::vector<std::pair<db::WinnerRow, std::optional<std::size_t>>> winners;
  std::vector<Sampled<db::FloorRow>> floors;
  std::vector<Sampled<db::StepRow>> steps;

  [[nodiscard]] bool empty() const {
    return checks.empty() && measurements.empty() && baselines.empty() && winners.empty() &&
           floors.empty() && steps.empty();
  }
  // Moves every row of `other` to the end of this one (winners' indices shifted).
  void append(RowBatch&& other);
};

// Sets the GPU of every row that has none.
void stamp_gpu(RowBatch& b, std::optional<db::Id> gpu);

// Writes the batch in one transaction, so a kill loses all of it or none: checks, measurements
// with samples, baselines with samples, winners (measurement indices mapped to the new ids),
// floors, steps. Returns the new measurement ids in batch order.
std::vector<db::Id> write_batch(db::Store& store, const RowBatch& b);

[[nodiscard]] nlohmann::json to_json(const RowBatch& b);
// Inverse of to_json; throws nlohmann::json::exception or db::Error on a malformed batch.
[[nodiscard]] RowBatch batch_from_json(const nlohmann::json& j);

}  // namespace r4::tune
