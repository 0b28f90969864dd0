// Fuzz target: the binary readers, raw edge lists (bin32, bin64, with or without a 4-byte weight)
// and GAPBS serialized graphs (.sg, .wsg), whose counts, offsets and ids come from the bytes
// themselves. Options: the format (2 bits), --weighted, the id mode and a --vertices count.
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tg::fuzz::Input in(data, size);
  static const char* const kFormats[] = {"bin32", "bin64", "sg", "wsg"};
  tg::ParseOptions parse;
  parse.format = kFormats[in.take(2)];
  const bool raw = parse.format.starts_with("bin");
  if (in.flag() && raw) parse.weighted = true;
  parse.id_mode = tg::fuzz::take_id_mode(in);
  if (in.flag() && parse.id_mode == tg::IdMode::kIndex) parse.vertices = 100;
  tg::fuzz::read_and_check(in.text(), parse);
  return 0;
}
