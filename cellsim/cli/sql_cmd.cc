// `cellsim sql DIR -e "STATEMENT" [-e ...] [-f FILE] [--report mystats|tkprof|json|none]`:
// runs statements in one session against the database of a rack directory
// (created on first use), like SQL*Plus with `set timing on`:
//
//   Database altered.  Elapsed: 00:00:05.09  (fast path)
//
// then the chosen report over the statements that ran. With --report json,
// stdout holds only JSON (one object per statement, one per line) and the
// feedback lines go to stderr. The first failing statement stops the run
// (like WHENEVER SQLERROR EXIT FAILURE): its text, the position and the
// message go to stderr; the exit code is 2 for a statement that does not
// parse and 1 for one that fails to run. A script may say otherwise with
// SQL*Plus's WHENEVER SQLERROR (docs/sql.md "Errors in scripts").
#include <algorithm>
#include <cctype>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <optional>
#include <iostream>
#include <sstream>
#include <utility>

#include <unistd.h>

#include "absl/strings/ascii.h"
#include "cellsim/cli/commands.h"
#include "cellsim/cli/interrupt.h"
#include "cellsim/cli/progress.h"
#include "cellsim/cli/rack_env.h"
#include "cellsim/cli/served_commands.h"
#include "cellsim/cli/substitution.h"
#include "cellsim/cli/instance.h"
#include "cellsim/cli/console.h"
#include "nlohmann/json.hpp"
#include "cellsim/db/statement.h"
#include "cellsim/report/json.h"
#include "cellsim/report/mystats.h"
#include "cellsim/report/tkprof.h"
#include "fmt/format.h"
#include "fmt/ranges.h"

