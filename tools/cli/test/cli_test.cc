//===- cli_test.cc - cli::Command: both value styles, --help, and every error the same -===//

#include "tools/cli/Cli.h"

#include "gtest/gtest.h"

#include <string>
#include <vector>

namespace {

using tessel::cli::Command;
using tessel::cli::kUsageError;

struct Parsed {
  std::string out = "sweep-out", strategy = "random", listing;
  std::vector<std::string> kernels;
  int64_t budget = 8;
  double minTime = 0.1;
  bool resume = false, listGiven = false;
  std::string file;
  std::optional<int> exit;
};

Parsed parse(std::vector<const char *> args) {
  Parsed p;
  Command c("tool", "A tool.");
  c.Text("--out", &p.out, "Where");
  c.Choice("--strategy", &p.strategy, {"exhaustive", "random"}, "How");
  c.List("--kernels", &p.kernels, "Which");
  c.Integer("--budget", &p.budget, 1, 1000, "How many");
  c.Number("--min-time", &p.minTime, 0, 3600, "Seconds");
  c.Flag("--resume", &p.resume, "Go on");
  c.OptionalText("--list", &p.listing, &p.listGiven, "List", "KERNEL");
  c.Positional("file", &p.file, "A file", /*required=*/false);
  args.insert(args.begin(), "tool");
  p.exit = c.Parse(int(args.size()), args.data());
  return p;
}

TEST(Cli, BothValueStylesAndDefaults) {
  Parsed a = parse({"--out=x", "--budget", "3", "--min-time=0.5", "--resume", "f.py"});
  EXPECT_FALSE(a.exit);
  EXPECT_EQ(a.out, "x");
  EXPECT_EQ(a.budget, 3);
  EXPECT_EQ(a.minTime, 0.5);
  EXPECT_TRUE(a.resume);
  EXPECT_EQ(a.file, "f.py");
  Parsed d = parse({});
  EXPECT_FALSE(d.exit);
  EXPECT_EQ(d.out, "sweep-out");
  EXPECT_EQ(d.budget, 8);
  EXPECT_FALSE(d.resume);
}

TEST(Cli, ListsSplitOnCommasAndAddUp) {
  Parsed p = parse({"--kernels=a,b", "--kernels", "c"});
  EXPECT_FALSE(p.exit);
  EXPECT_EQ(p.kernels, (std::vector<std::string>{"a", "b", "c"}));
}

TEST(Cli, OptionalValue) {
  Parsed none = parse({});
  EXPECT_FALSE(none.listGiven);
  Parsed bare = parse({"--list"});
  EXPECT_FALSE(bare.exit);
  EXPECT_TRUE(bare.listGiven);
  EXPECT_EQ(bare.listing, "");
  Parsed valued = parse({"--list=matmul"});
  EXPECT_TRUE(valued.listGiven);
  EXPECT_EQ(valued.listing, "matmul");
}

TEST(Cli, HelpExitsZero) {
  EXPECT_EQ(parse({"--help"}).exit, 0);
  EXPECT_EQ(parse({"-h"}).exit, 0);
}

TEST(Cli, EveryBadCommandLineIsTheSameExitCode) {
  for (std::vector<const char *> bad :
       {std::vector<const char *>{"--bogus"}, {"--budget=ten"}, {"--budget=0"},
        {"--budget", "2000"}, {"--min-time=-1"}, {"--strategy=magic"}, {"--out"},
        {"--out=a", "--out=b"}, {"--resume=maybe"}, {"f.py", "g.py"}}) {
    Parsed p = parse(bad);
    EXPECT_EQ(p.exit, kUsageError) << bad[0];
  }
}

TEST(Cli, HelpListsEveryOptionWithItsDefault) {
  std::string budget;
  Command c("tool", "A tool.");
  int64_t n = 8;
  std::string out = "sweep-out";
  c.Integer("--budget", &n, 1, 100, "How many");
  c.Text("--out", &out, "Where", "DIR");
  std::string help = c.Help();
  EXPECT_NE(help.find("--budget"), std::string::npos) << help;
  EXPECT_NE(help.find("8"), std::string::npos) << help;
  EXPECT_NE(help.find("--out"), std::string::npos) << help;
  EXPECT_NE(help.find("sweep-out"), std::string::npos) << help;
}

} // namespace
