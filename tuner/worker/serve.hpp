// The worker's side of the protocol: one JSON request per line on stdin, one JSON reply per line
// on stdout. A handler's exception becomes {"ok": false, "error": ...}; a handler that marks the
// reply "fatal" (a GPU fault that poisons the context) makes the worker exit after replying, so
// the driver's next call starts a clean process.
#pragma once

#include <functional>
#include <istream>
#include <map>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

namespace r4::worker {

using Handler = std::function<nlohmann::json(const nlohmann::json& request)>;
using Handlers = std::map<std::string, Handler>;

// Returns when stdin closes or a fatal reply was sent; the exit status for the process.
int serve(std::istream& in, std::ostream& out, const Handlers& handlers);

}  // namespace r4::worker
