// The report's --out folder: the manifest names what it wrote; files it did not write are never
// removed; a folder of other files is refused unless forced, and a forced write still removes
// only what the manifest lists; a manifest edited to name other files removes none of them.
#include "tools/report/out_folder.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace report {
namespace {

std::string Fresh(const std::string& name) {
  const char* t = std::getenv("TEST_TMPDIR");
  const std::string dir = absl::StrCat(t != nullptr ? t : "/tmp", "/", name, ".", getpid());
  EXPECT_EQ(std::system(absl::StrCat("rm -rf '", dir, "'").c_str()), 0);
  return dir;
}

void Put(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

std::string Get(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool Exists(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

const std::map<std::string, std::string> kFull = {{"index.html", "<html>1</html>"},
                                                  {"roofline.svg", "<svg>r</svg>"},
                                                  {"steps.svg", "<svg>s</svg>"},
                                                  {"trend_1.svg", "<svg>t1</svg>"},
                                                  {"trend_2.svg", "<svg>t2</svg>"}};
const std::map<std::string, std::string> kSmall = {{"index.html", "<html>2</html>"},
                                                   {"roofline.svg", "<svg>r2</svg>"}};

TEST(OutFolder, ReportFileNames) {
  for (const char* ok : {"index.html", "roofline.svg", "matmul_sweep.svg", "steps.svg", "mfu_breakdown.svg",
                         "trend_1.svg", "trend_12.svg"}) {
    EXPECT_TRUE(IsReportFileName(ok)) << ok;
  }
  for (const char* no : {"", "notes.txt", "trend_.svg", "trend_01.svg", "trend_x.svg", "../index.html",
                         "sub/steps.svg", "report_manifest.txt", "steps.svg.bak"}) {
    EXPECT_FALSE(IsReportFileName(no)) << no;
  }
}

TEST(OutFolder, ManifestRoundTripAndForeignText) {
  const std::set<std::string> names = {"index.html", "trend_3.svg"};
  auto parsed = ParseManifest(ManifestText(names));
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(*parsed, names);
  EXPECT_FALSE(ParseManifest("index.html\nsteps.svg\n").has_value())
      << "a file without the heading is not ours";
  auto edited =
      ParseManifest(absl::StrCat(kManifestHeading, "\n../../etc/passwd\nnotes.txt\n/abs/x.svg\nsteps.svg\n"));
  ASSERT_TRUE(edited.has_value());
  EXPECT_EQ(*edited, std::set<std::string>{"steps.svg"});
}

TEST(OutFolder, NewFolderGetsManifestAndRerunRemovesOnlyWhatItWrote) {
  const std::string dir = Fresh("new");
  auto w = WriteReportFolder(dir, kFull, false);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_TRUE(w->made_folder);
  EXPECT_EQ(Get(dir + "/steps.svg"), "<svg>s</svg>");
  EXPECT_EQ(*ParseManifest(Get(absl::StrCat(dir, "/", kManifestName))),
            (std::set<std::string>{"index.html", "roofline.svg", "steps.svg", "trend_1.svg", "trend_2.svg"}));
  // The user adds files of their own, one with a report's name pattern.
  Put(dir + "/notes.txt", "mine");
  Put(dir + "/trend_9.svg", "mine");
  w = WriteReportFolder(dir, kSmall, false);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_FALSE(w->made_folder);
  EXPECT_EQ(w->removed, (std::vector<std::string>{"steps.svg", "trend_1.svg", "trend_2.svg"}));
  EXPECT_FALSE(Exists(dir + "/steps.svg"));
  EXPECT_FALSE(Exists(dir + "/trend_1.svg"));
  EXPECT_EQ(Get(dir + "/notes.txt"), "mine");
  EXPECT_EQ(Get(dir + "/trend_9.svg"), "mine");
  EXPECT_EQ(Get(dir + "/index.html"), "<html>2</html>");
  EXPECT_EQ(*ParseManifest(Get(absl::StrCat(dir, "/", kManifestName))),
            (std::set<std::string>{"index.html", "roofline.svg"}));
}

TEST(OutFolder, EmptyExistingFolderIsTaken) {
  const std::string dir = Fresh("empty");
  ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
  auto w = WriteReportFolder(dir, kSmall, false);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_FALSE(w->made_folder);
  EXPECT_TRUE(Exists(absl::StrCat(dir, "/", kManifestName)));
}

TEST(OutFolder, FolderOfOtherFilesRefusedThenForcedWithoutRemovingThem) {
  const std::string dir = Fresh("users");
  ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
  for (const char* f : {"steps.svg", "matmul_sweep.svg", "trend_1.svg", "trend_7.svg", "notes.txt"})
    Put(absl::StrCat(dir, "/", f), "mine");
  auto w = WriteReportFolder(dir, kSmall, false);
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("holds 5 file(s) that report did not write"), std::string::npos)
      << w.status();
  EXPECT_NE(w.status().message().find("--force"), std::string::npos) << w.status();
  EXPECT_FALSE(Exists(dir + "/index.html"));
  EXPECT_FALSE(Exists(absl::StrCat(dir, "/", kManifestName)));

  // Forced: trend_1.svg and steps.svg, named as the report's, are replaced; nothing else is
  // touched, then or on the next (unforced) run, which lacks them.
  w = WriteReportFolder(dir, kFull, true);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(w->replaced, (std::vector<std::string>{"steps.svg", "trend_1.svg"}));
  EXPECT_TRUE(w->removed.empty());
  EXPECT_EQ(Get(dir + "/trend_1.svg"), "<svg>t1</svg>");
  for (const char* f : {"matmul_sweep.svg", "trend_7.svg", "notes.txt"})
    EXPECT_EQ(Get(absl::StrCat(dir, "/", f)), "mine");
  w = WriteReportFolder(dir, kSmall, false);
  ASSERT_TRUE(w.ok()) << w.status();
  for (const char* f : {"matmul_sweep.svg", "trend_7.svg", "notes.txt"})
    EXPECT_EQ(Get(absl::StrCat(dir, "/", f)), "mine");
}

TEST(OutFolder, FileOfAReportNameNotInTheManifestIsRefused) {
  const std::string dir = Fresh("collide");
  ASSERT_TRUE(WriteReportFolder(dir, kSmall, false).ok());
  Put(dir + "/steps.svg", "mine");
  auto w = WriteReportFolder(dir, kFull, false);
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("'steps.svg' exist(s)"), std::string::npos) << w.status();
  EXPECT_EQ(Get(dir + "/steps.svg"), "mine");
  EXPECT_EQ(Get(dir + "/index.html"), "<html>2</html>") << "a refused run wrote nothing";
}

TEST(OutFolder, EditedManifestRemovesNothingElse) {
  const std::string dir = Fresh("edited");
  ASSERT_TRUE(WriteReportFolder(dir, kSmall, false).ok());
  ASSERT_EQ(mkdir((dir + "/sub").c_str(), 0755), 0);
  Put(dir + "/sub/steps.svg", "mine");
  Put(dir + "/notes.txt", "mine");
  Put(absl::StrCat(dir, "/", kManifestName),
      absl::StrCat(kManifestHeading, "\nindex.html\nroofline.svg\nnotes.txt\nsub/steps.svg\n../", "edited.",
                   getpid(), "\n"));
  auto w = WriteReportFolder(dir, kSmall, false);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_TRUE(w->removed.empty());
  EXPECT_EQ(Get(dir + "/notes.txt"), "mine");
  EXPECT_EQ(Get(dir + "/sub/steps.svg"), "mine");
}

TEST(OutFolder, NotAFolder) {
  const std::string path = Fresh("file");
  Put(path, "x");
  auto w = WriteReportFolder(path, kSmall, true);
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("exists and is not a folder"), std::string::npos) << w.status();
}

}  // namespace
}  // namespace report
