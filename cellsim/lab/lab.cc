#include "cellsim/cellsim.h"

#include <ctime>

#include "absl/strings/ascii.h"
#include "cellsim/lab/command_parsers.h"
#include "cellsim/lab/command_run.h"
#include "cellsim/lab/env.h"
#include "cellsim/report/json.h"
#include "cellsim/report/tkprof.h"
#include "fmt/format.h"

namespace cellsim {

struct Lab::State {
  lab::RackEnv env;
  io::IoChoice io;
  std::string dir;
  std::unique_ptr<db::Session> session;
  std::string asm_cwd = "+";
  uint64_t started_ns = 0;
  uint64_t cpu_ns = 0;  // CPU of the statements run through Sql()
};

namespace {

lab::EnvOptions ToEnvOptions(const LabOptions& o) {
  lab::EnvOptions e{.backend = o.io.backend, .fixed_time = o.fixed_time, .lock = o.lock, .sim = o.sim};
  e.lock.access = asmgr::RackAccess::kReadWrite;
  if (e.lock.command.empty()) e.lock.command = "cellsim::Lab";
  return e;
}

absl::Status InDir(const std::string& dir, const absl::Status& s) {
  return absl::Status(s.code(), fmt::format("lab {}: {}", dir, std::string(s.message())));
}

}  // namespace

Lab::Lab(std::unique_ptr<State> state) : s_(std::move(state)) {}

Lab::~Lab() { (void)Close(); }

absl::StatusOr<std::unique_ptr<Lab>> Lab::Start(lab::RackEnv env, io::IoChoice io,
                                                const std::string& dir,
                                                const LabOptions& options) {
  bool created = false;
  db::DatabaseOptions database = options.database;
  if (env.io.sim != nullptr && !env.io.sim->options().real_clock) {
    lab::ApplyProfileIoShape(env.io.sim->options().profile, &database);
  }
  if (absl::Status s = lab::OpenOrCreateDatabase(env, &created, database); !s.ok()) {
    (void)env.Close();
    return InDir(dir, s);
  }
  auto state = std::make_unique<State>();
  state->env = std::move(env);
  state->io = std::move(io);
  state->dir = dir;
  state->session = state->env.db->NewSession();
  state->started_ns = state->env.io.clock->NowNanos();
  return std::unique_ptr<Lab>(new Lab(std::move(state)));
}

absl::StatusOr<std::unique_ptr<Lab>> Lab::Create(const std::string& dir,
                                                 const LabOptions& options) {
  io::IoChoice io;
  absl::StatusOr<lab::RackEnv> env =
      lab::CreateRackEnv(dir, ToEnvOptions(options), options.rack, options.io.mode, &io);
  if (!env.ok()) return InDir(dir, env.status());
  return Start(std::move(*env), std::move(io), dir, options);
}

absl::StatusOr<std::unique_ptr<Lab>> Lab::Create(const std::string& dir) {
  return Create(dir, LabOptions());
}

absl::StatusOr<std::unique_ptr<Lab>> Lab::Open(const std::string& dir) {
  return Open(dir, LabOptions());
}

absl::StatusOr<std::unique_ptr<Lab>> Lab::Open(const std::string& dir, const LabOptions& options) {
  absl::StatusOr<lab::RackEnv> env = lab::OpenRackEnv(dir, ToEnvOptions(options));
  if (!env.ok()) return env.status();  // already names the directory
  io::IoChoice io;
  io.backend = env->io.backend;
  io.backend_reason = env->io.backend_reason;
  io.direct = env->rack->config().direct_io;
  io.mode_reason = "as the rack was created";
  return Start(std::move(*env), std::move(io), dir, options);
}

const io::IoChoice& Lab::io() const { return s_->io; }
const std::string& Lab::dir() const { return s_->dir; }

absl::StatusOr<db::StatementResult> Lab::Sql(std::string_view statement) {
  if (s_->session == nullptr) return absl::FailedPreconditionError("the lab is closed");
  absl::StatusOr<db::StatementResult> r = s_->session->Execute(statement);
  if (r.ok()) s_->cpu_ns += r->cpu_ns;
  return r;
}

absl::StatusOr<std::string> Lab::CellCli(std::string_view command, std::string_view cell) {
  if (s_->session == nullptr) return absl::FailedPreconditionError("the lab is closed");
  absl::StatusOr<lab::CellCliCommand> c = lab::ParseCellCliCommand(command);
  if (!c.ok()) return c.status();
  asmgr::Rack& rack = *s_->env.rack;
  std::vector<uint32_t> cells;
  for (uint32_t i = 0; i < rack.cell_count(); ++i) {
    if (cell.empty() || rack.cell_name(i) == absl::AsciiStrToLower(std::string(cell))) {
      cells.push_back(i);
    }
  }
  if (cells.empty()) return absl::NotFoundError(fmt::format("no cell named {} in the lab", cell));
  std::string out;
  absl::Status s =
      lab::RunCellCli(*c, rack, cells, {}, [&](uint32_t i, const std::string& text) {
        out += cell.empty() ? lab::PrefixLines(text, rack.cell_name(i)) : text;
      });
  if (!s.ok()) return s;
  return out;
}

absl::StatusOr<std::string> Lab::Asmcmd(std::string_view command) {
  if (s_->session == nullptr) return absl::FailedPreconditionError("the lab is closed");
  absl::StatusOr<lab::AsmcmdCommand> c = lab::ParseAsmcmdCommand(command);
  if (!c.ok()) return c.status();
  return lab::RunAsmcmdCommand(*c, *s_->env.rack, &s_->asm_cwd, {});
}

std::string Lab::Feedback(const db::StatementResult& r) { return lab::SqlPlusResult(r); }

std::string Lab::Tkprof(const std::vector<db::StatementResult>& results) {
  std::vector<report::TkprofStatement> t;
  for (const db::StatementResult& r : results) t.push_back(lab::ToTkprof(r));
  return report::RenderTkprof(t);
}

std::string Lab::Json(const db::StatementResult& r) {
  return report::StatementJson(lab::ToReportResult(r));
}

absl::StatusOr<std::string> Lab::Mystats(std::string_view options) const {
  if (s_->session == nullptr) return absl::FailedPreconditionError("the lab is closed");
  absl::StatusOr<report::MystatsOptions> opt = report::ParseMystatsOptions(options);
  if (!opt.ok()) return opt.status();
  const uint64_t now = s_->env.io.clock->NowNanos();
  report::MystatsInput in{.statistics = s_->session->Stats(),
                          .waits = s_->session->Waits(),
                          .interval_s = static_cast<double>(now - s_->started_ns) / 1e9,
                          .cpu_s = static_cast<double>(s_->cpu_ns) / 1e9,
                          .report_time_unix = s_->env.io.clock->UnixSeconds()};
  return report::RenderMystats(in, *opt);
}

asmgr::Rack& Lab::rack() { return *s_->env.rack; }
db::Database& Lab::database() { return *s_->env.db; }
db::Session& Lab::session() { return *s_->session; }
Clock& Lab::clock() { return *s_->env.io.clock; }
io::IoBackend& Lab::backend() { return *s_->env.io.io; }

absl::Status Lab::Abort() {
  if (s_ == nullptr) return absl::OkStatus();
  // Fenced before the session ends: its rollback never reaches the files.
  if (s_->env.io.fence != nullptr) s_->env.io.fence->Fence();
  s_->session.reset();
  return s_->env.Abort();
}

absl::Status Lab::Close() {
  if (s_ == nullptr) return absl::OkStatus();
  s_->session.reset();
  absl::Status s = s_->env.Close();
  return s;
}

}  // namespace cellsim
