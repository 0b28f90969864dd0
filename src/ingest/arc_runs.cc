#include "ingest/arc_runs.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>

#include "util/error.h"
#include "util/log.h"
#include "util/parallel.h"

namespace tg {

namespace {

constexpr uint64_t kSparse = 4096;  // records per sparse-index entry
constexpr size_t kWriteBytes = size_t{4} << 20;
constexpr uint64_t kPunchAlign = uint64_t{1} << 20;  // holes are punched a mebibyte at a time

// Whether w is stored exactly as an int32 (and read back as the same double, -0.0 excluded).
bool fits_int32(double w) {
  if (!(w >= INT32_MIN && w <= INT32_MAX)) return false;
  return std::bit_cast<uint64_t>(static_cast<double>(static_cast<int32_t>(w))) ==
         std::bit_cast<uint64_t>(w);
}

template <typename T>
void put(unsigned char*& p, T x) {
  std::memcpy(p, &x, sizeof(T));
  p += sizeof(T);
}
template <typename T>
T take(const unsigned char*& p) {
  T x;
  std::memcpy(&x, p, sizeof(T));
  p += sizeof(T);
  return x;
}

void write_fully(int fd, const unsigned char* data, size_t bytes, const std::string& folder) {
  while (bytes > 0) {
    const ssize_t n = ::write(fd, data, bytes);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      fail("scratch folder '{}': writing a sorted run failed: {}{}", folder, std::strerror(errno),
           errno == ENOSPC ? " (give --scratch a folder on a disk with more room)" : "");
    }
    data += n;
    bytes -= static_cast<size_t>(n);
  }
}

}  // namespace

// Reads one run from a starting record on, decoding a buffer of records at a time.
class ArcRuns::Reader {
 public:
  Reader(const Run& run, uint64_t first, size_t buffer_bytes)
      : run_(run),
        next_(first),
        record_(run.record()),
        capacity_(std::max<size_t>(1, buffer_bytes / record_)) {}

  // The current arc, or false at the run's end.
  bool valid() {
    if (at_ < held_.size()) return true;
    refill();
    return at_ < held_.size();
  }
  const RunArc& current() const { return held_[at_]; }
  void advance() { ++at_; }

 private:
  void refill() {
    held_.clear();
    at_ = 0;
    const uint64_t count = std::min<uint64_t>(capacity_, run_.records - next_);
    if (count == 0) return;
    bytes_.resize(count * record_);
    size_t got = 0;
    while (got < bytes_.size()) {
      const ssize_t n = ::pread(run_.fd, bytes_.data() + got, bytes_.size() - got,
                                static_cast<off_t>(next_ * record_ + got));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0)
        fail("reading a sorted run back from the scratch folder failed: {}",
             n < 0 ? std::strerror(errno) : "it ended early");
      got += static_cast<size_t>(n);
    }
    held_.resize(count);
    const unsigned char* p = bytes_.data();
    for (auto& a : held_) {
      if (run_.id_bytes == 4) {
        a.major = take<uint32_t>(p);
        a.minor = take<uint32_t>(p);
      } else {
        a.major = take<uint64_t>(p);
        a.minor = take<uint64_t>(p);
      }
      a.w = run_.weight_bytes == 8   ? take<double>(p)
            : run_.weight_bytes == 4 ? take<int32_t>(p)
                                     : 0.0;
    }
    next_ += count;
  }

  const Run& run_;
  uint64_t next_;  // the next record to read
  size_t record_, capacity_;
  std::vector<unsigned char> bytes_;
  std::vector<RunArc> held_;
  size_t at_ = 0;
};

ArcRuns::ArcRuns(std::string folder, bool weighted)
    : folder_(std::move(folder)), weighted_(weighted) {}

ArcRuns::~ArcRuns() {
  for (const Run& r : runs_) ::close(r.fd);  // unnamed: closing frees the disk
}

uint64_t ArcRuns::arcs() const {
  uint64_t total = 0;
  for (const Run& r : runs_) total += r.records;
  return total;
}

uint64_t ArcRuns::bytes() const {
  uint64_t total = 0;
  for (const Run& r : runs_) total += r.records * r.record();
  return total;
}

uint64_t ArcRuns::disk_bytes() const {
  uint64_t total = 0;
  for (const Run& r : runs_) {
    struct stat st {};
    if (::fstat(r.fd, &st) == 0) total += static_cast<uint64_t>(st.st_blocks) * 512;
  }
  return total;
}

uint64_t ArcRuns::record_bytes(uint64_t largest_id) const {
  return 2 * (largest_id > UINT32_MAX ? 8 : 4) + (weighted_ ? 8 : 0);
}

