// Ctrl-C and kill for the commands that run statements (sql, demo): while an
// InterruptScope lives, SIGINT, SIGTERM and SIGHUP only set InterruptFlag(),
// which the session checks at its safe points (Session::SetCancelFlag), so
// the statement's own undo runs and the command ends with ORA-01013 and exit
// code 128 + signal. A second signal a second or more after the first takes
// its default action (the process dies, as kill -9 would; the next open
// recovers); one sooner is the same interrupt delivered twice (`timeout` and
// some shells signal the process and its group) and is ignored.
#ifndef CELLSIM_CLI_INTERRUPT_H_
#define CELLSIM_CLI_INTERRUPT_H_

#include <csignal>
#include <string>

#include "cellsim/base/cancel.h"

namespace cellsim::cli {

// The process-wide flag the handlers set.
const CancelFlag* InterruptFlag();
// The signal that set it (0 when none).
int InterruptSignal();
// 128 + InterruptSignal() (the shell's convention), or 1 when none arrived.
int InterruptExitCode();

// Forgets a handled interrupt (an interactive session's cancelled statement
// is undone and the prompt comes back): the flag is clear and the next
// signal is a first one again.
void ForgetInterrupt();

// What interrupts one session: the process's own signals
// (ProcessInterrupts()), or, for a session `cellsim instance` serves, the
// signals its client forwards (instance.cc). Thread-safe: the flag is set
// from a signal handler or another thread, and read by the session's.
class Interrupts {
 public:
  virtual ~Interrupts() = default;
  // Set by an interrupt; the session checks it (Session::SetCancelFlag).
  virtual const CancelFlag* flag() const = 0;
  // The signal that set it (0 when none).
  virtual int signal() const = 0;
  // Forgets a handled interrupt (ForgetInterrupt, for this source).
  virtual void Forget() = 0;
  // 128 + signal() (the shell's convention), or 1 when none arrived.
  int ExitCode() const { return signal() == 0 ? 1 : 128 + signal(); }
  // What sent it, for messages ("ended by a signal at the SQL> prompt").
  virtual std::string cause() const { return "a signal"; }
};

// The process's signals: InterruptFlag(), InterruptSignal(), ForgetInterrupt().
Interrupts& ProcessInterrupts();

// Reads one line of `fd` (without its '\n') at an interactive prompt,
// watching `interrupts` while it waits: SIGINT is forgotten once it has
// dropped the line being typed (kInterrupted, as at a shell's prompt); SIGTERM
// or SIGHUP end the input with the flag set (kEnd), as does end of input.
// The process's signals need a live InterruptScope to be seen.
enum class PromptRead { kLine, kInterrupted, kEnd };
PromptRead ReadPromptLine(int fd, Interrupts& interrupts, std::string* line);

class InterruptScope {
 public:
  InterruptScope();   // installs the handlers
  // Restores the previous dispositions, unless a signal arrived (the command
  // is ending with 128 + signal; a repeat stays one interrupt).
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

 private:
  struct sigaction old_[3];
};

}  // namespace cellsim::cli

#endif  // CELLSIM_CLI_INTERRUPT_H_
