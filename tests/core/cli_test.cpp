// The command line: exit codes, bad options, listing.
#include <gtest/gtest.h>

#include <sstream>
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
struct Printed {
  int code;
  std::string out, err;
};
Printed cli_printed(std::vector<std::string> args) {
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  int code = cli(std::move(args));
  std::string out = testing::internal::GetCapturedStdout();
  return {code, out, testing::internal::GetCapturedStderr()};
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

// Listing a backend with no entries lists nothing and fails nothing, and says so without naming a
// filter no one gave; a filter that matches nothing still exits 3, naming it.
TEST(Cli, ListingABackendWithNoEntriesSaysSoAndExitsZero) {
  Printed p = cli_printed({"--list", "--backend", "metal"});
  EXPECT_EQ(p.code, kc::exit_ok) << p.out << p.err;
  EXPECT_NE(p.out.find("no entry is registered on backend metal"), std::string::npos) << p.out << p.err;
  EXPECT_EQ((p.out + p.err).find("--only"), std::string::npos) << p.out << p.err;
}
TEST(Cli, ListingWithAFilterThatMatchesNothingNamesItAndExitsThree) {
  Printed p = cli_printed({"--list", "--backend", "cpu", "--only", "zzz/none"});
  EXPECT_EQ(p.code, kc::exit_no_match);
  EXPECT_NE(p.err.find("no entry on backend cpu matches --only 'zzz/none'"), std::string::npos) << p.err;
  p = cli_printed({"--list", "--backend", "metal", "--only", "toy/"});
  EXPECT_EQ(p.code, kc::exit_no_match);
  EXPECT_NE(p.err.find("matches --only 'toy/' (none is registered on backend metal)"), std::string::npos) << p.err;
  p = cli_printed({"--list", "--backend", "cpu", "--only", "toy/scale/ok"});
  EXPECT_EQ(p.code, kc::exit_ok) << p.err;
  EXPECT_NE(p.out.find("toy/scale/ok"), std::string::npos) << p.out;
}

// --margins: under each gate 3 line that passed within its bounds, one indented margin line; a
// failing or bit-equal gate 3 has none, and without the option no line is printed.
TEST(Cli, MarginsPrintALineUnderEachPassingGateThree) {
  Printed p = cli_printed({"--backend", "cpu", "--no-limits", "--only", "toy/rowsum/", "--margins"});
  std::vector<std::string> lines;
  std::istringstream in(p.out);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  int margins = 0, passes = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    const bool gate3_pass = lines[i].rfind("PASS ", 0) == 0 && lines[i].find(" gate3 shapes") != std::string::npos &&
                            lines[i].find("bit-equal") == std::string::npos;
    const bool margin = lines[i].rfind("  margin ", 0) == 0;
    passes += gate3_pass;
    margins += margin;
    if (gate3_pass) {
      ASSERT_LT(i + 1, lines.size());
      EXPECT_EQ(lines[i + 1].rfind("  margin ", 0), 0u) << lines[i] << "\n" << lines[i + 1];
      EXPECT_NE(lines[i + 1].find(" of the bound at y["), std::string::npos) << lines[i + 1];
    }
    if (margin) {
      ASSERT_GT(i, 0u);
      EXPECT_EQ(lines[i - 1].find(" gate3 shapes") != std::string::npos && lines[i - 1].rfind("PASS ", 0) == 0, true)
          << "a margin line under another line: " << lines[i - 1];
    }
  }
  EXPECT_GE(passes, 3) << p.out;
  EXPECT_EQ(margins, passes) << p.out;
  p = cli_printed({"--backend", "cpu", "--no-limits", "--only", "toy/rowsum/"});
  EXPECT_EQ(p.out.find("  margin "), std::string::npos) << p.out;
}

// --list names a control that cannot run on this device (kc::NotHere) as not run, never an error.
TEST(Cli, ListingSaysAControlThatCannotRunHereIsNotRun) {
  Printed p = cli_printed({"--list", "--backend", "cpu", "--only", "nothere/control"});
  EXPECT_EQ(p.code, kc::exit_ok) << p.err;
  EXPECT_NE(p.out.find("control, not run on this device: its fault needs"), std::string::npos) << p.out;
  EXPECT_EQ(p.out.find("ERROR"), std::string::npos) << p.out;
}
