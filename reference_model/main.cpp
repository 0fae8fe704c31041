// reference_model: trains the GPT workload and prints its own live bytes in every idle window.
#include <exception>
#include <iostream>

#include "config.h"
#include "context.h"
#include "trainer.h"

int main(int argc, char** argv) {
  try {
    bool help = false;
    std::string help_text;
    const refmodel::Config config = refmodel::parseArgs(argc, argv, help, help_text);
    if (help) {
      std::cout << help_text;
      return 0;
    }
    refmodel::Context ctx;
    refmodel::Trainer trainer(ctx, config);
    trainer.run(std::cout);
    return 0;
  } catch (const refmodel::ConfigError& e) {
    std::cerr << "reference_model: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "reference_model: error: " << e.what() << "\n";
    return 1;
  }
}
