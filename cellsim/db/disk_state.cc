// ALTER DISKGROUP name ONLINE DISK d | ONLINE ALL | OFFLINE DISK d.
#include <string>

#include "cellsim/asm/disk_group.h"
#include "cellsim/db/database_state.h"
#include "absl/strings/match.h"
#include "fmt/format.h"

namespace cellsim::db::internal {

absl::Status RunAlterDiskgroupDisks(Session::State& s, const AlterDiskgroupDisks& st) {
  absl::StatusOr<asmgr::DiskGroup*> dg = FindDiskGroup(s.db->rack, st.disk_group);
  if (!dg.ok()) return dg.status();
  asmgr::ResyncResult resync;
  absl::Status r;
  if (st.disk.empty()) {
    r = (*dg)->OnlineAll(&resync);
  } else {
    absl::StatusOr<uint32_t> d = (*dg)->FindDisk(st.disk);
    if (!d.ok()) {
      return absl::NotFoundError(fmt::format(
          "ORA-15054: disk \"{}\" does not exist in diskgroup \"{}\"", st.disk, st.disk_group));
    }
    r = st.online ? (*dg)->OnlineDisk(*d, &resync) : (*dg)->OfflineDisk(*d);
  }
  if (!r.ok() && !absl::StrContains(std::string(r.message()), "ORA-")) {
    return absl::Status(r.code(), fmt::format("ORA-15032: not all alterations performed: {}",
                                              std::string(r.message())));
  }
  if (!r.ok()) return r;
  return absl::OkStatus();
}

}  // namespace cellsim::db::internal
