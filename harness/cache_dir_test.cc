// CacheRoot: XDG_CACHE_HOME, else HOME, else refused with the reason (never /tmp); relative values
// refused too. MakeOwnPrivateDir: mode 0700 whatever the umask; an existing folder writable by
// others, or another user's, refused naming the folder, its owner and mode.
#include "harness/cache_dir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace harness {
namespace {

std::string Tmp() { return std::getenv("TEST_TMPDIR"); }

// Sets (or, for nullptr, unsets) XDG_CACHE_HOME and HOME for one test, restoring them after.
class Env {
 public:
  Env(const char* xdg, const char* home) {
    Save("XDG_CACHE_HOME", xdg, &xdg_);
    Save("HOME", home, &home_);
  }
  ~Env() {
    Restore("XDG_CACHE_HOME", xdg_);
    Restore("HOME", home_);
  }

 private:
  struct Saved {
    bool set = false;
    std::string value;
  };
  static void Save(const char* name, const char* v, Saved* s) {
    if (const char* old = std::getenv(name)) *s = {true, old};
    if (v == nullptr) {
      unsetenv(name);
    } else {
      setenv(name, v, 1);
    }
  }
  static void Restore(const char* name, const Saved& s) {
    if (s.set) {
      setenv(name, s.value.c_str(), 1);
    } else {
      unsetenv(name);
    }
  }
  Saved xdg_, home_;
};

TEST(CacheDirTest, RootFromXdgElseHomeElseRefused) {
  {
    Env env("/x/cache", "/home/u");
    EXPECT_EQ(CacheRoot().value(), "/x/cache/mlbench");
  }
  {
    Env env(nullptr, "/home/u");
    EXPECT_EQ(CacheRoot().value(), "/home/u/.cache/mlbench");
  }
  {
    Env env("relative/cache", "/home/u");  // a relative XDG_CACHE_HOME is ignored (XDG spec)
    EXPECT_EQ(CacheRoot().value(), "/home/u/.cache/mlbench");
  }
  {
    Env env(nullptr, nullptr);
    absl::StatusOr<std::string> r = CacheRoot();
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(absl::StrContains(r.status().message(), "XDG_CACHE_HOME is not set and HOME is not set"))
        << r.status();
    EXPECT_TRUE(absl::StrContains(r.status().message(), "never in a shared folder such as /tmp"))
        << r.status();
  }
  {
    Env env("", "rel");
    absl::StatusOr<std::string> r = CacheRoot();
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(absl::StrContains(r.status().message(), "HOME='rel' is not an absolute path")) << r.status();
  }
}

TEST(CacheDirTest, CreatedPrivateWhateverTheUmask) {
  const mode_t old = umask(0);
  const std::string dir = Tmp() + "/fresh/mlbench/ab";
  absl::Status s = MakeOwnPrivateDir(dir);
  umask(old);
  ASSERT_TRUE(s.ok()) << s;
  struct stat st;
  for (const std::string& d : {Tmp() + "/fresh", Tmp() + "/fresh/mlbench", dir}) {
    ASSERT_EQ(stat(d.c_str(), &st), 0) << d;
    EXPECT_EQ(st.st_mode & 07777, 0700u) << d;
  }
  EXPECT_TRUE(MakeOwnPrivateDir(dir).ok());  // an existing private folder of ours is reused
}

TEST(CacheDirTest, PlantedFoldersAreRefused) {
  const std::string open = Tmp() + "/open";
  ASSERT_EQ(mkdir(open.c_str(), 0700), 0);
  ASSERT_EQ(chmod(open.c_str(), 0777), 0);
  absl::Status s = MakeOwnPrivateDir(open);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(
      absl::StrContains(s.message(), absl::StrCat("'", open, "' is writable by its group or by others")))
      << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "mode 0777")) << s;

  const std::string theirs = Tmp() + "/theirs";
  ASSERT_EQ(mkdir(theirs.c_str(), 0700), 0);
  if (chown(theirs.c_str(), 65534, 65534) != 0) GTEST_SKIP() << "chown needs root";
  s = MakeOwnPrivateDir(theirs);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(absl::StrContains(s.message(), absl::StrCat("'", theirs, "' is not ours (owner uid 65534")))
      << s;
}

}  // namespace
}  // namespace harness
