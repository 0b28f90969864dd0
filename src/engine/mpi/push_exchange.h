// How a push pass's updates reach their owners on MPI ranks: the push itself, in one piece or in
// slices of the frontier (with a task board that peers steal slices from), and the three
// exchanges: one MPI_Alltoallv of (vertex, value) records in bounded rounds, batches written
// one-sidedly into per-peer rings, or remote atomics into the owners' inboxes. Member
// definitions of DistEngine, declared in engine/mpi/dist_engine.h, which includes this file at
// its end.
#pragma once

#include "engine/mpi/dist_engine.h"

namespace tg {

// Push: combine here (remote targets into their mirrors), send the changed mirrors to their
// owners, take in what was sent here, and apply.
template <typename Id, typename W>
template <typename Program>
inline auto DistEngine<Id, W>::push(const Program& program, const Set& frontier,
                                    const PassOptions<Id>& options) -> Set {
  if (dist_.slices > 1 && dist_.exchange != Exchange::kCollective)
    return push_in_slices(program, frontier, options);
  if (dist_.exchange == Exchange::kCollective) {
    Changed<Id> changed = local_.combine_pass(program, frontier, options);
    changed.lists.push_back(send_collectively(program, changed.lists));
    return local_.apply_pass(program, std::move(changed));
  }
  Changed<Id> changed = local_.combine_pass(program, frontier, options);
  changed.lists.push_back(one_sided(program, [&](auto send, auto) {
    for (const auto& list : changed.lists)
      for (Id v : list)
        if (!local_.owns(v)) send(v);
  }));
  return local_.apply_pass(program, std::move(changed));
}

// Push in slices of the frontier, each slice's changed mirrors sent before the next slice is
// computed: they travel (into the peers' rings, or accumulated into their windows) while this
// rank and its peers compute, instead of after the whole pass. Between slices this rank takes
// in the batches that arrived meanwhile, so its peers' rings drain while it works. With
// stealing, the slices go on this rank's task board: it takes its own from there, then takes
// its peers' that are left (with their source values) and pushes those too.
template <typename Id, typename W>
template <typename Program>
inline auto DistEngine<Id, W>::push_in_slices(const Program& program, const Set& frontier,
                                              const PassOptions<Id>& options) -> Set {
  using Value = typename Program::Op::Value;
  using S = std::remove_cvref_t<decltype(program.source_value(Id{}))>;
  struct Task {
    Id u;
    S s;
  };
  static_assert(sizeof(Task) <= kTaskRecordBytes);
  Timer timer;
  const auto target = program.target();
  ++push_passes_;
  if (dist_.steal && !board_) {  // made on the first such pass, which every rank makes
    if (!local_.store()
             .zero_copy()) {  // the check_run_request refusal, for callers other than the CLI
      fail(
          "stealing needs every block resident: over a fetching store a rank reads only its own "
          "rows");
    }
    // The board takes its share of the exchange's memory bound (board_bytes()); a frontier
    // with more sources than it holds publishes only its last slices that fit.
    const uint64_t fits =
        dist::TaskBoard::records_fitting(board_bytes(), kTaskRecordBytes, dist_.slices);
    if (fits == 0) {
      fail(
          "--steal with --slices {} needs a larger --exchange-memory: its share, {} bytes, holds "
          "no task",
          dist_.slices, board_bytes());
    }
    board_ = std::make_unique<dist::TaskBoard>(
        comm_, kTaskRecordBytes, std::min(fits, local_.end_owned() - local_.first_owned()),
        dist_.slices);
  }
  Changed<Id> changed;
  // A program that activates once lists a vertex once per pass: a mirror a later slice
  // improves after it was sent is found by what was sent, and sent again when the pass ends.
  // What was sent is held within its share of the exchange's memory (sent_once_bytes()); once
  // that is full, the pass's other mirrors wait in `held` (a vertex set like the engine's own
  // lists of changed vertices) and leave when the pass ends, as in a pass without slices.
  using SentOnce = std::pair<Id, Value>;
  std::vector<SentOnce> sent_once;
  std::vector<Id> held;
  if constexpr (ActivatesOnce<Program>) sent_once.reserve(sent_once_bytes() / sizeof(SentOnce));
  uint64_t last_slice = 0;  // what the latest slice handed on (early unless it was the last)
  auto arrived = one_sided(program, [&](auto send, auto take_arrived) {
    auto hand_on = [&](const std::vector<Id>& others) {
      updates_sent_early_ += last_slice;
      last_slice = 0;
      for (Id v : others) {
        if constexpr (ActivatesOnce<Program>) {
          if (sent_once.size() == sent_once.capacity()) {
            held.push_back(v);
            continue;
          }
          sent_once.emplace_back(v, target[v]);
        }
        send(v);
        ++last_slice;
      }
      take_arrived();
    };
    if (!board_) {
      changed = sliced_.combine_in_slices(program, frontier, options, dist_.slices, hand_on);
    } else {
      changed = sliced_.template begin<Program>(frontier, options);
      // (Not structured bindings: the lambdas below capture them, which clang 14 cannot.)
      const auto sliced =
          sliced_.slice_sources(frontier.list(), dist_.slices, changed.stats.schedule);
      const auto& list = sliced.first;
      const auto& cuts = sliced.second;
      auto own_slice = [&](size_t k) {
        sliced_.combine_slice(program,
                              std::vector<Id>(list.begin() + cuts[k], list.begin() + cuts[k + 1]),
                              options, changed, hand_on);
      };
      // Slices [0, first) do not fit on the board: this rank does them first, while its
      // peers may take from the rest.
      size_t first = 0;
      while (first + 1 < cuts.size() && list.size() - cuts[first] > board_->max_records()) ++first;
      publish_tasks<Task>(program, list, std::span<const size_t>(cuts).subspan(first));
      for (size_t k = 0; k < first; ++k) own_slice(k);
      for (int64_t k; (k = board_->take_own()) >= 0;) own_slice(first + static_cast<size_t>(k));
      for (size_t got; (got = board_->steal(push_passes_, stolen_)) > 0;) {
        // The slice's sources with the values their owner computed, pushed as if they were ours.
        const uint64_t n = num_vertices();
        if (shipped_.size() < n * sizeof(S)) shipped_.resize(n * sizeof(S));
        auto values = VertexArray<S>::over(reinterpret_cast<S*>(shipped_.data()), 0, n);
        std::vector<Id> sources(got);
        for (size_t k = 0; k < got; ++k) {
          Task t;
          std::memcpy(&t, stolen_.data() + k * kTaskRecordBytes, sizeof(Task));
          sources[k] = t.u;
          values[t.u] = t.s;
        }
        sliced_.combine_slice(ShippedSources<Program, Id, S>{program, values}, std::move(sources),
                              options, changed, hand_on);
        ++slices_stolen_;
      }
    }
    for (const auto& [v, x] : sent_once)
      if (target[v] != x) send(v);
    for (Id v : held) send(v);
    updates_held_ += held.size();
  });
  // Everything the sliced exchange held at once: rings or an inbox's staging, board, a stolen
  // slice, and what was sent once.
  comm_.note_buffer((rings_ ? rings_->bytes() : inbox_staged_peak_) +
                    (board_ ? board_->bytes() + stolen_.capacity() : 0) +
                    sent_once.capacity() * sizeof(SentOnce));
  changed.lists.push_back(std::move(arrived));
  changed.combine_seconds = timer.seconds();
  return local_.apply_pass(program, std::move(changed));
}

// Slices of this rank on its task board (cuts: their bounds in the frontier list), each
// source with its value, written straight into the board's window.
template <typename Id, typename W>
template <typename Task, typename Program>
inline void DistEngine<Id, W>::publish_tasks(const Program& program, const std::vector<Id>& list,
                                             std::span<const size_t> cuts) {
  const size_t from = cuts.empty() ? 0 : cuts.front(),
               count = cuts.empty() ? 0 : cuts.back() - from;
  std::byte* records = board_->records();  // the board's record size, whatever a Task's
#pragma omp parallel for schedule(static) if (count > 4096)
  for (size_t k = 0; k < count; ++k) {
    const Task t{list[from + k], program.source_value(list[from + k])};
    std::memcpy(records + k * kTaskRecordBytes, &t, sizeof(Task));
  }
  std::vector<size_t> bounds(cuts.begin(), cuts.end());
  for (auto& b : bounds) b -= from;
  board_->publish(push_passes_, bounds);
}

// One push pass's exchange through the rings or the accumulate windows: body(send,
// take_arrived) calls send(v) for each changed mirror v (its value goes to v's owner) and may
// call take_arrived() when it pauses; what was sent here is combined into the masters here.
// Returns the masters that it newly changed.
template <typename Id, typename W>
template <typename Program, typename Body>
inline std::vector<Id> DistEngine<Id, W>::one_sided(const Program& program, Body body) {
  using Op = typename Program::Op;
  using Value = typename Op::Value;
  const auto target = program.target();
  std::vector<Id> arrived;
  auto take = [&](Id v, Value x) {
    if (sliced_.receive(program, v, x)) arrived.push_back(v);
  };
  if (dist_.exchange == Exchange::kRing) {
    // Records travel in batches and are taken in as they come, while this rank still sends.
    struct Update {
      Id v;
      Value x;
    };
    static_assert(sizeof(Update) <= kRingRecordBytes);
    if (!rings_) {  // made on the first push pass, which every rank makes
      rings_ = std::make_unique<dist::Rings>(comm_, kRingRecordBytes,
                                             dist::RingOptions{.batch_records = dist_.ring_batch,
                                                               .hurried = dist_.ring_hurried,
                                                               .memory_bytes = one_sided_bytes()});
    }
    rings_->begin(sizeof(Update), [&](const std::byte* records, size_t count) {
      for (size_t k = 0; k < count; ++k) {
        Update u;
        std::memcpy(&u, records + k * sizeof(Update), sizeof(Update));
        take(u.v, u.x);
      }
    });
    body(
        [&](Id v) {
          ++updates_sent_;
          const Update u{v, target[v]};
          rings_->add(comm_.owner(v), &u);
          sent(program, v);
        },
        [&] { rings_->take_arrived(); });
    rings_->finish();
  } else {
    // Combined by MPI into the owners' inboxes, taken in once every rank's epoch has closed.
    // A mirror that finds this epoch's staging full waits in `held` (a vertex list, as the
    // engine's own changed lists) and goes in a later epoch, as the collective exchange's
    // rounds do: ranks open epochs until none holds a mirror back.
    dist::Inbox& inbox = inbox_for<Op>();
    std::vector<Id> held;
    auto put = [&](Id v) {
      if (!inbox.put(comm_.owner(v), v, &target[v])) {
        held.push_back(v);
        return;
      }
      ++updates_sent_;
      sent(program, v);
    };
    auto epoch = [&](auto sends) {
      inbox.open();
      sends();
      inbox.close();
      inbox_staged_peak_ = std::max(inbox_staged_peak_, inbox.staged_bytes());
      inbox.take([&](uint64_t v, const void* x) {
        Value value;
        std::memcpy(&value, x, sizeof(Value));
        take(static_cast<Id>(v), value);
      });
    };
    epoch([&] { body(put, [] {}); });
    while (across_ranks(MaxOp<uint64_t>{}, held.size()) > 0) {
      updates_held_ += held.size();
      const std::vector<Id> waiting = std::move(held);
      held.clear();
      epoch([&] {
        for (Id v : waiting) put(v);
      });
    }
    comm_.note_buffer(inbox_staged_peak_);  // push_in_slices also notes it with what else it holds
  }
  return arrived;
}

// The changed mirrors as (vertex, value) records through MPI_Alltoallv; returns the masters
// newly changed here.
template <typename Id, typename W>
template <typename Program>
inline std::vector<Id> DistEngine<Id, W>::send_collectively(
    const Program& program, const std::vector<std::vector<Id>>& changed) {
  struct Update {
    Id v;
    typename Program::Op::Value x;
  };
  const auto target = program.target();
  std::vector<Id> arrived;
  // Rounds of at most `stride` bytes of records per peer, until no rank has more: the
  // exchange's memory stays within its bound however many updates a pass makes.
  // The buffer holds what this pass sends its busiest peer, or the bound's share if less, so
  // a pass of few updates holds few bytes (the report's peak is what was needed).
  const auto ranks = static_cast<size_t>(comm_.size());
  std::vector<size_t> counts(ranks), from;
  for (const auto& changes : changed)
    for (Id v : changes)
      if (!local_.owns(v)) ++counts[static_cast<size_t>(comm_.owner(v))];
  const size_t busiest = std::max<size_t>(1, *std::max_element(counts.begin(), counts.end()));
  const size_t per_peer =
      std::clamp<size_t>(dist_.exchange_bytes / 2 / ranks / sizeof(Update), 1, busiest);
  const size_t stride = per_peer * sizeof(Update);
  if (send_capacity_ < stride * ranks) {
    send_buffer_.reset(
        new std::byte[stride * ranks]);  // not zeroed: only what is packed is touched
    send_capacity_ = stride * ranks;
  }
  size_t list = 0, at = 0;  // where packing goes on in the next round
  for (bool any_more = true; any_more;) {
    std::fill(counts.begin(), counts.end(), 0);
    bool more = false;
    while (list < changed.size()) {
      const auto& changes = changed[list];
      for (; at < changes.size(); ++at) {
        const Id v = changes[at];
        if (local_.owns(v)) continue;
        const auto r = static_cast<size_t>(comm_.owner(v));
        if (counts[r] + sizeof(Update) > stride) {
          more = true;  // that peer's share of this round is full
          break;
        }
        const Update u{v, target[v]};
        std::memcpy(send_buffer_.get() + r * stride + counts[r], &u, sizeof(Update));
        ++updates_sent_;
        counts[r] += sizeof(Update);
        sent(program, v);
      }
      if (more) break;  // the next round goes on from `at`
      ++list;
      at = 0;
    }
    const auto received = comm_.exchange(send_buffer_.get(), stride, counts, more, any_more, from);
    for (size_t k = 0; k + sizeof(Update) <= received.size(); k += sizeof(Update)) {
      Update u;
      std::memcpy(&u, received.data() + k, sizeof(Update));
      if (sliced_.receive(program, u.v, u.x)) arrived.push_back(u.v);
    }
  }
  return arrived;
}

// The inbox for updates combined with Op (made on first use, by every rank in the same pass).
template <typename Id, typename W>
template <typename Op>
inline dist::Inbox& DistEngine<Id, W>::inbox_for() {
  using T = typename Op::Value;
  static_assert(dist::MpiValue<T>,
                "the accumulate exchange carries 4- and 8-byte integers and doubles");
  constexpr mpi::ReduceOp op = dist::MpiReduce<Op>::kOp;
  constexpr mpi::Scalar scalar = dist::MpiScalar<T>::kValue;
  for (auto& [key, inbox] : inboxes_)
    if (key.op == op && key.scalar == scalar) return *inbox;
  const T identity = Op::identity();
  auto inbox =
      std::make_unique<dist::Inbox>(comm_, sizeof(T), scalar, op, &identity, one_sided_bytes());
  auto& made = inboxes_.emplace_back(InboxKey{op, scalar}, std::move(inbox));
  return *made.second;
}

}  // namespace tg
