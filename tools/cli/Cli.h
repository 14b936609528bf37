//===- Cli.h - every tool's command line, one way (CLI11 behind it) -*- C++ -*-===//
//
// A tool declares its options on a cli::Command and calls Parse: `--flag=value` and
// `--flag value` both work, `--help` lists every option with its default and exits 0, and an
// unknown flag, a missing or malformed value or a flag given twice is "TOOL: why" on stderr
// and the exit code kUsageError, the same in every tool. The parser is Debian's CLI11
// (libcli11-dev), kept inside Cli.cpp: it needs RTTI, which the rest of tessel is built
// without, so no CLI11 type crosses this header.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TOOLS_CLI_CLI_H
#define TESSEL_TOOLS_CLI_CLI_H

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tessel::cli {

/// The exit code of every tool for a bad command line.
inline constexpr int kUsageError = 2;

class Command {
public:
  /// `name`: the tool's name in messages; `description`: --help's first paragraph.
  Command(std::string name, std::string description);
  ~Command();
  Command(const Command &) = delete;
  Command &operator=(const Command &) = delete;

  /// Options by their long name ("--out"; "-o,--out" adds a short one). The variable's value
  /// before Parse is the default --help shows.
  void Flag(const std::string &name, bool *value, const std::string &help);
  void Text(const std::string &name, std::string *value, const std::string &help,
            const std::string &valueName = "TEXT");
  /// One of `choices`.
  void Choice(const std::string &name, std::string *value, const std::vector<std::string> &choices,
              const std::string &help);
  /// A comma-separated list; the flag may be repeated (values add up).
  void List(const std::string &name, std::vector<std::string> *value, const std::string &help,
            const std::string &valueName = "A,B,...");
  /// A flag that may be repeated, each value taken whole (commas included).
  void Repeated(const std::string &name, std::vector<std::string> *value, const std::string &help,
                const std::string &valueName = "TEXT");
  void Integer(const std::string &name, int64_t *value, int64_t min, int64_t max,
               const std::string &help);
  void Number(const std::string &name, double *value, double min, double max,
              const std::string &help);
  /// A flag with an optional value: `--name` or `--name=VALUE` (`*given` tells it was there).
  void OptionalText(const std::string &name, std::string *value, bool *given,
                    const std::string &help, const std::string &valueName = "TEXT");
  /// Positional arguments, in order.
  void Positional(const std::string &name, std::string *value, const std::string &help,
                  bool required = true);
  void Positionals(const std::string &name, std::vector<std::string> *values,
                   const std::string &help);

  /// Whether the option was on the command line.
  bool Given(const std::string &name) const;

  /// Parses the command line: nullopt to go on, else the exit code to return now (0 after
  /// --help, kUsageError after a message on stderr).
  std::optional<int> Parse(int argc, const char *const *argv);

  /// --help's text.
  std::string Help() const;

  /// "NAME: why" and the pointer to --help on stderr; returns kUsageError.
  int UsageError(const std::string &why) const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace tessel::cli

#endif // TESSEL_TOOLS_CLI_CLI_H
