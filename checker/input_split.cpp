// Splitting memfloor-check's command line between the C++ and the Python front ends.
#include "checker/input_split.h"

#include <filesystem>

#include "checker/facts.h"

namespace memfloor::checker {

bool isPythonInput(const std::string& arg) {
  std::error_code ec;
  return isPythonSource(arg) || std::filesystem::is_directory(arg, ec);
}

InputSplit splitInputs(const std::vector<std::string>& argv,
                       const std::function<bool(std::string_view name)>& takes_value) {
  InputSplit split;
  std::size_t i = 0;
  if (!argv.empty()) split.args.push_back(argv[i++]);  // the program
  for (; i < argv.size() && argv[i] != "--"; ++i) {
    const std::string& arg = argv[i];
    if (arg.size() > 1 && arg.front() == '-') {
      split.args.push_back(arg);
      std::string_view name(arg);
      name.remove_prefix(name.starts_with("--") ? 2 : 1);
      const bool valued = name.find('=') == std::string_view::npos && takes_value(name);
      if (valued && i + 1 < argv.size() && argv[i + 1] != "--") {
        split.args.push_back(argv[++i]);
      }
    } else if (isPythonInput(arg)) {
      split.python_inputs.push_back(arg);
    } else {
      split.args.push_back(arg);
    }
  }
  split.args.insert(split.args.end(), argv.begin() + static_cast<std::ptrdiff_t>(i), argv.end());
  return split;
}

}  // namespace memfloor::checker
