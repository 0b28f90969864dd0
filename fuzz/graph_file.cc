// Fuzz target: the graph file reader. The bytes are opened as a graph file, with checksums on
// or off; when the file opens, BFS runs on it with the engine and its verifier checks the answer
// (every vertex array the engine indexes with what the blocks hold must stay in bounds).
//
// Options: checksums on or off; and whether to reseal the header (recompute its checksum over
// the mutated bytes), so that mutations get past the header to the section table, the index
// rows and the blocks instead of all dying at the header checksum. With checksums off the block
// hashes are skipped too, so the structural checks alone face the mutated blocks.
#include "graph/graph_file.h"

#include <xxhash.h>

#include <cstring>
#include <vector>

#include "engine/cpu/engine.h"
#include "fuzz/fuzz_input.h"
#include "graph/format.h"
#include "graph/graph_view.h"
#include "run/kernels.h"
#include "verify/bfs.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tg::fuzz::Input in(data, size);
  const bool checksums = in.flag();
  const bool reseal = in.flag();
  const auto text = in.text();
  std::vector<uint8_t> bytes(text.begin(), text.end());
  if (reseal && bytes.size() >= sizeof(tg::format::Header)) {
    tg::format::Header h;
    std::memcpy(&h, bytes.data(), sizeof(h));
    h.header_checksum = 0;
    h.header_checksum = XXH3_64bits(&h, sizeof(h));
    std::memcpy(bytes.data(), &h, sizeof(h));
  }
  const std::string& path = tg::fuzz::as_file(bytes);
  try {
    auto file = tg::GraphFile::open(
        path, {.verify_checksums = checksums, .verify_block_hashes = checksums});
    if (file->num_vertices() == 0) return 0;
    tg::with_unweighted_view(file, [&](const auto& g) {
      tg::Engine engine(g, tg::EngineOptions{});
      const uint64_t source = 0;
      const auto result = tg::run_bfs(engine, source, true);
      if (!tg::verify_bfs(g, source, result).ok)
        __builtin_trap();  // the engine and verifier disagree
    });
  } catch (const tg::Error&) {
    // a refused file: the expected outcome of most inputs
  }
  return 0;
}
