// Fuzz target: `.cedge` road files (`edgeId u v dist`, whitespace-separated; columns 1, 2, 3 unless
// --columns says otherwise). Options: other columns, the id mode and a --vertices count.
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tg::fuzz::Input in(data, size);
  tg::ParseOptions parse;
  parse.format = "cedge";
  if (in.flag()) parse.columns = {"1", "2"};
  parse.id_mode = tg::fuzz::take_id_mode(in);
  if (in.flag()) parse.vertices = 100;
  tg::fuzz::read_and_check(in.text(), parse);
  return 0;
}
