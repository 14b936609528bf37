//===- Cli.cpp - cli::Command over CLI11 ----------------------------------===//

#include "tools/cli/Cli.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <sstream>

namespace tessel::cli {

struct Command::Impl {
  std::string name;
  CLI::App app;
  Impl(std::string n, const std::string &description) : name(std::move(n)), app(description, name) {}

  /// OptionalText's flags: whether each was given, set after parsing.
  std::vector<std::pair<std::string, bool *>> optional;

  CLI::Option *Single(CLI::Option *o) {
    // A flag given twice would silently take its last value: an error instead.
    return o->multi_option_policy(CLI::MultiOptionPolicy::Throw);
  }
};

Command::Command(std::string name, std::string description)
    : impl_(std::make_unique<Impl>(std::move(name), description)) {
  impl_->app.set_help_flag("-h,--help", "Print this help and exit");
  impl_->app.option_defaults()->always_capture_default();
  impl_->app.get_formatter()->column_width(34);
}

Command::~Command() = default;

void Command::Flag(const std::string &name, bool *value, const std::string &help) {
  impl_->app.add_flag(name, *value, help)->multi_option_policy(CLI::MultiOptionPolicy::Throw);
}

void Command::Text(const std::string &name, std::string *value, const std::string &help,
                   const std::string &valueName) {
  impl_->Single(impl_->app.add_option(name, *value, help)->type_name(valueName));
}

void Command::Choice(const std::string &name, std::string *value,
                     const std::vector<std::string> &choices, const std::string &help) {
  impl_->Single(impl_->app.add_option(name, *value, help)->check(CLI::IsMember(choices)));
}

void Command::List(const std::string &name, std::vector<std::string> *value,
                   const std::string &help, const std::string &valueName) {
  impl_->app.add_option(name, *value, help)
      ->delimiter(',')
      ->type_name(valueName)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->expected(1, CLI::detail::expected_max_vector_size)
      ->allow_extra_args(false);
}

void Command::Repeated(const std::string &name, std::vector<std::string> *value,
                       const std::string &help, const std::string &valueName) {
  impl_->app.add_option(name, *value, help)
      ->type_name(valueName)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->expected(1)
      ->allow_extra_args(false);
}

void Command::Integer(const std::string &name, int64_t *value, int64_t min, int64_t max,
                      const std::string &help) {
  impl_->Single(impl_->app.add_option(name, *value, help)->check(CLI::Range(min, max)));
}

void Command::Number(const std::string &name, double *value, double min, double max,
                     const std::string &help) {
  impl_->Single(impl_->app.add_option(name, *value, help)->check(CLI::Range(min, max)));
}

void Command::OptionalText(const std::string &name, std::string *value, bool *given,
                           const std::string &help, const std::string &valueName) {
  impl_->Single(impl_->app.add_option(name, *value, help)
                    ->expected(0, 1)
                    ->type_name("[" + valueName + "]"));
  impl_->optional.push_back({name, given});
}

void Command::Positional(const std::string &name, std::string *value, const std::string &help,
                         bool required) {
  CLI::Option *o = impl_->app.add_option(name, *value, help);
  if (required)
    o->required();
}

void Command::Positionals(const std::string &name, std::vector<std::string> *values,
                          const std::string &help) {
  impl_->app.add_option(name, *values, help);
}

bool Command::Given(const std::string &name) const { return impl_->app.count(name) > 0; }

std::optional<int> Command::Parse(int argc, const char *const *argv) {
  try {
    impl_->app.parse(argc, argv);
  } catch (const CLI::CallForHelp &) {
    std::fputs(Help().c_str(), stdout);
    return 0;
  } catch (const CLI::ParseError &e) {
    return UsageError(e.what());
  }
  for (const auto &[name, given] : impl_->optional)
    *given = impl_->app.count(name) > 0;
  return std::nullopt;
}

std::string Command::Help() const { return impl_->app.help(); }

int Command::UsageError(const std::string &why) const {
  std::fprintf(stderr, "%s: %s\nRun %s --help for its options.\n", impl_->name.c_str(),
               why.c_str(), impl_->name.c_str());
  return kUsageError;
}

} // namespace tessel::cli
