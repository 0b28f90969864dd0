// DeviceEngine's edge passes (device_engine.h declares them and includes this file after the
// class; it is not included on its own): push and pull over one grid, apply() over the vertices
// a pass listed, and the device-side indexes they read (the frontier's and targets' bitmaps, the
// pull grids' heavy targets). Each launches the functors of device_functors.h through Thrust.
#pragma once

namespace tg::device {

template <typename Id, typename W, typename Backend>
PassState<Id> DeviceEngine<Id, W, Backend>::pass_state() {
  PassState<Id> s;
  s.claimed = thrust::raw_pointer_cast(claimed_.data());
  s.changed = thrust::raw_pointer_cast(changed_.data());
  s.count = thrust::raw_pointer_cast(count_.data());
  return s;
}

// Messages from the frontier along the arcs of `grid`, grouped by their sources (the out-grid;
// the in-grid for the reverse direction).
template <typename Id, typename W, typename Backend>
template <typename Program>
void DeviceEngine<Id, W, Backend>::push(const Program& program, const Set& frontier,
                                        const PassState<Id>& state,
                                        const DeviceGrid<W, Backend>& grid) {
  const uint32_t p = grid.side();
  if (frontier.is_all()) {
    for (uint64_t k = 0; k < uint64_t{p} * p; ++k) {
      const BlockDecoder& d = grid.block(k);
      thrust::for_each_n(policy(), thrust::counting_iterator<uint64_t>(0), d.edge_count,
                         PushAllArc<Id, W, Program>{program, state, d});
    }
    return;
  }
  const uint64_t count = frontier.size();
  Vector<uint64_t> arcs(count + 1), first(count);
  const auto ranges = g_.ranges();
  for (uint32_t i = 0; i < p; ++i) {
    for (uint32_t j = 0; j < p; ++j) {
      const BlockDecoder& d = grid.block(uint64_t{i} * p + j);
      if (d.edge_count == 0) continue;
      thrust::transform(policy(), frontier.list().begin(), frontier.list().end(), arcs.begin(),
                        ArcsInBlock<Id>{d, ranges[i], ranges[i + 1]});
      thrust::fill_n(policy(), arcs.begin() + count, 1, uint64_t{0});
      thrust::exclusive_scan(policy(), arcs.begin(), arcs.end(), arcs.begin());
      const uint64_t total = arcs[count];
      if (total == 0) continue;
      thrust::transform(policy(), frontier.list().begin(), frontier.list().end(), first.begin(),
                        FirstArc<Id>{d});
      thrust::for_each_n(
          policy(), thrust::counting_iterator<uint64_t>(0), total,
          PushListArc<Id, W, Program>{program, state, d, frontier.data(),
                                      thrust::raw_pointer_cast(first.data()),
                                      thrust::raw_pointer_cast(arcs.data()), count + 1});
    }
  }
}

// Messages into each target along its arcs in `pg`'s grid, grouped by target (the in-grid;
// the out-grid for the reverse direction).
template <typename Id, typename W, typename Backend>
template <typename Program>
void DeviceEngine<Id, W, Backend>::pull(const Program& program, const Set* targets,
                                        const PassState<Id>& state, const PullGrid& pg) {
  const uint32_t p = pg.grid->side();
  // A program whose targets saturate at their first message (BFS's bottom-up step) reads a
  // heavy target's arcs only until one is active, almost at once: one thread does that best.
  const bool split_heavy = !(ActivatesOnce<Program> && HasSaturated<Program>);
  const PullTarget<Id, W, Program> one{
      program,
      state,
      pg.grid->device_blocks(),
      thrust::raw_pointer_cast(ranges_.data()),
      split_heavy ? thrust::raw_pointer_cast(pg.heavy.data()) : nullptr,
      p};
  if (targets)
    thrust::for_each(policy(), targets->list().begin(), targets->list().end(), one);
  else
    thrust::for_each_n(policy(), thrust::counting_iterator<Id>(0), n_, one);
  for (uint64_t k = 0; k < uint64_t{p} * p && split_heavy; ++k) {
    const HeavyArcs& h = pg.arcs[k];
    if (h.total == 0) continue;
    thrust::for_each_n(
        policy(), thrust::counting_iterator<uint64_t>(0), h.total,
        PullHeavyArc<Id, W, Program>{program, state, pg.grid->block(k),
                                     thrust::raw_pointer_cast(h.targets.data()),
                                     thrust::raw_pointer_cast(h.first_arc.data()),
                                     thrust::raw_pointer_cast(h.scan.data()), h.targets.size()});
  }
}

// apply() once per changed vertex; the ones it keeps are the next frontier.
template <typename Id, typename W, typename Backend>
template <typename Program>
auto DeviceEngine<Id, W, Backend>::apply(const Program& program) -> Set {
  const uint64_t changed = count_[0];
  Vector<uint8_t> kept(changed ? changed : 1);
  thrust::transform(policy(), changed_.begin(), changed_.begin() + changed, kept.begin(),
                    Apply<Id, Program>{program, thrust::raw_pointer_cast(claimed_.data())});
  typename Set::List next(changed);
  next.resize(thrust::copy_if(policy(), changed_.begin(), changed_.begin() + changed, kept.begin(),
                              next.begin(), IsSet{}) -
              next.begin());
  return with_edges(std::move(next));
}

template <typename Id, typename W, typename Backend>
auto DeviceEngine<Id, W, Backend>::bitmap_of(const Set& set) const -> Vector<uint32_t> {
  Vector<uint32_t> map(n_ / 32 + 1, 0);
  thrust::for_each(policy(), set.list().begin(), set.list().end(),
                   SetBit<Id>{thrust::raw_pointer_cast(map.data())});
  return map;
}

// The grid whose blocks are grouped by the vertices that pull through them, indexed on first use.
template <typename Id, typename W, typename Backend>
auto DeviceEngine<Id, W, Backend>::pull_grid(Grid which) -> const PullGrid& {
  PullGrid& pg = which == Grid::kIn ? pull_in_ : pull_out_;
  if (pg.grid) return pg;
  pg.grid = which == Grid::kIn ? &in_ : &out_;
  const BlockDecoder* host = g_.grid(which);
  const uint32_t p = pg.grid->side();
  std::vector<uint8_t> heavy(n_ ? n_ : 1, 0);
#pragma omp parallel for schedule(static)
  for (uint64_t v = 0; v < n_; ++v)
    heavy[v] = (which == Grid::kIn ? g_.in_degree(v) : g_.out_degree(v)) > kHeavyInDegree;
  pg.heavy = Vector<uint8_t>(heavy.begin(), heavy.end());
  pg.arcs.resize(uint64_t{p} * p);
  for (uint64_t k = 0; k < uint64_t{p} * p; ++k) {
    std::vector<Id> targets;
    std::vector<uint64_t> first, scan{0};
    host[k].for_each_vertex([&](uint64_t v, uint64_t begin, uint64_t end) {
      if (!heavy[v] || end == begin) return;
      targets.push_back(static_cast<Id>(v));
      first.push_back(begin);
      scan.push_back(scan.back() + (end - begin));
    });
    HeavyArcs& h = pg.arcs[k];
    h.total = scan.back();
    h.targets = Vector<Id>(targets.begin(), targets.end());
    h.first_arc = Vector<uint64_t>(first.begin(), first.end());
    h.scan = Vector<uint64_t>(scan.begin(), scan.end());
  }
  return pg;
}

}  // namespace tg::device
