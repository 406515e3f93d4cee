#include "quant/safetensors.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <set>
#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace r4::quant {
namespace {

using nlohmann::json;

constexpr std::uint64_t kMaxHeader = 100'000'000;  // the reference implementation's limit
constexpr std::size_t kMaxRank = 8;

std::string shape_str(const std::vector<std::int64_t>& s) {
  return fmt::format("[{}]", fmt::join(s, ", "));
}

struct Raw {
  TensorInfo info;
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
};

std::uint64_t to_u64(const json& v, const std::string& name, const char* what) {
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0))
    throw FormatError(fmt::format("tensor '{}': {} must hold non-negative integers", name, what));
  return v.get<std::uint64_t>();
}

Raw parse_entry(const std::string& name, const json& e, std::uint64_t data_size) {
  if (!e.is_object())
    throw FormatError(fmt::format("tensor '{}': entry is not a JSON object", name));
  Raw r;
  r.info.name = name;
  const auto dt = e.find("dtype");
  if (dt == e.end() || !dt->is_string())
    throw FormatError(fmt::format("tensor '{}': missing or non-string \"dtype\"", name));
  const auto parsed = parse_dtype(dt->get_ref<const std::string&>());
  if (!parsed)
    throw FormatError(
        fmt::format("tensor '{}': unknown dtype \"{}\"", name, dt->get_ref<const std::string&>()));
  r.info.dtype = *parsed;
  const auto sh = e.find("shape");
  if (sh == e.end() || !sh->is_array())
    throw FormatError(fmt::format("tensor '{}': missing or non-array \"shape\"", name));
  if (sh->size() > kMaxRank)
    throw FormatError(fmt::format("tensor '{}': rank {} exceeds {}", name, sh->size(), kMaxRank));
  std::uint64_t numel = 1;
  bool overflow = false;
  for (const auto& d : *sh) {
    const std::uint64_t v = to_u64(d, name, "\"shape\"");
    if (v > static_cast<std::uint64_t>(INT64_MAX))
      throw FormatError(fmt::format("tensor '{}': dimension {} is too large", name, v));
    r.info.shape.push_back(static_cast<std::int64_t>(v));
    if (v != 0 && numel > UINT64_MAX / v) overflow = true;
    numel *= v;
  }
  const auto off = e.find("data_offsets");
  if (off == e.end() || !off->is_array() || off->size() != 2)
    throw FormatError(fmt::format("tensor '{}': \"data_offsets\" must be [begin, end]", name));
  r.begin = to_u64((*off)[0], name, "\"data_offsets\"");
  r.end = to_u64((*off)[1], name, "\"data_offsets\"");
  if (r.begin > r.end)
    throw FormatError(fmt::format("tensor '{}': data_offsets [{}, {}] are unsorted (begin > end)",
                                  name, r.begin, r.end));
  if (r.end > data_size)
    throw FormatError(fmt::format(
        "tensor '{}': data_offsets end {} is past the end of the data section ({} bytes)", name,
        r.end, data_size));
  const std::uint64_t esize = dtype_size(r.info.dtype);
  const bool bytes_overflow = overflow || (numel > UINT64_MAX / esize);
  if (bytes_overflow || numel * esize != r.end - r.begin)
    throw FormatError(fmt::format(
        "tensor '{}': dtype {} shape {} disagrees with its byte count {} (data_offsets [{}, {}])",
        name, to_string(r.info.dtype), shape_str(r.info.shape), r.end - r.begin, r.begin, r.end));
  return r;
}

}  // namespace

std::int64_t TensorInfo::numel() const {
  // Unsigned: a parsed shape's product fits (it is the byte count over the element size), but a
  // prefix of it may not fit int64 when a later dimension is 0 ([2^62, 3, 0]).
  std::uint64_t n = 1;
  for (auto d : shape) n *= static_cast<std::uint64_t>(d);
  return static_cast<std::int64_t>(n);
}

