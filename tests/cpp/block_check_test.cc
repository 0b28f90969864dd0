// A block validated alone, as a tier validates a block it has just fetched: every block of a
// real file passes, and each kind of damage is named.
#include "graph/block_check.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "graph/graph_file.h"
#include "test_graphs.h"

namespace tg {
namespace {

using testing::kronecker_graph;

class BlockCheckTest : public ::testing::Test {
 protected:
  // Directed, weighted, 8x8: 16-bit ids, CSR and DCSR blocks.
  std::shared_ptr<const GraphFile> file_ =
      kronecker_graph(11, false, GeneratedWeights::kInteger, 8, "blockcheck");

  // The block's bytes as a fetch would bring them: a copy of its extent.
  std::vector<unsigned char> fetch(uint32_t i, uint32_t j) const {
    const auto extent = file_->block_extent(Grid::kOut, i, j);
    return {extent.begin(), extent.end()};
  }
  std::string validate(const std::vector<unsigned char>& bytes, uint32_t i, uint32_t j,
                       bool hashes = true, uint64_t size = UINT64_MAX) const {
    const auto r = file_->ranges();
    return validate_block(bytes.data(), std::min<uint64_t>(size, bytes.size()),
                          file_->entry(Grid::kOut, i, j), file_->shape(i, j), r[i], r[j], hashes);
  }
  // The block with the most arcs.
  std::pair<uint32_t, uint32_t> busiest() const {
    std::pair<uint32_t, uint32_t> best{0, 0};
    for (uint32_t i = 0; i < 8; ++i)
      for (uint32_t j = 0; j < 8; ++j)
        if (file_->entry(Grid::kOut, i, j).edge_count >
            file_->entry(Grid::kOut, best.first, best.second).edge_count) {
          best = {i, j};
        }
    return best;
  }
};

TEST_F(BlockCheckTest, EveryBlockOfAFilePasses) {
  bool saw_dcsr = false, saw_csr = false;
  for (uint32_t i = 0; i < 8; ++i)
    for (uint32_t j = 0; j < 8; ++j) {
      EXPECT_EQ(validate(fetch(i, j), i, j), "") << i << "," << j;
      const bool dcsr =
          file_->entry(Grid::kOut, i, j).layout == static_cast<uint8_t>(format::BlockLayout::kDcsr);
      saw_dcsr |= dcsr;
      saw_csr |= !dcsr;
    }
  EXPECT_TRUE(saw_dcsr);
  (void)saw_csr;
}

TEST_F(BlockCheckTest, DamageIsNamed) {
  const auto [i, j] = busiest();
  const auto& e = file_->entry(Grid::kOut, i, j);
  const auto positions = format::part_positions(e.part_bytes);
  const auto& at = positions.at;
  auto bytes = fetch(i, j);
  bytes[at[format::kWeights] + 1] ^= 0x40;
  EXPECT_NE(validate(bytes, i, j).find("weights fail their checksum"), std::string::npos);
  EXPECT_EQ(validate(bytes, i, j, false), "");  // a weight's value breaks no structure

  bytes = fetch(i, j);
  const uint16_t outside = static_cast<uint16_t>(file_->shape(i, j).minor_size);
  std::memcpy(bytes.data() + at[format::kNeighbors] + 2, &outside, 2);
  EXPECT_NE(validate(bytes, i, j, false).find("outside its"), std::string::npos);
  EXPECT_NE(validate(bytes, i, j, true).find("neighbours fail their checksum"), std::string::npos);

  bytes = fetch(i, j);
  const uint16_t too_far = static_cast<uint16_t>(e.edge_count);
  std::memcpy(bytes.data() + 2, &too_far, 2);  // the second offset past the third
  EXPECT_NE(validate(bytes, i, j, false), "");

  EXPECT_NE(validate(fetch(i, j), i, j, true, at[format::kWeights]).find("arrived with"),
            std::string::npos);
}

}  // namespace
}  // namespace tg
