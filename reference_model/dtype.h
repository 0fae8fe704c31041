// Element types of the reference model's tensors (bf16 storage with fp32 accumulation, or fp32).
#pragma once

#include <cstddef>
#include <string_view>

namespace refmodel {

enum class DType { kFloat32, kBFloat16, kInt32 };

constexpr std::size_t elementSize(DType dtype) {
  return dtype == DType::kBFloat16 ? 2 : 4;
}

constexpr std::string_view dtypeName(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return "fp32";
    case DType::kBFloat16:
      return "bf16";
    case DType::kInt32:
      return "int32";
  }
  return "?";
}

}  // namespace refmodel
