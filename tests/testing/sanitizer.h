// Which sanitizer a test binary is built with, for tests that size
// themselves by it. Campaigns (hundreds of power cuts, flipped bytes,
// processes) run under ASan+UBSan with their CI size; TSan costs 5-15x more
// per case and looks for data races, which a fraction of the cases exercise
// as well as all of them (the same code paths, the same threads), so they run
// a smaller share there. Plain builds run the full size.
#ifndef CELLSIM_TESTS_TESTING_SANITIZER_H_
#define CELLSIM_TESTS_TESTING_SANITIZER_H_

namespace cellsim::testing {

enum class Sanitizer { kNone, kAddress, kThread };

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
inline constexpr Sanitizer kSanitizer = Sanitizer::kThread;
#elif __has_feature(address_sanitizer)
inline constexpr Sanitizer kSanitizer = Sanitizer::kAddress;
#else
inline constexpr Sanitizer kSanitizer = Sanitizer::kNone;
#endif
#elif defined(__SANITIZE_THREAD__)
inline constexpr Sanitizer kSanitizer = Sanitizer::kThread;
#elif defined(__SANITIZE_ADDRESS__)
inline constexpr Sanitizer kSanitizer = Sanitizer::kAddress;
#else
inline constexpr Sanitizer kSanitizer = Sanitizer::kNone;
#endif

// `plain` in a build without sanitizers, `asan` under ASan, `tsan` under TSan.
template <typename T>
constexpr T BySanitizer(T plain, T asan, T tsan) {
  switch (kSanitizer) {
    case Sanitizer::kAddress: return asan;
    case Sanitizer::kThread: return tsan;
    case Sanitizer::kNone: break;
  }
  return plain;
}

}  // namespace cellsim::testing

#endif  // CELLSIM_TESTS_TESTING_SANITIZER_H_
