#include "harness/atomic_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "gtest/gtest.h"

namespace harness {
namespace {

bool Exists(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0;
}

void Touch(const std::string& p) {
  std::FILE* f = std::fopen(p.c_str(), "wb");
  ASSERT_NE(f, nullptr) << p;
  std::fputs("partial", f);
  std::fclose(f);
}

// The pid of a child that has exited and been reaped: no process has it (until reused).
pid_t DeadPid() {
  const pid_t pid = fork();
  if (pid == 0) _exit(0);
  int status = 0;
  waitpid(pid, &status, 0);
  return pid;
}

std::string TestDir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string dir = std::string(tmp ? tmp : "/tmp") + "/" + name;
  mkdir(dir.c_str(), 0755);
  return dir;
}

TEST(AtomicFileTest, TempPathForNamesTheToolAndThisProcess) {
  EXPECT_EQ(TempPathFor("/x/out.json"), "/x/out.json.tmp.atomic_file_test." + std::to_string(getpid()));
}

TEST(AtomicFileTest, RemovesOnlyDeadWritersFilesOfThisPath) {
  const std::string dir = TestDir("stale");
  const std::string out = dir + "/train.bin";
  const std::string dead = out + ".tmp." + std::to_string(DeadPid());  // the older form
  const std::string dead_tool = out + ".tmp.make_tokens." + std::to_string(DeadPid());
  const std::string live = out + ".tmp." + std::to_string(getppid());  // the test runner: alive
  const std::string live_tool = out + ".tmp.gate." + std::to_string(getppid());
  const std::string own = TempPathFor(out);
  const std::string other_path = dir + "/val.bin.tmp." + std::to_string(DeadPid());
  const std::string not_a_pid = out + ".tmp.backup";
  const std::string not_a_tool = out + ".tmp.a.b." + std::to_string(DeadPid());
  for (const std::string& p : {dead, dead_tool, live, live_tool, own, other_path, not_a_pid, not_a_tool, out})
    Touch(p);

  EXPECT_EQ(RemoveStaleTempFiles(out), 2);
  EXPECT_FALSE(Exists(dead));
  EXPECT_FALSE(Exists(dead_tool));
  EXPECT_TRUE(Exists(live));
  EXPECT_TRUE(Exists(live_tool));
  EXPECT_TRUE(Exists(not_a_tool));
  EXPECT_TRUE(Exists(own));
  EXPECT_TRUE(Exists(other_path));  // another output's: its own writer cleans it
  EXPECT_TRUE(Exists(not_a_pid));
  EXPECT_TRUE(Exists(out));
  EXPECT_EQ(RemoveStaleTempFiles(out), 0);
}

TEST(AtomicFileTest, RelativePathAndMissingFolder) {
  const std::string dir = TestDir("relative");
  ASSERT_EQ(chdir(dir.c_str()), 0);
  const std::string dead = "out.json.tmp." + std::to_string(DeadPid());
  Touch(dead);
  EXPECT_EQ(RemoveStaleTempFiles("out.json"), 1);
  EXPECT_FALSE(Exists(dead));
  EXPECT_EQ(RemoveStaleTempFiles("/no/such/folder/out.json"), 0);
}

std::string Read(const std::string& p) {
  std::FILE* f = std::fopen(p.c_str(), "rb");
  if (f == nullptr) return "<missing>";
  std::string s;
  char buf[256];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) s.append(buf, n);
  std::fclose(f);
  return s;
}

TEST(AtomicFileTest, WritesWholeAndCleansUpAStaleTempFile) {
  const std::string dir = TestDir("write");
  const std::string out = dir + "/out.json";
  const std::string dead = out + ".tmp." + std::to_string(DeadPid());
  Touch(dead);
  ASSERT_TRUE(WriteFileAtomically(out, "{\"a\": 1}\n").ok());
  EXPECT_EQ(Read(out), "{\"a\": 1}\n");
  EXPECT_FALSE(Exists(dead));
  EXPECT_FALSE(Exists(TempPathFor(out)));
}

