#include "tuner/tune/worker_sampler.hpp"

#include <algorithm>

namespace r4::tune {

double WorkerSampler::sample(std::size_t entry, bool whole_pool) {
  auto r = w_.call({{"op", "sample"}, {"entry", entry}, {"full", whole_pool}}, deadline_);
  if (r.status != worker::JobStatus::ok) throw Failure{entry, r.detail};
  if (!r.reply.value("ok", false))
    throw Failure{entry, r.reply.value("error", std::string("sample failed"))};
  const double us = r.reply.at("us").get<double>();
  seconds_ += us * 1e-6 * r.reply.value("launches", copies_);
  return us;
}

std::vector<double> WorkerSampler::sample_round(const std::vector<std::size_t>& entries,
                                                bool whole_pool) {
  if (single_) return Sampler::sample_round(entries, whole_pool);
  auto r = w_.call({{"op", "sample_many"}, {"entries", entries}, {"full", whole_pool}},
                   deadline_ * static_cast<long>(std::max<std::size_t>(1, entries.size())));
  if (r.status != worker::JobStatus::ok) throw RoundFailure{r.detail};
  if (!r.reply.value("ok", false))
    throw RoundFailure{r.reply.value("error", std::string("sample_many failed"))};
  const auto us = r.reply.at("us").get<std::vector<double>>();
  const auto launches = r.reply.at("launches").get<std::vector<int>>();
  if (us.size() != entries.size() || launches.size() != entries.size())
    throw RoundFailure{"sample_many: wrong reply length"};
  for (std::size_t i = 0; i < us.size(); ++i) seconds_ += us[i] * 1e-6 * launches[i];
  return us;
}

}  // namespace r4::tune
