#include "tuner/cli/options.hpp"

#include <iostream>
#include <vector>

#include "tuner/cli/command.hpp"

namespace r4::cli {

bool parse(std::span<const std::string> args, const std::string& usage_line,
           po::options_description& desc, const po::positional_options_description& pos,
           po::variables_map& vm) {
  desc.add_options()("help,h", "show this help");
  std::vector<std::string> v(args.begin(), args.end());
  try {
    po::store(po::command_line_parser(v).options(desc).positional(pos).run(), vm);
    if (vm.count("help")) {
      std::cout << "usage: " << usage_line << "\n\n" << desc << "\n";
      return false;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(e.what());
  }
  return true;
}

}  // namespace r4::cli
