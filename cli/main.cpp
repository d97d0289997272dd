// The spatialsim front end: parses the command line, then hands the resolved configuration to a command.
#include <iostream>

int main() {
  std::cout << "spatialsim: front end not written yet\n";
  return 0;
}
