// A replay stand-in for `r4tune worker`, for testing the sweep's search, storage, isolation and
// resume logic without a GPU. It answers the device protocol (tuner/worker/device_session.hpp)
// with synthetic but deterministic timings: a config's time is a fixed function of its knobs and
// generation (plus lognormal noise), the baselines are fixed. It is NOT a measurement and says so
// in the device name. Faults are simulated for candidates the driver labels as injected ("oob"
// crashes the worker, "hang" never answers, "wrong" fails verification), mirroring what the real
// kernels built with R4_TEST_FAULT / R4_BROKEN_SCALE do on a GPU.
//   R4_REPLAY_NO_DEVICE=1       open fails as on a machine without a GPU
//   R4_REPLAY_SAMPLE_DELAY_US=N each sample sleeps N microseconds (so a test can kill mid-run)
//   R4_REPLAY_TIMING_CRASH_SK=S candidates with SK == S crash the worker when sampled
//   R4_REPLAY_VERIFY_CRASH_ALL=1 every verification crashes the worker (a broken build)
//   R4_REPLAY_VERIFY_WRONG_ALL=1 every verification finds a wrong result (a broken build)
// Several GPUs and failures for the scale-out tests (tuner/tune/host_dispatch.hpp, mpi_dispatch):
//   R4_REPLAY_DEVICES=A,A,B@sm_80 the host's GPUs by name (optionally @arch; default sm_90): GPUs
//                               of one name are one model. Default: one GPU.
//   R4_REPLAY_RACE_CRASH_DEVICE=d the worker of GPU d crashes at every race set-up
//   R4_REPLAY_RACE_CRASH_RANK=r  the workers of MPI rank r (OMPI_COMM_WORLD_RANK / PMIX_RANK)
//                               crash at every race set-up
//   R4_REPLAY_RACE_CRASH_ONCE=P  the first race set-up of the sweep crashes (P is created then,
//                               so only once across workers and restarts)
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tuner/worker/orphan_guard.hpp"
#include "tuner/worker/serve.hpp"

namespace {

using nlohmann::json;

// [WV, SK, MB, NPW, NT] or [WV, SK, MB, NPW, NT, GEN, ST] (a 5-array is generation 0). The sm90a
// generation (GEN 1) has its own model, flat in M, so that both generations win races: in the
// smoke spec's space the best mma_sync config takes 8.0 + 0.05 M us (8.4 at M = 8, 8.8 at
// M = 16) and the best sm90a one 8.6 us, so band 8 goes to mma_sync and band 16 to sm90a. The
// ldg generation (GEN 2) races too, at 9.5 us and up: it loses every race (the tests that count
// winners per generation keep their two-generation expectations).
double config_us(const json& cfg, int m) {
  const int wv = cfg[0], sk = cfg[1], mb = cfg[2], npw = cfg[3], nt = cfg[4];
  const int gen = cfg.size() > 5 ? cfg[5].get<int>() : 0;
  const int st = cfg.size() > 6 ? cfg[6].get<int>() : 0;
  if (gen == 1) return 6.5 + ((wv * 5 + sk * 3 + mb * 7 + npw * 2 + nt + st) % 11) * 0.7;
  if (gen == 2) return 9.5 + ((wv * 3 + sk * 5 + mb * 2 + npw * 7 + nt + st) % 7) * 0.6;
  return 8.0 + 0.05 * m + ((wv * 7 + sk * 3 + mb * 5 + npw * 2 + nt) % 13) * 0.8;
}

struct ReplayGpu {
  std::string name = "REPLAY (synthetic timings, not a GPU)";
  std::string arch = "sm_90";
};

std::vector<ReplayGpu> replay_gpus() {
  if (const char* e = std::getenv("R4_REPLAY_NO_DEVICE"); e && *e == '1') return {};
  const char* list = std::getenv("R4_REPLAY_DEVICES");
  if (!list || !*list) return {ReplayGpu{}};
  std::vector<ReplayGpu> out;
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ',')) {
    ReplayGpu g;
    const auto at = item.find('@');
    g.name = "REPLAY " + item.substr(0, at) + " (synthetic timings, not a GPU)";
    if (at != std::string::npos) g.arch = item.substr(at + 1);
    out.push_back(g);
  }
  return out;
}

