// CSV (RFC 4180) field formatting shared by `db export` and the per-run report CSV.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <fmt/core.h>

namespace r4::db {

// Quotes a field when it holds a comma, quote, CR or LF; doubles embedded quotes.
[[nodiscard]] inline std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// Shortest round-trip text for a number, empty for none: stable bytes across runs.
template <class T>
[[nodiscard]] std::string csv_num(const std::optional<T>& v) {
  return v ? fmt::format("{}", *v) : std::string();
}
template <class T>
[[nodiscard]] std::string csv_num(const T& v) {
  return fmt::format("{}", v);
}

}  // namespace r4::db
