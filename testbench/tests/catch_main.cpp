// Catch2 entry point shared by every test program; SystemC tests provide sc_main
// through the library, so this defines main only for Catch.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <systemc>

int sc_main(int, char*[]) { return 0; }

int main(int argc, char* argv[]) { return Catch::Session().run(argc, argv); }
