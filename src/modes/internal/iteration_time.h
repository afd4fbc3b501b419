// Breakdown of one training iteration's time under a 3D layout (docs/model.md).
#ifndef CKPTDP_MODES_INTERNAL_ITERATION_TIME_H_
#define CKPTDP_MODES_INTERNAL_ITERATION_TIME_H_

#include "ckptdp/instance.h"

namespace ckptdp::internal {

struct IterationTime {
  double compute_s = 0;   // F_iter / (n R_g): ideal compute at peak
  double bubble_s = 0;    // pipeline fill and drain
  double tensor_s = 0;    // tensor-parallel all-reduces (NVLink)
  double pipeline_s = 0;  // inter-stage sends
  double data_s = 0;      // unhidden gradient all-reduce
  double Total() const { return compute_s + bubble_s + tensor_s + pipeline_s + data_s; }
  double CommunicationShare() const { return (tensor_s + pipeline_s + data_s) / Total(); }
};

IterationTime ModelIterationTime(const Job& job, const Site& site, const ModelCoefficients& model,
                                 const ParallelLayout& layout);

}  // namespace ckptdp::internal

#endif  // CKPTDP_MODES_INTERNAL_ITERATION_TIME_H_
