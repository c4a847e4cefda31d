// The idlc command line: exit status 0 / 1 (schema errors) / 2 (usage errors), where output goes, and
// the diagnostic format with its caret line.
#include <gtest/gtest.h>

#include <algorithm>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

struct Result {
  int status = -1;
  std::string out;
  std::string err;
};

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("idlc_cli_" + std::string(info->name()) + "_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) {
    fs::path path = dir_ / name;
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
  }

  static std::string slurp(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
  }

  // Runs idlc with `args` (already quoted) from the temporary directory.
  Result run(const std::string& args) {
    fs::path out = dir_ / "stdout.txt";
    fs::path err = dir_ / "stderr.txt";
    std::string command = "cd '" + dir_.string() + "' && '" + std::string(IDLC_EXECUTABLE) + "' " + args +
                          " >'" + out.string() + "' 2>'" + err.string() + "'";
    int raw = std::system(command.c_str());
    Result result;
    result.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    result.out = slurp(out);
    result.err = slurp(err);
    return result;
  }

  fs::path dir_;
};

TEST_F(Cli, HelpAndVersion) {
  Result help = run("--help");
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("usage: idlc [options] FILE.net..."), std::string::npos);
  EXPECT_NE(help.out.find("--layout=json"), std::string::npos);
  EXPECT_EQ(help.err, "");
  Result version = run("--version");
  EXPECT_EQ(version.status, 0);
  EXPECT_EQ(version.out, std::string("idlc ") + IDLC_VERSION + "\n");
}

TEST_F(Cli, UsageErrorsExitWithTwo) {
  EXPECT_EQ(run("").status, 2);
  Result unknown = run("--frobnicate x.net");
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.err.find("unknown option '--frobnicate'"), std::string::npos);
  EXPECT_EQ(run("--layout=xml x.net").status, 2);
  Result missing = run("no_such_file.net");
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("cannot read 'no_such_file.net': no such file"), std::string::npos);
  fs::create_directories(dir_ / "a_directory.net");
  EXPECT_EQ(run("a_directory.net").status, 2);
}

TEST_F(Cli, CleanSchemaExitsWithZeroAndPrintsNothing) {
  write("ok.net", "package ok;\nmessage M { bool x; }\n");
  Result check = run("--check ok.net");
  EXPECT_EQ(check.status, 0);
  EXPECT_EQ(check.out, "");
  EXPECT_EQ(check.err, "");
  EXPECT_EQ(run("ok.net").status, 0);
}

TEST_F(Cli, SchemaErrorsExitWithOneAndPrintFileLineColumnSourceAndCaret) {
  write("bad.net", "package bad;\nstruct S {\n\tuint8<0 .. 1000> x;\n  bool delete;\n}\n");
  Result r = run("bad.net");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(
      r.err,
      "bad.net:3:8: error: range 0 .. 1000 does not fit uint8 (0 .. 255): widen the storage (e.g. uint16) or "
      "narrow the range\n"
      "\tuint8<0 .. 1000> x;\n"
      "\t      ^\n"
      "bad.net:4:8: error: 'delete' is a C++ keyword and cannot name anything in generated code: rename it\n"
      "  bool delete;\n"
      "       ^~~~~~\n"
      "idlc: 2 errors\n");
}

TEST_F(Cli, ErrorsInImportsAreReportedWithTheirFile) {
  write("lib.net", "package lib;\nstruct P { uint:0 x; }\n");
  write("main.net", "package main;\nimport \"lib.net\";\nmessage M { lib.P p; }\n");
  Result r = run("main.net");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("lib.net:2:17: error: a bit width must be 1 .. 64, found 0"), std::string::npos)
      << r.err;
}

