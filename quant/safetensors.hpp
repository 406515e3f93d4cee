// safetensors files: an 8-byte little-endian header length, a JSON header
// {"name": {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]}, "__metadata__": {..}},
// then the data section. Reads are memory-mapped and validated in full before any tensor is
// handed out; anything malformed throws FormatError naming the problem (the fuzz target in
// quant/fuzz/ holds the parser to that: no crash, no sanitizer report, only FormatError).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "quant/dtype.hpp"

namespace r4::quant {

struct FormatError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct TensorInfo {
  std::string name;
  DType dtype = DType::f32;
  std::vector<std::int64_t> shape;
  std::span<const std::byte> bytes;  // into the mapped file

  [[nodiscard]] std::int64_t numel() const;
  // The tensor as a 2-D matrix; throws FormatError unless it has exactly two dimensions.
  [[nodiscard]] MatrixView matrix() const;
};

// Parses and validates a whole file image. The returned tensors point into `file`. Limits:
// header at most 100 MB (as the reference implementation), at most 8 dimensions per tensor.
struct Parsed {
  std::vector<TensorInfo> tensors;  // in data-offset order
  std::map<std::string, std::string> metadata;
};
[[nodiscard]] Parsed parse_safetensors(std::span<const std::byte> file);

// A read-only memory map of a file (RAII).
class MappedFile {
 public:
  explicit MappedFile(const std::filesystem::path& path);  // throws FormatError / std::system_error
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  [[nodiscard]] std::span<const std::byte> bytes() const { return {data_, size_}; }

 private:
  const std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

// An open, validated safetensors file.
class SafetensorsFile {
 public:
  explicit SafetensorsFile(const std::filesystem::path& path);
  [[nodiscard]] const std::vector<TensorInfo>& tensors() const { return parsed_.tensors; }
  [[nodiscard]] const std::map<std::string, std::string>& metadata() const {
    return parsed_.metadata;
  }
  [[nodiscard]] const Parsed& parsed() const { return parsed_; }
  [[nodiscard]] const TensorInfo* find(const std::string& name) const;  // nullptr if absent
  [[nodiscard]] const TensorInfo& at(const std::string& name) const;    // FormatError if absent

 private:
  std::unique_ptr<MappedFile> map_;
  Parsed parsed_;
  std::map<std::string, std::size_t> index_;
};

// Collects tensors and writes one safetensors file (offsets in insertion order, header padded
// with spaces to a multiple of 8 so the data section is 8-byte aligned).
class SafetensorsWriter {
 public:
  void add(std::string name, DType dtype, std::vector<std::int64_t> shape,
           std::vector<std::byte> bytes);
  template <class T>
  void add_values(std::string name, DType dtype, std::vector<std::int64_t> shape,
                  std::span<const T> values) {
    std::vector<std::byte> b(values.size_bytes());
    if (!b.empty()) std::memcpy(b.data(), values.data(), b.size());
    add(std::move(name), dtype, std::move(shape), std::move(b));
  }
  void set_metadata(std::string key, std::string value);
  // Writes PATH.tmp.PID and renames it over PATH, so PATH is either the old file or the whole new
  // one. Throws std::runtime_error on an I/O error (the temporary is removed).
  void write(const std::filesystem::path& path) const;
  [[nodiscard]] std::vector<std::byte> serialize() const;

 private:
  struct Entry {
    std::string name;
    DType dtype;
    std::vector<std::int64_t> shape;
    std::vector<std::byte> bytes;
  };
  std::vector<Entry> entries_;
  std::map<std::string, std::string> metadata_;
};

}  // namespace r4::quant
