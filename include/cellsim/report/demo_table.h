// The side-by-side table `cellsim demo` prints: one row per statistic that is
// non-zero on any path, one column per creation path (zero-fill, smart, fast),
// plus elapsed and CPU time, the speed-up against the first path and the waits
// (count / total seconds). Fits a 120-column terminal for three paths:
//
//   Statistic                                                           zero-fill              smart               fast
//   ----------------------------------------------------------- ------------------ ------------------ ------------------
//   elapsed (s)                                                              37.12               5.09               0.03
//   cell physical IO bytes saved during optimized file creation                  0     17,179,869,184     17,179,869,184
//
// Usage:
//   std::string text = RenderDemoTable(demo);  // demo: report/results.h
//
// Thread-safety: pure function.
#ifndef CELLSIM_REPORT_DEMO_TABLE_H_
#define CELLSIM_REPORT_DEMO_TABLE_H_

#include <string>

#include "cellsim/report/results.h"

namespace cellsim::report {

std::string RenderDemoTable(const DemoResult& demo);

}  // namespace cellsim::report

#endif  // CELLSIM_REPORT_DEMO_TABLE_H_
