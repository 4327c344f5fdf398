// libFuzzer supplies main(); the SystemC library the model's folders link still
// asks for sc_main, which no harness calls.
extern "C" int sc_main(int, char*[]) { return 0; }