template <typename Id, typename W>
void ArcRuns::add_run(std::span<SpillArc<Id, W>> arcs) {
  using Arc = SpillArc<Id, W>;
  if (arcs.empty()) return;
  Id largest = 0;
#pragma omp parallel for reduction(max : largest)
  for (size_t i = 0; i < arcs.size(); ++i)
    largest = std::max(largest, std::max(arcs[i].major, arcs[i].minor));
  // Buckets on the major's top bits: the sort is in place and its buckets sort in parallel.
  const uint64_t buckets_wanted = std::max<uint64_t>(1, static_cast<uint64_t>(max_threads()) * 64);
  const int shift = std::max(0, static_cast<int>(std::bit_width(uint64_t{largest})) -
                                    static_cast<int>(std::bit_width(buckets_wanted)));
  auto bucket_of = [shift](const Arc& a) {
    return static_cast<size_t>(uint64_t{a.major} >> shift);
  };
  if constexpr (std::is_same_v<Id, uint32_t> &&
                std::is_same_v<W, NoWeight>) {  // the key is the whole arc
    parallel_bucket_radix_sort(
        arcs.data(), arcs.size(), (uint64_t{largest} >> shift) + 1,
        [](const Arc& a) { return uint64_t{a.major} << 32 | a.minor; }, bucket_of);
  } else {
    auto less = [](const Arc& a, const Arc& b) {
      if (a.major != b.major) return a.major < b.major;
      if (a.minor != b.minor) return a.minor < b.minor;
      if constexpr (std::is_same_v<W, double>) return a.w < b.w;
      return false;
    };
    parallel_bucket_sort(arcs.data(), arcs.size(), (uint64_t{largest} >> shift) + 1, less,
                         bucket_of);
  }

  Run run;
  run.id_bytes = uint64_t{largest} > UINT32_MAX ? 8 : 4;
  if constexpr (std::is_same_v<W, double>) {
    bool integral = true;
#pragma omp parallel for reduction(&& : integral)
    for (size_t i = 0; i < arcs.size(); ++i) integral = integral && fits_int32(arcs[i].w);
    run.weight_bytes = integral ? 4 : 8;  // generated and integer weights: 12-byte records, not 16
  }
  run.records = arcs.size();
  run.fd = ::open(folder_.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (run.fd < 0)
    fail("scratch folder '{}': cannot create a file there: {}", folder_, std::strerror(errno));
  runs_.push_back(run);  // owned from here: closed by the destructor on any error below
  Run& r = runs_.back();
  const size_t record = r.record();
  r.sparse.reserve(arcs.size() / kSparse + 1);
  for (uint64_t i = 0; i < arcs.size(); i += kSparse) r.sparse.push_back(arcs[i].major);
  if (record == sizeof(Arc) && !(std::is_same_v<Id, uint64_t> && r.id_bytes == 4)) {
    // The buffer's layout is the file's (little-endian, no padding): write it as it is.
    write_fully(r.fd, reinterpret_cast<const unsigned char*>(arcs.data()), arcs.size_bytes(),
                folder_);
  } else {
    std::vector<unsigned char> out(kWriteBytes / record * record);
    unsigned char* p = out.data();
    for (uint64_t i = 0; i < arcs.size(); ++i) {
      if (r.id_bytes == 4) {
        put(p, static_cast<uint32_t>(arcs[i].major));
        put(p, static_cast<uint32_t>(arcs[i].minor));
      } else {
        put(p, static_cast<uint64_t>(arcs[i].major));
        put(p, static_cast<uint64_t>(arcs[i].minor));
      }
      if constexpr (std::is_same_v<W, double>) {
        if (r.weight_bytes == 4) {
          put(p, static_cast<int32_t>(arcs[i].w));
        } else {
          put(p, arcs[i].w);
        }
      }
      if (p == out.data() + out.size()) {
        write_fully(r.fd, out.data(), out.size(), folder_);
        p = out.data();
      }
    }
    write_fully(r.fd, out.data(), static_cast<size_t>(p - out.data()), folder_);
  }
  // Written back and dropped from the page cache: the runs are read once per pass, much later,
  // and cached pages would count against a memory limit the build is meant to keep.
  ::fdatasync(r.fd);
  ::posix_fadvise(r.fd, 0, 0, POSIX_FADV_DONTNEED);
}

template void ArcRuns::add_run(std::span<SpillArc<uint32_t, NoWeight>>);
template void ArcRuns::add_run(std::span<SpillArc<uint32_t, double>>);
template void ArcRuns::add_run(std::span<SpillArc<uint64_t, NoWeight>>);
template void ArcRuns::add_run(std::span<SpillArc<uint64_t, double>>);

void ArcRuns::merge(uint64_t first, uint64_t last, size_t buffer_bytes,
                    const std::function<void(std::span<const RunArc>)>& take) const {
  if (first > last) return;
  if (first < released_major_) {
    throw std::logic_error(fmt::format("a merge from major {} reads sorted runs released below {}",
                                       first, released_major_));
  }
  std::vector<Reader> readers;
  readers.reserve(runs_.size());
  for (const Run& r : runs_) {
    // Enter the run at the last sparse entry below first (records before it all have majors
    // below first).
    const auto it = std::lower_bound(r.sparse.begin(), r.sparse.end(), first);
    const uint64_t entry =
        it == r.sparse.begin() ? 0 : static_cast<uint64_t>(it - r.sparse.begin()) - 1;
    readers.emplace_back(r, std::max(entry * kSparse, r.released), buffer_bytes);
    Reader& reader = readers.back();
    while (reader.valid() && reader.current().major < first) reader.advance();
  }
  // A tournament (loser) tree over the runs: node i < k holds the run that lost the match
  // there, node 0 the overall winner; leaves k..2k-1 are the runs. Taking the winner's next arc
  // replays only its path to the root: log2(k) comparisons per arc. Ties go to the lower run.
  const size_t k = readers.size();
  // Each run's current arc, side by side: the matches read this small array, not the readers.
  std::vector<uint8_t> live(k);
  std::vector<RunArc> head(k);
  for (size_t r = 0; r < k; ++r) {
    live[r] = readers[r].valid() && readers[r].current().major <= last;
    if (live[r]) head[r] = readers[r].current();
  }
  auto beats = [&](size_t a, size_t b) {
    if (!live[a] || !live[b]) return live[a] != 0;
    const RunArc& x = head[a];
    const RunArc& y = head[b];
    if (x.major != y.major) return x.major < y.major;
    if (x.minor != y.minor) return x.minor < y.minor;
    if (x.w != y.w) return x.w < y.w;
    return a < b;
  };
  std::vector<size_t> loser(std::max<size_t>(k, 1));
  // Plays the matches below `node` (an index in the implicit tree); returns their winner.
  auto play = [&](auto& self, size_t node) -> size_t {
    if (node >= k) return node - k;
    const size_t left = self(self, 2 * node), right = self(self, 2 * node + 1);
    if (beats(left, right)) {
      loser[node] = right;
      return left;
    }
    loser[node] = left;
    return right;
  };
  size_t winner = k == 0 ? 0 : (k == 1 ? 0 : play(play, 1));
  std::vector<RunArc> batch;
  batch.reserve(65536);
  while (k > 0 && live[winner]) {
    Reader& reader = readers[winner];
    batch.push_back(head[winner]);
    if (batch.size() == batch.capacity()) {
      take(batch);
      batch.clear();
    }
    reader.advance();
    live[winner] = reader.valid() && reader.current().major <= last;
    if (live[winner]) head[winner] = reader.current();
    for (size_t node = (winner + k) / 2; node >= 1; node /= 2) {
      if (beats(loser[node], winner)) std::swap(loser[node], winner);
    }
  }
  if (!batch.empty()) take(batch);
}

void ArcRuns::release_below(uint64_t major) {
  if (major <= released_major_) return;
  released_major_ = major;
  for (Run& r : runs_) {
    // Records before the last sparse entry below `major` all have majors below it.
    uint64_t end = r.records;
    if (major != UINT64_MAX) {
      const auto it = std::lower_bound(r.sparse.begin(), r.sparse.end(), major);
      end = it == r.sparse.begin() ? 0 : static_cast<uint64_t>(it - r.sparse.begin() - 1) * kSparse;
    }
    if (end <= r.released) continue;
    r.released = end;
    // Whole aligned stretches only: a hole never cuts into a record still to be read.
    // From where the last hole ended: punching [0, to) again each group cost a walk of the extents.
    const uint64_t from = r.punched,
                   to = end == r.records
                            ? (end * r.record() + kPunchAlign - 1) / kPunchAlign * kPunchAlign
                            : end * r.record() / kPunchAlign * kPunchAlign;
    if (to <= from || punch_failed_) continue;
    if (::fallocate(r.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(from),
                    static_cast<off_t>(to - from)) == 0) {
      r.punched = to;
    } else {
      punch_failed_ = true;  // the runs keep their space until they are closed
      log::info(
          "note: scratch folder '{}' cannot free the sorted runs as they are merged ({}): the "
          "build needs room for "
          "all of them and the graph file at once",
          folder_, std::strerror(errno));
    }
  }
}

}  // namespace tg
