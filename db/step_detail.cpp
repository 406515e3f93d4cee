#include "db/step_detail.hpp"

#include <nlohmann/json.hpp>

namespace r4::db {

std::string step_detail_json(const StepDetail& d) {
  // ordered_json keeps the documented key order, so the stored text reads as documented.
  nlohmann::ordered_json chain = nlohmann::ordered_json::array();
  for (const auto& l : d.chain)
    chain.push_back({{"shape", l.shape},
                     {"n", l.n},
                     {"k", l.k},
                     {"kernel", l.kernel},
                     {"dtype", l.dtype},
                     {"generation", l.generation},
                     {"config", l.config},
                     {"algo", l.algo}});
  nlohmann::ordered_json j;
  j["chain"] = std::move(chain);
  j["error"] = d.error;
  return j.dump();
}

StepDetail parse_step_detail(std::string_view text) {
  StepDetail d;
  const auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) {
    d.error = std::string(text);
    return d;
  }
  auto str = [](const nlohmann::json& o, const char* key) {
    const auto it = o.find(key);
    return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  auto i64 = [](const nlohmann::json& o, const char* key) -> std::int64_t {
    const auto it = o.find(key);
    return it != o.end() && it->is_number_integer() ? it->get<std::int64_t>() : 0;
  };
  d.error = str(j, "error");
  const auto chain = j.find("chain");
  if (chain == j.end() || !chain->is_array()) return d;
  for (const auto& e : *chain) {
    if (!e.is_object()) continue;
    StepLink l;
    l.shape = str(e, "shape");
    l.n = i64(e, "n");
    l.k = i64(e, "k");
    l.kernel = str(e, "kernel");
    l.dtype = str(e, "dtype");
    l.generation = str(e, "generation");
    l.algo = str(e, "algo");
    if (const auto c = e.find("config"); c != e.end() && c->is_array())
      for (const auto& v : *c)
        if (v.is_number_integer()) l.config.push_back(v.get<int>());
    d.chain.push_back(std::move(l));
  }
  return d;
}

}  // namespace r4::db
