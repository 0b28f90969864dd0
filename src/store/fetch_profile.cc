#include "store/fetch_profile.h"

#include <algorithm>
#include <fstream>
#include <map>

#include "util/error.h"

namespace tg {

FetchProfile choose_fetch_profile(const std::vector<FetchPoint>& points) {
  // Single-reader points only: the pipeline of one store is what a plan sizes.
  std::map<uint64_t, std::vector<const FetchPoint*>> by_chunk;
  double best = 0;
  for (const FetchPoint& p : points) {
    if (p.threads != 1 || p.bytes_per_second <= 0) continue;
    by_chunk[p.chunk_bytes].push_back(&p);
    best = std::max(best, p.bytes_per_second);
  }
  if (by_chunk.empty())
    fail("a fetch profile needs at least one measurement with one reading thread");
  auto best_of = [](const std::vector<const FetchPoint*>& at) {
    double b = 0;
    for (const FetchPoint* p : at) b = std::max(b, p->bytes_per_second);
    return b;
  };
  FetchProfile chosen;
  chosen.smallest_chunk = 0;
  chosen.chunk_bytes = 0;
  for (const auto& [chunk, at] : by_chunk) {  // in increasing chunk size
    const double b = best_of(at);
    if (chosen.smallest_chunk == 0 && b >= 0.5 * best) chosen.smallest_chunk = chunk;
    if (chosen.chunk_bytes == 0 && b >= 0.9 * best) {
      chosen.chunk_bytes = chunk;
      std::vector<const FetchPoint*> depths = at;
      std::sort(depths.begin(), depths.end(),
                [](const auto* x, const auto* y) { return x->depth < y->depth; });
      for (const FetchPoint* p : depths)
        if (p->bytes_per_second >= 0.9 * b) {
          chosen.depth = p->depth;
          break;
        }
    }
  }
  return chosen;
}

nlohmann::json profile_to_json(const std::vector<TierProfile>& tiers) {
  nlohmann::json j = {
      {"format", "tiergraph-fetch-profile"}, {"version", 1}, {"tiers", nlohmann::json::object()}};
  for (const TierProfile& t : tiers) {
    nlohmann::json points = nlohmann::json::array();
    for (const FetchPoint& p : t.points) {
      points.push_back({{"chunk_bytes", p.chunk_bytes},
                        {"depth", p.depth},
                        {"threads", p.threads},
                        {"bytes_per_second", p.bytes_per_second},
                        {"latency_seconds", p.latency_seconds},
                        {"requests", p.requests}});
    }
    j["tiers"][t.tier] = {{"measured", t.where},
                          {"points", points},
                          {"chosen",
                           {{"chunk_bytes", t.chosen.chunk_bytes},
                            {"smallest_chunk_bytes", t.chosen.smallest_chunk},
                            {"depth", t.chosen.depth}}}};
  }
  return j;
}

namespace {

// nlohmann's message without its id ("[json.exception.parse_error.101] "), which means nothing to
// a user: "parse error at line 3, column 5: syntax error while parsing object - ...".
std::string json_reason(const nlohmann::json::exception& e) {
  std::string why = e.what();
  const size_t end = why.find("] ");
  if (why.starts_with("[json.exception.") && end != std::string::npos) why.erase(0, end + 2);
  return why;
}

// A field that must be a whole number, 0 or more: get<uint64_t>() of -5 gave 18446744073709551611.
uint64_t whole_field(const nlohmann::json& chosen, const char* key, const std::string& path,
                     const std::string& tier) {
  const nlohmann::json& value = chosen.at(key);
  if (!value.is_number_unsigned()) {
    fail("'{}': the {} tier's chosen {} must be a whole number, 0 or more, got {}", path, tier, key,
         value.dump());
  }
  return value.get<uint64_t>();
}

}  // namespace

FetchProfile load_fetch_profile(const std::string& path, const std::string& tier) {
  std::ifstream in(path);
  if (!in) fail("'{}': cannot read the profile", path);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    fail("'{}': the profile is not JSON: {}", path, json_reason(e));
  }
  if (!j.is_object() || j.value("format", "") != "tiergraph-fetch-profile") {
    fail("'{}': not a fetch profile (make one with `tiergraph calibrate -o {}`)", path, path);
  }
  if (!j.contains("tiers") || !j["tiers"].contains(tier)) {
    fail("'{}': the profile has no measurements of the {} tier (calibrate with --far {})", path,
         tier, tier);
  }
  try {
    const auto& c = j["tiers"][tier].at("chosen");
    FetchProfile p;
    p.source = path;
    p.chunk_bytes = whole_field(c, "chunk_bytes", path, tier);
    p.smallest_chunk = whole_field(c, "smallest_chunk_bytes", path, tier);
    const uint64_t depth = whole_field(c, "depth", path, tier);
    if (p.chunk_bytes < 4096 || p.chunk_bytes > (uint64_t{1} << 30) || p.smallest_chunk < 4096 ||
        p.smallest_chunk > p.chunk_bytes || depth < 1 || depth > 1024) {
      fail(
          "'{}': the {} tier's chosen chunk {} bytes, smallest {} bytes, depth {} are out of range "
          "(chunks 4096 to "
          "2^30 bytes, the smallest no larger than the chunk; depth 1 to 1024)",
          path, tier, p.chunk_bytes, p.smallest_chunk, depth);
    }
    p.depth = static_cast<uint32_t>(depth);
    return p;
  } catch (const nlohmann::json::exception& e) {
    fail("'{}': the {} tier's choice is incomplete: {}", path, tier, json_reason(e));
  }
}

}  // namespace tg
