// The shared executor: the worker threads every fan-out in cellsim runs on
// (ForkJoin over cells and mirror copies, the creation engine's batches in
// flight), instead of a new std::thread per call.
//
// Run() never queues behind a busy worker: it hands the task to an idle worker
// or starts a new one. So a task may block on another task (a batch waiting
// for its cells, a fork-join inside a fork-join) without deadlock, and the
// concurrency a caller asks for is the concurrency it gets. Workers are kept
// for reuse until the executor is destroyed; the pool grows to the largest
// number of tasks ever in flight at once (tens in cellsim) and no further.
//
// Thread safety: every method may be called from any thread, including from a
// task. Tasks must not throw.
#ifndef CELLSIM_BASE_EXECUTOR_H_
#define CELLSIM_BASE_EXECUTOR_H_

#include <cstddef>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <thread>
#include <type_traits>
#include <vector>

#include "cellsim/base/mutex.h"

namespace cellsim {

class Executor {
 public:
  Executor() = default;
  // Waits for the tasks already handed over, then joins the workers.
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // The process-wide executor (created on first use, never destroyed: its idle
  // workers end with the process).
  static Executor* Shared();

  // Runs `task` on an idle worker, or on a new worker when none is idle.
  void Run(std::function<void()> task) ABSL_LOCKS_EXCLUDED(mu_);

  // Run() with a future for the result.
  template <typename F>
  std::future<std::invoke_result_t<F>> Submit(F f) {
    auto task = std::make_shared<std::packaged_task<std::invoke_result_t<F>()>>(std::move(f));
    std::future<std::invoke_result_t<F>> result = task->get_future();
    Run([task] { (*task)(); });
    return result;
  }

  // Worker threads started so far (for tests and diagnostics).
  size_t workers() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  void WorkerLoop() ABSL_LOCKS_EXCLUDED(mu_);

  mutable Mutex mu_;
  CondVar work_;
  std::deque<std::function<void()>> queue_ ABSL_GUARDED_BY(mu_);
  size_t idle_ ABSL_GUARDED_BY(mu_) = 0;  // workers waiting on work_
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> workers_ ABSL_GUARDED_BY(mu_);
};

}  // namespace cellsim

#endif  // CELLSIM_BASE_EXECUTOR_H_