TEST_F(Cli, LayoutTextAndJson) {
  write("m.net", "package m;\nmessage M { uint8 a; int<0 .. 3> b; }\n");
  Result text = run("--layout m.net");
  EXPECT_EQ(text.status, 0);
  EXPECT_NE(text.out.find("message M  (type id 0)  MaxBits 10, MaxBytes 2\n"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("  8             2           b      int8<0 .. 3>\n"), std::string::npos)
      << text.out;
  Result json = run("--layout=json m.net");
  EXPECT_EQ(json.status, 0);
  EXPECT_EQ(json.out.rfind("[\n{\n  \"package\": \"m\",", 0), 0u) << json.out;
  EXPECT_NE(json.out.find("\"max_bits\": 10"), std::string::npos);
  // Layout is not printed when the schema has errors.
  write("e.net", "package e;\nmessage M { uint:99 a; }\n");
  Result bad = run("--layout e.net");
  EXPECT_EQ(bad.status, 1);
  EXPECT_EQ(bad.out, "");
}

TEST_F(Cli, SeveralFilesAreCheckedTogether) {
  write("a.net", "package a;\nmessage A { bool x; }\n");
  write("b.net", "package b;\nmessage B { bool x; }\n");
  write("c.net", "package a;\nmessage C { bool x; }\n");
  EXPECT_EQ(run("a.net b.net").status, 0);
  Result json = run("--layout=json a.net b.net");
  EXPECT_NE(json.out.find("\"package\": \"a\""), std::string::npos);
  EXPECT_NE(json.out.find("\"package\": \"b\""), std::string::npos);
  Result clash = run("a.net c.net");
  EXPECT_EQ(clash.status, 1);
  EXPECT_NE(clash.err.find("package 'a' is also declared by a.net"), std::string::npos) << clash.err;
}

// --random / --bench: need -o; write the random header of every package (imports included) and the
// benchmark program of each file named; refuse a schema file whose header name is another's random header.
TEST_F(Cli, RandomAndBenchWriteTheirFilesAndNeedAnOutputDirectory) {
  write("shared.net", "package shared;\nstruct Point { int<-5 .. 5> x; }\n");
  write("game.net", "package game;\nimport \"shared.net\";\nmessage Move { shared.Point to; bool run; }\n");
  for (const char* flag : {"--random", "--bench"}) {
    Result r = run(std::string(flag) + " game.net");
    EXPECT_EQ(r.status, 2) << flag;
    EXPECT_NE(r.err.find(std::string(flag) + " needs -o DIR"), std::string::npos) << r.err;
  }
  ASSERT_EQ(run("-o random --random game.net").status, 0);
  EXPECT_TRUE(fs::exists(dir_ / "random" / "game_random.hpp"));
  EXPECT_TRUE(fs::exists(dir_ / "random" / "shared_random.hpp"));
  EXPECT_FALSE(fs::exists(dir_ / "random" / "game_bench.cpp"));
  ASSERT_EQ(run("-o bench --bench game.net").status, 0);
  EXPECT_TRUE(fs::exists(dir_ / "bench" / "game_random.hpp"));
  EXPECT_FALSE(fs::exists(dir_ / "bench" / "shared_bench.cpp")) << "only the files named get a program";
  const std::string program = slurp(dir_ / "bench" / "game_bench.cpp");
  EXPECT_NE(program.find("\"game.Move/write\""), std::string::npos);
  EXPECT_NE(program.find("\"game.Move/read\""), std::string::npos);
  EXPECT_NE(program.find("\"game.Move/measure\""), std::string::npos);
  EXPECT_NE(slurp(dir_ / "bench" / "shared_random.hpp").find("::shared::Point& value_"), std::string::npos);

  write("game_random.net", "package other;\nmessage O { bool x; }\n");
  Result clash = run("-o clash --random game.net game_random.net");
  EXPECT_EQ(clash.status, 1);
  EXPECT_NE(clash.err.find("rename one of the schema files"), std::string::npos) << clash.err;
  EXPECT_EQ(run("-o plain game.net game_random.net").status, 0) << "without --random the names do not meet";
}

// A package whose outermost namespace is `benchmark` merges with Google Benchmark's, which the --bench
// program includes: `message State` redefined benchmark::State and the program did not compile. Refused
// with --bench (for an imported package too), accepted without it.
TEST_F(Cli, BenchRefusesAPackageInGoogleBenchmarksNamespace) {
  write("benchmark.net", "package benchmark;\nmessage State { uint8 a; }\n");
  write("user.net", "package user;\nimport \"benchmark.net\";\nmessage M { benchmark.State s; }\n");
  write("nested.net", "package game.benchmark;\nmessage State { uint8 a; }\n");
  for (const char* file : {"benchmark.net", "user.net"}) {
    Result r = run(std::string("-o bench --bench ") + file);
    EXPECT_EQ(r.status, 1) << file;
    EXPECT_NE(
        r.err.find(
            "benchmark.net: package 'benchmark' is the namespace of Google Benchmark, which the --bench "
            "program includes: its declarations would merge with Google Benchmark's; rename the "
            "package to use --bench"),
        std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "bench" / "benchmark_bench.cpp"));
  }
  EXPECT_EQ(run("-o random --random benchmark.net").status, 0)
      << "without --bench nothing includes Google Benchmark";
  EXPECT_EQ(run("-o plain benchmark.net").status, 0);
  EXPECT_EQ(run("-o nested --bench nested.net").status, 0) << "game::benchmark is another namespace";
}

