// The translation unit of the test programs' shared precompiled header
// (CMakeLists.txt: hcasim_test_pch); it defines nothing.
