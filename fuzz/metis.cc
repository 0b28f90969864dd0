// Fuzz target: METIS/Chaco adjacency lists (header `n m [fmt [ncon]]`, then one line per vertex,
// blank lines included; `%` comments; vertex sizes, vertex weights, edge weights; the lists must be
// symmetric and hold 2m entries). Options: the id mode.
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tg::fuzz::Input in(data, size);
  tg::ParseOptions parse;
  parse.format = "metis";
  parse.id_mode = tg::fuzz::take_id_mode(in);
  tg::fuzz::read_and_check(in.text(), parse);
  return 0;
}