// An import of a file that does not exist says so, with the file it probably meant, whether the root was
// named by a relative or an absolute path (a relative one used to be reported as outside the allowed
// directories: the wrong cause and the wrong fix).
TEST_F(Cli, MissingImportSaysTheFileDoesNotExistAndSuggestsTheNearestName) {
  write("common.net", "package common;\nconst A = 1;\n");
  write("main.net", "package main;\nimport \"comon.net\";\nmessage M { bool b; }\n");
  for (const std::string& root : {std::string("main.net"), (dir_ / "main.net").string()}) {
    Result r = run("'" + root + "'");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("main.net:2:8: error: there is no file 'comon.net' beside this file: did you mean "
                         "'common.net'?"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.err.find("outside"), std::string::npos) << r.err;
  }
  write("other.net", "package other;\nimport \"nothing_like_it.net\";\n");
  Result none = run("other.net");
  EXPECT_NE(none.err.find("other.net:2:8: error: there is no file 'nothing_like_it.net' beside this file\n"),
            std::string::npos)
      << none.err;
  fs::create_directories(dir_ / "inc");
  Result with_include = run("-I inc other.net");
  EXPECT_NE(with_include.err.find("there is no file 'nothing_like_it.net' beside this file or in the -I "
                                  "directories\n"),
            std::string::npos)
      << with_include.err;
}

// Every "did you mean" carries a replacement an editor can apply, printed with --parseable-fixits (or
// clang's spelling of the flag) in clang's form, after the error; without the flag nothing changes.
TEST_F(Cli, DidYouMeanErrorsCarryParseableFixIts) {
  write("checked.net",
        "package t;\n"
        "enum Color { Red, Green }\n"
        "struct S {\n"
        "  Colr c;\n"
        "  Color d = Gren;\n"
        "  bool alive;\n"
        "  Color k;\n"
        "  if (alve) {}\n"
        "  if (k == Reed) {}\n"
        "}\n");
  write("parsed.net", "package t;\nmesage X {}\n");
  write("condition.net", "package t;\nstruct S { bool a; if (a = true) {} }\n");
  for (const char* flag : {"--parseable-fixits", "-fdiagnostics-parseable-fixits"}) {
    Result checked = run(std::string(flag) + " checked.net");
    EXPECT_EQ(checked.status, 1);
    for (const char* line : {"\nfix-it:\"checked.net\":{4:3-4:7}:\"Color\"\n",
                             "\nfix-it:\"checked.net\":{5:13-5:17}:\"Green\"\n",
                             "\nfix-it:\"checked.net\":{8:7-8:11}:\"alive\"\n",
                             "\nfix-it:\"checked.net\":{9:12-9:16}:\"Red\"\n"}) {
      EXPECT_NE(checked.err.find(line), std::string::npos) << line << checked.err;
    }
    Result parsed = run(std::string(flag) + " parsed.net");
    EXPECT_NE(parsed.err.find("\nfix-it:\"parsed.net\":{2:1-2:7}:\"message\"\n"), std::string::npos)
        << parsed.err;
    Result condition = run(std::string(flag) + " condition.net");
    EXPECT_NE(condition.err.find("\nfix-it:\"condition.net\":{2:26-2:27}:\"==\"\n"), std::string::npos)
        << condition.err;
  }
  EXPECT_EQ(run("checked.net").err.find("fix-it:"), std::string::npos);
}

