//===- RunCommand.h - run a command in a test, capturing its output -*- C++ -*-===//

#ifndef TESSEL_AUTOTUNE_TEST_RUNCOMMAND_H
#define TESSEL_AUTOTUNE_TEST_RUNCOMMAND_H

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace tessel::test {

/// Runs `cmd` with a shell, appends its stdout and stderr to `output`, returns its exit code
/// (-1 when it did not exit normally).
inline int RunCommand(const std::string &cmd, std::string &output) {
  FILE *p = popen((cmd + " 2>&1").c_str(), "r");
  char buf[1024];
  while (p && fgets(buf, sizeof buf, p))
    output += buf;
  int status = p ? pclose(p) : -1;
  return status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

} // namespace tessel::test

#endif
