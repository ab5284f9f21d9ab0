// libFuzzer's entry point for one of the package's fuzz entries, chosen at compile time:
//   clang -fsanitize=fuzzer -DENTRY=hal_fuzz_trace Fuzz/harness.c -lFuzzEntries ...
#include <stddef.h>
#include <stdint.h>

int ENTRY(const uint8_t *data, long size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    return ENTRY(data, (long)size);
}