// Every output goes through the one writer (write_if_changed): a second run with the same inputs rewrites
// nothing, not the headers, sources, random headers and benchmark programs, nor the depfile (which was
// rewritten on every run before), so build systems see no change.
TEST_F(Cli, UnchangedOutputsAreNotRewritten) {
  write("game.net", "package game;\nmessage Move { bool run; }\n");
  ASSERT_EQ(run("-o out --bench --depfile out/game.d game.net").status, 0);
  const auto old_time = fs::file_time_type::clock::now() - std::chrono::hours(24);
  const std::vector<std::string> outputs = {"game.hpp", "game.cpp", "game_random.hpp", "game_bench.cpp",
                                            "game.d"};
  for (const std::string& name : outputs) {
    ASSERT_TRUE(fs::exists(dir_ / "out" / name)) << name;
    fs::last_write_time(dir_ / "out" / name, old_time);
  }
  ASSERT_EQ(run("-o out --bench --depfile out/game.d game.net").status, 0);
  for (const std::string& name : outputs) {
    EXPECT_EQ(fs::last_write_time(dir_ / "out" / name), old_time) << name << " was rewritten";
  }
  write("game.net", "package game;\nmessage Move { bool run; bool jump; }\n");
  ASSERT_EQ(run("-o out --bench --depfile out/game.d game.net").status, 0);
  EXPECT_NE(fs::last_write_time(dir_ / "out" / "game.hpp"), old_time) << "a changed output is written";
}

// --factory-sources N writes exactly N source files per package, whatever the schema holds (a build
// system declares them before idlc runs): a package too small to fill them leaves the rest empty.
TEST_F(Cli, FactorySourcesWriteExactlyThatManyFiles) {
  std::string text = "package big;\n";
  for (int i = 0; i < 100; ++i) text += "message M" + std::to_string(i) + " { uint<0 .. 9> x; }\n";
  write("big.net", text);
  write("small.net", "package small;\nmessage Only { bool x; }\n");
  for (const char* bad : {"0", "65", "x", "-1", "007", "Auto"}) {
    Result r = run(std::string("-o out --factory-sources ") + bad + " big.net");
    EXPECT_EQ(r.status, 2) << bad;
    EXPECT_NE(r.err.find("give auto or a number of files from 1 to 64"), std::string::npos) << r.err;
  }
  EXPECT_EQ(run("--factory-sources 3 big.net").status, 2) << "needs -o";
  EXPECT_EQ(run("--factory-sources auto big.net").status, 2) << "needs -o";
  ASSERT_EQ(run("-o out --factory-sources 5 big.net small.net").status, 0);
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir_ / "out")) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"big.cpp", "big.hpp", "big_factory_1.cpp", "big_factory_2.cpp",
                                             "big_factory_3.cpp", "big_factory_4.cpp", "small.cpp",
                                             "small.hpp", "small_factory_1.cpp", "small_factory_2.cpp",
                                             "small_factory_3.cpp", "small_factory_4.cpp"}));
  // 100 messages at 25 or more a file: four files of 25, the fifth empty.
  EXPECT_NE(slurp(dir_ / "out" / "big_factory_3.cpp").find("bool write_M99_(void* message_"),
            std::string::npos);
  EXPECT_EQ(slurp(dir_ / "out" / "big_factory_3.cpp").find("bool write_M74_(void* message_"),
            std::string::npos);
  EXPECT_EQ(slurp(dir_ / "out" / "big_factory_4.cpp").find("#include"), std::string::npos);
  EXPECT_EQ(slurp(dir_ / "out" / "small_factory_1.cpp").find("#include"), std::string::npos);
  EXPECT_NE(slurp(dir_ / "out" / "small.cpp").find("bool write_Only_(void* message_"), std::string::npos);

  // Another schema's outputs may not take a factory file's name.
  write("big_factory_1.net", "package clash;\nmessage C { bool x; }\n");
  Result clash = run("-o clash --factory-sources 2 big.net big_factory_1.net");
  EXPECT_EQ(clash.status, 1);
  EXPECT_NE(clash.err.find("would both generate 'big_factory_1.cpp'"), std::string::npos) << clash.err;
}

