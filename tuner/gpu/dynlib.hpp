// RAII over dlopen/dlsym. The backends load vendor libraries through this so that r4tune starts
// on machines without them; a missing symbol is an Error naming the library and the symbol.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

namespace r4::gpu {

class DynLib {
 public:
  DynLib() = default;
  // Tries each candidate in order (absolute paths or sonames); `loaded()` says if one opened.
  explicit DynLib(std::vector<std::string> candidates);
  DynLib(const DynLib&) = delete;
  DynLib& operator=(const DynLib&) = delete;
  DynLib(DynLib&& o) noexcept;
  DynLib& operator=(DynLib&& o) noexcept;
  ~DynLib();

  [[nodiscard]] bool loaded() const { return handle_ != nullptr; }
  [[nodiscard]] const std::string& path() const { return path_; }
  // Why nothing loaded: the last dlerror() and the names tried.
  [[nodiscard]] const std::string& error() const { return error_; }
  // nullptr if absent.
  [[nodiscard]] void* find(const char* symbol) const;
  // Throws Error if absent.
  [[nodiscard]] void* require(const char* symbol) const;

  template <class F>
  void bind(F*& fn, const char* symbol) const {
    fn = reinterpret_cast<F*>(require(symbol));
  }

 private:
  void* handle_ = nullptr;
  std::string path_;
  std::string error_;
};

// Candidate paths for a library shipped in a toolkit folder: $ENV/lib64, $ENV/lib, the fallback
// folder, then the bare sonames (resolved by the loader's own search path).
[[nodiscard]] std::vector<std::string> library_candidates(const char* env_var,
                                                          const std::string& fallback_dir,
                                                          std::initializer_list<const char*> names);

}  // namespace r4::gpu