MatrixView TensorInfo::matrix() const {
  if (shape.size() != 2)
    throw FormatError(fmt::format("tensor '{}' has shape {}, not 2-D", name, shape_str(shape)));
  return MatrixView{bytes.data(), dtype, shape[0], shape[1]};
}

Parsed parse_safetensors(std::span<const std::byte> file) {
  if (file.size() < 8)
    throw FormatError(
        fmt::format("truncated: {} bytes, too short for the 8-byte header length", file.size()));
  std::uint64_t hlen = 0;
  for (int i = 7; i >= 0; --i)
    hlen = (hlen << 8) | std::to_integer<std::uint64_t>(file[static_cast<std::size_t>(i)]);
  if (hlen > kMaxHeader)
    throw FormatError(fmt::format("header length {} exceeds the {} byte limit", hlen, kMaxHeader));
  if (hlen > file.size() - 8)
    throw FormatError(
        fmt::format("truncated: header length {} runs past the end of the file ({} "
                    "bytes after the length field)",
                    hlen, file.size() - 8));
  const auto* text = reinterpret_cast<const char*>(file.data() + 8);
  const std::uint64_t data_size = file.size() - 8 - hlen;

  // Duplicate top-level names: nlohmann keeps the last silently, so watch the keys as they come.
  std::set<std::string> seen;
  std::string duplicate;
  json::parser_callback_t cb = [&](int depth, json::parse_event_t ev, json& parsed) {
    if (ev == json::parse_event_t::key && depth == 1 && duplicate.empty()) {
      const auto& k = parsed.get_ref<const std::string&>();
      if (!seen.insert(k).second) duplicate = k;
    }
    return true;
  };
  json header;
  try {
    header = json::parse(text, text + hlen, cb);
  } catch (const json::exception& e) {
    throw FormatError(fmt::format("header is not valid JSON: {}", e.what()));
  }
  if (!duplicate.empty())
    throw FormatError(fmt::format("duplicate tensor name '{}' in the header", duplicate));
  if (!header.is_object()) throw FormatError("header is not a JSON object");

  Parsed out;
  std::vector<Raw> raws;
  for (const auto& [name, e] : header.items()) {
    if (name == "__metadata__") {
      if (!e.is_object()) throw FormatError("\"__metadata__\" is not a JSON object");
      for (const auto& [k, v] : e.items()) {
        if (!v.is_string())
          throw FormatError(fmt::format("\"__metadata__\" value for '{}' is not a string", k));
        out.metadata[k] = v.get<std::string>();
      }
      continue;
    }
    raws.push_back(parse_entry(name, e, data_size));
  }
  std::sort(raws.begin(), raws.end(), [](const Raw& a, const Raw& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  std::uint64_t pos = 0;
  const std::string* prev = nullptr;
  for (const auto& r : raws) {
    if (r.begin < pos)
      throw FormatError(fmt::format("tensors '{}' and '{}' overlap (offset {} < {})", *prev,
                                    r.info.name, r.begin, pos));
    if (r.begin > pos)
      throw FormatError(fmt::format("gap in the data section before tensor '{}' ({} unused bytes)",
                                    r.info.name, r.begin - pos));
    pos = r.end;
    prev = &r.info.name;
  }
  if (pos != data_size)
    throw FormatError(
        fmt::format("data section is {} bytes but the tensors cover {} (trailing or missing bytes)",
                    data_size, pos));
  const std::byte* data = file.data() + 8 + hlen;
  for (auto& r : raws) {
    r.info.bytes = std::span<const std::byte>(data + r.begin, r.end - r.begin);
    out.tensors.push_back(std::move(r.info));
  }
  return out;
}

MappedFile::MappedFile(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    throw std::system_error(errno, std::generic_category(), "cannot open '" + path.string() + "'");
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw std::system_error(EINVAL, std::generic_category(),
                            "'" + path.string() + "' is not a regular file");
  }
  size_ = static_cast<std::size_t>(st.st_size);
  if (size_ > 0) {
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      const int err = errno;
      ::close(fd);
      throw std::system_error(err, std::generic_category(), "cannot map '" + path.string() + "'");
    }
    data_ = static_cast<const std::byte*>(p);
  }
  ::close(fd);
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(const_cast<std::byte*>(data_), size_);
}

