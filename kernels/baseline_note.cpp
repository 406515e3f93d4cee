#include <regex>
#include <string>

#include "kernels/baseline.hpp"

namespace r4::kernels {

namespace {
constexpr std::string_view kEarlier = " (an earlier run's choice)";
}  // namespace

std::string algo_note(const AlgoHint& chosen, bool from_hint) {
  std::string s = chosen.library + " algo " + std::to_string(chosen.index) +
                  " of the heuristic's top " + std::to_string(chosen.found);
  if (from_hint) s += kEarlier;
  return s;
}

std::optional<AlgoHint> parse_algo_note(std::string_view note) {
  // The library name and version: one word and a number (notes written before the version was
  // recorded, "cuBLASLt algo 1 of ...", give no hint).
  static const std::regex re(R"(([A-Za-z]+ [0-9]+) algo ([0-9]+) of the heuristic's top ([0-9]+))");
  std::match_results<std::string_view::const_iterator> m;
  if (!std::regex_search(note.begin(), note.end(), m, re)) return std::nullopt;
  AlgoHint h;
  h.library = m[1].str();
  try {
    h.index = std::stoi(m[2].str());
    h.found = std::stoi(m[3].str());
  } catch (const std::exception&) {
    return std::nullopt;  // out of int range: not a note this code wrote
  }
  if (h.found < 1 || h.index < 0 || h.index >= h.found) return std::nullopt;
  return h;
}

}  // namespace r4::kernels
