// Fuzz target: Matrix Market coordinate files (banner, `%` comments, size line, `row col [value]`
// entries; pattern/integer/real, general/symmetric). Options: the id mode.
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tg::fuzz::Input in(data, size);
  tg::ParseOptions parse;
  parse.format = "mtx";
  parse.id_mode = tg::fuzz::take_id_mode(in);
  tg::fuzz::read_and_check(in.text(), parse);
  return 0;
}
