// The non-template parts of a run's trials (run_trials_impl.h): its block store and the store's
// report.
#include <algorithm>
#include <optional>

#include "run/run_trials_impl.h"
#include "store/composite_store.h"
#include "store/copying_store.h"
#include "store/numa_store.h"
#include "store/uring_transfer.h"
#if TG_HAVE_MPI
#include "store/far_rank_store.h"
#include "store/rank_transfer.h"
#endif
#include "util/byte_size.h"
#include "util/error.h"
#include "util/option_names.h"

namespace tg::run {

std::unique_ptr<BlockStore> make_store(const RunRequest& a, std::shared_ptr<const GraphFile> file,
                                       bool weights) {
  if (a.store == StoreKind::kMapped) return nullptr;
  CopyingStoreOptions o;
  o.buffers = a.store_buffers;
  if (!a.store_buffer_bytes.empty()) o.buffer_bytes = *parse_byte_size(a.store_buffer_bytes);
  o.depth = a.store_depth;
  o.io_threads = a.store_io_threads;
  o.delay_seconds = a.store_delay;
  o.completion = a.store_order;
  o.with_weights = weights;
  o.check_hashes = !a.no_checksums;
  std::unique_ptr<Transfer> transfer;
  if (a.store == StoreKind::kFile) {
    if (a.store_delay > 0 || a.store_order != StoreOrder::kInOrder) {
      fail(
          "--store-delay and --store-order shape the copying store's reads; the file store reads "
          "the disk as it is");
    }
    // Up to four ranges a request (a piece's parts), `depth` requests in flight.
    transfer = std::make_unique<UringTransfer>(file->path(), 4 * a.store_depth);
  }
  return std::make_unique<CopyingStore>(std::move(file), o, std::move(transfer));
}

void check_verifier_fits(const TierPlan& plan, int trials, uint64_t verifier_bytes) {
  const uint64_t results = plan.results_held;
  const uint64_t needed = plan.index + results + verifier_bytes;
  if (needed <= *plan.budget) return;
  fail(
      "{} with a memory budget of {}: the verifier runs after the trials and holds the graph's "
      "index ({}), the {} "
      "trial result{} ({}) and its own arrays ({}), {} in all; give {} or more, or run without it",
      option_on("verify"), format_byte_size(*plan.budget), format_byte_size(plan.index), trials,
      trials == 1 ? "" : "s", format_byte_size(results), format_byte_size(verifier_bytes),
      format_byte_size(needed),
      option_with("memory-budget", fmt::format("{}M", (needed + (1 << 20) - 1) >> 20)));
}

nlohmann::json store_json(const BlockStore& store) {
  const StoreCounters c = store.counters();
  nlohmann::json j = {{"name", store.name()},
                      {"pool_bytes", store.pool_bytes()},
                      {"blocks_read", c.blocks},
                      {"bytes_fetched", c.bytes},
                      {"requests", c.requests},
                      {"wait_seconds", c.wait_seconds},
                      {"request_seconds", c.request_seconds},
                      {"max_in_flight", c.max_in_flight},
                      {"overlap", overlap(c.wait_seconds, c.request_seconds)}};
  if (const auto* numa = dynamic_cast<const NumaStore*>(&store)) {
    j["node"] = numa->node();
    j["node_bytes"] = numa->node_bytes();
    j["blocks_held"] = numa->blocks_held();
  }
  // A far-memory rank's window and memory, and how it is read, from the store that reads it
  // (alone or a tier).
  auto far_rank = [](const BlockStore& s) -> std::optional<nlohmann::json> {
#if TG_HAVE_MPI
    const auto describe = [](const auto& rank, const char* reads) {
      return nlohmann::json{{"window_bytes", rank.window_bytes()},
                            {"peak_rss_bytes", rank.server_peak_rss_bytes()},
                            {"reads", reads}};
    };
    if (const auto* in_place = dynamic_cast<const FarRankStore*>(&s))
      return describe(*in_place, "in place");
    const auto* copying = dynamic_cast<const CopyingStore*>(&s);
    const auto* rank = copying ? dynamic_cast<const RankTransfer*>(&copying->transfer()) : nullptr;
    if (rank) return describe(*rank, "one-sided copies");
#else
    (void)s;  // no far-memory rank without MPI
#endif
    return std::nullopt;
  };
  std::optional<nlohmann::json> rank = far_rank(store);
  if (const auto* composite = dynamic_cast<const CompositeStore*>(&store)) {
    for (const BlockStore* tier : composite->tiers()) {
      rank = far_rank(*tier);
      if (rank) break;
    }
  }
  if (rank) j["far_rank"] = *rank;
  if (const auto* copying = dynamic_cast<const CopyingStore*>(&store)) {
    j["buffer_bytes"] = copying->piece_bytes();
    j["blocks_in_pieces"] = copying->blocks_in_pieces();
    j["pieces_read"] = c.pieces;
    j["leases"] = c.leases;
  }
  return j;
}

}  // namespace tg::run
