#include "tuner/gpu/dynlib.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <utility>

#include "tuner/gpu/types.hpp"

namespace r4::gpu {

DynLib::DynLib(std::vector<std::string> candidates) {
  for (const auto& c : candidates) {
    dlerror();
    handle_ = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle_) {
      path_ = c;
      error_.clear();
      return;
    }
    const char* e = dlerror();
    error_ = e ? e : ("cannot open " + c);
  }
  std::string tried;
  for (const auto& c : candidates) tried += (tried.empty() ? "" : ", ") + c;
  error_ = "none of [" + tried + "] could be loaded (last: " + error_ + ")";
}

DynLib::DynLib(DynLib&& o) noexcept {
  *this = std::move(o);
}

DynLib& DynLib::operator=(DynLib&& o) noexcept {
  if (this != &o) {
    if (handle_) dlclose(handle_);
    handle_ = std::exchange(o.handle_, nullptr);
    path_ = std::move(o.path_);
    error_ = std::move(o.error_);
  }
  return *this;
}

DynLib::~DynLib() {
  if (handle_) dlclose(handle_);
}

void* DynLib::find(const char* symbol) const {
  return handle_ ? dlsym(handle_, symbol) : nullptr;
}

void* DynLib::require(const char* symbol) const {
  void* p = find(symbol);
  if (!p) {
    throw Error("symbol " + std::string(symbol) + " not found in " +
                (path_.empty() ? std::string("(library not loaded)") : path_));
  }
  return p;
}

std::vector<std::string> library_candidates(const char* env_var, const std::string& fallback_dir,
                                            std::initializer_list<const char*> names) {
  std::vector<std::string> out;
  std::vector<std::string> dirs;
  if (const char* e = env_var ? std::getenv(env_var) : nullptr; e && *e) {
    dirs.push_back(std::string(e) + "/lib64");
    dirs.push_back(std::string(e) + "/lib");
  }
  if (!fallback_dir.empty()) dirs.push_back(fallback_dir);
  for (const auto& d : dirs)
    for (const char* n : names) out.push_back(d + "/" + n);
  for (const char* n : names) out.emplace_back(n);
  return out;
}

}  // namespace r4::gpu
