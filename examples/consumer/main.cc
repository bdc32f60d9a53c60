// The seed statement through cellsim.h only: a lab (rack + database) in DIR,
// one redo log group added by the fastest path the rack allows, reported.
#include <iostream>

#include "cellsim/cellsim.h"

int main(int argc, char** argv) {
  auto lab = cellsim::Lab::Create(argc > 1 ? argv[1] : "/tmp/cellsim-consumer");
  if (!lab.ok()) return std::cerr << lab.status() << "\n", 1;
  std::cout << "I/O: " << (*lab)->io().Describe() << "\n";
  auto r = (*lab)->Sql("alter database add logfile thread 2 group 5 ('+DATA','+RECO') size 256m");
  if (!r.ok()) return std::cerr << r.status() << "\n", 1;
  std::cout << cellsim::Lab::Feedback(*r) << cellsim::Lab::Tkprof({*r});
  return (*lab)->Close().ok() ? 0 : 1;
}
