// Architectures as published; docs/generator.md gives the source of every row. Only the
// FFN width of the GPT-3 and Pythia rows (4 h) and padded vocabularies are derived.
#include "generate/internal/model_zoo.h"

namespace ckptdp::instance_internal {
namespace {

// clang-format off
constexpr ZooModel kZoo[] = {
  // name            params   tokens  batch  seq  layers hidden  ffn   heads vocab  GPUs
  {"Pythia-1B",      1.01e9,  300e9,  1024, 2048, 16,  2048,  8192,  8,  50304,  16,  128},
  {"TinyLlama-1.1B", 1.1e9,   3.0e12, 1024, 2048, 22,  2048,  5632,  32, 32000,  16,  128},
  {"GPT-3-XL-1.3B",  1.3e9,   300e9,  512,  2048, 24,  2048,  8192,  24, 51200,  16,  128},
  {"Pythia-2.8B",    2.78e9,  300e9,  1024, 2048, 32,  2560,  10240, 32, 50304,  32,  256},
  {"GPT-3-6.7B",     6.7e9,   300e9,  1024, 2048, 32,  4096,  16384, 32, 51200,  64,  512},
  {"LLaMA-7B",       6.7e9,   1.0e12, 2048, 2048, 32,  4096,  11008, 32, 32000,  64,  512},
  {"LLaMA-2-7B",     6.7e9,   2.0e12, 1024, 4096, 32,  4096,  11008, 32, 32000,  64,  512},
  {"Falcon-7B",      7.0e9,   1.5e12, 2304, 2048, 32,  4544,  18176, 71, 65024,  64,  512},
  {"Pythia-12B",     11.8e9,  300e9,  1024, 2048, 36,  5120,  20480, 40, 50688,  128, 1024},
  {"LLaMA-13B",      13.0e9,  1.0e12, 2048, 2048, 40,  5120,  13824, 40, 32000,  128, 1024},
  {"LLaMA-2-13B",    13.0e9,  2.0e12, 1024, 4096, 40,  5120,  13824, 40, 32000,  128, 1024},
  {"OPT-30B",        30.0e9,  180e9,  2048, 2048, 48,  7168,  28672, 56, 50272,  256, 1024},
  {"LLaMA-33B",      32.5e9,  1.4e12, 2048, 2048, 60,  6656,  17920, 52, 32000,  256, 1024},
  {"LLaMA-65B",      65.2e9,  1.4e12, 2048, 2048, 80,  8192,  22016, 64, 32000,  512, 2048},
  {"LLaMA-2-70B",    69.0e9,  2.0e12, 1024, 4096, 80,  8192,  28672, 64, 32000,  512, 2048},
};
// clang-format on

}  // namespace

std::span<const ZooModel> ModelZoo() { return kZoo; }

}  // namespace ckptdp::instance_internal