SafetensorsFile::SafetensorsFile(const std::filesystem::path& path)
    : map_(std::make_unique<MappedFile>(path)) {
  try {
    parsed_ = parse_safetensors(map_->bytes());
  } catch (const FormatError& e) {
    throw FormatError(fmt::format("{}: {}", path.string(), e.what()));
  }
  for (std::size_t i = 0; i < parsed_.tensors.size(); ++i) index_[parsed_.tensors[i].name] = i;
}

const TensorInfo* SafetensorsFile::find(const std::string& name) const {
  const auto it = index_.find(name);
  return it == index_.end() ? nullptr : &parsed_.tensors[it->second];
}

const TensorInfo& SafetensorsFile::at(const std::string& name) const {
  const auto* t = find(name);
  if (t == nullptr) throw FormatError(fmt::format("no tensor named '{}'", name));
  return *t;
}

void SafetensorsWriter::add(std::string name, DType dtype, std::vector<std::int64_t> shape,
                            std::vector<std::byte> bytes) {
  std::uint64_t numel = 1;
  for (auto d : shape) numel *= static_cast<std::uint64_t>(d);
  if (numel * dtype_size(dtype) != bytes.size())
    throw std::invalid_argument(
        fmt::format("SafetensorsWriter: '{}' shape {} {} needs {} bytes, got {}", name,
                    shape_str(shape), to_string(dtype), numel * dtype_size(dtype), bytes.size()));
  for (const auto& e : entries_)
    if (e.name == name)
      throw std::invalid_argument(fmt::format("SafetensorsWriter: duplicate name '{}'", name));
  entries_.push_back({std::move(name), dtype, std::move(shape), std::move(bytes)});
}

void SafetensorsWriter::set_metadata(std::string key, std::string value) {
  metadata_[std::move(key)] = std::move(value);
}

std::vector<std::byte> SafetensorsWriter::serialize() const {
  nlohmann::ordered_json h = nlohmann::ordered_json::object();
  if (!metadata_.empty()) h["__metadata__"] = metadata_;
  std::uint64_t off = 0;
  for (const auto& e : entries_) {
    h[e.name] = {{"dtype", std::string(to_string(e.dtype))},
                 {"shape", e.shape},
                 {"data_offsets", {off, off + e.bytes.size()}}};
    off += e.bytes.size();
  }
  std::string text = h.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  std::vector<std::byte> out(8 + text.size() + off);
  const std::uint64_t n = text.size();
  for (std::size_t i = 0; i < 8; ++i) out[i] = static_cast<std::byte>((n >> (8 * i)) & 0xFF);
  std::memcpy(out.data() + 8, text.data(), text.size());
  std::size_t pos = 8 + text.size();
  for (const auto& e : entries_) {
    if (!e.bytes.empty()) std::memcpy(out.data() + pos, e.bytes.data(), e.bytes.size());
    pos += e.bytes.size();
  }
  return out;
}

void SafetensorsWriter::write(const std::filesystem::path& path) const {
  const auto bytes = serialize();
  auto tmp = path;
  tmp += fmt::format(".tmp.{}", ::getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) throw std::runtime_error("cannot write '" + tmp.string() + "'");
    f.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
    f.close();
    if (!f) {
      std::error_code ec;
      std::filesystem::remove(tmp, ec);
      throw std::runtime_error("error writing '" + tmp.string() + "'");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    throw std::runtime_error("cannot rename '" + tmp.string() + "' to '" + path.string() +
                             "': " + ec.message());
  }
}

}  // namespace r4::quant
