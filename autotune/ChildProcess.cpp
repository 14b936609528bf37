//===- ChildProcess.cpp - runs a tool in a child process with a timeout -*- C++ -*-===//

#include "autotune/ChildProcess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace tessel::autotune {

absl::StatusOr<ChildResult> RunChild(std::vector<std::string> args, double timeoutSeconds) {
  if (args.empty())
    return absl::InvalidArgumentError("no command to run");
  // Everything the child needs, allocated before the fork.
  std::vector<char *> argv;
  for (std::string &a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0)
    return absl::InternalError(std::string("cannot create a pipe: ") + strerror(errno));
  pid_t pid = fork();
  if (pid < 0) {
    close(pipefd[0]);
    close(pipefd[1]);
    return absl::InternalError("cannot start " + args[0] + ": " + strerror(errno));
  }
  if (pid == 0) {
    // The child dies with the sweep (killed or interrupted): no orphan keeps running.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() == 1)
      _exit(127);
    dup2(pipefd[1], 1);
    dup2(pipefd[1], 2);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(pipefd[1]);
  ChildResult result;
  auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutSeconds);
  while (true) {
    double left =
        std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      result.timedOut = true;
      kill(pid, SIGKILL);
      break;
    }
    struct pollfd pfd = {pipefd[0], POLLIN, 0};
    int ready = poll(&pfd, 1, int(std::min(left, 1.0) * 1000) + 1);
    if (ready > 0) {
      char buf[4096];
      ssize_t n = read(pipefd[0], buf, sizeof buf);
      if (n <= 0)
        break; // the child closed its end (exited)
      result.output.append(buf, size_t(n));
    }
  }
  close(pipefd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFSIGNALED(status))
    result.signal = WTERMSIG(status);
  else if (WIFEXITED(status))
    result.exitCode = WEXITSTATUS(status);
  return result;
}

std::string OutputTail(const std::string &output, size_t maxBytes) {
  return output.size() > maxBytes ? "..." + output.substr(output.size() - maxBytes) : output;
}

} // namespace tessel::autotune
