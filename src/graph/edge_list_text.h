// Writes an edge list as text (`u v` or `u v w` per line), e.g. for feeding other systems the
// same generated graph. Written to a temporary name and renamed, like every output.
#pragma once

#include <string>

#include "graph/edge_list.h"

namespace tg {

void write_edge_list_text(const EdgeList& list, const std::string& path);

}  // namespace tg
