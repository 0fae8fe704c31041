// Demangled C++ function names shortened to their qualified name (site names, finding links).
#pragma once

#include <string>
#include <string_view>

namespace memfloor::symbols {

// The qualified name of a demangled function without its parameters, return type and template
// arguments: "void ns::A<int>::f<T>(x) const" -> "ns::A::f".
std::string functionName(std::string_view demangled);

}  // namespace memfloor::symbols
