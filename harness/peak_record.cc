// This machine's record of its best quiet start-up figures (peak_record.h).
#include "harness/peak_record.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>

#include "absl/strings/str_cat.h"
#include "harness/atomic_file.h"
#include "harness/bounded_read.h"
#include "harness/cache_dir.h"
#include "harness/json_doc.h"
#include "sysinfo/utc_now.h"

namespace harness {
namespace {

// flock(LOCK_EX) on "<path>.lock" (left in place: removing it would race with a waiter that
// opened it); the kernel releases it when the descriptor closes, also when the process dies.
class RecordLock {
 public:
  static absl::StatusOr<std::unique_ptr<RecordLock>> Acquire(const std::string& path, double timeout_s) {
    const std::string lock_path = path + ".lock";
    const int fd = open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot open the lock file '", lock_path, "': ", std::strerror(errno)));
    }
    std::unique_ptr<RecordLock> lock(new RecordLock(fd));
    const auto start = std::chrono::steady_clock::now();
    while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      if (errno == EINTR) continue;
      if (errno != EWOULDBLOCK) {
        return absl::FailedPreconditionError(
            absl::StrCat("cannot lock '", lock_path, "': ", std::strerror(errno)));
      }
      if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >= timeout_s) {
        return absl::DeadlineExceededError(absl::StrCat(
            "the lock '", lock_path, "' is still held by another process after ", timeout_s, " s"));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return lock;
  }
  ~RecordLock() { close(fd_); }
  RecordLock(const RecordLock&) = delete;
  RecordLock& operator=(const RecordLock&) = delete;

 private:
  explicit RecordLock(int fd) : fd_(fd) {}
  int fd_;
};

absl::Status NotARecord(const std::string& path, const std::string& why) {
  return absl::FailedPreconditionError(absl::StrCat("'", path, "' is not a peak record (", why, ")"));
}

bool GoodValue(const nlohmann::json& v) {
  return v.is_number() && std::isfinite(v.get<double>()) && v.get<double>() > 0;
}

// Checks the whole document's shape; every figure of every machine must be usable.
absl::Status CheckRecord(const nlohmann::json& doc, const std::string& path) {
  if (!doc.is_object()) return NotARecord(path, absl::StrCat("a JSON ", doc.type_name(), ", not an object"));
  const nlohmann::json format = doc.value("format", nlohmann::json());
  if (!format.is_string() || format.get<std::string>() != kPeakRecordFormat) {
    return NotARecord(path,
                      absl::StrCat("its \"format\" is ", format.is_null() ? "missing" : DumpJson(format),
                                   ", expected \"", kPeakRecordFormat, "\""));
  }
  if (!doc.contains("machines") || !doc["machines"].is_object()) {
    return NotARecord(path, "no \"machines\" object");
  }
  for (const auto& [hash, m] : doc["machines"].items()) {
    if (!m.is_object() || !m.contains("figures") || !m["figures"].is_object()) {
      return NotARecord(path, absl::StrCat("machine ", hash, " has no \"figures\" object"));
    }
    for (const auto& [name, f] : m["figures"].items()) {
      if (!f.is_object() || !f.contains("value") || !GoodValue(f["value"])) {
        return NotARecord(path, absl::StrCat("machine ", hash, " figure ", name,
                                             " has no \"value\" that is a finite number > 0"));
      }
    }
  }
  return absl::OkStatus();
}

// The document in `path`: an empty record when there is no file yet.
absl::StatusOr<nlohmann::json> ReadDocument(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFileAtMost(path, kMaxPeakRecordBytes, "peak record");
  if (absl::IsNotFound(text.status())) {
    return nlohmann::json{{"format", kPeakRecordFormat}, {"machines", nlohmann::json::object()}};
  }
  if (!text.ok()) return NotARecord(path, std::string(text.status().message()));
  absl::StatusOr<nlohmann::json> doc = ParseJsonOrError(*text, "the file");
  if (!doc.ok()) return NotARecord(path, std::string(doc.status().message()));
  if (absl::Status s = CheckRecord(*doc, path); !s.ok()) return s;
  return doc;
}

}  // namespace

absl::StatusOr<std::optional<std::string>> PeakRecordPath() {
  const char* env = std::getenv(kPeakRecordEnv);
  if (env != nullptr && *env != '\0') {
    const std::string v = env;
    if (v == "off") return std::optional<std::string>();
    if (v[0] != '/') {
      return absl::InvalidArgumentError(
          absl::StrCat(kPeakRecordEnv, "='", v,
                       "' is invalid: allowed an absolute file path (the machine's "
                       "record kept there) or off (no record)"));
    }
    return std::optional<std::string>(v);
  }
  absl::StatusOr<std::string> root = CacheRoot();
  if (!root.ok()) return root.status();
  if (absl::Status s = MakeOwnPrivateDir(*root); !s.ok()) return s;
  return std::optional<std::string>(absl::StrCat(*root, "/peak_record.json"));
}

absl::StatusOr<std::map<std::string, double>> ReadPeakRecord(const std::string& path,
                                                             const std::string& machine_hash) {
  absl::StatusOr<nlohmann::json> doc = ReadDocument(path);
  if (!doc.ok()) return doc.status();
  std::map<std::string, double> out;
  const nlohmann::json& machines = (*doc)["machines"];
  if (!machines.contains(machine_hash)) return out;
  for (const auto& [name, f] : machines[machine_hash]["figures"].items())
    out[name] = f["value"].get<double>();
  return out;
}

absl::StatusOr<std::vector<RecordRaise>> RaisePeakRecord(const std::string& path, const MachineId& machine,
                                                         const std::vector<RecordFigure>& figures,
                                                         double lock_timeout_s) {
  for (const RecordFigure& f : figures) {
    if (f.name.empty() || !std::isfinite(f.value) || !(f.value > 0)) {
      return absl::InvalidArgumentError(absl::StrCat("peak record figure '", f.name, "' = ", f.value,
                                                     ": a figure needs a name and a finite value > 0"));
    }
  }
  absl::StatusOr<std::unique_ptr<RecordLock>> lock = RecordLock::Acquire(path, lock_timeout_s);
  if (!lock.ok()) return lock.status();
  absl::StatusOr<nlohmann::json> doc = ReadDocument(path);  // again, under the lock
  if (!doc.ok()) return doc.status();
  nlohmann::json& m = (*doc)["machines"][machine.hash];
  if (!m.is_object()) m = {{"figures", nlohmann::json::object()}};
  m["machine"] = machine.description;
  std::vector<RecordRaise> raised;
  const std::string now = sysinfo::UtcNow();
  for (const RecordFigure& f : figures) {
    nlohmann::json& entry = m["figures"][f.name];
    const double old = entry.is_object() ? entry["value"].get<double>() : 0;
    if (f.value <= old) continue;
    entry = {{"value", f.value}, {"unit", f.unit}, {"date", now}};
    raised.push_back({f.name, old, f.value, f.unit});
  }
  if (raised.empty()) return raised;
  if (absl::Status s = WriteFileAtomically(path, DumpJson(*doc, 1) + "\n"); !s.ok()) return s;
  return raised;
}

}  // namespace harness
