// The command line against hostile or careless input: imports that leave the schema directories, files
// that are not schemas, two imported files that would generate one header, nested packages that collide
// with declarations whatever the order of the files, and an internal error, which has its own exit status.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

struct Result {
  int status = -1;
  std::string out;
  std::string err;
};

class CliSafety : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("idlc_cli_safety_" + std::string(info->name()) + "_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void write(const std::string& name, const std::string& text) {
    fs::path path = dir_ / name;
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
  }

  static std::string slurp(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
  }

  // Runs idlc with `args` (already quoted) from directory `cwd` under the temporary directory, with
  // `environment` (`NAME=value ...`) set.
  Result run(const std::string& args, const std::string& cwd = ".", const std::string& environment = "") {
    fs::path out = dir_ / "stdout.txt";
    fs::path err = dir_ / "stderr.txt";
    std::string command = "cd '" + (dir_ / cwd).string() + "' && " + environment + " '" +
                          std::string(IDLC_EXECUTABLE) + "' " + args + " >'" + out.string() + "' 2>'" +
                          err.string() + "'";
    int raw = std::system(command.c_str());
    Result result;
    result.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    result.out = slurp(out);
    result.err = slurp(err);
    return result;
  }

  fs::path dir_;
};

// `import "../../../etc/passwd"` used to read the file and quote its first line in the syntax error.
TEST_F(CliSafety, ImportsOfNonSchemaFilesAreRefusedWithoutReadingThem) {
  write("proj/secret", "root:x:0:0:SECRET-LINE\n");
  write("proj/main.net", "package main;\nimport \"secret\";\nimport \"../../../../../../../etc/passwd\";\n");
  Result r = run("--check main.net", "proj");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("main.net:2:8: error: an import names a schema file ending in .net, found 'secret'"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("main.net:3:8: error: an import names a schema file ending in .net, found 'passwd'"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("SECRET-LINE"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("root:"), std::string::npos) << r.err;
}

TEST_F(CliSafety, ImportsStayInsideTheSchemaAndIncludeDirectoriesUnlessAllowed) {
  write("shared/common.net", "package common;\nstruct P { bool b; }\n");
  write("proj/main.net", "package main;\nimport \"../shared/common.net\";\nmessage M { common.P p; }\n");
  Result refused = run("--check main.net", "proj");
  EXPECT_EQ(refused.status, 1);
  EXPECT_NE(
      refused.err.find("main.net:2:8: error: '../shared/common.net' is outside the directories of the "
                       "schema files given to idlc and of the include paths (-I DIR): add its directory "
                       "with -I, or pass --allow-import-outside"),
      std::string::npos)
      << refused.err;
  EXPECT_EQ(run("--check -I ../shared main.net", "proj").status, 0);
  EXPECT_EQ(run("--check --allow-import-outside main.net", "proj").status, 0);
  // -I is also searched: the import can name the file relative to the include directory.
  write("proj/via_include.net", "package via;\nimport \"common.net\";\nmessage M { common.P p; }\n");
  EXPECT_EQ(run("--check -I../shared via_include.net", "proj").status, 0);
  Result missing = run("--check via_include.net", "proj");
  EXPECT_EQ(missing.status, 1);
  EXPECT_EQ(run("--check -I no_such_dir main.net", "proj").status, 2);
  // A subdirectory of a root file's directory is inside the tree.
  write("proj/sub/part.net", "package part;\nstruct Q { bool b; }\n");
  write("proj/uses_sub.net", "package uses;\nimport \"sub/part.net\";\nmessage M { part.Q q; }\n");
  EXPECT_EQ(run("--check uses_sub.net", "proj").status, 0);
}

TEST_F(CliSafety, ImportedFilesWithOneStemAreFoundByCheck) {
  write("a/common.net", "package a_common;\nstruct P { bool b; }\n");
  write("b/common.net", "package b_common;\nstruct Q { bool b; }\n");
  write("main.net",
        "package main;\nimport \"a/common.net\";\nimport \"b/common.net\";\nmessage M { bool b; }\n");
  Result r = run("--check main.net");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("b/common.net:1:1: error: this file and a/common.net both generate the header "
                       "'common.hpp' (the file name without .net): rename one of the files"),
            std::string::npos)
      << r.err;
}

TEST_F(CliSafety, NestedPackageCollisionsAreFoundInEitherFileOrder) {
  write("x.net", "package x;\nstruct y { bool b; }\n");
  write("xy.net", "package x.y;\nstruct Z { bool b; }\n");
  Result outer_first = run("--check x.net xy.net");
  EXPECT_EQ(outer_first.status, 1);
  EXPECT_NE(
      outer_first.err.find("xy.net:1:11: error: package x.y is generated as a namespace inside package x "
                           "(x.net), which already has a 'y'"),
      std::string::npos)
      << outer_first.err;
  Result inner_first = run("--check xy.net x.net");
  EXPECT_EQ(inner_first.status, 1);
  EXPECT_NE(inner_first.err.find("x.net:2:8: error: 'y' collides with the namespace of package x.y (xy.net)"),
            std::string::npos)
      << inner_first.err;
  // A nested package whose name is one idlc generates in the outer package.
  write("xm.net", "package x.Message;\nstruct W { bool b; }\n");
  Result generated = run("--check xm.net x.net");
  EXPECT_EQ(generated.status, 1);
  EXPECT_NE(generated.err.find("where idlc generates 'Message' itself"), std::string::npos) << generated.err;
}

TEST_F(CliSafety, AnInternalErrorIsReportedWithItsOwnExitStatus) {
  write("ok.net", "package ok;\nmessage M { bool x; }\n");
  Result r = run("--check ok.net", ".", "IDLC_TEST_INTERNAL_ERROR=boom");
  EXPECT_EQ(r.status, 3);
  EXPECT_EQ(r.err, "idlc: internal error: forced by IDLC_TEST_INTERNAL_ERROR=boom\n");
  Result help = run("--help");
  EXPECT_NE(help.out.find("3 internal error"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("-I DIR"), std::string::npos);
  EXPECT_NE(help.out.find("--allow-import-outside"), std::string::npos);
}

}  // namespace
