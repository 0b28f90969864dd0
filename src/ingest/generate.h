// Synthetic graph generators: Kronecker as the Graph500 specification defines it, and uniform
// random. Both are deterministic for a seed whatever the number of threads: every random draw is
// a pure function of (seed, edge index, purpose), never of the thread that makes it.
#pragma once

#include <cstdint>
#include <string>

#include "graph/edge_list.h"
#include "ingest/edge_sink.h"

namespace tg {

enum class GeneratorKind { kKronecker, kUniform };
enum class GeneratedWeights { kNone, kInteger, kReal };  // kInteger: [1,255] as GAP; kReal: (0,1]

struct GeneratorOptions {
  GeneratorKind kind = GeneratorKind::kKronecker;
  int scale = 16;        // 2^scale vertices
  int edge_factor = 16;  // edge_factor * 2^scale edges
  uint64_t seed = 27491095;
  GeneratedWeights weights = GeneratedWeights::kNone;
};

// Generates the edge list (index ids, declared_vertices = 2^scale, directed as generated).
EdgeList generate(const GeneratorOptions& options);

// The number of edges generate() makes (after checking the options).
uint64_t generated_edge_count(const GeneratorOptions& options);

// Draws the same edges as generate(), in order, into `sink`, about `batch_edges` at a time
// (never holding more); returns the list's description, which holds no edges.
EdgeList generate_into(const GeneratorOptions& options, EdgeBatchSink& sink, uint64_t batch_edges);

// The memory generate_into holds while it runs: a Kronecker graph's vertex permutation (4 bytes
// a vertex up to 2^32 vertices, 8 beyond) and the batch in flight (24 bytes an edge).
uint64_t generate_into_bytes(const GeneratorOptions& options, uint64_t batch_edges);

// Edge k's weight under `convert --weights` (what add_generated_weights gives it).
double generated_weight(GeneratedWeights kind, uint64_t seed, uint64_t k);

// Replaces or adds weights on an existing edge list with seeded generated ones, edge k's weight
// a function of (seed, k) only. Used by `convert --weights`.
void add_generated_weights(EdgeList& list, GeneratedWeights kind, uint64_t seed);

}  // namespace tg
