// A worker with test ops only, for the isolation tests: no GPU involved.
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "tuner/worker/orphan_guard.hpp"
#include "tuner/worker/serve.hpp"

int main() {
  r4::worker::exit_when_orphaned();
  r4::worker::Handlers h;
  h["echo"] = [](const nlohmann::json& r) { return nlohmann::json{{"value", r.at("value")}}; };
  h["pid"] = [](const nlohmann::json&) { return nlohmann::json{{"pid", ::getpid()}}; };
  h["sleep"] = [](const nlohmann::json& r) {
    std::this_thread::sleep_for(std::chrono::milliseconds(r.at("ms").get<int>()));
    return nlohmann::json{};
  };
  h["segv"] = [](const nlohmann::json&) -> nlohmann::json {
    std::cerr << "about to fault\n";
    std::raise(SIGSEGV);
    return {};
  };
  h["throw"] = [](const nlohmann::json&) -> nlohmann::json { throw std::runtime_error("boom"); };
  h["fatal"] = [](const nlohmann::json&) { return nlohmann::json{{"ok", false}, {"fatal", true}}; };
  h["noise"] = [](const nlohmann::json&) {
    std::cout << "a library printed this\n";
    return nlohmann::json{{"value", 1}};
  };
  return r4::worker::serve(std::cin, std::cout, h);
}
