// Fuzz target: DIMACS shortest-path `.gr` (`c` comments, `p sp n m`, `a u v w`; or arcs without a
// problem line, as labels) and PACE `.gr` (`p tw n m`, then `u v`). Options: DIMACS or PACE, and
// the id mode.
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tg::fuzz::Input in(data, size);
  tg::ParseOptions parse;
  parse.format = in.flag() ? "pace" : "dimacs";
  parse.id_mode = tg::fuzz::take_id_mode(in);
  tg::fuzz::read_and_check(in.text(), parse);
  return 0;
}
