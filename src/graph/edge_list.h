// The edge list: what parsers and generators produce and the builder consumes.
//
// Ids are stored as 32-bit values while every id fits and widen to 64 bits the moment one does
// not, so that the common case costs 8 bytes per edge (16 with a weight) and the vertex-id width
// is chosen from the data, never at compile time. Weights are kept as double while parsing (exact
// for every integer below 2^53); the builder narrows them to the type the file stores.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <variant>

#include "graph/no_weight.h"
#include "util/mapped_vector.h"

namespace tg {

template <typename Id, typename W>
struct Edge {
  Id u;
  Id v;
  [[no_unique_address]] W w;
};

// How the vertex ids in the input are to be read.
enum class IdMode : uint8_t {
  kIndex = 0,  // ids are indices 0..n-1 (after subtracting the format's base), bounds-checked
  kLabel = 1,  // ids are arbitrary 64-bit labels, remapped to dense ids in increasing label order
};

// What the weights of the input look like.
struct WeightInfo {
  bool all_integral = true;  // every weight is an integer that int64 holds
  double min = std::numeric_limits<double>::infinity();
  double max = -std::numeric_limits<double>::infinity();
  void add(double w) {
    // Range first: converting a double outside int64's range (or NaN) to int64 is undefined
    // behaviour, and such a weight could not be stored as an integer anyway (the builder then
    // stores float64). 2^63 itself is out of range; -2^63 is in.
    constexpr double kTwo63 = 9223372036854775808.0;
    if (!(w >= -kTwo63 && w < kTwo63) || w != static_cast<double>(static_cast<int64_t>(w)))
      all_integral = false;
    if (w < min) min = w;
    if (w > max) max = w;
  }
  void merge(const WeightInfo& o) {
    all_integral = all_integral && o.all_integral;
    if (o.min < min) min = o.min;
    if (o.max > max) max = o.max;
  }
};

template <typename Id, typename W>
using EdgeArray = MappedVector<Edge<Id, W>>;

using AnyEdgeArray = std::variant<EdgeArray<uint32_t, NoWeight>, EdgeArray<uint32_t, double>,
                                  EdgeArray<uint64_t, NoWeight>, EdgeArray<uint64_t, double>>;

struct EdgeList {
  AnyEdgeArray edges;
  // Vertex count declared by the input (Matrix Market, DIMACS, METIS, PACE) or the generator;
  // in index mode, ids must be below it. Absent for plain edge lists.
  std::optional<uint64_t> declared_vertices;
  uint64_t id_base = 0;           // subtracted from ids in index mode (1 for 1-based formats)
  bool undirected_input = false;  // the format itself says the graph is undirected
  IdMode id_mode = IdMode::kLabel;
  WeightInfo weight_info;   // meaningful when the array holds weights
  std::string source_name;  // file or generator description, for messages

  bool weighted() const {
    return std::holds_alternative<EdgeArray<uint32_t, double>>(edges) ||
           std::holds_alternative<EdgeArray<uint64_t, double>>(edges);
  }
  size_t size() const {
    return std::visit([](const auto& a) { return a.size(); }, edges);
  }
};

}  // namespace tg
