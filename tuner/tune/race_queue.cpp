#include "tuner/tune/race_queue.hpp"

#include <algorithm>

#include "kernels/family.hpp"

namespace r4::tune {

double race_cost(const Plan& plan, const gpu::Arch& arch, const ShapeSpec& sh, int m,
                 std::size_t baselines) {
  std::size_t entries = baselines;
  for (const auto& u : plan.units)
    if (u.ok && kernels::is_valid(u.id, u.config, arch, {sh.n, sh.k, m})) ++entries;
  return static_cast<double>(entries) * static_cast<double>(kernels::weight_bytes(sh.n, sh.k));
}

std::vector<RaceJob> make_jobs(const Spec& spec, const std::vector<GroupPlan>& groups) {
  std::vector<RaceJob> jobs;
  const auto ms = measured_ms(spec);
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (std::size_t s = 0; s < spec.shapes.size(); ++s)
      for (int m : ms) {
        const auto& sh = spec.shapes[s];
        if (groups[g].raced && groups[g].raced->count({sh.n, sh.k, m})) continue;
        jobs.push_back({g, s, m,
                        race_cost(*groups[g].plan, groups[g].arch, sh, m, spec.baselines.size()),
                        false});
      }
  std::stable_sort(jobs.begin(), jobs.end(),
                   [](const RaceJob& a, const RaceJob& b) { return a.cost > b.cost; });
  std::set<std::pair<std::size_t, std::size_t>> seen;
  std::set<std::size_t> groups_seen;
  for (auto& j : jobs) {
    j.first_of_shape = seen.insert({j.group, j.shape}).second;
    j.first_of_group = groups_seen.insert(j.group).second;
  }
  return jobs;
}

std::optional<RaceJob> RaceQueue::take(std::size_t group, std::optional<std::size_t> shape) {
  std::lock_guard lock(mu_);
  if (stopped_) return std::nullopt;
  auto pick = jobs_.end();
  // jobs_ is longest first (a retried race at the front), so the first match is the longest.
  for (auto it = jobs_.begin(); it != jobs_.end() && pick == jobs_.end(); ++it)
    if (it->group == group && it->retried) pick = it;
  if (pick == jobs_.end() && shape)
    for (auto it = jobs_.begin(); it != jobs_.end() && pick == jobs_.end(); ++it)
      if (it->group == group && it->shape == *shape) pick = it;
  if (pick == jobs_.end()) {
    std::map<std::size_t, double> left;  // the group's estimated work per shape
    for (const auto& j : jobs_)
      if (j.group == group) left[j.shape] += j.cost;
    double best = -1;
    for (auto it = jobs_.begin(); it != jobs_.end(); ++it) {  // ties: the longest race first
      if (it->group != group || left.count(it->shape) == 0) continue;
      const auto h = holders_.find({group, it->shape});
      const double score = left[it->shape] / (1.0 + (h == holders_.end() ? 0 : h->second));
      if (score > best) {
        best = score;
        pick = it;
      }
      left.erase(it->shape);  // scored once, at its longest race
    }
  }
  if (pick == jobs_.end()) return std::nullopt;
  if (!shape || pick->shape != *shape) {
    if (shape) --holders_[{group, *shape}];
    ++holders_[{group, pick->shape}];
  }
  RaceJob j = *pick;
  jobs_.erase(pick);
  return j;
}

bool RaceQueue::retry(const RaceJob& job) {
  std::lock_guard lock(mu_);
  if (++attempts_[{job.group, job.shape, job.m}] > 1) return false;
  RaceJob again = job;
  again.first_of_shape = false;
  again.first_of_group = false;  // its per-shape stages ran (or failed) with the first attempt
  again.retried = true;
  jobs_.insert(jobs_.begin(), again);
  return true;
}

void RaceQueue::stop() {
  std::lock_guard lock(mu_);
  stopped_ = true;
}

bool RaceQueue::stopped() const {
  std::lock_guard lock(mu_);
  return stopped_;
}

std::size_t RaceQueue::waiting() const {
  std::lock_guard lock(mu_);
  return jobs_.size();
}

}  // namespace r4::tune
