// The weight type of an unweighted graph or view: an empty value, so unweighted passes carry and
// read no weights at all.
#pragma once

namespace tg {

struct NoWeight {
  friend bool operator==(NoWeight, NoWeight) { return true; }
};

}  // namespace tg
