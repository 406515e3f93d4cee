#include "tuner/tune/remote_queue.hpp"

#include <stdexcept>

namespace r4::tune {

using nlohmann::json;

json to_json(const RaceJob& j) {
  return {{"group", j.group},
          {"shape", j.shape},
          {"m", j.m},
          {"cost", j.cost},
          {"first_of_shape", j.first_of_shape},
          {"first_of_group", j.first_of_group},
          {"retried", j.retried}};
}

RaceJob race_job_from_json(const json& j) {
  RaceJob r;
  r.group = j.at("group");
  r.shape = j.at("shape");
  r.m = j.at("m");
  r.cost = j.at("cost");
  r.first_of_shape = j.at("first_of_shape");
  r.first_of_group = j.at("first_of_group");
  r.retried = j.at("retried");
  return r;
}

json answer_take(RaceSource& queue, const json& request) {
  std::optional<std::size_t> shape;
  if (const auto& s = request.at("shape"); !s.is_null()) shape = s.get<std::size_t>();
  const auto job = queue.take(request.at("group").get<std::size_t>(), shape);
  return {{"ticket", request.at("ticket")}, {"job", job ? to_json(*job) : json(nullptr)}};
}

std::optional<RaceJob> RemoteQueue::take(std::size_t group, std::optional<std::size_t> shape) {
  std::unique_lock lock(mu_);
  if (stopped_) return std::nullopt;
  for (auto it = retried_.begin(); it != retried_.end(); ++it)
    if (it->group == group) {
      RaceJob j = *it;
      retried_.erase(it);
      return j;
    }
  const std::uint64_t ticket = next_ticket_++;
  json request = {{"type", "take"},
                  {"ticket", ticket},
                  {"group", group},
                  {"shape", shape ? json(*shape) : json(nullptr)}};
  lock.unlock();
  ask_(std::move(request));
  lock.lock();
  cv_.wait(lock, [&] { return stopped_ || answers_.count(ticket) != 0; });
  const auto it = answers_.find(ticket);
  if (it == answers_.end()) return std::nullopt;  // stopped while waiting
  auto job = std::move(it->second);
  answers_.erase(it);
  if (stopped_) return std::nullopt;  // rank 0 said stop: leave it unraced (it stays for --resume)
  return job;
}

bool RemoteQueue::retry(const RaceJob& job) {
  std::lock_guard lock(mu_);
  if (job.retried) return false;  // its second failure (here, or on the rank that retried it)
  RaceJob again = job;
  again.first_of_shape = false;
  again.first_of_group = false;  // its per-shape stages ran (or failed) with the first attempt
  again.retried = true;
  retried_.insert(retried_.begin(), again);
  return true;
}

void RemoteQueue::stop() {
  {
    std::lock_guard lock(mu_);
    stopped_ = true;
  }
  cv_.notify_all();
}

std::size_t RemoteQueue::waiting() const {
  std::lock_guard lock(mu_);
  return retried_.size();
}

void RemoteQueue::deliver(const json& answer) {
  if (!answer.is_object() || !answer.contains("ticket") || !answer.contains("job"))
    throw std::invalid_argument("rank 0's answer to a take must hold a ticket and a job");
  const auto ticket = answer.at("ticket").get<std::uint64_t>();
  std::optional<RaceJob> job;
  if (!answer.at("job").is_null()) job = race_job_from_json(answer.at("job"));
  {
    std::lock_guard lock(mu_);
    answers_[ticket] = std::move(job);
  }
  cv_.notify_all();
}

}  // namespace r4::tune
