#include "ingest/formats.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "ingest/parse_fields.h"
#include "util/error.h"
#include "util/option_names.h"

namespace tg::parse {

namespace {

bool starts_with_char(std::string_view line, char c) {
  for (char x : line) {
    if (x == ' ' || x == '\t') continue;
    return x == c;
  }
  return false;
}

std::vector<std::string_view> split(std::string_view line, char delimiter) {
  std::vector<std::string_view> fields;
  FieldCursor cursor(line, delimiter);
  std::string_view f;
  while (cursor.next(f)) fields.push_back(f);
  return fields;
}

// A 64-bit mix of an edge (and its weight), summed order-independently for the METIS check.
uint64_t pair_hash(uint64_t u, uint64_t v, double w) {
  uint64_t wbits;
  std::memcpy(&wbits, &w, sizeof(wbits));
  uint64_t x = u * 0x9E3779B97F4A7C15ull ^ (v + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full ^
               wbits * 0x165667B19E3779F9ull;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  return x;
}

bool is_number(std::string_view f) {
  double x;
  std::string ignored;
  return parse_weight(f, x, ignored);
}

// Which ids are acceptable: at least `base`, and below base + count when a count is declared.
struct IdRule {
  uint64_t base = 0;
  std::optional<uint64_t> count;
  const char* declared_by = "the header";
  bool take(std::string_view field, Batch& batch, uint64_t& out) const {
    std::string error;
    if (!parse_id(field, out, error)) {
      batch.fail(field.data(), std::move(error));
      return false;
    }
    if (out < base || (count && out - base >= *count)) {
      if (!count) {
        batch.fail(field.data(), fmt::format("vertex id {} is below the first id {}", out, base));
      } else if (*count == 0) {  // base + count - 1 would wrap below
        batch.fail(
            field.data(),
            fmt::format("vertex id {} is out of range: {} declares no vertices", out, declared_by));
      } else {
        batch.fail(field.data(), fmt::format("vertex id {} is out of range: {} declares ids {}..{}",
                                             out, declared_by, base, base + *count - 1));
      }
      return false;
    }
    return true;
  }
};

bool take_weight(std::string_view field, Batch& batch, double& out) {
  std::string error;
  if (!parse_weight(field, out, error)) {
    batch.fail(field.data(), std::move(error));
    return false;
  }
  batch.weights.add(out);
  return true;
}

// --------------------------------------------------------------------------------------------
// Edge lists: SNAP/plain (whitespace), CSV, TSV, cedge.
class EdgeListFormat final : public LineFormat {
 public:
  EdgeListFormat(std::string name, char delimiter, const ParseOptions& options,
                 std::vector<std::string> default_columns)
      : name_(std::move(name)),
        delimiter_(delimiter),
        options_(options),
        default_columns_(std::move(default_columns)) {
    if (options.id_mode == IdMode::kIndex) mode_ = IdMode::kIndex;
    if (options.vertices) {
      if (mode_ != IdMode::kIndex)
        fail("{} applies to index mode; add {}", option_name("vertices"),
             option_with("ids", "index"));
      rule_.count = options.vertices;
      rule_.declared_by = front() == Front::kCommandLine
                              ? "--vertices"
                              : "vertices";  // a literal: the rule keeps a pointer
    }
  }
  std::string name() const override { return name_; }
  bool is_comment(std::string_view line) const override {
    return starts_with_char(line, '#') || starts_with_char(line, '%');
  }
  bool header_line(std::string_view line, const Where& where) override {
    if (is_blank(line) || is_comment(line)) return true;
    const auto fields = split(line, delimiter_);
    const bool all_text = std::none_of(fields.begin(), fields.end(), is_number);
    const bool is_header = options_.header.value_or(all_text && !header_seen_);
    if (is_header && !header_seen_) {
      header_seen_ = true;
      for (auto f : fields) names_.emplace_back(f);
      return true;
    }
    resolve_columns(fields.size(), where);
    return false;
  }
  void data_line(std::string_view line, uint64_t, Batch& batch) const override {
    std::array<std::string_view, 3> picked;
    size_t count = 0;
    FieldCursor cursor(line, delimiter_);
    std::string_view f;
    while (cursor.next(f)) {
      for (size_t k = 0; k < 3; ++k)
        if (column_[k] == count) picked[k] = f;
      ++count;
    }
    if (count != fields_) {
      batch.fail(
          line.data(),
          fmt::format("expected {} fields (as on the first edge line), found {}", fields_, count));
      return;
    }
    uint64_t u, v;
    double w = 0;
    if (!rule_.take(picked[0], batch, u) || !rule_.take(picked[1], batch, v)) return;
    if (weighted() && !take_weight(picked[2], batch, w)) return;
    batch.add(u, v, w);
  }
  void finish(const std::string&, const Totals&) const override {}
  bool weighted() const override { return column_[2] != kNone; }
  void describe(EdgeList& list) const override {
    list.id_mode = mode_;
    if (rule_.count) list.declared_vertices = rule_.count;
  }

 private:
  static constexpr size_t kNone = ~size_t{0};
  void resolve_columns(size_t fields, const Where& where) {
    fields_ = fields;
    std::vector<std::string> wanted =
        options_.columns.empty() ? default_columns_ : options_.columns;
    if (wanted.empty()) {
      if (fields == 2)
        wanted = {"0", "1"};
      else if (fields == 3)
        wanted = {"0", "1", "2"};
      else if (fields < 2)
        fail("{}: expected an edge with at least 2 fields (source and destination), found {}",
             where, fields);
      else
        fail(
            "{}: lines have {} fields; say which hold source, destination and weight with {} (e.g. "
            "{} or {})",
            where, fields, option_name("columns"), option_with("columns", "0,1"),
            option_with("columns", "0,1,2"));
    }
    if (wanted.size() < 2 || wanted.size() > 3) {
      fail("{} needs 2 or 3 entries (source, destination[, weight]), got {}",
           option_name("columns"), wanted.size());
    }
    for (size_t k = 0; k < wanted.size(); ++k) {
      uint64_t index;
      const auto named = std::find(names_.begin(), names_.end(), wanted[k]);
      if (named != names_.end()) {
        column_[k] = static_cast<size_t>(named - names_.begin());
      } else if (parse_count(wanted[k], index)) {
        column_[k] = index;
      } else {
        fail("{}: column '{}' is neither a column number nor a name in the header line", where,
             wanted[k]);
      }
      if (column_[k] >= fields)
        fail("{}: column {} is out of range: lines have {} fields (columns count from 0)", where,
             column_[k], fields);
    }
  }
  std::string name_;
  char delimiter_;
  ParseOptions options_;
  std::vector<std::string> default_columns_;
  std::vector<std::string> names_;
  bool header_seen_ = false;
  size_t fields_ = 0;
  std::array<size_t, 3> column_{kNone, kNone, kNone};
  IdRule rule_;
  IdMode mode_ = IdMode::kLabel;
};

// --------------------------------------------------------------------------------------------
// Matrix Market coordinate.
class MatrixMarketFormat final : public LineFormat {
 public:
  std::string name() const override { return "mtx"; }
  bool is_comment(std::string_view line) const override { return starts_with_char(line, '%'); }
  bool header_line(std::string_view line, const Where& where) override {
    if (!banner_seen_) {
      auto fields = split(line, 0);
      std::vector<std::string> lower;
      for (auto f : fields) {
        std::string s(f);
        std::transform(s.begin(), s.end(), s.begin(),
                       [](unsigned char c) { return std::tolower(c); });
        lower.push_back(s);
      }
      if (lower.size() != 5 || lower[0] != "%%matrixmarket" || lower[1] != "matrix") {
        fail("{}: expected the banner '%%MatrixMarket matrix coordinate <field> <symmetry>'",
             where);
      }
      if (lower[2] != "coordinate")
        fail("{}: Matrix Market '{}' format is not a graph; expected 'coordinate'", where,
             lower[2]);
      if (lower[3] == "pattern")
        weighted_ = false;
      else if (lower[3] == "integer" || lower[3] == "real")
        weighted_ = true;
      else
        fail("{}: Matrix Market field '{}' is not supported; expected pattern, integer or real",
             where, lower[3]);
      if (lower[4] == "symmetric")
        symmetric_ = true;
      else if (lower[4] != "general")
        fail("{}: Matrix Market symmetry '{}' is not supported; expected general or symmetric",
             where, lower[4]);
      banner_seen_ = true;
      return true;
    }
    if (is_blank(line) || is_comment(line)) return true;
    if (!size_seen_) {
      auto fields = split(line, 0);
      if (fields.size() != 3 || !parse_count(fields[0], rows_) || !parse_count(fields[1], cols_) ||
          !parse_count(fields[2], entries_)) {
        fail("{}: expected the size line 'rows columns entries' (three non-negative integers)",
             where);
      }
      rule_ = {1, std::max(rows_, cols_)};
      size_seen_ = true;
      return true;
    }
    return false;
  }
  void data_line(std::string_view line, uint64_t, Batch& batch) const override {
    FieldCursor cursor(line, 0);
    std::array<std::string_view, 4> f;
    size_t count = 0;
    std::string_view x;
    while (cursor.next(x)) {
      if (count < f.size()) f[count] = x;
      ++count;
    }
    const size_t expected = weighted_ ? 3 : 2;
    if (count != expected) {
      batch.fail(line.data(), fmt::format("expected {} fields ('row column{}'), found {}", expected,
                                          weighted_ ? " value" : "", count));
      return;
    }
    uint64_t u, v;
    double w = 0;
    if (!rule_.take(f[0], batch, u) || !rule_.take(f[1], batch, v)) return;
    if (u > rows_)
      return batch.fail(
          f[0].data(),
          fmt::format("row {} is out of range: the size line declares {} rows", u, rows_));
    if (v > cols_)
      return batch.fail(
          f[1].data(),
          fmt::format("column {} is out of range: the size line declares {} columns", v, cols_));
    if (weighted_ && !take_weight(f[2], batch, w)) return;
    batch.add(u, v, w);
  }
  void finish(const std::string& file, const Totals& totals) const override {
    if (!size_seen_) fail("{}: the Matrix Market size line is missing", file);
    if (totals.edges != entries_)
      fail("{}: the size line declares {} entries, the file holds {}", file, entries_,
           totals.edges);
  }
  bool weighted() const override { return weighted_; }
  void describe(EdgeList& list) const override {
    list.declared_vertices = std::max(rows_, cols_);
    list.id_base = 1;
    list.undirected_input = symmetric_;
    list.id_mode = IdMode::kIndex;
  }

 private:
  bool banner_seen_ = false, size_seen_ = false, weighted_ = false, symmetric_ = false;
  uint64_t rows_ = 0, cols_ = 0, entries_ = 0;
  IdRule rule_;
};

// --------------------------------------------------------------------------------------------
// DIMACS shortest path (`p sp n m`, `a u v w`) and the PACE variant (`p tw n m`, `u v`).
class DimacsFormat final : public LineFormat {
 public:
  explicit DimacsFormat(bool pace) : pace_(pace) {}
  std::string name() const override { return pace_ ? "pace" : "dimacs"; }
  bool is_comment(std::string_view line) const override { return starts_with_char(line, 'c'); }
  bool header_line(std::string_view line, const Where& where) override {
    if (is_blank(line) || is_comment(line)) return true;
    if (starts_with_char(line, 'p')) {
      auto f = split(line, 0);
      const char* kind = pace_ ? "tw" : "sp";
      uint64_t n, m;
      if (f.size() != 4 || f[1] != kind || !parse_count(f[2], n) || !parse_count(f[3], m)) {
        fail("{}: expected the problem line 'p {} <vertices> <{}>'", where, kind,
             pace_ ? "edges" : "arcs");
      }
      declared_n_ = n;
      declared_m_ = m;
      rule_ = {1, n};
      return true;
    }
    if (pace_ && !declared_n_)
      fail("{}: expected the problem line 'p tw <vertices> <edges>' before the edges", where);
    return false;
  }
  void data_line(std::string_view line, uint64_t, Batch& batch) const override {
    FieldCursor cursor(line, 0);
    std::array<std::string_view, 5> f;
    size_t count = 0;
    std::string_view x;
    while (cursor.next(x)) {
      if (count < f.size()) f[count] = x;
      ++count;
    }
    uint64_t u, v;
    if (pace_) {
      if (count != 2)
        return batch.fail(line.data(),
                          fmt::format("expected an edge 'u v', found {} fields", count));
      if (!rule_.take(f[0], batch, u) || !rule_.take(f[1], batch, v)) return;
      batch.add(u, v, 0);
      return;
    }
    if (f[0] == "p")
      return batch.fail(line.data(),
                        "a second problem line ('p ...'); only one is allowed, before the arcs");
    if (f[0] != "a")
      return batch.fail(line.data(),
                        fmt::format("expected an arc line 'a u v w' or a comment 'c ...', found {}",
                                    quoted(f[0])));
    if (count != 4)
      return batch.fail(
          line.data(), fmt::format("expected an arc 'a u v w' (4 fields), found {} fields", count));
    double w;
    if (!rule_.take(f[1], batch, u) || !rule_.take(f[2], batch, v) || !take_weight(f[3], batch, w))
      return;
    batch.add(u, v, w);
  }
  void finish(const std::string& file, const Totals& totals) const override {
    if (declared_m_ && totals.edges != *declared_m_) {
      fail("{}: the problem line declares {} {}, the file holds {}", file, *declared_m_,
           pace_ ? "edges" : "arcs", totals.edges);
    }
  }
  bool weighted() const override { return !pace_; }
  void describe(EdgeList& list) const override {
    list.undirected_input = pace_;
    if (declared_n_) {
      list.declared_vertices = declared_n_;
      list.id_base = 1;
      list.id_mode = IdMode::kIndex;
    } else {
      list.id_mode = IdMode::kLabel;  // arcs without a problem line: ids are labels as written
    }
  }

 private:
  bool pace_;
  std::optional<uint64_t> declared_n_, declared_m_;
  IdRule rule_;
};

// --------------------------------------------------------------------------------------------
// METIS / Chaco adjacency: header `n m [fmt [ncon]]`, then line i lists vertex i's neighbours.
class MetisFormat final : public LineFormat {
 public:
  std::string name() const override { return "metis"; }
  bool is_comment(std::string_view line) const override { return starts_with_char(line, '%'); }
  bool blank_lines_are_data() const override { return true; }
  bool header_line(std::string_view line, const Where& where) override {
    if (header_seen_) return false;
    if (is_blank(line) || is_comment(line)) return true;
    auto f = split(line, 0);
    if (f.size() < 2 || f.size() > 4 || !parse_count(f[0], n_) || !parse_count(f[1], m_)) {
      fail("{}: expected the METIS header 'vertices edges [format [constraints]]'", where);
    }
    if (f.size() >= 3) {
      const std::string fmt_code(f[2]);
      if (fmt_code.size() > 3 || fmt_code.find_first_not_of("01") != std::string::npos) {
        fail("{}: METIS format code '{}' is not one of 0, 1, 10, 11, 100, ...", where, fmt_code);
      }
      const std::string padded = std::string(3 - fmt_code.size(), '0') + fmt_code;
      vertex_sizes_ = padded[0] == '1';
      vertex_weights_ = padded[1] == '1' ? 1 : 0;
      edge_weights_ = padded[2] == '1';
    }
    if (f.size() == 4) {
      if (!parse_count(f[3], vertex_weights_) || !vertex_weights_)
        fail("{}: METIS constraint count '{}' is not a positive integer", where, f[3]);
    }
    rule_ = {1, n_};
    header_seen_ = true;
    return true;
  }
  void data_line(std::string_view line, uint64_t index, Batch& batch) const override {
    if (index >= n_) {
      if (!is_blank(line))
        batch.fail(line.data(),
                   fmt::format("more vertex lines than the {} vertices the header declares", n_));
      return;
    }
    const uint64_t u = index + 1;
    FieldCursor cursor(line, 0);
    std::string_view f;
    // The size field, then the weight fields, skipped apart: the header's constraint count may
    // be 2^64 - 1, and adding the size field to it wrapped to none skipped at all.
    const char* missing = "expected the vertex's size/weight fields before its neighbours";
    if (vertex_sizes_ && !cursor.next(f)) return batch.fail(line.data(), missing);
    for (uint64_t k = 0; k < vertex_weights_; ++k) {
      if (!cursor.next(f)) return batch.fail(line.data(), missing);
    }
    while (cursor.next(f)) {
      uint64_t v;
      double w = 0;
      if (!rule_.take(f, batch, v)) return;
      if (edge_weights_) {
        std::string_view wf;
        if (!cursor.next(wf))
          return batch.fail(f.data(), fmt::format("neighbour {} has no edge weight after it", v));
        if (!take_weight(wf, batch, w)) return;
      }
      ++batch.entries;
      if (u < v) batch.listed_by_lower += pair_hash(u, v, w);
      if (u > v) batch.listed_by_higher += pair_hash(v, u, w);
      if (u <= v) batch.add(u, v, w);  // each edge is listed by both ends; keep one copy
    }
  }
  void finish(const std::string& file, const Totals& totals) const override {
    if (!header_seen_) fail("{}: the METIS header line is missing", file);
    if (totals.data_lines < n_)
      fail("{}: the header declares {} vertices, the file has {} vertex lines", file, n_,
           totals.data_lines);
    if (totals.entries != 2 * m_) {
      fail(
          "{}: degree mismatch: the header declares {} edges, so the adjacency lists should hold "
          "{} entries, they hold {}",
          file, m_, 2 * m_, totals.entries);
    }
    if (totals.listed_by_lower != totals.listed_by_higher) {
      fail(
          "{}: the adjacency lists are not symmetric: some vertex lists a neighbour (or weight) "
          "that does not list it back",
          file);
    }
  }
  bool weighted() const override { return edge_weights_; }
  void describe(EdgeList& list) const override {
    list.declared_vertices = n_;
    list.id_base = 1;
    list.undirected_input = true;
    list.id_mode = IdMode::kIndex;
  }

 private:
  bool header_seen_ = false, vertex_sizes_ = false, edge_weights_ = false;
  uint64_t n_ = 0, m_ = 0, vertex_weights_ = 0;
  IdRule rule_;
};

}  // namespace

std::unique_ptr<LineFormat> make_format(const std::string& name, const ParseOptions& options) {
  if (name == "edgelist")
    return std::make_unique<EdgeListFormat>(name, 0, options, std::vector<std::string>{});
  if (name == "csv")
    return std::make_unique<EdgeListFormat>(name, ',', options, std::vector<std::string>{});
  if (name == "tsv")
    return std::make_unique<EdgeListFormat>(name, '\t', options, std::vector<std::string>{});
  if (name == "cedge")
    return std::make_unique<EdgeListFormat>(name, 0, options,
                                            std::vector<std::string>{"1", "2", "3"});
  if (name == "mtx") return std::make_unique<MatrixMarketFormat>();
  if (name == "dimacs") return std::make_unique<DimacsFormat>(false);
  if (name == "pace") return std::make_unique<DimacsFormat>(true);
  if (name == "metis") return std::make_unique<MetisFormat>();
  fail("unknown format '{}'; expected one of edgelist, csv, tsv, mtx, dimacs, pace, metis, cedge",
       name);
}

}  // namespace tg::parse
