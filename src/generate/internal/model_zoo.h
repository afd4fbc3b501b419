// The model zoo of the instance generator: published LLaMA-, GPT- and Pythia-style
// architectures whose descriptors (eq. 4) generated jobs are drawn from. Every entry and
// its source is tabulated in docs/generator.md.
#ifndef CKPTDP_INSTANCE_INTERNAL_MODEL_ZOO_H_
#define CKPTDP_INSTANCE_INTERNAL_MODEL_ZOO_H_

#include <span>
#include <string_view>

namespace ckptdp::instance_internal {

struct ZooModel {
  std::string_view name;  // "LLaMA-2-13B"; becomes part of the job name
  double params;          // N, as published
  double tokens;          // D of the published run
  int batch;              // published global batch, in sequences of seq_len tokens
  int seq_len;
  int layers;
  int hidden;
  int ffn_hidden;
  int heads;  // query heads; grouped/multi-query key-value heads are not modelled
  int vocab;  // padded as in the released configs (GPT-3's 50257 -> 51200)
  // Range of the baseline's GPU count before the site scaling: powers of two from
  // min_gpus to max_gpus, a scaled-down echo of the clusters the models were trained on.
  int min_gpus;
  int max_gpus;
};

// The zoo, smallest model first.
std::span<const ZooModel> ModelZoo();

}  // namespace ckptdp::instance_internal

#endif  // CKPTDP_INSTANCE_INTERNAL_MODEL_ZOO_H_
