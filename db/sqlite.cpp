#include "db/sqlite.hpp"

#include <sqlite3.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/core.h>

namespace r4::db {

namespace {

[[noreturn]] void throw_db(sqlite3* db, const std::string& what, int rc) {
  const char* msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  throw Error(fmt::format("{}: {} ({})", what, msg, sqlite3_errstr(rc)));
}

// A file SQLite could only open read-only (no write permission on it), or whose folder cannot take
// the WAL and shared-memory files next to it, fails here with the path and the reason, instead of
// at the first write ("attempt to write a readonly database") after the sweep has started.
void require_writable(sqlite3* db) {
  const char* file = sqlite3_db_filename(db, "main");
  const std::string path = file ? file : "";
  if (path.empty()) return;  // in memory
  if (sqlite3_db_readonly(db, "main") == 1)
    throw Error(
        fmt::format("database '{}' is not writable by this process (its permissions)", path));
  const auto dir = std::filesystem::path(path).parent_path();
  if (::access(dir.c_str(), W_OK) != 0)
    throw Error(
        fmt::format("database '{}': its folder {} is not writable ({}); the database "
                    "needs its -wal and -shm files next to it",
                    path, dir.string(), std::strerror(errno)));
}

}  // namespace

void Statement::Finalize::operator()(sqlite3_stmt* s) const {
  sqlite3_finalize(s);
}

Statement::Statement(sqlite3* db, std::string_view sql) : db_(db), sql_(sql) {
  sqlite3_stmt* s = nullptr;
  const int rc = sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &s, nullptr);
  stmt_.reset(s);
  if (rc != SQLITE_OK) throw_db(db, fmt::format("preparing '{}'", sql), rc);
}

void Statement::fail(const char* what, int rc) const {
  throw_db(db_, fmt::format("{} '{}'", what, sql_), rc);
}

Statement& Statement::bind(int i, std::int64_t v) {
  if (int rc = sqlite3_bind_int64(stmt_.get(), i, v); rc != SQLITE_OK) fail("binding", rc);
  return *this;
}
Statement& Statement::bind(int i, double v) {
  if (int rc = sqlite3_bind_double(stmt_.get(), i, v); rc != SQLITE_OK) fail("binding", rc);
  return *this;
}
Statement& Statement::bind(int i, std::string_view v) {
  if (int rc =
          sqlite3_bind_text64(stmt_.get(), i, v.data(), v.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
      rc != SQLITE_OK)
    fail("binding", rc);
  return *this;
}
Statement& Statement::bind(int i, std::span<const std::byte> blob) {
  if (int rc = sqlite3_bind_blob64(stmt_.get(), i, blob.data(), blob.size(), SQLITE_TRANSIENT);
      rc != SQLITE_OK)
    fail("binding", rc);
  return *this;
}
Statement& Statement::bind(int i, std::nullopt_t) {
  if (int rc = sqlite3_bind_null(stmt_.get(), i); rc != SQLITE_OK) fail("binding", rc);
  return *this;
}

bool Statement::step() {
  const int rc = sqlite3_step(stmt_.get());
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  fail("running", rc);
}

void Statement::run() {
  while (step()) {
  }
}

void Statement::reset() {
  sqlite3_reset(stmt_.get());
  sqlite3_clear_bindings(stmt_.get());
}

bool Statement::is_null(int col) const {
  return sqlite3_column_type(stmt_.get(), col) == SQLITE_NULL;
}
std::int64_t Statement::i64(int col) const {
  return sqlite3_column_int64(stmt_.get(), col);
}
int Statement::i32(int col) const {
  return sqlite3_column_int(stmt_.get(), col);
}
double Statement::f64(int col) const {
  return sqlite3_column_double(stmt_.get(), col);
}
std::string Statement::text(int col) const {
  const auto* p = sqlite3_column_text(stmt_.get(), col);
  const int n = sqlite3_column_bytes(stmt_.get(), col);
  return p ? std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(n))
           : std::string();
}
std::vector<std::byte> Statement::blob(int col) const {
  const auto* p = static_cast<const std::byte*>(sqlite3_column_blob(stmt_.get(), col));
  const int n = sqlite3_column_bytes(stmt_.get(), col);
  return p ? std::vector<std::byte>(p, p + n) : std::vector<std::byte>();
}
std::optional<std::int64_t> Statement::opt_i64(int col) const {
  if (is_null(col)) return std::nullopt;
  return i64(col);
}
std::optional<int> Statement::opt_i32(int col) const {
  if (is_null(col)) return std::nullopt;
  return i32(col);
}
std::optional<double> Statement::opt_f64(int col) const {
  if (is_null(col)) return std::nullopt;
  return f64(col);
}

void Connection::Close::operator()(sqlite3* db) const {
  sqlite3_close_v2(db);
}

Connection::Connection(const std::string& path, OpenMode mode) : path_(path), mode_(mode) {
  const int flags = (mode == OpenMode::read_only ? SQLITE_OPEN_READONLY
                                                 : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) |
                    SQLITE_OPEN_FULLMUTEX;  // serialized: see Connection::tx_mu_ for why
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  db_.reset(db);
  if (rc != SQLITE_OK) {
    std::error_code ec;
    const auto dir = std::filesystem::absolute(path, ec).parent_path();
    if (mode == OpenMode::read_write_create && !std::filesystem::is_directory(dir, ec))
      throw Error(
          fmt::format("opening database '{}': its folder {} does not exist", path, dir.string()));
    throw_db(db, fmt::format("opening database '{}'", path), rc);
  }
  sqlite3_extended_result_codes(db, 1);
  // Another process (a sweep, a report, several sweeps on one file, an MPI rank 0 gathering
  // rows) may hold the write lock: for one race's rows that is milliseconds, for a `db merge` of
  // a large file seconds. 60 s before a write gives up.
  sqlite3_busy_timeout(db, kBusyTimeoutMs);
  if (mode == OpenMode::read_write_create) require_writable(db);
  // SQLite only notices a file that is not a database on first read; read the header now so
  // "not a database" is an open error and not a surprise later.
  exec("SELECT count(*) FROM sqlite_master");
}

void Connection::exec(const std::string& sql) const {
  char* err = nullptr;
  const int rc = sqlite3_exec(db_.get(), sql.c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errstr(rc);
    sqlite3_free(err);
    const auto text = fmt::format("database '{}': {} (running: {:.120})", path_, msg, sql);
    if ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED) throw BusyError(text);
    throw Error(text);
  }
}

std::optional<std::string> Connection::query_text(const std::string& sql) const {
  auto s = prepare(sql);
  if (!s.step()) return std::nullopt;
  return s.text(0);
}

std::int64_t Connection::last_insert_id() const {
  return sqlite3_last_insert_rowid(db_.get());
}
int Connection::changes() const {
  return sqlite3_changes(db_.get());
}

Transaction::Transaction(const Connection& c)
    : lock_(c.tx_mu_), c_(c), nested_(sqlite3_get_autocommit(c.handle()) == 0) {
  c_.exec(nested_ ? "SAVEPOINT r4_nested" : "BEGIN IMMEDIATE");
}

Transaction::~Transaction() {
  if (done_) return;
  try {
    c_.exec(nested_ ? "ROLLBACK TO r4_nested; RELEASE r4_nested" : "ROLLBACK");
  } catch (...) {  // the transaction may already be gone (SQLite rolls back on some errors)
  }
}

void Transaction::commit() {
  c_.exec(nested_ ? "RELEASE r4_nested" : "COMMIT");
  done_ = true;
}

}  // namespace r4::db
