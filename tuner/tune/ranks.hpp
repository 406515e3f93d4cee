// The few collective steps the sweep driver takes with its MPI ranks (a world of one without
// MPI, where they cost nothing): agreeing on an outcome, and rank 0's state sent to every rank.
// Messages are JSON encoded as CBOR (doubles and binaries exact).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "tuner/mpi/world.hpp"

namespace r4::tune {

// Every rank's outcome of a step: the largest exit code wins on every rank, and rank 0 prints
// each failing rank's message on stderr ("r4tune sweep: ..."; under MPI prefixed with the rank
// and host). Without MPI: prints `message` when non-empty and returns `code`.
[[nodiscard]] int agree(mpi::World& world, int code, const std::string& message);

// `from_root` as rank 0 has it, on every rank (ignored elsewhere).
[[nodiscard]] nlohmann::json share(mpi::World& world, const nlohmann::json& from_root);

[[nodiscard]] std::string pack(const nlohmann::json& j);
[[nodiscard]] nlohmann::json unpack(const std::string& bytes);

}  // namespace r4::tune
