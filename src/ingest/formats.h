// One handler per text format. A handler first sees the opening lines one by one, serially
// (banners, size lines, column headers), then parses data lines from any thread.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/edge_list.h"
#include "ingest/parse.h"

namespace tg::parse {

// Where a header line is, for messages: formats as "file:line", and only when a message needs it
// (the reader meets a header line per comment line before the data).
struct Where {
  const std::string& file;
  uint64_t line;
};

// What one thread gathers from its stretch of lines.
struct Batch {
  std::vector<Edge<uint64_t, double>> edges;
  WeightInfo weights;
  uint64_t max_id = 0;
  uint64_t entries = 0;  // format-specific count checked at the end (e.g. METIS list entries)
  // METIS: order-independent sums of a hash of each listed pair, as listed by its lower and by
  // its higher end; symmetric adjacency lists give equal sums.
  uint64_t listed_by_lower = 0, listed_by_higher = 0;
  const char* error_at = nullptr;  // position of the first error in this stretch
  std::string error;

  void fail(const char* at, std::string message) {
    if (error_at == nullptr) {
      error_at = at;
      error = std::move(message);
    }
  }
  void add(uint64_t u, uint64_t v, double w) {
    edges.push_back({u, v, w});
    max_id = std::max(max_id, std::max(u, v));
  }
};

class LineFormat {
 public:
  virtual ~LineFormat() = default;
  virtual std::string name() const = 0;
  // Serial opening phase: returns true if the line was consumed as a header line, false if it is
  // the first data line (which is then parsed by data_line like every later one). Throws
  // tg::Error (with `where` as prefix) for a malformed header.
  virtual bool header_line(std::string_view line, const Where& where) = 0;
  // Parses one data line. `index` counts data lines that are not comments (METIS: the vertex).
  virtual void data_line(std::string_view line, uint64_t index, Batch& batch) const = 0;
  // Whether a line is a comment that does not count as a data line.
  virtual bool is_comment(std::string_view line) const = 0;
  // METIS numbers vertices by line, so blank lines are data there and nowhere else.
  virtual bool blank_lines_are_data() const { return false; }
  // What the whole input held, for the checks at the end.
  struct Totals {
    uint64_t edges = 0, entries = 0, data_lines = 0, listed_by_lower = 0, listed_by_higher = 0;
  };
  // Checks declared counts once everything is read; throws tg::Error naming the file.
  virtual void finish(const std::string& file, const Totals& totals) const = 0;
  // What the graph's edge list is, as far as the header said.
  virtual bool weighted() const = 0;
  virtual void describe(EdgeList& list) const = 0;
};

std::unique_ptr<LineFormat> make_format(const std::string& name, const ParseOptions& options);

}  // namespace tg::parse

template <>
struct fmt::formatter<tg::parse::Where> : fmt::formatter<std::string_view> {
  auto format(const tg::parse::Where& where, fmt::format_context& ctx) const {
    return fmt::format_to(ctx.out(), "{}:{}", where.file, where.line);
  }
};
