#include "tuner/tune/dispatch_log.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fmt/core.h>

namespace r4::tune {

using nlohmann::json;

json to_json(const DispatchEvent& e) {
  json j = {
      {"event", e.event}, {"t", e.t}, {"rank", e.rank}, {"host", e.host}, {"gpu", e.gpu},
      {"group", e.group}, {"n", e.n}, {"k", e.k},       {"m", e.m},       {"seconds", e.seconds}};
  if (!e.detail.empty()) j["detail"] = e.detail;
  return j;
}

DispatchEvent event_from_json(const json& j) {
  DispatchEvent e;
  e.event = j.at("event");
  e.t = j.at("t");
  e.rank = j.at("rank");
  e.host = j.at("host");
  e.gpu = j.at("gpu");
  e.group = j.at("group");
  e.n = j.at("n");
  e.k = j.at("k");
  e.m = j.at("m");
  e.seconds = j.at("seconds");
  e.detail = j.value("detail", std::string());
  return e;
}

json to_json(const WorkerStats& s) {
  json j = {{"rank", s.rank},         {"host", s.host},
            {"gpu", s.gpu},           {"group", s.group},
            {"races", s.races},       {"failed", s.failed},
            {"restarts", s.restarts}, {"busy_seconds", s.busy_seconds},
            {"retired", s.retired}};
  if (s.gpu_id) j["gpu_id"] = *s.gpu_id;
  return j;
}

WorkerStats stats_from_json(const json& j) {
  WorkerStats s;
  s.rank = j.at("rank");
  s.host = j.at("host");
  s.gpu = j.at("gpu");
  s.group = j.at("group");
  s.races = j.at("races");
  s.failed = j.at("failed");
  s.restarts = j.at("restarts");
  s.busy_seconds = j.at("busy_seconds");
  s.retired = j.at("retired");
  if (j.contains("gpu_id")) s.gpu_id = j["gpu_id"].get<db::Id>();
  return s;
}

DispatchLog::DispatchLog(const std::string& path, ProgressMode mode) : mode_(mode) {
  if (path.empty()) return;
  file_.reset(std::fopen(path.c_str(), "a"));
  if (!file_)
    throw std::runtime_error(
        fmt::format("cannot write the dispatch log {}: {}", path, std::strerror(errno)));
}

void DispatchLog::event(const DispatchEvent& e) {
  if (!file_) return;
  fmt::print(file_.get(), "{}\n", to_json(e).dump());
  std::fflush(file_.get());
}

std::vector<double> DispatchLog::finish(const std::vector<WorkerStats>& workers,
                                        double wall_seconds) {
  std::vector<double> idle;
  for (const auto& w : workers) {
    const double i = std::max(0.0, wall_seconds - w.busy_seconds);
    idle.push_back(i);
    if (file_) {
      json j = to_json(w);
      j["event"] = "worker";
      j["idle_seconds"] = i;
      j["wall_seconds"] = wall_seconds;
      fmt::print(file_.get(), "{}\n", j.dump());
    }
    if (mode_ != ProgressMode::quiet)
      fmt::print(stderr,
                 "dispatch: rank {} host {} GPU {}: {} races{}, busy {:.1f} s, idle {:.1f} s "
                 "({:.0f}% of {:.1f} s){}{}\n",
                 w.rank, w.host, w.gpu, w.races,
                 w.failed ? fmt::format(" ({} failed)", w.failed) : "", w.busy_seconds, i,
                 wall_seconds > 0 ? 100.0 * i / wall_seconds : 0.0, wall_seconds,
                 w.restarts ? fmt::format(", {} worker restarts", w.restarts) : "",
                 w.retired ? ", retired after failing twice in a row" : "");
  }
  if (file_) std::fflush(file_.get());
  return idle;
}

}  // namespace r4::tune
