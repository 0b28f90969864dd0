// The algorithm programs (BFS's, SSSP's, PageRank's and Radii's; WCC links in edge functions and
// has none), compiled by nvcc and run as device code: a kernel evaluates each program's edge
// function (source value, message, combine into the target, apply) on device memory, and the
// result must equal the same program run on the host. Skips without a GPU.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "algorithms/bfs.h"
#include "algorithms/pagerank.h"
#include "algorithms/radii.h"
#include "algorithms/sssp.h"

namespace tg {
namespace {

constexpr uint64_t kVertices = 8;

// Relaxes edge u -> v of weight w the way a pass does: message from u's source value, combined
// into v's target, applied if it changed; returns whether v became active.
template <typename Program, typename W>
TG_HOST_DEVICE bool relax(const Program& p, uint32_t u, uint32_t v, W w) {
  using Op = typename Program::Op;
  const auto current = p.target()[v];
  const auto combined = Op::combine(current, p.message(p.source_value(u), w));
  if (combined == current) return false;
  p.target()[v] = combined;
  return p.apply(v);
}

template <typename Program, typename W>
__global__ void relax_kernel(Program p, uint32_t u, uint32_t v, W w, bool* active) {
  *active = relax(p, u, v, w);
}

bool have_device() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

// Device copies of host arrays, and views of them.
template <typename T>
struct DeviceArray {
  T* data = nullptr;
  explicit DeviceArray(const std::vector<T>& host) {
    EXPECT_EQ(cudaMalloc(&data, host.size() * sizeof(T)), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(data, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice),
              cudaSuccess);
  }
  ~DeviceArray() { cudaFree(data); }
  // Owns its allocation: a copy would free it twice (built in place, never copied).
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  VertexArray<T> view() const { return VertexArray<T>::over(data, 0, kVertices); }
  std::vector<T> back() const {
    std::vector<T> host(kVertices);
    EXPECT_EQ(cudaMemcpy(host.data(), data, kVertices * sizeof(T), cudaMemcpyDeviceToHost),
              cudaSuccess);
    return host;
  }
};

template <typename T>
VertexArray<T> host_view(std::vector<T>& a) {
  return VertexArray<T>::over(a.data(), 0, a.size());
}

// Runs `make(views...)`'s program on the host and on the device over copies of the same arrays,
// relaxing edge 2 -> 5, and compares every array and the activation.
template <typename W, typename Make, typename... T>
void same_on_device(W w, Make make, std::vector<T>... arrays) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  std::tuple<DeviceArray<T>...> device{arrays...};  // each element made in place from its vector
  const bool host_active = relax(make(host_view(arrays)...), 2, 5, w);
  bool* active = nullptr;
  ASSERT_EQ(cudaMallocManaged(&active, sizeof(bool)), cudaSuccess);
  std::apply([&](auto&... d) { relax_kernel<<<1, 1>>>(make(d.view()...), 2u, 5u, w, active); },
             device);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(*active, host_active);
  cudaFree(active);
  std::apply(
      [&](auto&... d) { EXPECT_EQ(std::make_tuple(d.back()...), std::make_tuple(arrays...)); },
      device);
}

TEST(DevicePrograms, Bfs) {
  std::vector<int64_t> depth(kVertices, kUnreached);
  same_on_device(
      NoWeight{},
      [](auto d) {
        return BfsProgram<uint32_t>{d, 3};
      },
      depth);
}

TEST(DevicePrograms, BfsTree) {
  std::vector<uint32_t> parent(kVertices, BfsTreeProgram<uint32_t>::kNone);
  std::vector<int64_t> depth(kVertices, kUnreached);
  same_on_device(
      NoWeight{},
      [](auto p, auto d) {
        return BfsTreeProgram<uint32_t>{p, d, 3};
      },
      parent, depth);
}

TEST(DevicePrograms, SsspIntegerAndRealWeights) {
  std::vector<int64_t> dist(kVertices, MinOp<int64_t>::identity());
  dist[2] = 10;
  same_on_device(
      int32_t{7}, [](auto d) { return SsspProgram<uint32_t, int32_t>{d}; }, dist);
  std::vector<double> real(kVertices, MinOp<double>::identity());
  real[2] = 1.5;
  same_on_device(
      0.25, [](auto d) { return SsspProgram<uint32_t, double>{d}; }, real);
}

TEST(DevicePrograms, PageRankRadii) {
  std::vector<double> contribution(kVertices, 0.125), incoming(kVertices, 0.5);
  same_on_device(
      NoWeight{},
      [](auto c, auto i) {
        return PageRankProgram<uint32_t, double>{c, i};
      },
      contribution, incoming);
  std::vector<float> single(kVertices, 0.125f);  // --precision float's contributions
  same_on_device(
      NoWeight{},
      [](auto c, auto i) {
        return PageRankProgram<uint32_t, float>{c, i};
      },
      single, incoming);
  std::vector<uint64_t> seen(kVertices, 0), next(kVertices, 0);
  std::vector<int64_t> eccentricity(kVertices, kUnreached);
  seen[2] = 0b101;
  same_on_device(
      NoWeight{},
      [](auto s, auto n, auto e) {
        return RadiiProgram<uint32_t>{s, n, e, 0b111, 4};
      },
      seen, next, eccentricity);
}

}  // namespace
}  // namespace tg