json device_json(const ReplayGpu& g, int index) {
  char pci[32];
  std::snprintf(pci, sizeof pci, "0000:%02x:00.0", index + 1);
  return {{"index", index},         {"name", g.name},
          {"vendor", "nvidia"},     {"arch", g.arch},
          {"multiprocessors", 132}, {"l2_bytes", 62914560},
          {"llc_bytes", 62914560},  {"memory_bytes", 150109880320},
          {"pci_bus_id", pci}};
}

int env_int(const char* name, int otherwise) {
  const char* e = std::getenv(name);
  return e && *e ? std::atoi(e) : otherwise;
}

// Whether this worker's race set-up crashes (see the header).
bool race_crashes(int device) {
  if (device == env_int("R4_REPLAY_RACE_CRASH_DEVICE", -1)) return true;
  const int rank = env_int("OMPI_COMM_WORLD_RANK", env_int("PMIX_RANK", -1));
  if (rank >= 0 && rank == env_int("R4_REPLAY_RACE_CRASH_RANK", -1)) return true;
  if (const char* once = std::getenv("R4_REPLAY_RACE_CRASH_ONCE"); once && *once) {
    const int fd = ::open(once, O_CREAT | O_EXCL | O_WRONLY, 0644);
    if (fd >= 0) {
      ::close(fd);
      return true;
    }
  }
  return false;
}

}  // namespace

