#include "cellsim/base/executor.h"

#include <utility>

namespace cellsim {

Executor::~Executor() {
  std::vector<std::thread> workers;
  {
    MutexLock l(&mu_);
    stopping_ = true;
    work_.SignalAll();
    workers.swap(workers_);
  }
  for (std::thread& t : workers) t.join();
}

Executor* Executor::Shared() {
  static Executor* executor = new Executor();
  return executor;
}

void Executor::Run(std::function<void()> task) {
  MutexLock l(&mu_);
  queue_.push_back(std::move(task));
  // Every queued task needs a worker of its own: a waiting one if there are
  // enough (each takes one task), else a new one.
  if (idle_ >= queue_.size()) {
    work_.Signal();
  } else {
    workers_.emplace_back(&Executor::WorkerLoop, this);
  }
}

size_t Executor::workers() const {
  MutexLock l(&mu_);
  return workers_.size();
}

void Executor::WorkerLoop() {
  mu_.Lock();
  for (;;) {
    while (queue_.empty() && !stopping_) {
      ++idle_;
      work_.Wait(&mu_);
      --idle_;
    }
    if (queue_.empty()) break;  // stopping, and nothing left to run
    std::function<void()> task = std::move(queue_.front());
    queue_.pop_front();
    mu_.Unlock();
    task();
    task = nullptr;  // release what the task captured before taking the lock
    mu_.Lock();
  }
  mu_.Unlock();
}

}  // namespace cellsim
