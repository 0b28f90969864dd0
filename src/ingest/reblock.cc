#include "ingest/reblock.h"

#include "graph/graph_view.h"
#include "ingest/bounded_build.h"
#include "ingest/builder.h"
#include "ingest/v1_file.h"
#include "util/atomic_file.h"
#include "util/error.h"

namespace tg {

namespace {

// What an edge list of the file's stored arcs is: dense ids, the file's vertices.
template <typename View>
EdgeList describe_stored(const View& g) {
  EdgeList list;
  list.source_name = g.file().path();
  list.declared_vertices = g.num_vertices();
  list.id_mode = IdMode::kIndex;
  list.undirected_input = !g.directed();
  return list;
}

// The stored arcs back as an edge list of dense ids: all arcs of a directed graph, one copy
// (u <= v) of each edge of an undirected one.
template <typename Id, typename WFile>
EdgeList extract(const GraphView<Id, WFile>& g) {
  EdgeList list = describe_stored(g);
  const bool keep_all = g.directed();
  auto fill = [&]<typename W>(EdgeArray<Id, W>& edges) {
    edges.reserve(keep_all ? g.num_arcs() : g.file().num_edges());
    g.for_each_arc([&](uint64_t u, uint64_t v, WFile w) {
      if (!keep_all && u > v) return;
      if constexpr (std::is_same_v<W, double>) {
        // Cast to W (double here), not to double: the branch must depend on W, or clang checks
        // it for NoWeight files too.
        edges.push_back({static_cast<Id>(u), static_cast<Id>(v), static_cast<W>(w)});
      } else {
        edges.push_back({static_cast<Id>(u), static_cast<Id>(v), {}});
      }
    });
  };
  if constexpr (std::is_same_v<WFile, NoWeight>) {
    EdgeArray<Id, NoWeight> edges;
    fill(edges);
    list.edges = std::move(edges);
  } else {
    EdgeArray<Id, double> edges;
    fill(edges);
    list.edges = std::move(edges);
  }
  return list;
}

// The same arcs handed to a sink in batches, for the bounded build: nothing the size of the
// graph is held (the file's pages are mapped and read once, in order).
template <typename Id, typename WFile>
EdgeList stream(const GraphView<Id, WFile>& g, EdgeBatchSink& sink, size_t batch_edges) {
  EdgeList list = describe_stored(g);
  const bool keep_all = g.directed();
  sink.start(!std::is_same_v<WFile, NoWeight>, list.undirected_input);
  std::vector<Edge<uint64_t, double>> batch;
  batch.reserve(batch_edges);
  auto flush = [&] {
    const EdgeBatch one(batch);
    sink.add(std::span<const EdgeBatch>(&one, 1), g.num_vertices());
    batch.clear();
  };
  g.for_each_arc([&](uint64_t u, uint64_t v, WFile w) {
    if (!keep_all && u > v) return;
    double weight = 0;
    if constexpr (!std::is_same_v<WFile, NoWeight>) weight = static_cast<double>(w);
    batch.push_back({u, v, weight});
    if (batch.size() == batch_edges) flush();
  });
  if (!batch.empty()) flush();
  return list;
}

}  // namespace

uint32_t reblock_graph(const std::string& input, const std::string& output, uint32_t blocks,
                       bool overwrite, const BoundedOptions* bounded) {
  if (blocks == 0) fail("--blocks must be at least 1");
  check_output_path(output, overwrite);  // before reading the input
  BuildOptions options;
  options.blocks = blocks;
  options.keep_self_loops = true;  // the file is already clean (or deliberately not): keep it as is
  options.keep_duplicates = true;
  if (is_version1_file(input)) {
    // The one way from version 1 to version 2.
    Version1Graph old = read_version1_file(input);
    GraphWriter writer(output, {input});
    options.provenance = Provenance{old.header, old.id_map};
    return build_graph(std::move(old.edges), options, writer).blocks;
  }
  auto file = GraphFile::open(input);
  GraphWriter writer(output, {input});
  options.provenance =
      Provenance{file->header(), file->has_section(format::SectionKind::kIdMap)
                                     ? file->section<uint64_t>(format::SectionKind::kIdMap)
                                     : std::span<const uint64_t>()};
  uint32_t written = 0;
  auto build = [&](auto view) {
    if (bounded) {
      const size_t batch = static_cast<size_t>(
          std::max<uint64_t>(bounded->memory_budget / 16 / sizeof(Edge<uint64_t, double>), 4096));
      BoundedOptions within = *bounded;  // the batch in flight counts against the budget
      within.producer_bytes = std::max<uint64_t>(BoundedBuilder::reader_bytes(within.memory_budget),
                                                 batch * sizeof(Edge<uint64_t, double>));
      within.producer = "the graph's batch of edges in flight";
      BoundedBuilder builder(options, within);
      const EdgeList list = stream(view, builder, batch);
      written = builder.finish(list, writer).blocks;
    } else {
      written = build_graph(extract(view), options, writer).blocks;
    }
  };
  if (file->weighted()) {
    with_weighted_view(file, build);
  } else {
    with_unweighted_view(file, build);
  }
  return written;
}

}  // namespace tg