int main() {
  r4::worker::exit_when_orphaned();  // as `r4tune worker` does: the injected hang must not outlive
                                     // a killed sweep
  std::mt19937_64 rng(static_cast<unsigned long>(::getpid()));
  std::vector<double> entry_us;
  std::vector<bool> crash;
  int m = 1;
  r4::worker::Handlers h;
  int device = -1;
  h["devices"] = [](const json&) -> json {
    json list = json::array();
    const auto gpus = replay_gpus();
    for (std::size_t i = 0; i < gpus.size(); ++i)
      list.push_back(device_json(gpus[i], static_cast<int>(i)));
    return {{"devices", list}, {"status", "replay worker"}};
  };
  h["open"] = [&](const json& r) -> json {
    if (const char* e = std::getenv("R4_REPLAY_NO_DEVICE"); e && *e == '1')
      return {{"ok", false}, {"error", "no GPU (replay worker told to have none)"}};
    const auto gpus = replay_gpus();
    device = r.value("device", 0);
    if (device < 0 || device >= static_cast<int>(gpus.size()))
      return {{"ok", false},
              {"error", "no GPU device " + std::to_string(device) + " (replay worker has " +
                            std::to_string(gpus.size()) + ")"}};
    return {{"device", device_json(gpus[static_cast<std::size_t>(device)], device)},
            {"ceiling_gbps", 4000.0},
            {"ceiling_gbps_best", 4010.0},
            {"ceiling_bytes", 1073741824},
            {"ceiling_samples", 15}};
  };
  h["shape"] = [](const json&) { return json{{"copies", 4}}; };
  h["verify"] = [](const json& r) -> json {
    const std::string inj = r.value("injected", "");
    if (const char* e = std::getenv("R4_REPLAY_VERIFY_CRASH_ALL"); e && *e == '1')
      std::raise(SIGSEGV);
    if (const char* e = std::getenv("R4_REPLAY_VERIFY_WRONG_ALL"); e && *e == '1')
      return {{"pass", false}, {"bad", 7}, {"max_ratio", 3.5}, {"detail", "replay: all wrong"}};
    if (inj == "oob") std::raise(SIGSEGV);
    if (inj == "hang") std::this_thread::sleep_for(std::chrono::hours(1));
    if (inj == "wrong")
      return {{"pass", false}, {"bad", 1234}, {"max_ratio", 1e30}, {"detail", "wrong scale"}};
    return {{"pass", true}, {"bad", 0}, {"max_ratio", 0.5}, {"detail", ""}};
  };
  h["race"] = [&](const json& r) -> json {
    if (race_crashes(device)) std::raise(SIGSEGV);
    m = r.at("m").get<int>();
    entry_us.clear();
    json ready = json::array(), notes = json::array();
    crash.clear();
    const char* crash_sk = std::getenv("R4_REPLAY_TIMING_CRASH_SK");
    for (const auto& e : r.at("entries")) {
      if (e.contains("baseline"))
        entry_us.push_back(e["baseline"] == "bf16" ? 30.0 : 25.0);
      else
        entry_us.push_back(config_us(e.at("config"), m));
      // R4_REPLAY_TIMING_CRASH_SK=S: candidates with SK == S crash the worker when sampled (a
      // kernel that passed verification but faults while being timed).
      crash.push_back(crash_sk && !e.contains("baseline") &&
                      e.at("config").at(1).get<int>() == std::atoi(crash_sk));
      ready.push_back(true);
      notes.push_back(e.contains("baseline") ? "replay baseline" : "");
    }
    return {{"ready", ready}, {"notes", notes}, {"copies", 4}};
  };
  const auto one = [&](std::size_t i) {
    if (const char* d = std::getenv("R4_REPLAY_SAMPLE_DELAY_US"))
      std::this_thread::sleep_for(std::chrono::microseconds(std::atoi(d)));
    if (crash.at(i)) std::raise(SIGSEGV);
    std::lognormal_distribution<double> noise(0.0, 0.004);
    return entry_us.at(i) * noise(rng);
  };
  h["sample"] = [&](const json& r) -> json {
    return {{"us", one(r.at("entry").get<std::size_t>())}, {"launches", 4}};
  };
  h["sample_many"] = [&](const json& r) -> json {
    json us = json::array(), launches = json::array();
    for (const auto& e : r.at("entries")) {
      us.push_back(one(e.get<std::size_t>()));
      launches.push_back(4);
    }
    return {{"us", us}, {"launches", launches}};
  };
  // Floors and decode steps, synthetic like the rest: a launch floor of 2 us, a read floor of
  // (N*K/1e6) us, steps of a few microseconds per link per path.
  h["floors"] = [&](const json& r) -> json {
    json out = {{"read",
                 {{"samples", {5.0, 5.1, 5.05, 5.02, 4.99}},
                  {"detail", "replay read floor; best grid 264 blocks x 512 threads"},
                  {"grid", {264, 512}},
                  {"bytes", 1}}}};
    if (r.value("launch", false))
      out["launch"] = {{"samples", {2.0, 2.01, 1.99, 2.0, 2.02}},
                       {"detail", "replay launch floor"}};
    return out;
  };
  h["step"] = [&](const json& r) -> json {
    json steps = json::array();
    const auto links = r.at("shapes").size();
    for (const auto& st : r.at("steps")) {
      json paths = json::object();
      double base = 3.0;
      for (const auto& p : r.at("paths")) {
        std::vector<double> samples;
        for (int i = 0; i < 5; ++i)
          samples.push_back(base * static_cast<double>(links) * (1.0 + 0.001 * i));
        paths[p.get<std::string>()] = {{"ok", true},
                                       {"detail", "replay"},
                                       {"launches", static_cast<int>(links)},
                                       {"samples", samples}};
        base += 0.5;
      }
      steps.push_back({{"m", st.at("m")}, {"paths", paths}});
    }
    return {{"copies", 3}, {"steps", steps}};
  };
  return r4::worker::serve(std::cin, std::cout, h);
}
