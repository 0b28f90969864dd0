#include "algorithms/output.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <vector>

#include "util/atomic_file.h"
#include "util/error.h"

namespace tg {

namespace {

int64_t reported_int(const GraphFile& g, const AlgorithmResult& r, uint64_t v) {
  const int64_t x = r.ints[v];
  if (r.values_are_vertices && x != kUnreached)
    return static_cast<int64_t>(g.original_id(static_cast<uint64_t>(x)));
  return x;
}

// A vertex's parent as its original id, or -1 for none (parents hold dense ids, -1 for none).
int64_t parent_id(const GraphFile& g, const AlgorithmResult& r, uint64_t v) {
  const int64_t p = r.parents[v];
  return p < 0 ? -1 : static_cast<int64_t>(g.original_id(static_cast<uint64_t>(p)));
}

void write_npy(const GraphFile& g, const AlgorithmResult& r, AtomicFile& out) {
  const uint64_t n = g.num_vertices();
  const bool parents = !r.parents.empty();
  const std::string dict = fmt::format(
      "{{'descr': [('id', '<u8'), ('value', '{}'){}], 'fortran_order': False, 'shape': ({},), }}",
      r.real ? "<f8" : "<i8", parents ? ", ('parent', '<i8')" : "", n);
  std::string header = dict;
  const size_t preamble = 10;
  header.append(64 - (preamble + header.size() + 1) % 64, ' ');
  header.push_back('\n');
  const char magic[] = "\x93NUMPY\x01\x00";
  out.write(magic, 8);
  const uint16_t len = static_cast<uint16_t>(header.size());
  out.write(&len, 2);
  out.write(header.data(), header.size());
  std::vector<char> rows;
  rows.reserve((parents ? 24 : 16) * std::min<uint64_t>(n, 1 << 20));
  for (uint64_t v = 0; v < n; ++v) {
    const uint64_t id = g.original_id(v);
    rows.insert(rows.end(), reinterpret_cast<const char*>(&id),
                reinterpret_cast<const char*>(&id) + 8);
    if (r.real) {
      const double x = r.reals[v];
      rows.insert(rows.end(), reinterpret_cast<const char*>(&x),
                  reinterpret_cast<const char*>(&x) + 8);
    } else {
      const int64_t x = reported_int(g, r, v);
      rows.insert(rows.end(), reinterpret_cast<const char*>(&x),
                  reinterpret_cast<const char*>(&x) + 8);
    }
    if (parents) {
      const int64_t p = parent_id(g, r, v);
      rows.insert(rows.end(), reinterpret_cast<const char*>(&p),
                  reinterpret_cast<const char*>(&p) + 8);
    }
    if (rows.size() >= (size_t{16} << 20)) {
      out.write(rows.data(), rows.size());
      rows.clear();
    }
  }
  out.write(rows.data(), rows.size());
}

// TSV (separator '\t') or CSV (',', after a header line).
void write_text(const GraphFile& g, const AlgorithmResult& r, AtomicFile& out, char separator) {
  fmt::memory_buffer buf;
  const bool parents = !r.parents.empty();
  if (separator == ',')
    fmt::format_to(std::back_inserter(buf), "id,value{}\n", parents ? ",parent" : "");
  for (uint64_t v = 0; v < g.num_vertices(); ++v) {
    if (r.real) {
      const double x = r.reals[v];
      if (std::isinf(x))
        fmt::format_to(std::back_inserter(buf), "{}{}infinity", g.original_id(v), separator);
      else
        fmt::format_to(std::back_inserter(buf), "{}{}{}", g.original_id(v), separator, x);
    } else {
      const int64_t x = reported_int(g, r, v);
      if (x == kUnreached)
        fmt::format_to(std::back_inserter(buf), "{}{}infinity", g.original_id(v), separator);
      else
        fmt::format_to(std::back_inserter(buf), "{}{}{}", g.original_id(v), separator, x);
    }
    if (parents) {  // an empty field where there is none (what CSV readers take as missing)
      buf.push_back(separator);
      if (r.parents[v] >= 0) fmt::format_to(std::back_inserter(buf), "{}", parent_id(g, r, v));
    }
    buf.push_back('\n');
    if (buf.size() >= (size_t{16} << 20)) {
      out.write(buf.data(), buf.size());
      buf.clear();
    }
  }
  out.write(buf.data(), buf.size());
}

}  // namespace

ResultFormat result_format(const std::string& path) {
  const std::string name = std::filesystem::path(path).filename().string();
  const size_t dot = name.rfind('.');
  std::string ext = dot == std::string::npos ? "" : name.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  if (ext == "tsv" || ext == "txt") return ResultFormat::kTsv;
  if (ext == "csv") return ResultFormat::kCsv;
  if (ext == "npy") return ResultFormat::kNpy;
  if (ext == "parquet") {  // Arrow's C++ library is a large dependency for one output format
    fail(
        "'{}': the command line writes .tsv, .csv or .npy; Parquet comes from the Python package: "
        "tiergraph.<algorithm>(...).to_pandas().to_parquet(path) (with pyarrow installed)",
        path);
  }
  fail(
      "'{}': the output format comes from the name's extension: .tsv or .txt (tab-separated), .csv "
      "or .npy{}",
      path, ext.empty() ? "" : fmt::format(", not .{}", name.substr(dot + 1)));
}

void write_result(const GraphFile& graph, const AlgorithmResult& result, const std::string& path) {
  const ResultFormat format = result_format(path);
  AtomicFile out(path);
  if (format == ResultFormat::kNpy) {
    write_npy(graph, result, out);
  } else {
    write_text(graph, result, out, format == ResultFormat::kCsv ? ',' : '\t');
  }
  out.commit();
}

}  // namespace tg
