// The granite multi-tool binary.
#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  std::fprintf(stderr, "usage: granite coordinator|worker|client|local [flags]\n");
  return 2;
}
