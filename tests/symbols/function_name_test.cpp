// Tests of symbols/function_name: demangled names shortened to their qualified name.
#include "symbols/function_name.h"

#include <catch2/catch.hpp>

namespace memfloor::symbols {
namespace {

TEST_CASE("functionName drops parameters, return types and template arguments", "[symbols]") {
  CHECK(functionName("refmodel::Layer::forward(refmodel::Context&) const") ==
        "refmodel::Layer::forward");
  CHECK(functionName("void std::_Construct<A, B>(A*, B&&)") == "std::_Construct");
  CHECK(functionName("ns::A<int>::f(int)") == "ns::A::f");
  CHECK(functionName("(anonymous namespace)::helper(int)") == "{anonymous}::helper");
  CHECK(functionName("ns::Node::operator()(int)") == "ns::Node::operator()");
  CHECK(functionName("ns::operator<<(std::ostream&, ns::Node const&)") == "ns::operator<<");
  CHECK(functionName("ns::operator<(ns::Node const&, ns::Node const&)") == "ns::operator<");
  CHECK(functionName("bool ns::operator<=<int>(ns::Box<int> const&)") == "ns::operator<=");
  CHECK(functionName("ns::Box<int>::operator>>(int)") == "ns::Box::operator>>");
  CHECK(functionName("ns::f(int)::{lambda()#1}::operator()() const") == "ns::f");
}

}  // namespace
}  // namespace memfloor::symbols
