#include "tuner/worker/serve.hpp"

#include <exception>

namespace r4::worker {

int serve(std::istream& in, std::ostream& out, const Handlers& handlers) {
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    nlohmann::json reply;
    bool fatal = false;
    try {
      const auto req = nlohmann::json::parse(line);
      const std::string op = req.value("op", "");
      auto it = handlers.find(op);
      if (it == handlers.end()) {
        reply = {{"ok", false}, {"error", "unknown op '" + op + "'"}};
      } else {
        reply = it->second(req);
        if (!reply.contains("ok")) reply["ok"] = true;
        fatal = reply.value("fatal", false);
      }
    } catch (const std::exception& e) {
      reply = {{"ok", false}, {"error", e.what()}};
    }
    out << reply.dump() << "\n" << std::flush;
    if (fatal) return 3;
  }
  return 0;
}

}  // namespace r4::worker
