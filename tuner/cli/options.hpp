// Boost.Program_options glue shared by the subcommands: parse, turn boost's exceptions into
// UsageError (one clear line, exit 2), and print --help.
#pragma once

#include <span>
#include <string>

#include <boost/program_options.hpp>

namespace r4::cli {

namespace po = boost::program_options;

// Returns false when --help was asked for (help already printed); throws UsageError otherwise.
bool parse(std::span<const std::string> args, const std::string& usage_line,
           po::options_description& desc, const po::positional_options_description& pos,
           po::variables_map& vm);

}  // namespace r4::cli
