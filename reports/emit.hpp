// Generated tables from one run: pure functions of the database (the same run gives the same
// bytes; the only date in them is the run's own start date). Formats are described in docs/DB.md.
#pragma once

#include <string>

#include "db/store.hpp"

namespace r4::report {

// Python: one `_CFG`-shaped dict per kernel+dtype (the seeds' format) and `_A8_M`.
[[nodiscard]] std::string emit_python(const db::Store& store, db::Id run);
// C++: `constexpr r4d_table_row` arrays per kernel+dtype, `a8_m`, static checks.
[[nodiscard]] std::string emit_cpp(const db::Store& store, db::Id run);
// JSON: the same content with the measured times and speedups.
[[nodiscard]] std::string emit_json(const db::Store& store, db::Id run);

}  // namespace r4::report
