// Small RAII wrappers over the SQLite C API: one connection, one prepared statement, one
// transaction. Every failing call throws r4::db::Error naming the call, the SQL and SQLite's
// message, so nothing downstream ever looks at a raw result code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace r4::db {

// Base of every database error (open, SQL, schema, validation, lookup).
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
// Another connection held the lock longer than the busy timeout, or SQLite would not wait for it
// (SQLITE_BUSY / SQLITE_LOCKED).
class BusyError : public Error {
 public:
  using Error::Error;
};

class Statement {
 public:
  Statement(sqlite3* db, std::string_view sql);
  Statement(Statement&&) noexcept = default;
  Statement& operator=(Statement&&) noexcept = default;
  ~Statement() = default;

  // Binds are 1-based, as in SQLite. nullopt binds NULL.
  Statement& bind(int i, std::int64_t v);
  Statement& bind(int i, int v) { return bind(i, static_cast<std::int64_t>(v)); }
  Statement& bind(int i, double v);
  Statement& bind(int i, std::string_view v);
  Statement& bind(int i, const std::string& v) { return bind(i, std::string_view(v)); }
  Statement& bind(int i, const char* v) { return bind(i, std::string_view(v)); }
  Statement& bind(int i, std::span<const std::byte> blob);
  Statement& bind(int i, std::nullopt_t);
  template <class T>
  Statement& bind(int i, const std::optional<T>& v) {
    return v ? bind(i, *v) : bind(i, std::nullopt);
  }
  // Binds args to ?1, ?2, ... in order.
  template <class... Args>
  Statement& bind_all(const Args&... args) {
    int i = 0;
    (bind(++i, args), ...);
    return *this;
  }

  // True while a row is available; false when done. Throws on error.
  bool step();
  // Runs to completion (for statements without rows).
  void run();
  void reset();

  [[nodiscard]] bool is_null(int col) const;
  [[nodiscard]] std::int64_t i64(int col) const;
  [[nodiscard]] int i32(int col) const;
  [[nodiscard]] double f64(int col) const;
  [[nodiscard]] std::string text(int col) const;
  [[nodiscard]] std::vector<std::byte> blob(int col) const;
  [[nodiscard]] std::optional<std::int64_t> opt_i64(int col) const;
  [[nodiscard]] std::optional<int> opt_i32(int col) const;
  [[nodiscard]] std::optional<double> opt_f64(int col) const;

 private:
  struct Finalize {
    void operator()(sqlite3_stmt* s) const;
  };
  [[noreturn]] void fail(const char* what, int rc) const;
  sqlite3* db_ = nullptr;
  std::unique_ptr<sqlite3_stmt, Finalize> stmt_;
  std::string sql_;
};

enum class OpenMode { read_only, read_write_create };

// How long a statement waits for another connection's lock before failing with "database is
// locked".
inline constexpr int kBusyTimeoutMs = 60000;

class Connection {
 public:
  Connection(const std::string& path, OpenMode mode);

  [[nodiscard]] Statement prepare(std::string_view sql) const { return Statement(db_.get(), sql); }
  // Runs one or more statements with no result rows.
  void exec(const std::string& sql) const;
  // The first column of the first row as text, or nullopt if no row.
  [[nodiscard]] std::optional<std::string> query_text(const std::string& sql) const;
  [[nodiscard]] std::int64_t last_insert_id() const;
  // Rows changed by the last INSERT / UPDATE / DELETE.
  [[nodiscard]] int changes() const;
  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] OpenMode mode() const { return mode_; }
  [[nodiscard]] sqlite3* handle() const { return db_.get(); }

 private:
  struct Close {
    void operator()(sqlite3* db) const;
  };
  std::unique_ptr<sqlite3, Close> db_;
  std::string path_;
  OpenMode mode_;
  // Held by every Transaction on this connection for its lifetime (recursive: a nested one runs
  // on the thread that holds the outer one). A connection's transaction state is shared by its
  // threads: without it, a second thread's Transaction saw the first one's open transaction,
  // took a SAVEPOINT, and failed on RELEASE once the first committed ("no such savepoint:
  // r4_nested"; seen in a clean-clone CI run, 2026-12-03: the sweep's compile thread linking
  // compiles while the dispatcher recorded worker time).
  mutable std::recursive_mutex tx_mu_;
  friend class Transaction;
};

// Outermost: BEGIN IMMEDIATE on construction (takes the write lock up front, so a busy database
// waits in busy_timeout instead of failing half-way) and COMMIT / ROLLBACK. Nested (a transaction
// is already open, e.g. merge() calling the insert functions): a SAVEPOINT, released or rolled
// back on its own. The destructor rolls back unless commit() ran. Transactions of one connection
// on different threads run one after another (Connection::tx_mu_).
class Transaction {
 public:
  explicit Transaction(const Connection& c);
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();
  void commit();

 private:
  std::unique_lock<std::recursive_mutex> lock_;
  const Connection& c_;
  bool nested_ = false;
  bool done_ = false;
};

}  // namespace r4::db