// Without --factory-sources (or with auto) the package's size chooses: one file per 25 messages, rounded
// down, at least 1 and at most 16; a later run with fewer files removes the factory files it no longer
// writes, so a build that compiles every NAME_factory_*.cpp never sees an entry point twice.
TEST_F(Cli, FactorySourcesDefaultToOneFilePer25Messages) {
  const auto factory_files = [&](const fs::path& out) {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(out)) {
      const std::string name = entry.path().filename().string();
      if (name.size() > 4 && name.substr(name.size() - 4) == ".cpp") names.push_back(name);
    }
    std::sort(names.begin(), names.end());
    return names;
  };
  const auto schema = [](int messages) {
    std::string text = "package big;\n";
    for (int i = 0; i < messages; ++i) text += "message M" + std::to_string(i) + " { uint<0 .. 9> x; }\n";
    return text;
  };
  for (const auto& [messages, files] : std::vector<std::pair<int, std::size_t>>{
           {1, 1}, {49, 1}, {50, 2}, {200, 8}, {399, 15}, {400, 16}, {1000, 16}}) {
    SCOPED_TRACE(std::to_string(messages) + " messages");
    write("big.net", schema(messages));
    fs::remove_all(dir_ / "auto");
    ASSERT_EQ(run("-o auto big.net").status, 0);
    const std::vector<std::string> names = factory_files(dir_ / "auto");
    ASSERT_EQ(names.size(), files);
    for (const std::string& name : names) {
      EXPECT_NE(slurp(dir_ / "auto" / name).find("#include \"big.hpp\""), std::string::npos)
          << name << " is empty";
    }
  }
  // The same as `--factory-sources auto`, byte for byte.
  ASSERT_EQ(run("-o explicit --factory-sources auto big.net").status, 0);
  EXPECT_EQ(slurp(dir_ / "explicit" / "big_factory_15.cpp"), slurp(dir_ / "auto" / "big_factory_15.cpp"));
  EXPECT_NE(slurp(dir_ / "auto" / "big.cpp").find("idlc's choice for 1000 messages"), std::string::npos);

  // 1000 messages wrote 16 files; 60 write 2 and remove the other 14.
  write("big.net", schema(60));
  ASSERT_EQ(run("-o auto big.net").status, 0);
  EXPECT_EQ(factory_files(dir_ / "auto"), (std::vector<std::string>{"big.cpp", "big_factory_1.cpp"}));
}

// Removing the factory files of an earlier run touches only files idlc wrote for that package: a user's
// file of the same name (without idlc's first line) stays, and so does a file this run wrote for another
// schema (game_factory_3.net's game_factory_3.cpp beside game.net). Failed before: both were deleted.
TEST_F(Cli, StaleFactoryFilesAreRemovedOnlyIfIdlcWroteThem) {
  write("game.net", "package game;\nmessage M { uint<0 .. 9> x; }\n");
  write("game_factory_3.net", "package g3;\nmessage N { uint<0 .. 9> y; }\n");
  fs::create_directories(dir_ / "out");
  {
    std::ofstream user(dir_ / "out" / "game_factory_2.cpp");
    user << "// the user's own file\n";
  }
  ASSERT_EQ(run("-o out game_factory_3.net game.net").status, 0);
  EXPECT_TRUE(fs::exists(dir_ / "out" / "game_factory_2.cpp")) << "a file idlc did not write was removed";
  EXPECT_EQ(slurp(dir_ / "out" / "game_factory_2.cpp"), "// the user's own file\n");
  EXPECT_TRUE(fs::exists(dir_ / "out" / "game_factory_3.cpp")) << "this run's output for game_factory_3.net was removed";
  EXPECT_TRUE(fs::exists(dir_ / "out" / "game_factory_3.hpp"));
}

TEST_F(Cli, TheShippedSchemasCheckClean) {
  for (const char* name : {"game.net", "constructs.net", "common.net"}) {
    std::string path = (fs::path(IDLC_SCHEMAS_DIR) / name).string();
    Result r = run("--check '" + path + "'");
    EXPECT_EQ(r.status, 0) << name << "\n" << r.err;
  }
}

}  // namespace
