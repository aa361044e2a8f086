// The command line: exit codes, bad options, listing.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kc/cli.hpp"
#include "kc/runner.hpp"

namespace {
// In this process: a supervised fresh process would re-run this test executable, which is no
// kernel-contract (tests/crash runs the real command line's supervision).
int cli(std::vector<std::string> args) {
  args.insert(args.begin(), "kernel-contract");
  args.push_back("--in-process");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return kc::cli_main(int(argv.size()), argv.data(), kc::make_backends());
}
}  // namespace

TEST(Cli, HelpExitsZero) { EXPECT_EQ(cli({"--help"}), 0); }
TEST(Cli, AnUnknownOptionIsUsageError) { EXPECT_EQ(cli({"--frobnicate"}), kc::exit_usage); }
TEST(Cli, AnUnknownBackendIsUsageError) { EXPECT_EQ(cli({"--backend", "vulkan"}), kc::exit_usage); }
TEST(Cli, ABadSeedIsUsageError) { EXPECT_EQ(cli({"--seed", "12abc"}), kc::exit_usage); }
TEST(Cli, AnUnknownReporterIsUsageError) { EXPECT_EQ(cli({"--reporter", "tap"}), kc::exit_usage); }
TEST(Cli, AFilterMatchingNothingExitsThree) {
  EXPECT_EQ(cli({"--backend", "cpu", "--no-limits", "--only", "zzz/none"}), kc::exit_no_match);
  EXPECT_EQ(cli({"--list", "--only", "zzz/none"}), kc::exit_no_match);
}
TEST(Cli, ARunOfPassingEntriesExitsZero) {
  EXPECT_EQ(cli({"--backend", "cpu", "--no-limits", "--only", "toy/scale/ok"}), kc::exit_ok);
}
TEST(Cli, ARunWithAFailureExitsOne) {
  EXPECT_EQ(cli({"--backend", "cpu", "--no-limits", "--only", "toy/first_run_only"}), kc::exit_fail);
}
TEST(Cli, ASeedChangesNothingButTheInputs) {
  EXPECT_EQ(cli({"--backend", "cpu", "--no-limits", "--seed", "0x1234", "--only", "toy/rowsum/ok"}), kc::exit_ok);
}
TEST(Cli, AskingForAnAbsentBackendByNameFails) {
  EXPECT_EQ(cli({"--backend", "metal", "--no-limits"}), kc::exit_fail);
}