namespace cellsim::cli {
namespace {

struct SqlArgs {
  std::string dir;
  std::vector<std::string> statements;
  std::string file;
  std::string report = "none";
  std::string mystats_options;
  DatabaseFlags database;  // --standard-files, --all-objects-rows
  bool interactive = false;  // -i: a SQL> prompt even when standard input is not a terminal
  std::vector<std::string> defines;  // --define NAME=VALUE
  // After DIR: @FILE [ARG ...], as `sqlplus user @script arg`: the script
  // runs as the statement `@FILE ARG ...` after the -e ones.
  std::vector<std::string> script;
  RackOptions rack;
};
// What a client sends the instance serving the rack.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SqlArgs, statements, file, report,
                                                mystats_options, database, interactive, defines,
                                                script)

// `path`'s text: `-` is the console's input, as SQL*Plus reads `sqlplus ...
// < script.sql`; a relative path starts from the console's folder.
absl::StatusOr<std::string> ReadScript(const std::string& path, Console& console) {
  if (path == "-") return ReadAll(console.in, *console.interrupts);
  std::ifstream in(std::filesystem::path(console.cwd) / path);
  if (!in) return absl::NotFoundError(fmt::format("cannot read -f {}: no such file", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

absl::Status PrintReport(const SqlArgs& a, const std::vector<db::StatementResult>& results,
                         const stats::StatValues& stats, const stats::WaitValues& waits,
                         double interval_s, const report::MystatsOptions& mystats,
                         std::ostream& out) {
  if (a.report == "tkprof") {
    std::vector<report::TkprofStatement> t;
    for (const db::StatementResult& r : results) t.push_back(ToTkprof(r));
    out << "\n" << report::RenderTkprof(t);
  } else if (a.report == "mystats") {
    double cpu_s = 0;
    for (const db::StatementResult& r : results) cpu_s += static_cast<double>(r.cpu_ns) / 1e9;
    report::MystatsInput in{.statistics = stats,
                            .waits = waits,
                            .interval_s = interval_s,
                            .cpu_s = cpu_s,
                            .report_time_unix = static_cast<int64_t>(time(nullptr))};
    absl::StatusOr<std::string> text = report::RenderMystats(in, mystats);
    if (!text.ok()) return text.status();
    out << "\n" << *text;
  }
  return absl::OkStatus();
}

// A SQL*Plus command's blank-separated words, uppercased when `upper`.
std::vector<std::string> Words(std::string_view text, bool upper) {
  std::vector<std::string> w;
  std::istringstream in{std::string(text)};
  for (std::string word; in >> word;) {
    if (upper) {
      for (char& c : word) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    w.push_back(word);
  }
  return w;
}

// What a failing statement does: WHENEVER SQLERROR, as SQL*Plus has it.
struct ErrorAction {
  bool exit = true;              // EXIT, or CONTINUE
  std::optional<int> exit_code;  // EXIT n / SUCCESS / FAILURE; unset: 2 (parse) or 1
  std::string finish;            // "commit", "rollback" or "" before going on or out
};

// EXIT's options from word `i` on (after WHENEVER SQLERROR EXIT or CONTINUE,
// or after EXIT / QUIT) into `out`, whose `exit` says which.
absl::Status ParseExitOptions(const std::vector<std::string>& w, size_t i, ErrorAction* out);

// Parses `WHENEVER SQLERROR {EXIT [SUCCESS|FAILURE|WARNING|n] [COMMIT|ROLLBACK]
// | CONTINUE [COMMIT|ROLLBACK|NONE]}` (any case). nullopt: not a WHENEVER
// command. WHENEVER OSERROR is accepted and ignored (cellsim runs no OS
// commands): it returns `current`.
absl::StatusOr<std::optional<ErrorAction>> ParseWhenever(std::string_view text,
                                                         const ErrorAction& current) {
  const std::vector<std::string> w = Words(text, true);
  if (w.empty() || w[0] != "WHENEVER") return std::nullopt;
  auto bad = [&](std::string_view why) {
    return absl::InvalidArgumentError(fmt::format(
        "SP2-0591: {}: {} (WHENEVER SQLERROR {{EXIT [SUCCESS|FAILURE|WARNING|n] "
        "[COMMIT|ROLLBACK] | CONTINUE [COMMIT|ROLLBACK|NONE]}})",
        why, std::string(text)));
  };
  if (w.size() >= 2 && w[1] == "OSERROR") return current;
  if (w.size() < 3 || w[1] != "SQLERROR") return bad("expected SQLERROR EXIT or CONTINUE");
  ErrorAction a;
  a.exit = w[2] == "EXIT";
  if (!a.exit && w[2] != "CONTINUE") return bad(fmt::format("unknown action '{}'", w[2]));
  if (absl::Status st = ParseExitOptions(w, 3, &a); !st.ok()) return bad(std::string(st.message()));
  return a;
}

// Parses SQL*Plus's `EXIT | QUIT [SUCCESS|FAILURE|WARNING|n] [COMMIT|ROLLBACK]`
// (any case): the run ends there, with that code (default 0) after a
// commit (default) or rollback. nullopt: not an EXIT command.
absl::StatusOr<std::optional<ErrorAction>> ParseExit(std::string_view text) {
  const std::vector<std::string> w = Words(text, true);
  if (w.empty() || (w[0] != "EXIT" && w[0] != "QUIT")) return std::nullopt;
  ErrorAction a;
  if (absl::Status st = ParseExitOptions(w, 1, &a); !st.ok()) {
    return absl::InvalidArgumentError(fmt::format(
        "SP2-0591: {}: {} (EXIT [SUCCESS|FAILURE|WARNING|n] [COMMIT|ROLLBACK])", std::string(st.message()),
        std::string(text)));
  }
  if (!a.exit_code.has_value()) a.exit_code = 0;
  return a;
}

// Parses SQL*Plus's `SHUTDOWN [NORMAL | IMMEDIATE | TRANSACTIONAL [LOCAL] |
// ABORT]` (any case): its mode (NORMAL when none is given), and `STARTUP
// [OPEN]`: "STARTUP". nullopt: neither.
absl::StatusOr<std::optional<std::string>> ParseInstanceCommand(std::string_view text) {
  std::vector<std::string> w = Words(text, true);
  if (!w.empty() && !w.back().empty() && w.back().back() == ';') w.back().pop_back();
  if (!w.empty() && w.back().empty()) w.pop_back();
  if (w.empty()) return std::nullopt;
  if (w[0] == "STARTUP") {
    if (w.size() == 1 || (w.size() == 2 && w[1] == "OPEN")) return "STARTUP";
    return absl::InvalidArgumentError(fmt::format(
        "cellsim: {}: cellsim's STARTUP opens the database (STARTUP [OPEN]); FORCE, MOUNT, "
        "NOMOUNT, RESTRICT and PFILE are not supported (for FORCE: SHUTDOWN ABORT, then "
        "STARTUP)",
        std::string(text)));
  }
  if (w[0] != "SHUTDOWN") return std::nullopt;
  const std::string mode = w.size() > 1 ? w[1] : "NORMAL";
  const bool local = w.size() == 3 && mode == "TRANSACTIONAL" && w[2] == "LOCAL";
  if ((w.size() > 2 && !local) ||
      (mode != "NORMAL" && mode != "IMMEDIATE" && mode != "TRANSACTIONAL" && mode != "ABORT")) {
    return absl::InvalidArgumentError(fmt::format(
        "SP2-0717: illegal SHUTDOWN option: {} (SHUTDOWN [NORMAL | IMMEDIATE | TRANSACTIONAL "
        "[LOCAL] | ABORT])",
        std::string(text)));
  }
  return mode;
}

absl::Status ParseExitOptions(const std::vector<std::string>& w, size_t i, ErrorAction* out) {
  ErrorAction& a = *out;
  a.finish = a.exit ? "commit" : "";  // SQL*Plus: EXIT commits unless told; CONTINUE does nothing
  auto bad = [](std::string why) { return absl::InvalidArgumentError(why); };
  if (a.exit && i < w.size() && w[i] != "COMMIT" && w[i] != "ROLLBACK") {
    const std::string& code = w[i++];
    if (code == "SUCCESS") {
      a.exit_code = 0;
    } else if (code == "FAILURE") {
      a.exit_code = 1;
    } else if (code == "WARNING") {
      a.exit_code = 2;
    } else if (!code.empty() && code.size() <= 3 &&
               std::all_of(code.begin(), code.end(), [](char c) { return std::isdigit(c); })) {
      a.exit_code = std::stoi(code) & 255;
    } else {
      return bad(fmt::format("exit code '{}' is not SUCCESS, FAILURE, WARNING or 0-255", code));
    }
  }
  if (i < w.size()) {
    if (w[i] == "COMMIT" || w[i] == "ROLLBACK") {
      a.finish = w[i] == "COMMIT" ? "commit" : "rollback";
    } else if (!a.exit && w[i] == "NONE") {
      a.finish.clear();
    } else {
      return bad(fmt::format("unexpected '{}'", w[i]));
    }
    ++i;
  }
  if (i < w.size()) return bad(fmt::format("unexpected '{}'", w[i]));
  return absl::OkStatus();
}

// SQL*Plus's display commands in a script: SET (AUTOCOMMIT, TIMING,
// AUTOTRACE, DEFINE, SCAN and VERIFY are honoured; the layout options LINESIZE, PAGESIZE, ... are
// accepted and change nothing, as cellsim lays results out its own way), PROMPT (prints its
// text), and COLUMN, CLEAR, BREAK, TTITLE, BTITLE, REM[ARK], PAUSE, SPOOL
// (accepted; SPOOL says it writes nothing). nullopt: not one of them; an
// unknown SET option is SP2-0735.
struct DisplayCommand {
  std::optional<bool> autocommit;  // SET AUTOCOMMIT ON / OFF
  std::optional<bool> timing;      // SET TIMING ON / OFF
  std::optional<bool> serveroutput;  // SET SERVEROUTPUT ON / OFF [SIZE n] [FORMAT ...]
  std::optional<lab::SqlPlusSettings> autotrace;  // SET AUTOTRACE ... (its two fields)
  std::optional<std::string> define;  // SET DEFINE OFF | ON | c (SET SCAN OFF | ON)
  std::optional<bool> verify;      // SET VERIFY ON / OFF
  std::string print;               // PROMPT's text (with its newline)
  std::string note;                // to stderr
};

// Whether `word` is `full` or an abbreviation of it no shorter than `min`
// letters, as SQL*Plus accepts its keywords (AUTOT, AUTOTR, ... AUTOTRACE).
bool Abbreviates(const std::string& word, std::string_view full, size_t min) {
  return word.size() >= min && word.size() <= full.size() && full.substr(0, word.size()) == word;
}

constexpr char kNoPlansNote[] =
    "cellsim sql: SET AUTOTRACE: cellsim has no execution plans; it prints each statement's "
    "statistics (SET AUTOTRACE ON STATISTICS)\n";

// SET AUTOT[RACE] {OFF | ON | TRACE[ONLY]} [EXP[LAIN]] [STAT[ISTICS]]
// (`w` its words, `upper_w` in capitals): the autotrace settings it leaves.
// Without EXPLAIN or STATISTICS both are meant; cellsim has statistics only
// (no execution plans): a command that asks for plans sets `*note`.
absl::StatusOr<lab::SqlPlusSettings> ParseAutotrace(const std::vector<std::string>& w,
                                                    const std::vector<std::string>& upper_w,
                                                    std::string* note) {
  lab::SqlPlusSettings s;
  const std::string mode = upper_w.size() > 2 ? upper_w[2] : "";
  const bool off = mode == "OFF";
  s.autotrace_traceonly = Abbreviates(mode, "TRACEONLY", 5);
  if (!off && mode != "ON" && !s.autotrace_traceonly) {
    return absl::InvalidArgumentError(fmt::format(
        "SP2-0618: usage: SET AUTOT[RACE] {{OFF | ON | TRACE[ONLY]}} [EXP[LAIN]] [STAT[ISTICS]] "
        "(found '{}')", mode.empty() ? "" : w[2]));
  }
  bool explain = false, statistics = false;
  for (size_t i = 3; i < upper_w.size(); ++i) {
    if (Abbreviates(upper_w[i], "EXPLAIN", 3)) {
      explain = true;
    } else if (Abbreviates(upper_w[i], "STATISTICS", 4)) {
      statistics = true;
    } else {
      return absl::InvalidArgumentError(fmt::format(
          "SP2-0618: usage: SET AUTOT[RACE] {{OFF | ON | TRACE[ONLY]}} [EXP[LAIN]] "
          "[STAT[ISTICS]] (found '{}')", w[i]));
    }
  }
  if (off) return lab::SqlPlusSettings{};
  s.autotrace_statistics = statistics || !explain;
  if (explain || !statistics) *note = kNoPlansNote;  // plans asked for
  return s;
}

absl::StatusOr<std::optional<DisplayCommand>> ParseDisplayCommand(std::string_view text) {
  const std::vector<std::string> w = Words(text, false), upper_w = Words(text, true);
  if (w.empty()) return std::nullopt;
  const std::string& first = upper_w[0];
  DisplayCommand d;
  if (first == "PROMPT") {
    const size_t at = text.find_first_not_of(" \t", text.find_first_of(" \t\n") == std::string_view::npos
                                                        ? text.size()
                                                        : text.find_first_of(" \t\n"));
    d.print = std::string(at == std::string_view::npos ? "" : text.substr(at)) + "\n";
    return d;
  }
  if ((first == "SHOW" || first == "SHO") && w.size() == 2 && upper_w[1] == "USER") {
    d.print = "USER is \"CELLSIM\"\n";  // the one schema (docs/sql.md)
    return d;
  }
  if (first == "SPOOL") {
    d.note = "cellsim sql: SPOOL writes nothing here (ignored): redirect the command's output "
             "instead\n";
    return d;
  }
  for (std::string_view ignored : {"COLUMN", "COL", "CLEAR", "BREAK", "TTITLE", "BTITLE", "REM",
                                   "REMARK", "PAUSE"}) {
    if (first == ignored) return d;
  }
  if (first != "SET") return std::nullopt;
  if (w.size() < 2) return absl::InvalidArgumentError("SP2-0265: SET needs an option");
  const std::string& option = upper_w[1];
  if (option == "AUTOCOMMIT" || option == "AUTO") {
    const std::string v = w.size() > 2 ? upper_w[2] : "";
    if (v == "ON" || v == "IMMEDIATE" ||
        (!v.empty() && std::all_of(v.begin(), v.end(), [](char c) { return std::isdigit(c); }) &&
         v != "0")) {
      d.autocommit = true;
    } else if (v == "OFF" || v == "0") {
      d.autocommit = false;
    } else {
      return absl::InvalidArgumentError(fmt::format(
          "SP2-0267: autocommit option '{}' out of range (ON, OFF, IMMEDIATE or n)", v));
    }
    return d;
  }
  if (option == "TIMING" || option == "TIMI") {
    const std::string v = w.size() > 2 ? upper_w[2] : "";
    if (v != "ON" && v != "OFF") {
      return absl::InvalidArgumentError(
          fmt::format("SP2-0265: timing must be set equal to ON or OFF (found '{}')", v));
    }
    d.timing = v == "ON";
    return d;
  }
  if (Abbreviates(option, "SERVEROUTPUT", 9)) {
    const std::string v = w.size() > 2 ? upper_w[2] : "";
    if (v != "ON" && v != "OFF") {
      return absl::InvalidArgumentError(
          fmt::format("SP2-0265: serveroutput must be set equal to ON or OFF (found '{}')", v));
    }
    d.serveroutput = v == "ON";
    return d;
  }
  if (Abbreviates(option, "AUTOTRACE", 5)) {
    absl::StatusOr<lab::SqlPlusSettings> at = ParseAutotrace(w, upper_w, &d.note);
    if (!at.ok()) return at.status();
    d.autotrace = *at;
    return d;
  }
  const std::string value = w.size() > 2 ? upper_w[2] : "";
  if (Abbreviates(option, "DEFINE", 3) || option == "SCAN") {
    if (option == "SCAN" && value != "ON" && value != "OFF") {
      return absl::InvalidArgumentError(fmt::format("SP2-0265: scan must be set equal to ON or OFF (found '{}')", value));
    }
    d.define = w.size() > 2 ? w[2] : "";
    return d;
  }
  if (Abbreviates(option, "VERIFY", 3)) {
    if (value != "ON" && value != "OFF") {
      return absl::InvalidArgumentError(
          fmt::format("SP2-0265: verify must be set equal to ON or OFF (found '{}')", value));
    }
    d.verify = value == "ON";
    return d;
  }
  static const char* kLayout[] = {
      "LINESIZE", "LINES", "PAGESIZE", "PAGES", "ECHO", "FEEDBACK", "FEED",
      "HEADING", "HEA", "TRIMSPOOL", "TRIMS",
      "TRIMOUT", "TRIM", "LONG", "NUMWIDTH", "NUM", "TERMOUT", "TERM", "TAB", "WRAP", "NULL",
      "NUMFORMAT", "SQLPROMPT", "TIME", "COLSEP", "ARRAYSIZE", "ARRAY",
      "UNDERLINE", "NEWPAGE", "EMBEDDED", "LONGCHUNKSIZE", "MARKUP",
      "SQLBLANKLINES", "FLUSH", "SHOWMODE", "CONCAT", "ESCAPE", "RECSEP", "HEADSEP"};
  for (const char* o : kLayout) {
    if (option == o) return d;
  }
  return absl::InvalidArgumentError(
      fmt::format("SP2-0735: unknown SET option beginning \"{}\"", w[1]));
}

// SQL*Plus's EXEC[UTE] call: the block BEGIN call; END; (any other
// statement as it is).
std::string ExecAsBlock(const std::string& statement) {
  const auto blank = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  size_t begin = 0;
  while (begin < statement.size() && blank(statement[begin])) ++begin;
  size_t word = begin;
  while (word < statement.size() && !blank(statement[word])) ++word;
  const std::string first = absl::AsciiStrToUpper(statement.substr(begin, word - begin));
  if (first != "EXEC" && first != "EXECUTE") return statement;
  size_t end = statement.size();
  while (end > word && (statement[end - 1] == ';' || blank(statement[end - 1]))) --end;
  while (word < end && blank(statement[word])) ++word;
  return fmt::format("BEGIN {}; END;", statement.substr(word, end - word));
}

// Where a statement came from: the folder of its script ("" for -e and
// standard input: the current folder) and how deep @ nested it.
struct Origin {
  std::string dir;
  int depth = 0;
};

// What a statement gets once SHUTDOWN has closed the database.
constexpr std::string_view kOracleNotAvailable = "ORA-01034: ORACLE not available";

// What a run says when its session ends in a transaction.
constexpr std::string_view kRolledBackAtEnd =
    "cellsim sql: the session ended with uncommitted changes: rolled back (unlike SQL*Plus, "
    "cellsim sql does not commit at the end: end the script with COMMIT, or EXIT, which "
    "commits)\n";

// What a run of statements did.
struct ScriptRun {
  std::vector<db::StatementResult> results;  // of the statements that succeeded
  absl::Status failure;                      // the error that stopped the run
  size_t failed_index = 0;  // counted from the run's first statement
  size_t numbered = 0;      // statements before the ones RunStatements runs now
  size_t total = 0;         // statements in the run (those @ added too), once it has ended
  std::string failed_text;  // its statement
  ErrorAction on_error;  // cellsim's default: stop at the first error
  size_t continued = 0;  // statements that failed under WHENEVER SQLERROR CONTINUE
  std::optional<int> exited;  // the code of the EXIT / QUIT that ended the run
  // SHUTDOWN or STARTUP pause the run: RunSession ends the session and closes
  // the database, or opens it and starts a session, then runs `rest` (the
  // statements after the command, and where they come from).
  std::string shutdown;                 // the SHUTDOWN mode asked for
  std::optional<OpenedDatabase> opened;  // what STARTUP opened
  std::vector<std::string> rest;
  std::vector<Origin> rest_origins;
  bool paused() const { return !shutdown.empty() || opened.has_value(); }
  // The run's last session ended in a transaction, which rolled back: said
  // after what ended the run (FinishRun: a failure, a signal), which came first.
  bool rolled_back_at_end = false;
  bool autocommit = false;    // SET AUTOCOMMIT ON: a commit after each statement
  lab::SqlPlusSettings display;  // SET TIMING, SET AUTOTRACE
  bool interactive = false;   // at a SQL> prompt: an error is printed alone
  SubstitutionVariables variables;  // DEFINE, &name
  bool can_ask = false;       // a terminal (or the prompt) to ask an undefined &name's value of
  Console* console = nullptr;  // where it prints and reads (set before it runs)
};

// A display command's settings, from now on in `run`; SET DEFINE's error.
absl::Status ApplyDisplayCommand(const DisplayCommand& dc, ScriptRun* run) {
  if (dc.autocommit.has_value()) run->autocommit = *dc.autocommit;
  if (dc.timing.has_value()) run->display.timing = *dc.timing;
  if (dc.serveroutput.has_value()) run->display.serveroutput = *dc.serveroutput;
  if (dc.autotrace.has_value()) {
    run->display.autotrace_statistics = dc.autotrace->autotrace_statistics;
    run->display.autotrace_traceonly = dc.autotrace->autotrace_traceonly;
  }
  if (dc.verify.has_value()) run->variables.SetVerify(*dc.verify);
  if (dc.define.has_value()) return run->variables.SetDefine(*dc.define);
  return absl::OkStatus();
}

// SQL*Plus's question for an undefined &name: at the SQL> prompt or a
// terminal, "Enter value for name: " and a line of standard input; nullopt
// elsewhere (a script with no terminal: the statement fails, naming it).
std::optional<std::string> AskValue(const ScriptRun& run, std::string_view name) {
  if (!run.can_ask) return std::nullopt;
  Console& c = *run.console;
  *c.out << "Enter value for " << absl::AsciiStrToLower(std::string(name)) << ": " << std::flush;
  std::string line;
  if (ReadPromptLine(c.in, *c.interrupts, &line) != PromptRead::kLine) return std::nullopt;
  return line;
}

// Statement `i`'s substitution variables replaced (with SET VERIFY's lines
// printed), or a SQL*Plus command of them run (DEFINE, UNDEFINE: true).
absl::StatusOr<bool> Substitute(std::vector<std::string>& statements, size_t i, ScriptRun* run,
                                std::ostream& feedback) {
  std::string verify;
  absl::StatusOr<std::string> text = run->variables.Substitute(
      statements[i], [run](std::string_view name) { return AskValue(*run, name); },
      db::IsSqlPlusCommandStart(statements[i]) ? nullptr : &verify);
  if (!text.ok()) return text.status();
  statements[i] = *std::move(text);
  feedback << verify;
  std::optional<absl::StatusOr<std::string>> command = run->variables.Command(statements[i]);
  if (!command.has_value()) return false;
  if (!command->ok()) return command->status();
  feedback << **command << std::flush;
  return true;
}

// A script that @ runs: its statements, where they come from, and the
// arguments after its name (&1, &2 ... in it).
struct NestedRun {
  std::vector<std::string> statements;
  Origin origin;
  std::vector<std::string> arguments;
};

// SQL*Plus's @script, @@script and START script [arg ...]: the script's
// statements, to run in place of the command (.sql added to a name without
// an extension; @@ is relative to the calling script's folder, @ and START
// to the current one (`cwd`; "": the process's), as in SQL*Plus). nullopt:
// not such a command. SP2-0310 for a file that cannot be read, SP2-0309 past
// 20 levels.
absl::StatusOr<std::optional<NestedRun>> NestedScript(std::string_view text, const Origin& from,
                                                      const std::string& cwd) {
  const std::vector<std::string> w = Words(text, false);
  if (w.empty()) return std::nullopt;
  std::string name;
  bool relative_to_script = false;
  size_t name_at = 1;  // the word holding the name (0: glued to @ / @@)
  if (w[0].rfind("@@", 0) == 0) {
    name_at = w[0].size() > 2 ? 0 : 1;
    name = name_at == 0 ? w[0].substr(2) : (w.size() > 1 ? w[1] : "");
    relative_to_script = true;
  } else if (w[0][0] == '@') {
    name_at = w[0].size() > 1 ? 0 : 1;
    name = name_at == 0 ? w[0].substr(1) : (w.size() > 1 ? w[1] : "");
  } else if (Words(w[0], true)[0] == "START") {
    name = w.size() > 1 ? w[1] : "";
  } else {
    return std::nullopt;
  }
  if (name.empty()) return absl::InvalidArgumentError("SP2-1506: START, @ or @@ needs a file name");
  if (from.depth >= 20) {
    return absl::InvalidArgumentError(fmt::format(
        "SP2-0309: SQL*Plus command procedures may only be nested to a depth of 20 ({})", name));
  }
  std::filesystem::path path(name);
  if (path.extension().empty()) path += ".sql";
  if (path.is_relative() && relative_to_script && !from.dir.empty()) {
    path = from.dir / path;
  } else if (path.is_relative() && !cwd.empty()) {
    path = cwd / path;
  }
  std::ifstream in(path);
  if (!in) {
    return absl::NotFoundError(fmt::format("SP2-0310: unable to open file \"{}\"", path.string()));
  }
  std::stringstream ss;
  ss << in.rdbuf();
  NestedRun run{db::SplitStatements(ss.str()), Origin{path.parent_path().string(), from.depth + 1},
                {}};
  for (size_t k = name_at + 1; k < w.size(); ++k) {  // a quoted argument loses its quotes
    const std::string& arg = w[k];
    const bool quoted = arg.size() >= 2 && (arg[0] == '\'' || arg[0] == '"') && arg.back() == arg[0];
    run.arguments.push_back(quoted ? arg.substr(1, arg.size() - 2) : arg);
  }
  return run;
}

// SQL*Plus's EXIT / QUIT (the transaction committed or rolled back first),
// SHUTDOWN and STARTUP, in `session` (null: none, the database is shut
// down). SHUTDOWN is refused in a transaction (ORA-01097); an instance's is
// asked for now, through the console; RunSession closes the database once
// the session has ended (run->shutdown). STARTUP opens it again (run->opened;
// ORA-01081 while it is open). True when `text` ended or paused the run
// (run->failure set when EXIT's COMMIT or ROLLBACK failed), false when it is
// none of them; an error: the command's, as a failed statement's.
absl::StatusOr<bool> RunEndingCommand(db::Session* session, const std::string& text,
                                      ScriptRun* run) {
  absl::StatusOr<std::optional<ErrorAction>> exit = ParseExit(text);
  if (!exit.ok()) return exit.status();
  if (exit->has_value()) {
    absl::StatusOr<db::StatementResult> finished =
        session != nullptr ? session->Execute((*exit)->finish) : db::StatementResult();
    if (!finished.ok()) {
      run->failure = finished.status();
      return true;
    }
    run->exited = (*exit)->exit_code;
    return true;
  }
  absl::StatusOr<std::optional<std::string>> command = ParseInstanceCommand(text);
  if (!command.ok()) return command.status();
  if (!command->has_value()) return false;
  Console& c = *run->console;
  if (**command == "STARTUP") {
    if (session != nullptr) {
      return absl::FailedPreconditionError(
          "ORA-01081: cannot start already-running ORACLE - shut it down first");
    }
    if (c.startup == nullptr) {
      return absl::FailedPreconditionError("cellsim: STARTUP: this run cannot open the database");
    }
    absl::StatusOr<OpenedDatabase> opened = c.startup();
    if (!opened.ok()) return opened.status();
    run->opened = *opened;
    return true;
  }
  if (session == nullptr) return absl::UnavailableError(std::string(kOracleNotAvailable));
  if (session->InTransaction()) {
    return absl::FailedPreconditionError(
        "ORA-01097: cannot shutdown while in a transaction - commit or rollback first");
  }
  if (c.shutdown != nullptr) {
    if (absl::Status asked = c.shutdown(**command); !asked.ok()) return asked;
  }
  run->shutdown = **command;
  return true;
}

// Runs `statements` in `session` in order, printing each one's feedback; a
// WHENEVER SQLERROR command changes what an error does from there on; @
// puts a script's statements in its place (in `statements` and `origins`).
// Without a session (after SHUTDOWN) each SQL statement fails with
// ORA-01034 while SQL*Plus's own commands work. SHUTDOWN or STARTUP pause
// the run: the statements after them are left in run->rest.
void RunStatements(db::Session* session, std::vector<std::string>& statements,
                   std::vector<Origin>& origins, const SqlArgs& a, ProgressBar& bar,
                   ScriptRun* run) {
  Console& c = *run->console;
  std::ostream& feedback = a.report == "json" ? *c.err : *c.out;
  for (size_t i = 0; i < statements.size(); ++i) {
    if (c.interrupts->flag()->cancelled()) {
      run->failure = absl::CancelledError(fmt::format("{} (not started)", db::kCancelMessage));
      run->failed_index = run->numbered + i;
      run->failed_text = statements[i];
      return;
    }
    absl::StatusOr<bool> defined = Substitute(statements, i, run, feedback);
    if (defined.ok() && *defined) continue;
    absl::StatusOr<std::optional<ErrorAction>> whenever =
        defined.ok() ? ParseWhenever(statements[i], run->on_error) : defined.status();
    if (whenever.ok() && whenever->has_value()) {
      run->on_error = **whenever;
      continue;
    }
    if (whenever.ok()) {
      auto nested = NestedScript(statements[i], origins[i], c.cwd);
      if (nested.ok() && nested->has_value()) {
        NestedRun& inner = **nested;
        const auto at = static_cast<std::ptrdiff_t>(i) + 1;
        origins.insert(origins.begin() + at, inner.statements.size(), inner.origin);
        statements.insert(statements.begin() + at, inner.statements.begin(), inner.statements.end());
        for (size_t k = 0; k < inner.arguments.size(); ++k) {  // &1, &2 ...
          run->variables.Define(std::to_string(k + 1), inner.arguments[k]);
        }
        continue;
      }
      if (!nested.ok()) whenever = nested.status();
    }
    if (whenever.ok()) {
      // EXIT, QUIT or SHUTDOWN: the run ends here (or the command failed).
      absl::StatusOr<bool> ended = RunEndingCommand(session, statements[i], run);
      if (ended.ok() && *ended) {
        if (!run->failure.ok()) {  // EXIT's COMMIT failed: the run ends with it
          run->failed_index = run->numbered + i;
          run->failed_text = statements[i];
        }
        if (run->paused()) {
          const auto next = statements.begin() + static_cast<std::ptrdiff_t>(i) + 1;
          run->rest.assign(next, statements.end());
          run->rest_origins.assign(origins.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                                   origins.end());
          run->numbered += i + 1;
        }
        return;
      }
      if (!ended.ok()) whenever = ended.status();
    }
    if (whenever.ok()) {
      absl::StatusOr<std::optional<DisplayCommand>> display = ParseDisplayCommand(statements[i]);
      if (display.ok() && display->has_value()) {
        const DisplayCommand& dc = **display;
        if (absl::Status st = ApplyDisplayCommand(dc, run); !st.ok()) whenever = st;
        feedback << dc.print << std::flush;
        *c.err << dc.note << std::flush;
        continue;
      }
      if (!display.ok()) whenever = display.status();
    }
    if (whenever.ok() && session == nullptr) {  // shut down
      whenever = absl::UnavailableError(std::string(kOracleNotAvailable));
    }
    absl::StatusOr<db::StatementResult> r =
        whenever.ok() ? session->Execute(ExecAsBlock(statements[i]))
                      : absl::StatusOr<db::StatementResult>(whenever.status());
    bar.Finish();
    if (!r.ok()) {
      // What a failed block wrote before its error, as SQL*Plus prints it.
      const absl::optional<absl::Cord> lines = r.status().GetPayload(db::kDbmsOutputPayload);
      const std::string output = lines && run->display.serveroutput ? std::string(*lines) : "";
      if (!run->on_error.finish.empty() && session != nullptr) {
        (void)session->Execute(run->on_error.finish);
      }
      if (run->on_error.exit || r.status().code() == absl::StatusCode::kCancelled) {
        run->failure = r.status();
        run->failed_index = run->numbered + i;
        run->failed_text = statements[i];
        feedback << output << std::flush;
        return;
      }
      ++run->continued;
      if (run->interactive) {
        *c.err << std::string(r.status().message()) << "\n" << std::flush;
      } else {
        *c.err << fmt::format("cellsim sql: statement {} failed (continuing):\n  {}\n{}\n",
                              run->numbered + i + 1, statements[i],
                              std::string(r.status().message()))
               << std::flush;
      }
      feedback << output << std::flush;
      continue;
    }
    feedback << SqlPlusResult(*r, run->display) << std::flush;  // a harness or a pipe sees each acknowledgement at once
    if (a.report == "json") {
      *c.out << report::StatementJson(ToReportResult(*r)) << "\n" << std::flush;
    }
    const bool dml = r->kind == "INSERT" || r->kind == "UPDATE" || r->kind == "DELETE" ||
                     r->kind == "MERGE";
    run->results.push_back(std::move(*r));
    if (run->autocommit && dml) {  // SET AUTOCOMMIT ON, as SQL*Plus: a commit after each DML
      absl::StatusOr<db::StatementResult> c = session->Execute("commit");
      if (!c.ok()) {
        run->failure = c.status();
        run->failed_index = run->numbered + i;
        run->failed_text = statements[i];
        return;
      }
      feedback << "Commit complete.\n" << std::flush;
    }
  }
}

// SQL*Plus at a terminal: "SQL> ", then numbered lines ("  2  ") until the
// statement is complete: a line ending in ';', a line holding only '/' (alone
// at the prompt: the last statement again; what ends a PL/SQL block, whose
// lines may be blank or end in ';'), or a SQL*Plus command's line. A
// blank line drops an unfinished statement, as does Ctrl-C while typing. Each
// runs as in a script, except that an error is printed and the prompt comes
// back (SQL*Plus's WHENEVER SQLERROR CONTINUE, until one says EXIT), and
// Ctrl-C while a statement runs undoes it (ORA-01013) and returns to the
// prompt. EXIT, QUIT or the end of input ends the session; SHUTDOWN or
// STARTUP pause it (RunStatements), and it goes on from run->rest.
void RunInteractive(db::Session* session, const SqlArgs& a, ProgressBar& bar, ScriptRun* run) {
  Console& c = *run->console;
  run->interactive = true;
  run->on_error.exit = false;
  std::string buffer, last;
  int line_no = 1;
  while (true) {
    if (!run->rest.empty()) {  // the rest of the line that SHUTDOWN or STARTUP paused
      std::vector<std::string> statements = std::exchange(run->rest, {});
      std::vector<Origin> origins = std::exchange(run->rest_origins, {});
      RunStatements(session, statements, origins, a, bar, run);
      if (!run->failure.ok() || run->exited.has_value() || run->paused()) return;
      continue;
    }
    *c.out << (buffer.empty() ? std::string("SQL> ") : fmt::format("{:3}  ", line_no))
           << std::flush;
    std::string line;
    const PromptRead got = ReadPromptLine(c.in, *c.interrupts, &line);
    if (got != PromptRead::kLine) {
      *c.out << "\n" << std::flush;
      if (got == PromptRead::kEnd) return;
      buffer.clear();
      line_no = 1;
      continue;
    }
    std::string_view trimmed = line;
    while (!trimmed.empty() && std::isspace(static_cast<unsigned char>(trimmed.back()))) {
      trimmed.remove_suffix(1);
    }
    while (!trimmed.empty() && std::isspace(static_cast<unsigned char>(trimmed.front()))) {
      trimmed.remove_prefix(1);
    }
    // A PL/SQL block takes blank lines and ';' until a line holding only '/'.
    const bool block = db::IsPlsqlBlock(buffer.empty() ? std::string(trimmed) : buffer);
    if (trimmed.empty() && block && !buffer.empty()) {
      buffer += '\n';
      ++line_no;
      continue;
    }
    if (trimmed.empty()) {  // a blank line: nothing, or the unfinished statement dropped
      if (!buffer.empty()) last = buffer;
      buffer.clear();
      line_no = 1;
      continue;
    }
    if (trimmed == "/") {
      if (buffer.empty()) buffer = last;
      if (buffer.empty()) continue;
    } else {
      if (!buffer.empty()) buffer += '\n';
      buffer += line;
      if (block || (!(line_no == 1 && db::IsSqlPlusCommandStart(trimmed)) && trimmed.back() != ';')) {
        ++line_no;
        continue;
      }
    }
    last = buffer;
    std::vector<std::string> statements = db::SplitStatements(buffer);
    buffer.clear();
    line_no = 1;
    std::vector<Origin> origins(statements.size());
    RunStatements(session, statements, origins, a, bar, run);
    if (run->failure.code() == absl::StatusCode::kCancelled &&
        c.interrupts->signal() == SIGINT) {  // Ctrl-C: the statement undone, the prompt back
      *c.err << std::string(run->failure.message()) << "\n" << std::flush;
      run->failure = absl::OkStatus();
      c.interrupts->Forget();
      continue;
    }
    if (!run->failure.ok() || run->exited.has_value() || run->paused()) return;
  }
}

// What a run of `cellsim sql` has to do: its statements (the -e ones, then
// the -f script's or standard input's) and where each comes from, whether it
// prompts, and its report's options.
struct SqlWork {
  std::vector<std::string> statements;
  std::vector<Origin> origins;
  bool interactive = false;
  std::string file;  // the script read after the -e statements ("-": standard input)
  report::MystatsOptions mystats;
};

// `a`'s work, its script read through `c`. InvalidArgument: a usage error
// (exit code 2).
absl::StatusOr<SqlWork> GatherWork(const SqlArgs& a, Console& c) {
  SqlWork w;
  w.statements = a.statements;
  if (!a.script.empty()) {
    if (a.script[0].empty() || a.script[0][0] != '@') {
      return absl::InvalidArgumentError(fmt::format(
          "unexpected argument '{}' after the rack directory: a statement goes in -e '...', a "
          "script in -f FILE or @FILE (as sqlplus's @script)", a.script[0]));
    }
    std::string call = a.script[0];
    for (size_t k = 1; k < a.script.size(); ++k) {  // its arguments, &1 ...
      const bool blank = a.script[k].find_first_of(" \t") != std::string::npos;
      call += blank ? " '" + a.script[k] + "'" : " " + a.script[k];
    }
    w.statements.push_back(call);
  }
  w.origins.resize(w.statements.size());
  // At a terminal with nothing to run: SQL*Plus's prompt.
  w.interactive = a.interactive || (w.statements.empty() && a.file.empty() && isatty(c.in) != 0);
  if (w.interactive && (!w.statements.empty() || !a.file.empty())) {
    return absl::InvalidArgumentError(
        "-i (a SQL> prompt) reads its statements from standard input: give no -e or -f with it");
  }
  // Without -e, -f or @FILE, a script on standard input (not a terminal) runs.
  w.file = !a.file.empty() ? a.file : (w.statements.empty() && !w.interactive ? "-" : "");
  if (!w.file.empty()) {
    absl::StatusOr<std::string> script = ReadScript(w.file, c);
    if (!script.ok() && script.status().code() == absl::StatusCode::kCancelled) {
      return script.status();
    }
    if (!script.ok()) return absl::InvalidArgumentError(script.status().message());
    const std::string folder =
        w.file == "-" ? "" : std::filesystem::path(w.file).parent_path().string();
    const Origin origin{folder, 0};
    for (std::string& s : db::SplitStatements(*script)) {
      w.statements.push_back(std::move(s));
      w.origins.push_back(origin);
    }
  }
  if (w.statements.empty() && !w.interactive) {
    return absl::InvalidArgumentError(
        "nothing to run: give -e STATEMENT, -f FILE, or a script on standard input "
        "(`cellsim sql DIR < script.sql`)");
  }
  absl::StatusOr<report::MystatsOptions> mystats = report::ParseMystatsOptions(a.mystats_options);
  if (!mystats.ok()) {
    return absl::InvalidArgumentError("--mystats: " + std::string(mystats.status().message()));
  }
  w.mystats = *std::move(mystats);
  return w;
}

int ExitCodeOf(const absl::Status& s) {
  return s.code() == absl::StatusCode::kInvalidArgument ? kExitUsage : kExitFailure;
}

// A session of `db` for `w`'s run: `client_pid`'s (an instance's client,
// V$SESSION's PROCESS), which waits for a row another session holds, as
// Oracle's do; nullopt: this process's run, given ORA-00054 at once (it has
// no other session).
std::unique_ptr<db::Session> NewRunSession(db::Database& db, std::optional<pid_t> client_pid,
                                           const Console& c, ProgressBar& bar) {
  std::unique_ptr<db::Session> session = db.NewSession();
  session->SetCancelFlag(c.interrupts->flag());
  if (client_pid.has_value()) {
    session->SetClient("cellsim sql", std::to_string(*client_pid));
    session->SetRowLockWait(db::kRowLockWaitForever);
  }
  session->SetProgressCallback(
      [&bar](const db::CreationProgress& p) { bar.Update(p.file, p.bytes_done, p.bytes_total); });
  return session;
}

// Runs `w` in a new session of `db` on run->console (which must be set):
// its statements, then the report `a` asks for (*reported: its error), over
// the statistics of every session the run had. SHUTDOWN (but ABORT, which
// ends the run) ends the session and closes the database (Console::close);
// the run goes on without one until STARTUP opens it again
// (Console::startup) in a new session. `client_pid`: see NewRunSession.
void RunSession(db::Database& db, const Clock& clock, const SqlArgs& a, SqlWork& w,
                std::optional<pid_t> client_pid, ScriptRun* run, absl::Status* reported) {
  Console& c = *run->console;
  std::ostream& feedback = a.report == "json" ? *c.err : *c.out;
  run->can_ask = w.interactive || (isatty(c.in) != 0 && w.file != "-");
  for (const std::string& d : a.defines) {
    const size_t eq = d.find('=');
    run->variables.Define(d.substr(0, eq), eq == std::string::npos ? "" : d.substr(eq + 1));
  }
  stats::StatValues stats;
  stats::WaitValues waits;
  uint64_t elapsed_ns = 0;
  OpenedDatabase open{.db = &db, .clock = &clock};
  std::vector<std::string> statements = w.statements;
  std::vector<Origin> origins = w.origins;
  ProgressBar bar("formatting", /*force=*/false, c.err_fd);
  while (true) {
    std::unique_ptr<db::Session> session;  // none while shut down
    stats::StatValues stats_before;
    stats::WaitValues waits_before;
    uint64_t t0 = 0;
    if (open.db != nullptr) {
      session = NewRunSession(*open.db, client_pid, c, bar);
      stats_before = session->Stats();
      waits_before = session->Waits();
      t0 = open.clock->NowNanos();
    }
    if (w.interactive) {
      RunInteractive(session.get(), a, bar, run);
    } else {
      RunStatements(session.get(), statements, origins, a, bar, run);
    }
    if (session != nullptr) {
      stats += session->Stats() - stats_before;
      waits += session->Waits() - waits_before;
      elapsed_ns += open.clock->NowNanos() - t0;
    }
    if (session != nullptr && session->HasUncommittedChanges()) {  // ending it undoes them: say so
      if (run->paused()) {
        *c.err << kRolledBackAtEnd << std::flush;
      } else {
        run->rolled_back_at_end = true;
      }
    }
    session.reset();
    // An instance's ABORT ends it, and this run with it (Serve).
    if (!run->paused() || (run->shutdown == "ABORT" && c.shutdown != nullptr)) break;
    if (!run->shutdown.empty()) {  // the session has ended: the database closes
      const std::string mode = std::exchange(run->shutdown, "");
      const absl::Status closed =
          c.close != nullptr ? c.close(mode)
                             : absl::UnimplementedError("this console cannot close its database");
      if (!closed.ok()) {
        run->failure = closed;
        run->failed_index = run->numbered - 1;
        run->failed_text = "SHUTDOWN " + mode;
        break;
      }
      feedback << ShutdownFeedback(mode) << std::flush;
      open = OpenedDatabase();
    } else {
      open = *std::exchange(run->opened, std::nullopt);
      feedback << "ORACLE instance started.\nDatabase mounted.\nDatabase opened.\n" << std::flush;
    }
    if (!w.interactive) {  // (RunInteractive goes on from run->rest itself)
      statements = std::exchange(run->rest, {});
      origins = std::exchange(run->rest_origins, {});
    }
  }
  run->total = run->numbered + statements.size();
  *reported = PrintReport(a, run->results, stats, waits, static_cast<double>(elapsed_ns) / 1e9,
                          w.mystats, *c.out);
  *c.out << std::flush;
}

// After an instance's SHUTDOWN ABORT, which ends the instance as kill -9
// ends a process, and the run with it: the run's exit code, 1 (said on the
// console) when statements other than EXIT came after it, which nothing runs.
int NotRunAfterAbort(const ScriptRun& run) {
  size_t left = 0;
  for (const std::string& s : run.rest) {
    absl::StatusOr<std::optional<ErrorAction>> exit = ParseExit(s);
    if (!exit.ok() || !exit->has_value()) ++left;
  }
  if (left == 0) return 0;
  *run.console->err << fmt::format(
                           "cellsim sql: SHUTDOWN ABORT ended the instance as kill -9 does: the "
                           "{} statement(s) after it were not run (the next `cellsim sql` or "
                           "`cellsim instance` opens the database, with instance recovery: run "
                           "them there)\n",
                           left)
                    << std::flush;
  return kExitFailure;
}

// The end of a run: its failure (or notes) on the console, and its exit
// code. `closed`: the rack's close (OK when an instance keeps it open).
int FinishRun(const SqlWork& w, const ScriptRun& run, const absl::Status& reported,
              const absl::Status& closed) {
  Console& c = *run.console;
  if (!run.failure.ok()) {
    *c.err << fmt::format("cellsim sql: statement {} failed:\n  {}\n{}\n", run.failed_index + 1,
                          run.failed_text, std::string(run.failure.message()))
           << (run.rolled_back_at_end ? kRolledBackAtEnd : "") << std::flush;
    if (run.failure.code() == absl::StatusCode::kCancelled) return c.interrupts->ExitCode();
    return run.on_error.exit_code.value_or(ExitCodeOf(run.failure));
  }
  if (run.continued > 0 && !w.interactive) {
    *c.err << fmt::format("cellsim sql: {} of {} statements failed (WHENEVER SQLERROR CONTINUE)\n",
                          run.continued, run.total)
           << std::flush;
  }
  // A signal after the last statement committed (even while the rack closed)
  // cannot undo anything, but the command still reports it.
  if (c.interrupts->flag()->cancelled()) {
    *c.err << (w.interactive ? "cellsim sql: ended by " + c.interrupts->cause() +
                                   " at the SQL> prompt\n"
                             : run.rolled_back_at_end
                                 ? "cellsim sql: interrupted after the last statement completed\n"
                                 : "cellsim sql: interrupted after the last statement completed "
                                   "(nothing to undo)\n")
           << (run.rolled_back_at_end ? kRolledBackAtEnd : "") << std::flush;
    return c.interrupts->ExitCode();
  }
  if (run.rolled_back_at_end) *c.err << kRolledBackAtEnd << std::flush;
  for (const absl::Status* s : {&reported, &closed}) {
    if (!s->ok()) {
      *c.err << "cellsim sql: " << s->message() << "\n" << std::flush;
      return ExitCodeOf(*s);
    }
  }
  return run.exited.value_or(0);
}

void RunSql(const SqlArgs& a, CommandContext& ctx) {
  const std::string cmd = "sql";
  SqlArgs sent = a;  // to the instance serving the rack, if one does
  std::error_code ec;
  if (!sent.file.empty() && sent.file != "-") {  // the instance's folder is not ours
    sent.file = std::filesystem::absolute(sent.file, ec).string();
  }
  if (std::optional<int> code = RunInInstance(a.dir, a.rack, cmd, nlohmann::json(sent).dump())) {
    ctx.exit_code = *code;
    return;
  }
  Console console;
  absl::StatusOr<SqlWork> work = GatherWork(a, console);
  if (!work.ok()) return Fail(ctx, cmd, std::string(work.status().message()), kExitUsage);

  // Ctrl-C / kill from here on: a lock wait ends, the running statement
  // undoes itself (ORA-01013), the rack closes cleanly.
  InterruptScope interrupts;
  std::optional<RackEnv> env =
      OpenRackAndDatabase(a.dir, a.rack, a.database, cmd, ctx);
  if (!env.has_value()) return;
  bool open = true;  // SHUTDOWN closes it, STARTUP opens it again
  console.close = [&env, &open](const std::string& mode) {
    open = false;  // ABORT: as kill -9 leaves the files, the next open recovers
    return mode == "ABORT" ? env->Abort() : env->Close();
  };
  console.startup = [&]() -> absl::StatusOr<OpenedDatabase> {
    absl::StatusOr<RackEnv> again = OpenDatabaseEnv(a.dir, a.rack, a.database, std::cerr);
    if (!again.ok()) return again.status();
    env = *std::move(again);
    open = true;
    return OpenedDatabase{.db = env->db.get(), .clock = env->io.clock};
  };
  ScriptRun run;
  run.console = &console;
  absl::Status reported;
  RunSession(*env->db, *env->io.clock, a, *work, /*client_pid=*/std::nullopt, &run, &reported);
  const absl::Status closed = open ? env->Close() : absl::OkStatus();
  ctx.exit_code = FinishRun(*work, run, reported, closed);
}

}  // namespace

std::string ShutdownFeedback(const std::string& mode) {
  return mode == "ABORT" ? "ORACLE instance shut down.\n"
                         : "Database closed.\nDatabase dismounted.\nORACLE instance shut down.\n";
}

absl::StatusOr<RackEnv> OpenDatabaseEnv(const std::string& dir, const RackOptions& rack,
                                        const DatabaseFlags& flags, std::ostream& report,
                                        const std::function<absl::Status()>& between) {
  absl::StatusOr<RackEnv> env = OpenRackEnv(dir, rack);
  if (!env.ok()) return env.status();
  bool created = false;
  // The profile's I/O shape, if any, and the flags.
  const db::DatabaseOptions options = flags.Apply(env->io.db_options);
  absl::Status s = between != nullptr ? between() : absl::OkStatus();
  if (s.ok()) s = OpenOrCreateDatabase(*env, &created, options);
  if (!s.ok()) {
    (void)env->Close();
    return s;
  }
  ReportOpen(*env->db, created, flags.standard_files, report);
  return env;
}

std::optional<RackEnv> OpenRackAndDatabase(const std::string& dir, const RackOptions& rack,
                                           const DatabaseFlags& flags,
                                           const std::string& command, CommandContext& ctx,
                                           const std::function<absl::Status()>& between) {
  absl::StatusOr<RackEnv> env = OpenDatabaseEnv(dir, rack, flags, std::cerr, between);
  if (!env.ok()) {
    Fail(ctx, command, env.status());
    if (env.status().code() == absl::StatusCode::kCancelled) ctx.exit_code = InterruptExitCode();
    return std::nullopt;
  }
  return *std::move(env);
}

void ReportOpen(const db::Database& db, bool created, bool standard_files, std::ostream& out) {
  if (created) {
    out << fmt::format("Database {} created (control files {}).\n", db.name(),
                       fmt::join(db.control_files(), ", "));
  } else if (standard_files) {
    WarnStandardFilesTooLate(db, "cellsim sql", out);
  }
  // What mounting had to undo after a crash or a kill (an interrupted creation).
  for (const std::string& action : db.recovery_actions()) {
    out << fmt::format("Database {} recovery: {}\n", db.name(), action);
  }
  out << std::flush;
}

int ServeSql(lab::RackEnv& env, const std::string& request, pid_t client_pid, Console& console) {
  SqlArgs a;
  try {
    a = nlohmann::json::parse(request).get<SqlArgs>();
  } catch (const nlohmann::json::exception& e) {
    *console.err << "cellsim sql: the instance cannot read this client's request (a cellsim of "
                    "another version?): "
                 << e.what() << "\n" << std::flush;
    return kExitUsage;
  }
  absl::StatusOr<SqlWork> work = GatherWork(a, console);
  if (!work.ok()) {
    *console.err << "cellsim sql: " << work.status().message() << "\n" << std::flush;
    return work.status().code() == absl::StatusCode::kCancelled ? console.interrupts->ExitCode()
                                                                 : kExitUsage;
  }
  if (a.database.standard_files) {
    WarnStandardFilesTooLate(*env.db, "cellsim sql", *console.err);
  }
  ScriptRun run;
  run.console = &console;
  absl::Status reported;
  RunSession(*env.db, *env.io.clock, a, *work, client_pid, &run, &reported);
  const int code = FinishRun(*work, run, reported, absl::OkStatus());
  return code == 0 && run.shutdown == "ABORT" ? NotRunAfterAbort(run) : code;
}

void RegisterSql(CLI::App& app, CommandContext& ctx) {
  auto [sql, args] = AddCommand<SqlArgs>(
      app, ctx, "sql",
      "Run SQL statements (CREATE/ALTER/DROP TABLESPACE, ALTER DATABASE ADD/DROP LOGFILE, "
      "ALTER SESSION/SYSTEM SET, CREATE/ALTER/DROP TABLE, indexes, sequences, views, DML, COMMIT/ROLLBACK/SAVEPOINT, SELECT, SHOW PARAMETER, anonymous PL/SQL blocks) in one session against the database of rack DIR (created on first "
      "use); see docs/sql.md",
      RunSql);
  AddRackDirArgument(sql, &args->dir);
  sql->add_option("script", args->script,
                  "@FILE [ARG ...]: run a script as `sqlplus user @FILE ARG` does (.sql added "
                  "when FILE has no extension; ARGs are &1, &2, ...), after any -e statements");
  sql->add_option("-e,--execute", args->statements, "A statement to run (repeatable, in order)");
  sql->add_option("-f,--file", args->file,
                  "A script of statements separated by ';' (run after the -e statements); - or, "
                  "without -e and -f, a script piped in: standard input");
  sql->add_option("--report", args->report,
                  "What to print after the statements: mystats (session statistics delta), "
                  "tkprof, json (one object per statement) or none")
      ->check(CLI::IsMember({"mystats", "tkprof", "json", "none"}))
      ->capture_default_str();
  sql->add_option("--mystats", args->mystats_options,
                  "Options of the mystats report, as `@mystats stop ...`: t=N l=LIKE n=NOTLIKE "
                  "r=REGEXP");
  AddDatabaseFlags(sql, &args->database);
  sql->add_flag("-i,--interactive", args->interactive,
                "Read statements one at a time at a SQL> prompt, as SQL*Plus does (the default "
                "when standard input is a terminal and neither -e nor -f is given): an error "
                "is printed and the prompt comes back; Ctrl-C undoes the running statement");
  sql->add_option("--define", args->defines,
                  "NAME=VALUE: a substitution variable, as SQL*Plus's DEFINE NAME = VALUE "
                  "(&NAME in a statement is VALUE; repeatable)")
      ->check([](const std::string& d) {
        const size_t eq = d.find('=');
        return eq == std::string::npos || eq == 0 ? std::string("expected NAME=VALUE, found '" + d + "'")
                                                  : std::string();
      });
  AddRackOptions(sql, &args->rack);
}

}  // namespace cellsim::cli
