// Numbers in model files: the shortest decimal that reads back as the same double.
#ifndef CKPTDP_EXPORT_INTERNAL_NUMBER_TEXT_H_
#define CKPTDP_EXPORT_INTERNAL_NUMBER_TEXT_H_

#include <string>

namespace ckptdp::export_internal {

// Shortest round-trip text of a finite double ("0.1", "1e-05", "-45.39").
std::string NumberText(double value);

}  // namespace ckptdp::export_internal

#endif  // CKPTDP_EXPORT_INTERNAL_NUMBER_TEXT_H_
