#include "ingest/edge_list_writer.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>

#include "util/error.h"

namespace tg {

std::optional<EdgeListFormat> edge_list_format_for(const std::string& path) {
  for (const char* ext : {".el", ".wel", ".txt"}) {
    if (path.ends_with(ext)) return EdgeListFormat::kText;
  }
  if (path.ends_with(".bin32")) return EdgeListFormat::kBin32;
  if (path.ends_with(".bin64")) return EdgeListFormat::kBin64;
  return std::nullopt;
}

EdgeListWriter::EdgeListWriter(const std::string& path, EdgeListFormat format)
    : file_(path), format_(format) {}

void EdgeListWriter::start(bool weighted, bool) { weighted_ = weighted; }

void EdgeListWriter::encode(const EdgeBatch& batch, uint64_t first_edge,
                            std::vector<char>& out) const {
  out.clear();
  if (format_ == EdgeListFormat::kText) {
    fmt::memory_buffer text;
    for (const auto& e : batch) {
      if (weighted_) {
        fmt::format_to(std::back_inserter(text), "{} {} {}\n", e.u, e.v, e.w);
      } else {
        fmt::format_to(std::back_inserter(text), "{} {}\n", e.u, e.v);
      }
    }
    out.assign(text.begin(), text.end());
    return;
  }
  const bool wide = format_ == EdgeListFormat::kBin64;
  const size_t id_bytes = wide ? 8 : 4, record = 2 * id_bytes + (weighted_ ? 4 : 0);
  out.resize(batch.size() * record);
  char* p = out.data();
  for (size_t i = 0; i < batch.size(); ++i, p += record) {
    const auto& e = batch[i];
    if (wide) {
      std::memcpy(p, &e.u, 8);  // little-endian hosts only, as the reader
      std::memcpy(p + 8, &e.v, 8);
    } else {
      if (e.u > UINT32_MAX || e.v > UINT32_MAX) {
        fail("edge {}: id {} does not fit the 4 bytes of a bin32 record; write .bin64",
             first_edge + i, std::max(e.u, e.v));
      }
      const auto u = static_cast<uint32_t>(e.u), v = static_cast<uint32_t>(e.v);
      std::memcpy(p, &u, 4);
      std::memcpy(p + 4, &v, 4);
    }
    if (weighted_) {
      if (e.w != std::floor(e.w) || e.w < std::numeric_limits<int32_t>::min() ||
          e.w > std::numeric_limits<int32_t>::max()) {
        fail(
            "edge {}: weight {} is not a 4-byte integer, which a binary record holds; write a text "
            "edge list (.wel) for real weights",
            first_edge + i, e.w);
      }
      const auto w = static_cast<int32_t>(e.w);
      std::memcpy(p + 2 * id_bytes, &w, 4);
    }
  }
}

void EdgeListWriter::add(std::span<const EdgeBatch> batches, uint64_t) {
  std::vector<uint64_t> first(batches.size() + 1, edges_);
  for (size_t k = 0; k < batches.size(); ++k) first[k + 1] = first[k] + batches[k].size();
  std::vector<std::vector<char>> bytes(batches.size());
  // Errors inside the parallel loop are carried out of it, the first one by edge order.
  std::vector<std::string> errors(batches.size());
#pragma omp parallel for schedule(dynamic, 1)
  for (size_t k = 0; k < batches.size(); ++k) {
    try {
      encode(batches[k], first[k], bytes[k]);
    } catch (const Error& e) {
      errors[k] = e.what();
    }
  }
  for (const auto& e : errors) {
    if (!e.empty()) fail("{}: {}", file_.path(), e);
  }
  for (const auto& b : bytes) file_.write(b.data(), b.size());
  edges_ = first.back();
}

void EdgeListWriter::commit() { file_.commit(); }

}  // namespace tg
