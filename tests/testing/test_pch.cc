// Compiled only to build tests/testing/test_pch.h once for every test binary.
