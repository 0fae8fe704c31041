// memfloor-check's command line split between the front ends: Python inputs (.py and .pyi files,
// directories) go to the Python front end, the rest (options, C++ sources) to CommonOptionsParser.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace memfloor::checker {

struct InputSplit {
  std::vector<std::string> args;           // argv[0], options, C++ sources; `--` and after
  std::vector<std::string> python_inputs;  // in the order given
};

// An option is an argument that starts with '-'; when `takes_value(name)` (its name without the
// dashes) and it is written without `=`, the next argument is its value, not an input. Arguments
// after `--` are compiler arguments: they stay in `args`.
InputSplit splitInputs(const std::vector<std::string>& argv,
                       const std::function<bool(std::string_view name)>& takes_value);

// A .py or .pyi file, or a directory.
bool isPythonInput(const std::string& arg);

}  // namespace memfloor::checker
