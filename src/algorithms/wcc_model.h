// The vertex step of WCC's rounds (FastSV, Zhang, Azad and Hu, SIAM PP'20), as a host-device
// function object the engine runs over every vertex: after an edge pass has left in least[v] the
// least grandparent around v, hook v's parent's tree there (stochastic hooking) and v itself to
// the least of that and its own grandparent (aggressive hooking and shortcutting). Parents only
// ever decrease, so these combines commute, and any order of vertices gives the same forest.
#pragma once

#include "engine/combine.h"
#include "engine/vertex_array.h"
#include "util/host_device.h"

namespace tg {

template <typename Id, typename Ops>
struct FastSvHook {
  VertexArray<Id> parent, least, grandparent;
  Ops ops;  // engine.ops(): combine_at

  TG_HOST_DEVICE void operator()(Id v) const {
    ops.combine_at(MinOp<Id>{}, parent, parent.load(v), least[v]);
    ops.combine_at(MinOp<Id>{}, parent, v, MinOp<Id>::combine(least[v], grandparent[v]));
  }
};

}  // namespace tg
