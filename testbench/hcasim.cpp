// hcasim command-line program; the run/validate commands are wired in as the
// model's modules land.
#include <systemc>

int sc_main(int, char*[]) { return 0; }