TEST(AtomicFileTest, AFailedWriteKeepsTheOldFileAndNoTemp) {
  const std::string dir = TestDir("failed");
  const std::string out = dir + "/out.json";
  ASSERT_TRUE(WriteFileAtomically(out, "old").ok());
  absl::Status st = WriteFileAtomically(out, [](std::FILE* f) {
    std::fputs("half", f);
    errno = ENOSPC;
    return false;
  });
  EXPECT_EQ(st.code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(st.message().find("No space left"), absl::string_view::npos) << st;
  EXPECT_NE(st.message().find("cannot write '" + out + "'"), absl::string_view::npos) << st;
  EXPECT_EQ(Read(out), "old");
  EXPECT_FALSE(Exists(TempPathFor(out)));
}

TEST(AtomicFileTest, AnUncreatableFileNamesItsTempPathAndReason) {
  absl::Status st = WriteFileAtomically("/no/such/folder/out.json", "x");
  EXPECT_EQ(st.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_NE(st.message().find("cannot create '/no/such/folder/out.json.tmp."), absl::string_view::npos) << st;
  EXPECT_NE(st.message().find("No such file or directory"), absl::string_view::npos) << st;
}

TEST(AtomicFileTest, AMissingPathIsCreated) {
  const std::string out = TestDir("missing") + "/new.json";
  ASSERT_FALSE(Exists(out));
  EXPECT_EQ(OutputKindOf(out), OutputKind::kReplace);
  ASSERT_TRUE(CheckWritable(out).ok());
  ASSERT_TRUE(WriteFileAtomically(out, "new").ok());
  EXPECT_EQ(Read(out), "new");
}

// A private copy of a memory character device (1,3 null; 1,7 full) in the test's folder, never
// the machine's /dev files. Skips (saying why) where nodes cannot be made or opened (not root,
// a nodev mount).
std::string PrivateDevice(const std::string& dir, const char* name, unsigned minor) {
  const std::string p = dir + "/" + name;
  ::unlink(p.c_str());
  if (::mknod(p.c_str(), S_IFCHR | 0666, makedev(1, minor)) != 0) return "";
  const int fd = ::open(p.c_str(), O_WRONLY);
  if (fd < 0) return "";
  ::close(fd);
  return p;
}

bool IsCharDevice(const std::string& p) {
  struct stat st;
  return ::lstat(p.c_str(), &st) == 0 && S_ISCHR(st.st_mode);
}

TEST(AtomicFileTest, ANullDeviceIsWrittenInPlaceAndStaysADevice) {
  const std::string dir = TestDir("null");
  const std::string null = PrivateDevice(dir, "null", 3);
  if (null.empty()) GTEST_SKIP() << "cannot make or open a device node here (not root, or a nodev mount)";
  EXPECT_EQ(OutputKindOf(null), OutputKind::kInPlace);
  EXPECT_TRUE(CheckWritable(null).ok());
  ASSERT_TRUE(WriteFileAtomically(null, std::string(2000, 'x')).ok());
  EXPECT_TRUE(IsCharDevice(null));
  EXPECT_FALSE(Exists(TempPathFor(null)));
}

TEST(AtomicFileTest, AFullDeviceIsAnErrorNamingThePathAndENOSPC) {
  const std::string dir = TestDir("full");
  const std::string full = PrivateDevice(dir, "full", 7);
  if (full.empty()) GTEST_SKIP() << "cannot make or open a device node here (not root, or a nodev mount)";
  EXPECT_TRUE(CheckWritable(full).ok());  // writable; only the write says it is full
  const absl::Status st = WriteFileAtomically(full, "{\"a\": 1}\n");
  EXPECT_EQ(st.code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(st.message().find("cannot write '" + full + "': No space left on device"),
            absl::string_view::npos)
      << st;
  EXPECT_TRUE(IsCharDevice(full));
  // In pieces: the first failed fwrite or the final flush says so.
  const absl::Status pieces = WriteFileAtomically(full, [](std::FILE* f) {
    for (int i = 0; i < 1000; ++i) {
      if (std::fputs("0123456789abcdef", f) < 0) return false;
    }
    return true;
  });
  EXPECT_NE(pieces.message().find("No space left on device"), absl::string_view::npos) << pieces;
  EXPECT_TRUE(IsCharDevice(full));
}

TEST(AtomicFileTest, AFifoIsWrittenInPlace) {
  const std::string fifo = TestDir("fifo") + "/pipe";
  ::unlink(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(OutputKindOf(fifo), OutputKind::kInPlace);
  EXPECT_TRUE(CheckWritable(fifo).ok());
  std::string got;
  std::thread reader([&] { got = Read(fifo); });  // opening for reading waits for the writer
  const absl::Status st = WriteFileAtomically(fifo, "through the pipe");
  reader.join();
  ASSERT_TRUE(st.ok()) << st;
  EXPECT_EQ(got, "through the pipe");
  struct stat sb;
  ASSERT_EQ(::lstat(fifo.c_str(), &sb), 0);
  EXPECT_TRUE(S_ISFIFO(sb.st_mode));
}

TEST(AtomicFileTest, AStreamPathWritesToTheOpenDescriptor) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const std::string path = "/dev/fd/" + std::to_string(fds[1]);
  EXPECT_EQ(OutputKindOf(path), OutputKind::kInPlace);
  EXPECT_EQ(OutputKindOf("/dev/stdout"), OutputKind::kInPlace);
  ASSERT_TRUE(WriteFileAtomically(path, "to the pipe").ok());
  ::close(fds[1]);
  char buf[64] = {};
  EXPECT_EQ(::read(fds[0], buf, sizeof(buf) - 1), 11);
  EXPECT_STREQ(buf, "to the pipe");
  ::close(fds[0]);
  // The read end is not open for writing.
  int fds2[2];
  ASSERT_EQ(::pipe(fds2), 0);
  const absl::Status st = CheckWritable("/dev/fd/" + std::to_string(fds2[0]));
  EXPECT_NE(st.message().find("is not open for writing"), absl::string_view::npos) << st;
  ::close(fds2[0]);
  ::close(fds2[1]);
}

TEST(AtomicFileTest, AFolderIsRefused) {
  const std::string dir = TestDir("folder");
  EXPECT_EQ(OutputKindOf(dir), OutputKind::kFolder);
  const absl::Status check = CheckWritable(dir);
  EXPECT_NE(check.message().find("it is a folder"), absl::string_view::npos) << check;
  const absl::Status st = WriteFileAtomically(dir, "x");
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("cannot write '" + dir + "': it is a folder"), absl::string_view::npos) << st;
  struct stat sb;
  ASSERT_EQ(::stat(dir.c_str(), &sb), 0);
  EXPECT_TRUE(S_ISDIR(sb.st_mode));
}

// A path that is a symbolic link is written through: its target gets the new contents and the
// link stays a link (a --profile_out link was replaced by a file); relative links and chains too.
TEST(AtomicFileTest, ASymlinkIsWrittenThroughAndStaysALink) {
  const std::string dir = TestDir("symlink_through");
  ASSERT_EQ(symlink("target.json", (dir + "/link.json").c_str()), 0);
  ASSERT_EQ(symlink("link.json", (dir + "/link2.json").c_str()), 0);
  EXPECT_EQ(OutputTarget(dir + "/link2.json"), dir + "/target.json");
  EXPECT_EQ(OutputTarget(dir + "/plain.json"), dir + "/plain.json");
  ASSERT_TRUE(CheckWritable(dir + "/link2.json").ok());
  ASSERT_TRUE(WriteFileAtomically(dir + "/link2.json", "first").ok());
  struct stat st;
  ASSERT_EQ(lstat((dir + "/link2.json").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  ASSERT_EQ(lstat((dir + "/link.json").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  ASSERT_EQ(lstat((dir + "/target.json").c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(st.st_size, 5);
  ASSERT_TRUE(WriteFileAtomically(dir + "/link.json", "second!").ok());  // over an existing target
  ASSERT_EQ(stat((dir + "/target.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 7);
}

// CheckWritable makes (and removes) the temporary file the write would make: a name too long for
// the file system fails before a run, not after it; nothing is left behind.
TEST(AtomicFileTest, ANameTooLongForItsTempFileIsFoundBeforeTheWrite) {
  const std::string dir = TestDir("too_long");
  const std::string path = dir + "/" + std::string(250, 'a') + ".json";  // 255 bytes: its temp is longer
  const absl::Status st = CheckWritable(path);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("cannot be made (File name too long)"), std::string::npos) << st;
  EXPECT_TRUE(CheckWritable(dir + "/short.json").ok());
  EXPECT_FALSE(Exists(TempPathFor(dir + "/short.json")));
  EXPECT_FALSE(Exists(dir + "/short.json"));
}

// Two outputs that name one file, directly, through a link or by another spelling of the folder.
TEST(AtomicFileTest, TwoOutputsAtOneFileAreRefusedNamingBothFlags) {
  const std::string dir = TestDir("distinct");
  ASSERT_EQ(symlink("b.json", (dir + "/to_b.json").c_str()), 0);
  EXPECT_TRUE(CheckDistinctOutputs({{"--a", dir + "/a.json"}, {"--b", dir + "/b.json"}, {"--c", ""}}).ok());
  absl::Status st = CheckDistinctOutputs({{"--profile_out", dir + "/a.json"}, {"--benchmark_out", dir + "/./a.json"}});
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("--profile_out and --benchmark_out name one file, '" + dir + "/a.json'"),
            std::string::npos)
      << st;
  EXPECT_FALSE(CheckDistinctOutputs({{"--x", dir + "/to_b.json"}, {"--y", dir + "/b.json"}}).ok());
  EXPECT_TRUE(CheckDistinctOutputs({{"--x", "/dev/stdout"}, {"--y", "/dev/stdout"}}).ok());  // streams
}

TEST(AtomicFileTest, ALinkPlantedAtTheTempNameIsNotWrittenThrough) {
  const std::string dir = TestDir("planted");
  const std::string out = dir + "/out.json";
  const std::string victim = dir + "/victim";
  Touch(victim);  // "partial"
  ASSERT_EQ(::symlink(victim.c_str(), TempPathFor(out).c_str()), 0);
  ASSERT_TRUE(WriteFileAtomically(out, "mine").ok());
  EXPECT_EQ(Read(out), "mine");
  EXPECT_EQ(Read(victim), "partial");
  EXPECT_FALSE(Exists(TempPathFor(out)));
  struct stat sb;
  ASSERT_EQ(::lstat(out.c_str(), &sb), 0);
  EXPECT_TRUE(S_ISREG(sb.st_mode));
}

// A writer stopped by SIGINT / SIGTERM midway: its temporary file is removed, the old file kept,
// and it dies of the signal (a shell's 130 / 143).
void ExpectSignalRemovesTheTempFile(int sig) {
  const std::string dir = TestDir("signal" + std::to_string(sig));
  const std::string out = dir + "/out.json";
  ASSERT_TRUE(WriteFileAtomically(out, "old").ok());
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t pid = fork();
  if (pid == 0) {
    const absl::Status st = WriteFileAtomically(out, [&](std::FILE* f) {
      std::fputs("half", f);
      std::fflush(f);
      const char c = 'r';
      if (::write(ready[1], &c, 1) != 1) _exit(10);
      for (int i = 0; i < 1000; ++i) ::usleep(10000);  // 10 s: the signal comes first
      return true;
    });
    _exit(st.ok() ? 11 : 12);
  }
  ::close(ready[1]);
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  ::close(ready[0]);
  const std::string child_temp = out + ".tmp.atomic_file_test." + std::to_string(pid);
  EXPECT_TRUE(Exists(child_temp));
  ASSERT_EQ(::kill(pid, sig), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit status " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), sig);
  EXPECT_FALSE(Exists(child_temp));
  EXPECT_EQ(Read(out), "old");
}

TEST(AtomicFileTest, SigintRemovesTheTempFile) { ExpectSignalRemovesTheTempFile(SIGINT); }

TEST(AtomicFileTest, SigtermRemovesTheTempFile) { ExpectSignalRemovesTheTempFile(SIGTERM); }

TEST(AtomicFileTest, ATempFileGuardIsRemovedOnSigterm) {
  const std::string path = TestDir("guard") + "/mlbench_bench_XXXXXX";
  std::string made = path;
  const int fd = ::mkstemp(made.data());
  ASSERT_GE(fd, 0);
  ::close(fd);
  const pid_t pid = fork();
  if (pid == 0) {
    TempFileGuard guard(made);
    ::raise(SIGTERM);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
  EXPECT_FALSE(Exists(made));
  // And the destructor removes it on the normal path.
  std::string again = path;
  const int fd2 = ::mkstemp(again.data());
  ASSERT_GE(fd2, 0);
  ::close(fd2);
  { TempFileGuard guard(again); }
  EXPECT_FALSE(Exists(again));
}
// A registered child that keeps writing a temporary file is stopped before the file is removed:
// nothing writes it again once the parent has died of the signal.
TEST(AtomicFileTest, ARegisteredChildIsStoppedBeforeTheTempFileIsRemoved) {
  const std::string path = TestDir("child") + "/report.json";
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t parent = fork();
  if (parent == 0) {
    const pid_t writer = fork();
    if (writer == 0) {
      for (int i = 0; i < 5000; ++i) {  // rewrites the file every millisecond until stopped (5 s at most)
        if (std::FILE* f = std::fopen(path.c_str(), "w")) std::fclose(f);
        ::usleep(1000);
      }
      _exit(0);
    }
    RegisterChildProcess(writer);
    TempFileGuard guard(path);
    const char c = 'r';
    if (::write(ready[1], &c, 1) != 1) _exit(10);
    ::alarm(30);  // never outlives a broken test
    for (;;) ::pause();
  }
  ::close(ready[1]);
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  ::close(ready[0]);
  ::usleep(20000);  // the writer is writing
  EXPECT_TRUE(Exists(path));
  ASSERT_EQ(::kill(parent, SIGTERM), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(parent, &status, 0), parent);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << status;
  ::usleep(50000);  // a writer still running would have made the file again by now
  EXPECT_FALSE(Exists(path));
}

}  // namespace
}  // namespace harness
